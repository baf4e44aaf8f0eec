import Foundation

/// A chain under test in an `AcousticLoop`: a gain to sweep, the block processing, and what it
/// reports of its limiter and its feedback suppression.
/// - Thread: control.
public protocol FeedbackLoopChain: AnyObject {
    /// Sets the chain's gain (the loop's, at the response's peak), in dB, before a run.
    /// - Thread: control.
    func setGain(decibels: Float)
    /// Processes the microphone's block (the same on both channels) in place into the speaker's.
    /// - Thread: control.
    func process(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frameCount: Int)
    /// Frames the output limiter has turned down so far.
    /// - Thread: control.
    var limitedFrameCount: Int { get }
    /// Times the whole output was ducked so far.
    /// - Thread: control.
    var duckCount: Int { get }
    /// The notches in place now: each one's centre and gain in dB.
    /// - Thread: control.
    var notches: [MaximumStableGain.Notch] { get }
    /// The chain as it stands (its gain, filters and notches; its limiter and any duck left
    /// out): what the loop's linear criterion judges.
    /// - Thread: control.
    var linearChain: LoopStability.Chain { get }
    /// Whether the chain changes itself as it runs (its feedback suppression is on).
    /// - Thread: control.
    var adapts: Bool { get }
}

/// The maximum stable gain of a chain in a simulated room (`AcousticLoop`), found by sweeping its
/// gain upwards, and how the voice survives at that gain.
///
/// A run at one gain plays `runSeconds` of a speech-like voice into the closed loop; it is stable
/// when the output's last second is at most `allowedRiseDecibels` above what the same gain gives
/// with the loop open, the limiter acted for at most `allowedLimiterSeconds` (a brief catch while
/// a notch settles), nothing ducked, and the loop as the chain then stands (its notches frozen)
/// meets the Nyquist criterion (`LoopStability`): a loop just past its edge grows so slowly that
/// no run of seconds shows it, and it howls all the same. One chain is carried through the sweep,
/// as an engineer rings a room out by raising the gain: its notches stay, while the loop's audio
/// starts afresh. A loop at a hair past its edge may not grow at all in one run, so that nothing
/// is heard for a chain that adapts to find, while the criterion calls it unstable: at such a gain
/// the run is played again, `settlingRunCount` times as long, as an engineer talks on at a gain
/// until the room settles, and that run's verdict stands.
public enum MaximumStableGain {
    /// A notch of the chain's feedback suppression: its centre and its gain in dB.
    public struct Notch: Sendable, Equatable {
        public var hertz: Float, depthDecibels: Float

        /// - Thread: any.
        public init(hertz: Float, depthDecibels: Float) {
            self.hertz = hertz
            self.depthDecibels = depthDecibels
        }
    }

    /// One run at one gain.
    public struct Run: Sendable {
        public var gainDecibels: Float
        /// Output level (RMS dBFS) over the last second, and the same gain's open-loop level.
        public var closedDecibels: Float, openDecibels: Float
        public var limiterSeconds: Double
        public var ducks: Int
        /// Notches in place at the run's end.
        public var notches: [Notch]
        /// The deepest notch's gain in dB (0 when none).
        /// - Thread: any.
        public var deepestNotchDecibels: Float { notches.map(\.depthDecibels).min() ?? 0 }
        /// The linear loop's margin with the chain as it stands at the run's end.
        public var margin: LoopStability.Margin
        /// Nothing was heard: the output near the open loop's, no limiting, no duck.
        public var heardNothing: Bool
        /// How many times over the voice was played: `settlingRunCount` for a run played again,
        /// longer, at its gain (`settledRun`), else 1.
        public var voiceRepeats = 1
        public var output: [Float]

        /// - Thread: any.
        public var stable: Bool { heardNothing && margin.isStable }
        /// Nothing was heard, yet the criterion calls the loop unstable.
        /// - Thread: any.
        public var unstableUnheard: Bool { heardNothing && !margin.isStable }
        /// - Thread: any.
        public var settling: Bool { voiceRepeats > 1 }
    }

    /// `voice` played `count` times over, one after another.
    static func repeated(_ voice: [Float], count: Int) -> [Float] {
        [[Float]](repeating: voice, count: count).flatMap { $0 }
    }

    /// The result of a sweep.
    public struct Result: Sendable {
        /// The highest stable gain, dB.
        public var decibels: Float
        /// Normalised cross-correlation of the output with the dry voice at the best lag (0-10 ms),
        /// over the last 4 s of the run at the highest stable gain.
        public var correlation: Double
        public var lastStable: Run?
        public var runs: [Run]
    }

    public static let runSeconds = 6.0
    /// How many times as long the run is played again at a gain the criterion alone calls
    /// unstable, for a chain that adapts.
    public static let settlingRunCount = 3
    public static let allowedRiseDecibels: Float = 6
    public static let allowedLimiterSeconds = 0.25

