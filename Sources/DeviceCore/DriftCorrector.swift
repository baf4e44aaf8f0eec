/// Holds a duplex stream's latency steady when capture and playback run on two clocks (two sound
/// cards, or a card and a server): fed the measured latency once a period, it says when to take
/// out or put in a captured frame.
///
/// Guarantees: a pure value (no clock, no device), so it is tested on synthetic delay series;
/// allocation-free, for the device thread.
///
/// How: the measured latency jitters by up to a period (the two devices' pointers move at
/// slightly different moments), so it is averaged over windows of half a second (at least 16
/// periods). The first window includes the devices settling and counts for nothing; the second's
/// average is the baseline. With one clock the average stays put; with two it creeps, and once it
/// is more than a period from the baseline, the corrector asks for as many frames as it is off
/// (at most one a period of the next window) to pull it back. A step of half a period or more
/// between two windows is a hiccup that moved where the frames sit, not drift: it becomes the new
/// baseline, since undoing it would only eat the playback queue's margin.
///
/// - Thread: any. A value; the device thread's own copy.
public struct DriftCorrector: Sendable {
    /// - Thread: any.
    public let periodFrameCount: Int
    /// Periods averaged into one latency figure.
    /// - Thread: any.
    public let windowPeriods: Int
    private var baseline: Double?
    private var previousWindow: Double?
    private var sum = 0.0
    private var sampleCount = 0
    private var windowCount = 0
    /// The latest window's average latency, in frames; nil until the first window after the
    /// settling one.
    /// - Thread: any.
    public private(set) var averageLatency: Double?

    /// - Thread: any.
    public init(sampleRate: Int, periodFrameCount: Int) {
        self.periodFrameCount = max(1, periodFrameCount)
        windowPeriods = max(16, sampleRate / 2 / self.periodFrameCount)
    }

    /// Forgets everything measured: after the devices restart, the latency is a new one.
    /// - Thread: any.
    @_noAllocation @_noLocks
    public mutating func reset() {
        baseline = nil
        previousWindow = nil
        sum = 0
        sampleCount = 0
        windowCount = 0
        averageLatency = nil
    }

    /// Takes one period's latency measurement, in frames, and returns the correction to make over
    /// the next window: negative, that many captured frames to drop (latency too high: the
    /// playback clock is the slower); positive, to repeat; 0 mostly.
    /// - Thread: any.
    @_noAllocation @_noLocks
    public mutating func add(latencyFrameCount: Int) -> Int {
        sum += Double(latencyFrameCount)
        sampleCount += 1
        guard sampleCount >= windowPeriods else { return 0 }
        let average = sum / Double(sampleCount)
        sum = 0
        sampleCount = 0
        windowCount += 1
        guard windowCount > 1 else { return 0 }
        averageLatency = average
        defer { previousWindow = average }
        guard let baseline, let previousWindow else {
            self.baseline = average
            return 0
        }
        if abs(average - previousWindow) >= Double(periodFrameCount) / 2 {
            self.baseline = average
            return 0
        }
        let deviation = average - baseline
        guard abs(deviation) > Double(periodFrameCount) else { return 0 }
        let frames = min(Int(abs(deviation) + 0.5), windowPeriods)  // rounded: it is positive
        return deviation > 0 ? -frames : frames
    }
}
