// Interposes the C allocator in the test binary: symbols defined in the executable win over
// libc's, so every malloc in the process (Swift's runtime included) comes through here first and
// is passed on to glibc's own entry points (__libc_malloc and friends).
#define _GNU_SOURCE
#include "CAllocationCounter.h"
#include <stddef.h>
#include <errno.h>
#include <string.h>
#include <sys/prctl.h>

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
void staccato_allocation_counting_begin_every_thread(void) {}
void staccato_allocation_counting_ignore_this_thread(int ignore) { (void)ignore; }
long staccato_allocation_count(void) { return -1; }
long staccato_free_count(void) { return -1; }
#else
int staccato_allocation_counting_available(void) { return 1; }

static __thread int counting;
static __thread int ignored;
// The thread that began counting on every thread.
static __thread int beginner;
static __thread long allocations;
static __thread long frees;
// Every thread's calls, while `counting_everywhere`: the beginner's and those of threads named
// `staccato-...` (the voice workers name themselves so), threads that ignore themselves aside.
// Other threads are left out: a thread pool's idle thread from an earlier test, exiting in the
// middle, frees its own memory, which is no call of the renderer's.
static int counting_everywhere;
static long shared_allocations;
static long shared_frees;

void staccato_allocation_counting_begin(void) { allocations = 0; frees = 0; counting = 1; }
void staccato_allocation_counting_end(void) {
    counting = 0;
    if (__atomic_load_n(&counting_everywhere, __ATOMIC_ACQUIRE)) {
        __atomic_store_n(&counting_everywhere, 0, __ATOMIC_RELEASE);
        beginner = 0;
        allocations = __atomic_load_n(&shared_allocations, __ATOMIC_ACQUIRE);
        frees = __atomic_load_n(&shared_frees, __ATOMIC_ACQUIRE);
    }
}
void staccato_allocation_counting_begin_every_thread(void) {
    __atomic_store_n(&shared_allocations, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&shared_frees, 0, __ATOMIC_RELAXED);
    allocations = 0; frees = 0;
    beginner = 1;
    __atomic_store_n(&counting_everywhere, 1, __ATOMIC_RELEASE);
}
void staccato_allocation_counting_ignore_this_thread(int ignore) { ignored = ignore; }
long staccato_allocation_count(void) { return allocations; }
long staccato_free_count(void) { return frees; }

// Whether the calling thread's calls count while counting on every thread. The name is read at
// every call (a system call that allocates nothing), not kept: a worker names itself after its
// first calls.
static inline int counts_everywhere(void) {
    if (ignored || !__atomic_load_n(&counting_everywhere, __ATOMIC_RELAXED)) return 0;
    if (beginner) return 1;
    char name[16] = {0};
    if (prctl(PR_GET_NAME, name, 0, 0, 0) != 0) return 0;
    return strncmp(name, "staccato-", 9) == 0;
}
static inline void count_allocation(void) {
    if (counting) allocations++;
    else if (counts_everywhere()) __atomic_fetch_add(&shared_allocations, 1, __ATOMIC_RELAXED);
}
static inline void count_free(void) {
    if (counting) frees++;
    else if (counts_everywhere()) __atomic_fetch_add(&shared_frees, 1, __ATOMIC_RELAXED);
}

void *malloc(size_t size) { count_allocation(); return __libc_malloc(size); }
void *calloc(size_t count, size_t size) { count_allocation(); return __libc_calloc(count, size); }
void *realloc(void *pointer, size_t size) {
    count_allocation();
    if (pointer) count_free();
    return __libc_realloc(pointer, size);
}
void free(void *pointer) { if (pointer) count_free(); __libc_free(pointer); }
void *memalign(size_t alignment, size_t size) { count_allocation(); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { count_allocation(); return __libc_memalign(alignment, size); }
void *valloc(size_t size) { count_allocation(); return __libc_memalign(4096, size); }
int posix_memalign(void **result, size_t alignment, size_t size) {
    count_allocation();
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    void *pointer = __libc_memalign(alignment, size);
    if (!pointer) return ENOMEM;
    *result = pointer;
    return 0;
}
#endif
