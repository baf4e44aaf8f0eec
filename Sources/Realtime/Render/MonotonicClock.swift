import Glibc

/// Seconds on the monotonic clock (`clock_gettime(CLOCK_MONOTONIC)`), for measuring durations: the
/// one clock of the audio thread, the voice workers, the device layer and the fronts.
public enum MonotonicClock {
    /// - Thread: any. Real-time safe (a vDSO call, no allocation).
    @_noAllocation @_noLocks
    public static func seconds() -> Double {
        let now = read()
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// Nanoseconds on the same clock: integers, so per-period timestamps keep full precision.
    /// - Thread: any. Real-time safe (a vDSO call, no allocation).
    @_noAllocation @_noLocks
    public static func nanoseconds() -> UInt64 {
        let now = read()
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    }

    /// The one call to the C clock. `clock_gettime` of CLOCK_MONOTONIC is a vDSO read that neither
    /// allocates nor locks; the performance checker cannot see into C, so it is vouched for here.
    @_noAllocation @_noLocks
    static func read() -> timespec {
        var now = timespec()
        _ = _unsafePerformance { clock_gettime(CLOCK_MONOTONIC, &now) }
        return now
    }
}
