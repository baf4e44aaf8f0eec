import Glibc

/// Seconds on the monotonic clock (`clock_gettime(CLOCK_MONOTONIC)`), for measuring durations.
public enum MonotonicClock {
    /// - Thread: any. Real-time safe (a vDSO call, no allocation).
    public static func seconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
