#ifndef STACCATO_ALLOCATION_COUNTER_H
#define STACCATO_ALLOCATION_COUNTER_H
// Counts heap calls made by one thread, for the test that the render thread allocates nothing.
// The test binary interposes malloc and friends (see counter.c); counting is per thread, so the
// XCTest machinery on other threads does not disturb the count.

/// 1 when counting works; 0 in a sanitizer build, where the sanitizer owns the allocator.
int staccato_allocation_counting_available(void);
/// Starts counting on the calling thread from zero.
void staccato_allocation_counting_begin(void);
/// Stops counting on the calling thread.
void staccato_allocation_counting_end(void);
/// Allocations (malloc, calloc, realloc, memalign, posix_memalign, aligned_alloc, valloc) the
/// counting thread made since `begin`.
long staccato_allocation_count(void);
/// Frees (free, and realloc of a non-null pointer) the counting thread made since `begin`.
long staccato_free_count(void);
#endif
