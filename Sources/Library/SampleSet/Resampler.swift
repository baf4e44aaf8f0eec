import Foundation
import Synchronization

/// Band-limited sample-rate conversion of a mono signal, for converting samples once at load time
/// so the renderer never interpolates between rates it was not built for.
///
/// A Kaiser-windowed sinc low-pass evaluated at every output instant:
/// - cutoff at 0.95 × the lower rate's Nyquist frequency, with the transition band from 0.9 × to
///   1.0 × Nyquist, so the passband is flat (well within 0.1 dB) up to 0.9 × Nyquist and anything at
///   or above the new Nyquist frequency is rejected by ≥ 80 dB instead of aliasing;
/// - 64 zero crossings of the kernel on each side, in periods of the lower rate (more input taps
///   when downsampling), which with Kaiser β ≈ 10 is what that 10 % transition band needs for
///   about 100 dB of stopband;
/// - polyphase: the kernel is tabulated once per conversion at 1 024 fractional positions between
///   input frames, and each output frame interpolates linearly between the two nearest positions'
///   dot products, so any rate ratio (44.1 k → 48 k is 160/147) costs the same and the inner loop
///   is a plain multiply-add over contiguous memory.
///
/// The signal is taken as silent outside its ends. Output frame `n` is the input at time
/// `n × from / to`, so frame 0 lines up with frame 0 and the length scales by `to / from`, rounded.
///
/// - Thread: control. Not real-time safe: allocates.
public enum Resampler {
    /// Kernel half-width, in periods of the lower of the two rates.
    static let zeroCrossings = 64
    /// Tabulated fractional positions between two input frames.
    static let phaseCount = 1_024
    /// Cutoff as a fraction of the lower rate's Nyquist frequency: the middle of the 0.9…1.0
    /// transition band.
    static let cutoff = 0.95
    /// Kaiser window shape for about 100 dB of stopband (0.1102 × (A − 8.7), A = 100).
    static let kaiserBeta = 10.06

    /// `samples` recorded at `from` frames per second, converted to `to`. Returns `samples` itself
    /// when the rates are equal.
    /// - Precondition: both rates are finite and positive.
    /// - Thread: control.
    public static func resample(_ samples: [Float], from: Double, to: Double) -> [Float] {
        Converter.shared(from: from, to: to).convert(samples)
    }

    /// Converters already built, by rate pair: a drum kit's or a sample set's files are nearly
    /// always at one or two rates, and a table costs as much as converting seconds of audio.
    private static let converters = Mutex<[[Double]: Converter]>([:])
    /// Tables kept: each is about half a megabyte.
    private static let keptConverterCount = 4

