/// Biquad coefficients from Robert Bristow-Johnson's Audio EQ Cookbook, normalised so a0 = 1.
/// Control-thread or audio-thread: computing them costs two sines and a few divisions.
public struct BiquadCoefficients: Sendable, Equatable {
    public var b0: Float, b1: Float, b2: Float, a1: Float, a2: Float

    /// Passes everything unchanged.
    public static let identity = BiquadCoefficients(b0: 1, b1: 0, b2: 0, a1: 0, a2: 0)

    /// - Thread: any.
    @inlinable
    public init(b0: Float, b1: Float, b2: Float, a1: Float, a2: Float) {
        self.b0 = b0; self.b1 = b1; self.b2 = b2; self.a1 = a1; self.a2 = a2
    }

    /// The cookbook's filter types.
    public enum Kind: Sendable, Equatable {
        case lowPass, highPass, bandPass, notch, allPass
        /// Peaking EQ: a bell of `gain` dB at the frequency.
        case peaking(gain: Double)
        /// Shelves: `gain` dB below (low) or above (high) the frequency; `q` sets the slope
        /// (0.7071 is the steepest without overshoot, the cookbook's S = 1).
        case lowShelf(gain: Double)
        case highShelf(gain: Double)
    }

    /// Coefficients for `kind` at `frequency` Hz with quality `q`, at `sampleRate`.
    /// - Thread: any.
    @inlinable @_noAllocation @_noLocks
    public init(_ kind: Kind, frequency: Double, q: Double, sampleRate: Double) {
        let turns = min(max(frequency / sampleRate, 1e-6), 0.499)
        let sine = sineOfTurns(turns)
        let cosine = cosineOfTurns(turns)
        let alpha = sine / (2 * max(q, 1e-3))
        var b0 = 1.0, b1 = 0.0, b2 = 0.0, a0 = 1.0, a1 = 0.0, a2 = 0.0
        switch kind {
        case .lowPass:
            b0 = (1 - cosine) / 2; b1 = 1 - cosine; b2 = b0
            a0 = 1 + alpha; a1 = -2 * cosine; a2 = 1 - alpha
        case .highPass:
            b0 = (1 + cosine) / 2; b1 = -(1 + cosine); b2 = b0
            a0 = 1 + alpha; a1 = -2 * cosine; a2 = 1 - alpha
        case .bandPass:  // constant 0 dB peak gain
            b0 = alpha; b1 = 0; b2 = -alpha
            a0 = 1 + alpha; a1 = -2 * cosine; a2 = 1 - alpha
        case .notch:
            b0 = 1; b1 = -2 * cosine; b2 = 1
            a0 = 1 + alpha; a1 = -2 * cosine; a2 = 1 - alpha
        case .allPass:
            b0 = 1 - alpha; b1 = -2 * cosine; b2 = 1 + alpha
            a0 = 1 + alpha; a1 = -2 * cosine; a2 = 1 - alpha
        case let .peaking(gain):
            let amplitude = fastExp2(gain / 40 * 3.321_928_094_887_362)  // 10^(gain/40)
            b0 = 1 + alpha * amplitude; b1 = -2 * cosine; b2 = 1 - alpha * amplitude
            a0 = 1 + alpha / amplitude; a1 = -2 * cosine; a2 = 1 - alpha / amplitude
        case let .lowShelf(gain):
            let amplitude = fastExp2(gain / 40 * 3.321_928_094_887_362)
            let root = 2 * fastExp2(gain / 80 * 3.321_928_094_887_362) * alpha  // 2·√A·α
            b0 = amplitude * ((amplitude + 1) - (amplitude - 1) * cosine + root)
            b1 = 2 * amplitude * ((amplitude - 1) - (amplitude + 1) * cosine)
            b2 = amplitude * ((amplitude + 1) - (amplitude - 1) * cosine - root)
            a0 = (amplitude + 1) + (amplitude - 1) * cosine + root
            a1 = -2 * ((amplitude - 1) + (amplitude + 1) * cosine)
            a2 = (amplitude + 1) + (amplitude - 1) * cosine - root
        case let .highShelf(gain):
            let amplitude = fastExp2(gain / 40 * 3.321_928_094_887_362)
            let root = 2 * fastExp2(gain / 80 * 3.321_928_094_887_362) * alpha  // 2·√A·α
            b0 = amplitude * ((amplitude + 1) + (amplitude - 1) * cosine + root)
            b1 = -2 * amplitude * ((amplitude - 1) + (amplitude + 1) * cosine)
            b2 = amplitude * ((amplitude + 1) + (amplitude - 1) * cosine - root)
            a0 = (amplitude + 1) - (amplitude - 1) * cosine + root
            a1 = 2 * ((amplitude - 1) - (amplitude + 1) * cosine)
            a2 = (amplitude + 1) - (amplitude - 1) * cosine - root
        }
        self.b0 = Float(b0 / a0); self.b1 = Float(b1 / a0); self.b2 = Float(b2 / a0)
        self.a1 = Float(a1 / a0); self.a2 = Float(a2 / a0)
    }

