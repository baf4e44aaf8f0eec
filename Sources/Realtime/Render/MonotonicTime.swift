import Glibc

/// Nanoseconds on the monotonic clock, for the audio thread and the voice workers: the vDSO's
/// `clock_gettime`, a read of shared memory that neither blocks nor enters the kernel.
/// - Thread: any. Real-time safe.
@_noAllocation @_noLocks
func monotonicNanoseconds() -> Int {
    var now = timespec()
    _ = _unsafePerformance { clock_gettime(CLOCK_MONOTONIC, &now) }
    return now.tv_sec * 1_000_000_000 + now.tv_nsec
}
