/// One period of a device stream's callback, in nanoseconds on `MonotonicClock`.
/// - Thread: any. A value.
public struct PeriodTiming: Sendable, Equatable {
    /// When the period's work could begin: the device thread's wake-up from its wait (ALSA), the
    /// entry of the server's process callback (JACK), the pacing clock's tick (null).
    public var wakeup: UInt64
    public var renderStart: UInt64
    public var renderEnd: UInt64

    /// - Thread: any.
    @_noAllocation @_noLocks
    public init(wakeup: UInt64, renderStart: UInt64, renderEnd: UInt64) {
        self.wakeup = wakeup
        self.renderStart = renderStart
        self.renderEnd = renderEnd
    }
}