    /// Field-by-field equality the real-time checker can see through.
    /// - Thread: any.
    @inlinable @_noAllocation @_noLocks
    public func isSame(as other: BiquadCoefficients) -> Bool {
        b0 == other.b0 && b1 == other.b1 && b2 == other.b2 && a1 == other.a1 && a2 == other.a2
    }

    /// H(e^jω) at `frequency`, from the coefficients: what a filter with them does to a sinusoid
    /// there, its gain and its phase.
    /// - Thread: any.
    public func response(at frequency: Double, sampleRate: Double) -> (real: Double, imaginary: Double) {
        let turns = frequency / sampleRate
        let c1 = sineOfTurns((turns + 0.25).truncatingRemainder(dividingBy: 1)), s1 = sineOfTurns(turns.truncatingRemainder(dividingBy: 1))
        let c2 = sineOfTurns((2 * turns + 0.25).truncatingRemainder(dividingBy: 1)), s2 = sineOfTurns((2 * turns).truncatingRemainder(dividingBy: 1))
        let (b0, b1, b2, a1, a2) = (Double(self.b0), Double(self.b1), Double(self.b2), Double(self.a1), Double(self.a2))
        let numeratorReal = b0 + b1 * c1 + b2 * c2, numeratorImaginary = -(b1 * s1 + b2 * s2)
        let denominatorReal = 1 + a1 * c1 + a2 * c2, denominatorImaginary = -(a1 * s1 + a2 * s2)
        let denominator = denominatorReal * denominatorReal + denominatorImaginary * denominatorImaginary
        return ((numeratorReal * denominatorReal + numeratorImaginary * denominatorImaginary) / denominator,
                (numeratorImaginary * denominatorReal - numeratorReal * denominatorImaginary) / denominator)
    }

    /// |H(e^jω)| at `frequency`, from the coefficients (what a filter with them must measure).
    /// - Thread: any.
    public func magnitude(at frequency: Double, sampleRate: Double) -> Double {
        let (real, imaginary) = response(at: frequency, sampleRate: sampleRate)
        return (real * real + imaginary * imaginary).squareRoot()
    }
}

/// One biquad section in transposed direct form II. New coefficients are reached by ramping each
/// coefficient linearly across the next block, never by jumping or resetting the state, so a
/// moving EQ knob makes no zipper noise and no click.
public struct Biquad: Sendable {
    @usableFromInline var current = BiquadCoefficients.identity
    @usableFromInline var target = BiquadCoefficients.identity
    @usableFromInline var z1: Float = 0, z2: Float = 0

    /// - Thread: any.
    @inlinable @_noAllocation @_noLocks
    public init(_ coefficients: BiquadCoefficients = .identity) {
        current = coefficients
        target = coefficients
    }

    /// Sets the coefficients the next `process` call ramps to.
    /// - Thread: audio.
    @inlinable @_noAllocation @_noLocks
    public mutating func setTarget(_ coefficients: BiquadCoefficients) { target = coefficients }

    /// Filters `frameCount` samples of `samples` (every `stride`-th float) in place, ramping from
    /// the current coefficients to the target across them.
    /// - Thread: audio.
    @inlinable @_noAllocation @_noLocks
    public mutating func process(_ samples: UnsafeMutablePointer<Float>, frameCount: Int, stride: Int = 1) {
        guard frameCount > 0 else { return }
        var c = current
        let ramping = !c.isSame(as: target)
        let steps = Float(frameCount)
        let db0 = (target.b0 - c.b0) / steps, db1 = (target.b1 - c.b1) / steps, db2 = (target.b2 - c.b2) / steps
        let da1 = (target.a1 - c.a1) / steps, da2 = (target.a2 - c.a2) / steps
        var state1 = z1, state2 = z2
        for frame in 0..<frameCount {
            if ramping {
                c.b0 += db0; c.b1 += db1; c.b2 += db2; c.a1 += da1; c.a2 += da2
            }
            let input = samples[frame * stride]
            let output = c.b0 * input + state1
            state1 = c.b1 * input - c.a1 * output + state2
            state2 = c.b2 * input - c.a2 * output
            samples[frame * stride] = output
        }
        current = target
        // Denormal protection: state decaying towards zero is flushed before it gets slow.
        z1 = abs(state1) < 1e-20 ? 0 : state1
        z2 = abs(state2) < 1e-20 ? 0 : state2
    }
}
