/// Holds a duplex stream's latency steady when capture and playback run on two clocks (two sound
/// cards, or a card and a server): fed the measured latency once a period, it sets the ratio at
/// which `CaptureResampler` stretches the captured signal, so that the stream writes a little more
/// or less than it captures and the playback queue neither grows nor drains. Nothing is dropped
/// or repeated.
///
/// Guarantees: a pure value (no clock, no device), so it is tested on synthetic delay series;
/// allocation-free, for the device thread; the ratio stays within `maximumDeviation` of 1, so the
/// pitch of what passes through moves by at most 3.5 cents.
///
/// How: the measured latency jitters by up to a period (the two devices' pointers move at
/// slightly different moments), so it is averaged over windows of half a second (at least 16
/// periods). The first window includes the devices settling and counts for nothing; the second's
/// average is the baseline. From then on a proportional-integral controller, once a window, sets
/// the ratio from the average's distance to the baseline beyond half a period (the measurement's
/// own noise; with one clock the ratio stays exactly 1): the proportional part takes out half of
/// it over the next window, the integral part learns the clocks' steady drift. A jump
/// of half a period or more between two windows, beyond what the last ratio explains, is a
/// hiccup that moved where the frames sit, not drift: it becomes the new baseline, since undoing
/// it would only eat the playback queue's margin.
///
/// - Thread: any. A value; the device thread's own copy.
public struct DriftCorrector: Sendable {
    /// The furthest the ratio goes from 1: 2000 ppm, ten times the drift of two ordinary crystals.
    /// - Thread: any.
    public static var maximumDeviation: Double { 0.002 }
    static var proportionalGain: Double { 0.5 }
    static var integralGain: Double { 0.1 }

    public let periodFrameCount: Int
    /// Periods averaged into one latency figure.
    public let windowPeriods: Int
    /// Input frames per output frame for `CaptureResampler`: 1 until a baseline is known; above
    /// 1 when the latency is too high (the playback clock is the slower), below when too low.
    public private(set) var ratio: Double = 1
    /// The latest window's average latency, in frames; nil until the first window after the
    /// settling one.
    public private(set) var averageLatency: Double?
    private var baseline: Double?
    private var integral = 0.0
    private var sum = 0.0
    private var sampleCount = 0
    private var windowCount = 0

    /// - Thread: any.
    public init(sampleRate: Int, periodFrameCount: Int) {
        self.periodFrameCount = max(1, periodFrameCount)
        windowPeriods = max(16, sampleRate / 2 / self.periodFrameCount)
    }

    /// The ratio as a deviation from 1 in parts per million (positive: fewer frames written).
    /// - Thread: any.
    public var ratioPartsPerMillion: Double { (ratio - 1) * 1e6 }

    /// Forgets everything measured: after the devices restart, the latency is a new one.
    /// - Thread: any.
    @_noAllocation @_noLocks
    public mutating func reset() {
        baseline = nil
        averageLatency = nil
        integral = 0
        sum = 0
        sampleCount = 0
        windowCount = 0
        ratio = 1
    }

    /// Takes one period's latency measurement, in frames: what is queued for playback right after
    /// a write, plus what waits in capture.
    /// - Thread: any.
    @_noAllocation @_noLocks
    public mutating func add(latencyFrameCount: Int) {
        sum += Double(latencyFrameCount)
        sampleCount += 1
        guard sampleCount >= windowPeriods else { return }
        let average = sum / Double(sampleCount)
        sum = 0
        sampleCount = 0
        windowCount += 1
        guard windowCount > 1 else { return }
        let windowFrames = Double(windowPeriods * periodFrameCount)
        defer { averageLatency = average }
        guard let baseline, let previous = averageLatency else {
            self.baseline = average
            return
        }
        // What the last window's ratio took out of the latency, to tell a jump from the correction.
        let corrected = windowFrames * (1 - 1 / ratio)
        if abs(average - previous + corrected) >= Double(periodFrameCount) / 2 {
            self.baseline = average
            return
        }
        // Within half a period of the baseline is the measurement's own noise: one clock's stream
        // never leaves it, and resamples at exactly 1 (the signal passes untouched).
        let deadband = Double(periodFrameCount) / 2
        let distance = average - baseline
        let error = distance > deadband ? distance - deadband : distance < -deadband ? distance + deadband : 0
        integral += error
        var correction = (Self.proportionalGain * error + Self.integralGain * integral) / windowFrames
        if abs(correction) > Self.maximumDeviation {
            // Held at the limit: the integral does not wind up while the ratio cannot follow it.
            integral -= error
            correction = correction > 0 ? Self.maximumDeviation : -Self.maximumDeviation
        }
        ratio = 1 + correction
    }
}
