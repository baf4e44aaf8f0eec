// Interposes the C allocator in the test binary: symbols defined in the executable win over
// libc's, so every malloc in the process (Swift's runtime included) comes through here first and
// is passed on to glibc's own entry points (__libc_malloc and friends).
#define _GNU_SOURCE
#include "CAllocationCounter.h"
#include <stddef.h>
#include <errno.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);

#if defined(__has_feature)
#  if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#    define STACCATO_SANITIZED 1
#  endif
#endif

#ifdef STACCATO_SANITIZED
// Sanitizers own the allocator; interposing it too crashes at start. Counting is unavailable.
int staccato_allocation_counting_available(void) { return 0; }
void staccato_allocation_counting_begin(void) {}
void staccato_allocation_counting_end(void) {}
long staccato_allocation_count(void) { return -1; }
long staccato_free_count(void) { return -1; }
#else
int staccato_allocation_counting_available(void) { return 1; }

static __thread int counting;
static __thread long allocations;
static __thread long frees;

void staccato_allocation_counting_begin(void) { allocations = 0; frees = 0; counting = 1; }
void staccato_allocation_counting_end(void) { counting = 0; }
long staccato_allocation_count(void) { return allocations; }
long staccato_free_count(void) { return frees; }

void *malloc(size_t size) { if (counting) allocations++; return __libc_malloc(size); }
void *calloc(size_t count, size_t size) { if (counting) allocations++; return __libc_calloc(count, size); }
void *realloc(void *pointer, size_t size) {
    if (counting) { allocations++; if (pointer) frees++; }
    return __libc_realloc(pointer, size);
}
void free(void *pointer) { if (counting && pointer) frees++; __libc_free(pointer); }
void *memalign(size_t alignment, size_t size) { if (counting) allocations++; return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { if (counting) allocations++; return __libc_memalign(alignment, size); }
void *valloc(size_t size) { if (counting) allocations++; return __libc_memalign(4096, size); }
int posix_memalign(void **result, size_t alignment, size_t size) {
    if (counting) allocations++;
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    void *pointer = __libc_memalign(alignment, size);
    if (!pointer) return ENOMEM;
    *result = pointer;
    return 0;
}
#endif
