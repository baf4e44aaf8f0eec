#include "CStackPrefault.h"

// Not inlined, so its frame lies below the caller's; the array is volatile, so the writes stay.
__attribute__((noinline)) void staccato_prefault_stack(void) {
    volatile unsigned char pages[STACCATO_PREFAULTED_STACK_BYTES];
    for (unsigned long offset = 0; offset < sizeof pages; offset += 4096) pages[offset] = 0;
    pages[sizeof pages - 1] = 0;
}