    /// Runs the loop once at `gainDecibels` around `chain`; `stability` is the same response's
    /// criterion, made once for a sweep.
    /// - Thread: control.
    public static func run(response: [Float], gainDecibels: Float, chain: FeedbackLoopChain, voice: [Float], sampleRate: Double,
                           stability: LoopStability, voiceRepeats: Int = 1) -> Run {
        let voice = repeated(voice, count: voiceRepeats)
        let loop = AcousticLoop(response: response)
        chain.setGain(decibels: gainDecibels)
        let limitedBefore = chain.limitedFrameCount, ducksBefore = chain.duckCount
        let output = loop.run(voice: voice) { chain.process(left: $0, right: $1, frameCount: $2) }
        let second = Int(sampleRate)
        let closed = level(output.suffix(second))
        let open = gainDecibels + level(voice[(output.count - second)..<output.count])
        let limiterSeconds = Double(chain.limitedFrameCount - limitedBefore) / sampleRate
        let ducks = chain.duckCount - ducksBefore
        let margin = stability.margin(chain: chain.linearChain)
        let heardNothing = closed <= open + allowedRiseDecibels && limiterSeconds <= allowedLimiterSeconds && ducks == 0
        return Run(gainDecibels: gainDecibels, closedDecibels: closed, openDecibels: open, limiterSeconds: limiterSeconds,
                   ducks: ducks, notches: chain.notches, margin: margin, heardNothing: heardNothing, voiceRepeats: voiceRepeats,
                   output: output)
    }

    /// `run`, and for a chain that adapts, at a gain where nothing was heard yet the criterion
    /// calls the loop unstable, `run` again over the voice `settlingRunCount` times over.
    /// - Thread: control.
    public static func settledRun(response: [Float], gainDecibels: Float, chain: FeedbackLoopChain, voice: [Float],
                                  sampleRate: Double, stability: LoopStability) -> Run {
        let first = run(response: response, gainDecibels: gainDecibels, chain: chain, voice: voice, sampleRate: sampleRate,
                        stability: stability)
        guard chain.adapts, first.unstableUnheard else { return first }
        return run(response: response, gainDecibels: gainDecibels, chain: chain, voice: voice, sampleRate: sampleRate,
                   stability: stability, voiceRepeats: settlingRunCount)
    }

    /// Sweeps the gain up in 1 dB steps from `startDecibels` until a run is unstable (or
    /// `ceilingDecibels`), then tries the half step above the last stable gain. `stability` is the
    /// response's criterion when the caller has made it already.
    /// - Thread: control.
    public static func sweep(response: [Float], chain: FeedbackLoopChain, voice: [Float], sampleRate: Double,
                             startDecibels: Float = -8, ceilingDecibels: Float = 24, stability: LoopStability? = nil,
                             log: ((Run) -> Void)? = nil) -> Result {
        var runs: [Run] = []
        var lastStable: Run?
        var gain = startDecibels
        let stability = stability ?? LoopStability(response: response, latencyFrameCount: AcousticLoop.latencyFrameCount,
                                                   sampleRate: sampleRate)
        while gain <= ceilingDecibels {
            let run = settledRun(response: response, gainDecibels: gain, chain: chain, voice: voice, sampleRate: sampleRate,
                                 stability: stability)
            runs.append(run)
            log?(run)
            if !run.stable { break }
            lastStable = run
            gain += 1
        }
        if let stable = lastStable, stable.gainDecibels + 0.5 <= ceilingDecibels {
            let half = settledRun(response: response, gainDecibels: stable.gainDecibels + 0.5, chain: chain, voice: voice,
                                  sampleRate: sampleRate, stability: stability)
            runs.append(half)
            log?(half)
            if half.stable { lastStable = half }
        }
        let correlation = lastStable.map {
            bestCorrelation(output: $0.output, voice: repeated(voice, count: $0.voiceRepeats), sampleRate: sampleRate)
        } ?? 0
        return Result(decibels: lastStable?.gainDecibels ?? -.infinity, correlation: correlation, lastStable: lastStable, runs: runs)
    }

    /// RMS in dBFS.
    /// - Thread: any.
    public static func level<C: Collection>(_ samples: C) -> Float where C.Element == Float {
        let sum = samples.reduce(0.0) { $0 + Double($1) * Double($1) }
        return Float(10 * log10(max(sum / Double(max(samples.count, 1)), 1e-20)))
    }

    /// The normalised cross-correlation of the last 4 s of `output` with the dry voice, at the
    /// best lag from 0 to 10 ms.
    /// - Thread: any.
    public static func bestCorrelation(output: [Float], voice: [Float], sampleRate: Double) -> Double {
        let count = min(output.count, voice.count)
        let maximumLag = Int(0.01 * sampleRate)
        let span = min(Int(4 * sampleRate), count - maximumLag)
        let start = count - span
        var best = -1.0
        for lag in 0...maximumLag {
            var xy = 0.0, xx = 0.0, yy = 0.0
            for n in start..<count {
                let x = Double(output[n]), y = Double(voice[n - lag])
                xy += x * y; xx += x * x; yy += y * y
            }
            best = max(best, xy / max((xx * yy).squareRoot(), 1e-30))
        }
        return best
    }
}
