import Glibc

/// A device that runs at another rate than the stream and converts between them (ALSA's `rate`
/// plug-in, inside `plug` and under `dmix` on most desktops). ALSA's rate plug-in converts one
/// stream period into one device period, so what it plays is pitched by the ratio of the two
/// periods, not of the two rates: 44100 Hz in periods of 58 frames over 48000 Hz periods of 64
/// plays a 440 Hz tone at 434 Hz and 1.4 % long. Only periods in whole steps of
/// `exactPeriodStep` (147 frames for 44100 over 48000) map onto device periods exactly.
public struct RateConversion: Sendable, Equatable {
    /// The stream's rate and period, in its frames.
    public var sampleRate: Int
    public var periodFrameCount: Int
    /// The rate the device runs at and its period, in its frames.
    public var deviceSampleRate: Int
    public var devicePeriodFrameCount: Int

    /// - Thread: any.
    public init(sampleRate: Int, periodFrameCount: Int, deviceSampleRate: Int, devicePeriodFrameCount: Int) {
        self.sampleRate = sampleRate
        self.periodFrameCount = periodFrameCount
        self.deviceSampleRate = deviceSampleRate
        self.devicePeriodFrameCount = devicePeriodFrameCount
    }

    /// Whether the period ratio is the rate ratio, so that pitch and duration come out right.
    /// - Thread: any.
    public var isExact: Bool { periodFrameCount * deviceSampleRate == devicePeriodFrameCount * sampleRate }

    /// How far the played pitch is from the stream's, in cents (negative: flat).
    /// - Thread: any.
    public var pitchErrorCents: Double {
        1_200 * log2(Double(periodFrameCount) * Double(deviceSampleRate) / (Double(devicePeriodFrameCount) * Double(sampleRate)))
    }

    /// The smallest stream period that converts exactly: the stream's rate over the rates'
    /// greatest common divisor (147 for 44100 over 48000, 2 for 32000 over 48000).
    /// - Thread: any.
    public static func exactPeriodStep(sampleRate: Int, deviceSampleRate: Int) -> Int {
        sampleRate / greatestCommonDivisor(sampleRate, deviceSampleRate)
    }

    /// Stream periods that convert exactly, from `requested` outwards (the nearer first, the
    /// longer first on a tie), none longer than `longest`.
    /// - Thread: any.
    public static func exactPeriods(near requested: Int, sampleRate: Int, deviceSampleRate: Int, longest: Int) -> [Int] {
        let step = exactPeriodStep(sampleRate: sampleRate, deviceSampleRate: deviceSampleRate)
        guard step <= longest else { return [] }
        return stride(from: step, through: longest, by: step).sorted {
            let (a, b) = (abs($0 - requested), abs($1 - requested))
            return a != b ? a < b : $0 > $1
        }
    }

    /// Reads a configured PCM's chain from its `snd_pcm_dump` text: the stream's setup, then each
    /// slave's ("Slave: ... Its setup is: ... rate : 48000 ... period_size : 64"). The device is
    /// the first slave at another rate; nil when there is none (no conversion).
    /// - Thread: any.
    public init?(dump: String) {
        var setups: [(rate: Int?, period: Int?)] = []
        for line in dump.split(separator: "\n") {
            if line.hasPrefix("Its setup is:") {
                setups.append((nil, nil))
                continue
            }
            guard !setups.isEmpty else { continue }
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.filter { !$0.isWhitespace } }
            guard parts.count == 2, let value = Int(parts[1]) else { continue }
            switch parts[0] {
            case "rate" where setups[setups.count - 1].rate == nil: setups[setups.count - 1].rate = value
            case "period_size" where setups[setups.count - 1].period == nil: setups[setups.count - 1].period = value
            default: break
            }
        }
        guard let stream = setups.first, let rate = stream.rate, let period = stream.period,
              let device = setups.dropFirst().first(where: { $0.rate != nil && $0.rate != rate }),
              let deviceRate = device.rate, let devicePeriod = device.period else { return nil }
        self.init(sampleRate: rate, periodFrameCount: period, deviceSampleRate: deviceRate, devicePeriodFrameCount: devicePeriod)
    }

    private static func greatestCommonDivisor(_ a: Int, _ b: Int) -> Int {
        var (a, b) = (abs(a), abs(b))
        while b != 0 { (a, b) = (b, a % b) }
        return max(1, a)
    }
}
