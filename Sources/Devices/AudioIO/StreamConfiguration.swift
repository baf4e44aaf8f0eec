/// What a stream asks a device for. Every field has a default, so adding one breaks no caller.
public struct StreamConfiguration: Sendable, Equatable {
    public var sampleRate = 48_000
    public var channelCount = 2
    /// Frames per period: one wake-up of the device thread, one render block.
    public var periodFrameCount = 64
    /// Periods in the device buffer; with `periodFrameCount`, this sets the output latency.
    public var periodCount = 3
    /// Formats to try, best first; the engine converts from float at the boundary.
    public var formats: [SampleFormat] = SampleFormat.preferred
    /// Try to run the device thread with SCHED_FIFO at this priority (1...99); 0 skips the attempt.
    public var realtimePriority: Int32 = 70
    /// Periods whose timing the device thread records (`PlaybackStream.periodTimings`); 0 records
    /// nothing. The record is allocated up front so measuring cannot disturb what it measures.
    public var timingCapacity = 0
    /// Duplex: captured frames the device thread keeps, as float, for reading after the stream
    /// ends (`PlaybackStream.capturedFrames`); 0 keeps none. Allocated up front, like the timing.
    public var captureRecordingFrameCount = 0

    /// - Thread: any.
    public init(sampleRate: Int = 48_000, channelCount: Int = 2, periodFrameCount: Int = 64,
                periodCount: Int = 3, formats: [SampleFormat] = SampleFormat.preferred,
                realtimePriority: Int32 = 70, timingCapacity: Int = 0, captureRecordingFrameCount: Int = 0) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.periodFrameCount = periodFrameCount
        self.periodCount = periodCount
        self.formats = formats
        self.realtimePriority = realtimePriority
        self.timingCapacity = timingCapacity
        self.captureRecordingFrameCount = captureRecordingFrameCount
    }
}

/// What the device actually granted, which is what sets latency and what a user needs to see.
public struct GrantedConfiguration: Sendable, Equatable, CustomStringConvertible {
    public var format: SampleFormat
    public var sampleRate: Int
    public var channelCount: Int
    public var periodFrameCount: Int
    public var bufferFrameCount: Int
    /// The period asked for: a device may only offer others, and then grants the nearest it has.
    public var requestedPeriodFrameCount: Int
    /// How the device converts the rate, when it runs at another: the period is chosen for the
    /// conversion to be exact where the device allows one.
    public var rateConversion: RateConversion? = nil
    /// - Thread: any.
    public var periodCount: Int { bufferFrameCount / max(1, periodFrameCount) }

    /// - Thread: any.
    public func milliseconds(_ frameCount: Int) -> Double { Double(frameCount) * 1_000 / Double(sampleRate) }

    /// - Thread: any.
    public var description: String {
        func ms(_ frames: Int) -> String { String(format2: milliseconds(frames)) }
        return "\(sampleRate) Hz, \(channelCount) ch, \(format), period \(periodFrameCount) frames (\(ms(periodFrameCount)) ms)"
            + " x \(periodCount), buffer \(bufferFrameCount) frames (\(ms(bufferFrameCount)) ms)"
            + periodNote
    }

    /// Why the period is not the one asked for, or why the pitch is off.
    private var periodNote: String {
        let asked = "; asked for a period of \(requestedPeriodFrameCount) frames"
        if let conversion = rateConversion, !conversion.isExact {
            let cents = conversion.pitchErrorCents
            let off = "\(Int(abs(cents).rounded())) cents \(cents < 0 ? "flat" : "sharp")"
            return (requestedPeriodFrameCount == periodFrameCount ? asked : asked + ", the nearest the device allows is \(periodFrameCount)")
                + ", which the device's \(conversion.deviceSampleRate) Hz converts \(off): it takes no period that converts exactly"
                + " (try --rate \(conversion.deviceSampleRate))"
        }
        guard requestedPeriodFrameCount != periodFrameCount else { return "" }
        if let conversion = rateConversion {
            return asked + ": \(periodFrameCount) is the nearest the device's \(conversion.deviceSampleRate) Hz converts exactly"
        }
        return asked + ", the nearest the device allows is \(periodFrameCount)"
    }
}

extension String {
    /// A number with two decimals, without Foundation.
    init(format2 value: Double) {
        let hundredths = Int((abs(value) * 100).rounded())
        let fraction = hundredths % 100
        self = (value < 0 ? "-" : "") + "\(hundredths / 100)." + (fraction < 10 ? "0" : "") + "\(fraction)"
    }
}
