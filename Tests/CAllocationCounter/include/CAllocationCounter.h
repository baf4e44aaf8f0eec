#ifndef STACCATO_ALLOCATION_COUNTER_H
#define STACCATO_ALLOCATION_COUNTER_H
// Counts heap calls made by one thread, for the test that the render thread allocates nothing.
// The test binary interposes malloc and friends (see counter.c); counting is per thread (or every thread but those that leave themselves out), so the
// XCTest machinery on other threads does not disturb the count.

/// 1 when counting works; 0 in a sanitizer build, where the sanitizer owns the allocator.
int staccato_allocation_counting_available(void);
/// Starts counting on the calling thread from zero.
void staccato_allocation_counting_begin(void);
/// Stops counting on the calling thread (and on every thread, after the call below); the counts
/// read after it are those of the calling thread, or of every thread.
void staccato_allocation_counting_end(void);
/// Starts counting from zero on the calling thread (the render thread) and on every thread named
/// `staccato-...` (the voice workers it hands work to), but those that ignore themselves. The
/// thread that calls `end` reads the total.
void staccato_allocation_counting_begin_every_thread(void);
/// Leaves the calling thread out of counting on every thread (the test's control thread, which
/// allocates as a control thread may).
void staccato_allocation_counting_ignore_this_thread(int ignore);
/// Allocations (malloc, calloc, realloc, memalign, posix_memalign, aligned_alloc, valloc) the
/// counting thread made since `begin`.
long staccato_allocation_count(void);
/// Frees (free, and realloc of a non-null pointer) the counting thread made since `begin`.
long staccato_free_count(void);
#endif
