import Glibc

/// Seconds on the monotonic clock (`clock_gettime(CLOCK_MONOTONIC)`), for measuring durations.
public enum MonotonicClock {
    /// - Thread: any. Real-time safe (a vDSO call, no allocation).
    public static func seconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// Nanoseconds on the same clock: integers, so per-period timestamps keep full precision.
    /// - Thread: any. Real-time safe (a vDSO call, no allocation).
    public static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    }
}