    /// One rate pair's kernel table, built once and reused for every sample recorded at the same
    /// rate (building it costs about as much as converting a few seconds of audio).
    package struct Converter {
        package let from: Double
        package let to: Double
        /// Input frames either side of the output instant that the kernel reaches.
        private let reach: Int
        /// Taps per phase: `2 × reach`.
        private let tapCount: Int
        /// `phaseCount + 1` rows of `tapCount` coefficients; row `p` is for an output instant
        /// `p / phaseCount` of a frame after an input frame (the extra row, one whole frame on, is
        /// the far end for interpolating from the last phase).
        private let table: [Float]

        /// - Precondition: both rates are finite and positive.
        init(from: Double, to: Double) {
            precondition(from > 0 && to > 0 && from.isFinite && to.isFinite, "sample rates must be positive")
            self.from = from
            self.to = to
            // Kernel time runs in periods of the lower rate; `scale` converts input frames to it.
            // When downsampling the kernel stretches over more input frames and is scaled down by
            // the same factor, which lowers the cutoff to the new Nyquist frequency at unchanged
            // DC gain.
            let scale = min(from, to) / from
            // Even, so rows are whole groups of four taps (the extra taps' coefficients are 0).
            let reach = from == to ? 0 : (Int((Double(zeroCrossings) / scale).rounded(.up)) + 1) / 2 * 2
            self.reach = reach
            tapCount = 2 * reach
            var table = [Float](repeating: 0, count: (phaseCount + 1) * tapCount)
            for phase in 0...Resampler.phaseCount {
                let fraction = Double(phase) / Double(phaseCount)
                for tap in 0..<tapCount {
                    // Tap `tap` is input frame `base - reach + 1 + tap` for an output instant
                    // `base + fraction`.
                    let distance = abs(fraction + Double(reach - 1 - tap)) * scale
                    table[phase * tapCount + tap] = Float(scale * kernel(distance))
                }
            }
            self.table = table
        }

        /// The converter for this rate pair, built once and shared by every thread (built under
        /// the lock: the threads that want a table at the same moment want the same one).
        package static func shared(from: Double, to: Double) -> Converter {
            Resampler.converters.withLock { converters in
                if let known = converters[[from, to]] { return known }
                let made = Converter(from: from, to: to)
                if converters.count >= Resampler.keptConverterCount { converters.removeAll() }
                converters[[from, to]] = made
                return made
            }
        }

        package func convert(_ samples: [Float]) -> [Float] {
            guard from != to, !samples.isEmpty else { return samples }
            return convert(samples, startingAt: 0, of: samples.count, outputs: 0..<outputFrameCount(samples.count))
        }

        /// Frames `inputCount` input frames become: rounded to the nearest.
        package func outputFrameCount(_ inputCount: Int) -> Int { Self.outputFrameCount(inputCount, from: from, to: to) }

        /// Frames `inputCount` input frames at `from` become at `to` (no table needed: a loader lays
        /// its pool out from this before it decodes).
        package static func outputFrameCount(_ inputCount: Int, from: Double, to: Double) -> Int {
            from == to ? inputCount : Int((Double(inputCount) * to / from).rounded())
        }

        /// Input frames output frames `outputs` read: a head needs only the beginning of its file,
        /// a stretch of its body only the frames around it.
        package func inputFrames(for outputs: Range<Int>, of inputCount: Int) -> Range<Int> {
            guard from != to else { return min(inputCount, outputs.lowerBound)..<min(inputCount, outputs.upperBound) }
            let first = max(0, Int(Double(outputs.lowerBound) * (from / to)) - reach - 1)
            return min(first, inputCount)..<min(inputCount, Int(Double(max(0, outputs.upperBound - 1)) * (from / to)) + reach + 2)
        }

        /// Output frames `outputs` of an input of `inputCount` frames, of which `samples` holds
        /// those from `inputStart` on (at least `inputFrames(for:of:)`): exactly those frames of
        /// `convert(_:)` of the whole input, each computed alike, so a sample's head and the
        /// stretches of its body written apart are the bits of the whole.
        package func convert(_ samples: [Float], startingAt inputStart: Int = 0, of inputCount: Int, outputs: Range<Int>) -> [Float] {
            guard from != to else {
                return Array(samples[(outputs.lowerBound - inputStart)..<(outputs.upperBound - inputStart)])
            }
            let step = from / to
            // Silence beyond both ends, so every output frame reads whole rows without bounds
            // checks. The last output instant is before the last input frame, so `reach` frames of
            // padding on each side suffice.
            let held = min(samples.count, inputCount - inputStart)
            var padded = [Float](repeating: 0, count: held + 2 * reach)
            padded.replaceSubrange(reach ..< reach + held, with: samples[..<held])
            let tapCount = tapCount

            var output = [Float](repeating: 0, count: outputs.count)
            let first = outputs.lowerBound
            padded.withUnsafeBufferPointer { input in
                table.withUnsafeBufferPointer { table in
                    output.withUnsafeMutableBufferPointer { output in
                        for index in outputs {
                            let time = Double(index) * step
                            let base = Int(time)
                            let position = (time - Double(base)) * Double(phaseCount)
                            let phase = Int(position)
                            // Taps `base - reach + 1 …` start at padded index `base + 1`, less
                            // the input frames before `samples`.
                            let frames = input.baseAddress! + base + 1 - inputStart
                            let near = table.baseAddress! + phase * tapCount
                            let far = near + tapCount
                            // Four partial sums each: independent chains the CPU can overlap.
                            var near0: Float = 0, near1: Float = 0, near2: Float = 0, near3: Float = 0
                            var far0: Float = 0, far1: Float = 0, far2: Float = 0, far3: Float = 0
                            for tap in stride(from: 0, to: tapCount, by: 4) {
                                let x0 = frames[tap], x1 = frames[tap + 1], x2 = frames[tap + 2], x3 = frames[tap + 3]
                                near0 += x0 * near[tap]; near1 += x1 * near[tap + 1]
                                near2 += x2 * near[tap + 2]; near3 += x3 * near[tap + 3]
                                far0 += x0 * far[tap]; far1 += x1 * far[tap + 1]
                                far2 += x2 * far[tap + 2]; far3 += x3 * far[tap + 3]
                            }
                            let nearValue = (near0 + near1) + (near2 + near3), farValue = (far0 + far1) + (far2 + far3)
                            output[index - first] = nearValue + Float(position - Double(phase)) * (farValue - nearValue)
                        }
                    }
                }
            }
            return output
        }
    }

    /// The windowed sinc at `distance` periods of the lower rate from its centre: unity DC gain
    /// once scaled, zero beyond `zeroCrossings`.
    private static func kernel(_ distance: Double) -> Double {
        guard distance < Double(zeroCrossings) else { return 0 }
        let edge = distance / Double(zeroCrossings)
        let window = besselI0(kaiserBeta * (1 - edge * edge).squareRoot()) / windowPeak
        let x = cutoff * distance
        let sinc = x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x)
        return cutoff * sinc * window
    }

    /// The Kaiser window's value at its centre, which normalises it to 1 there.
    private static let windowPeak = besselI0(kaiserBeta)

    /// The modified Bessel function of the first kind, order 0, from its power series (converges
    /// fast for the arguments a Kaiser window uses, below ~20).
    private static func besselI0(_ x: Double) -> Double {
        var sum = 1.0
        var term = 1.0
        let quarterSquare = x * x / 4
        var k = 1.0
        while term > sum * 1e-17 {
            term *= quarterSquare / (k * k)
            sum += term
            k += 1
        }
        return sum
    }
}
