import DSP
import Foundation

/// The Nyquist criterion on a linear feedback loop: a speaker heard by a microphone through a
/// room's impulse response behind the device latency, closed by a chain whose frequency response
/// is given.
///
/// The microphone hears voice + room ∗ speaker and the speaker plays chain(microphone), so the
/// closed loop is 1 / (1 − L) with L = chain · room · z^−latency. Every part of L is stable, so,
/// raising the chain's gain from silence, the loop starts to howl where L's plot around the unit
/// circle first reaches +1: where L's phase is a whole number of turns and its magnitude is 1.
/// The maximum stable gain is therefore −20·log10 of the largest |L| at those phase crossings (the
/// definition of the acoustic feedback literature), not the peak of |L| alone: a mode whose phase
/// misses zero can stand above 1.
///
/// A finite run of the loop cannot see this edge: a loop a decibel past it grows by a fraction of a
/// decibel a second and still sounds stable after 24 s. The criterion sees it whatever the
/// growth rate.
///
/// - Thread: control. Immutable after `init`.
public struct LoopStability: Sendable {
    /// The room's spectrum, behind the latency, on `gridSize` points around the circle (the
    /// lower half and Nyquist: a real response's spectrum is conjugate-symmetric).
    let roomReal: [Double], roomImaginary: [Double]
    public let sampleRate: Double
    let gridSize: Int

    /// Points per turn of the loop's phase that the grid resolves at least: a crossing is found
    /// between two neighbouring points and its magnitude interpolated between them.
    static let pointsPerPhaseTurn = 16

    /// - Parameters:
    ///   - response: the room's impulse response, speaker to microphone.
    ///   - latencyFrameCount: the device latency in front of it.
    /// - Thread: control.
    public init(response: [Float], latencyFrameCount: Int, sampleRate: Double) {
        self.sampleRate = sampleRate
        // The phase of z^−n turns n times around the circle: the grid needs pointsPerPhaseTurn
        // points for each frame of delay the loop holds.
        let span = latencyFrameCount + response.count
        var size = 1 << 12
        while size < Self.pointsPerPhaseTurn * span { size <<= 1 }
        gridSize = size
        var real = [Double](repeating: 0, count: size), imaginary = real
        for (index, sample) in response.enumerated() { real[latencyFrameCount + index] = Double(sample) }
        FourierTransform(size: size).transform(real: &real, imaginary: &imaginary)
        roomReal = Array(real[0...(size / 2)])
        roomImaginary = Array(imaginary[0...(size / 2)])
    }

    /// Where the loop would first howl as the chain's gain rises, and how far that is.
    public struct Margin: Sendable {
        /// How far the chain's gain could rise before the loop howls, in dB: negative past that
        /// edge, where the loop grows however slowly. +∞ when L never crosses zero phase.
        public var decibels: Float
        /// The frequency of that crossing, in hertz (0 with no crossing).
        public var hertz: Double
        /// True when the loop does not grow.
        /// - Thread: any.
        public var isStable: Bool { decibels > 0 }
    }

    /// A chain as the criterion sees it: a gain and a cascade of biquad sections.
    public struct Chain: Sendable {
        public var gain: Double
        public var sections: [BiquadCoefficients]
        /// - Thread: any.
        public init(gain: Double, sections: [BiquadCoefficients] = []) {
            self.gain = gain
            self.sections = sections
        }

        /// The chain's response at `hertz`.
        /// - Thread: any.
        public func response(atHertz hertz: Double, sampleRate: Double) -> (real: Double, imaginary: Double) {
            var real = gain, imaginary = 0.0
            for section in sections {
                let h = section.response(at: hertz, sampleRate: sampleRate)
                (real, imaginary) = (real * h.real - imaginary * h.imaginary, real * h.imaginary + imaginary * h.real)
            }
            return (real, imaginary)
        }
    }

    /// A frequency where the loop's phase is a whole number of turns, and |L| there.
    public struct Crossing: Sendable {
        public var hertz: Double
        public var gain: Double
    }

    /// Every zero-phase crossing of the loop with `chain`, from 0 Hz to half the sample rate, in
    /// order.
    /// - Thread: control.
    public func zeroPhaseCrossings(chain: Chain) -> [Crossing] {
        let hertzPerPoint = sampleRate / Double(gridSize)
        var crossings: [Crossing] = []
        var previous: (real: Double, imaginary: Double)?
        for point in 0..<roomReal.count {
            let hertz = Double(point) * hertzPerPoint
            let c = chain.response(atHertz: hertz, sampleRate: sampleRate)
            let h = (real: roomReal[point], imaginary: roomImaginary[point])
            let loop = (real: c.real * h.real - c.imaginary * h.imaginary, imaginary: c.real * h.imaginary + c.imaginary * h.real)
            if let last = previous, (last.imaginary < 0) != (loop.imaginary < 0) {
                // The imaginary part changes sign between the points: the phase crosses 0 or ½
                // turn, 0 where the chord between them crosses the positive real axis. The
                // magnitude and the phase are interpolated apart: the chord itself cuts inside
                // the circle (1 − cos of half the step: 0.17 dB at 16 points a turn), while a
                // pure delay's magnitude is constant and its phase linear, so for it this is exact.
                let chordFraction = last.imaginary / (last.imaginary - loop.imaginary)
                if last.real + chordFraction * (loop.real - last.real) > 0 {
                    let lastPhase = atan2(last.imaginary, last.real), phase = atan2(loop.imaginary, loop.real)
                    let fraction = lastPhase == phase ? chordFraction : lastPhase / (lastPhase - phase)
                    let lastMagnitude = (last.real * last.real + last.imaginary * last.imaginary).squareRoot()
                    let magnitude = (loop.real * loop.real + loop.imaginary * loop.imaginary).squareRoot()
                    crossings.append(Crossing(hertz: hertz - (1 - fraction) * hertzPerPoint,
                                              gain: lastMagnitude + fraction * (magnitude - lastMagnitude)))
                }
            }
            if point == 0 || point == roomReal.count - 1, loop.real > 0 {
                // At 0 Hz and at half the sample rate L is real: the circle's mirror half
                // crosses the real axis there.
                crossings.append(Crossing(hertz: hertz, gain: loop.real))
            }
            previous = loop
        }
        return crossings
    }

    /// The loop's margin with `chain`.
    /// - Thread: control.
    public func margin(chain: Chain) -> Margin {
        guard let worst = zeroPhaseCrossings(chain: chain).max(by: { $0.gain < $1.gain }) else {
            return Margin(decibels: .infinity, hertz: 0)
        }
        return Margin(decibels: Float(-20 * log10(worst.gain)), hertz: worst.hertz)
    }

    /// What an ideal bank of `notchCount` notches would buy: each placed in turn where the loop
    /// with those before it would first howl (the worst zero-phase crossing), as a feedback
    /// suppressor that knew the room would place them. Returns the rise of the margin over the
    /// chain's own, in dB, and the notches' frequencies in the order placed.
    /// - Thread: control.
    public func idealNotchRise(chain: Chain, notchCount: Int, notch: (Double) -> BiquadCoefficients) -> (decibels: Float, hertz: [Double]) {
        let start = margin(chain: chain)
        var notched = chain
        var placed: [Double] = []
        for _ in 0..<notchCount {
            let worst = margin(chain: notched)
            guard worst.decibels.isFinite, worst.hertz > 0 else { break }
            notched.sections.append(notch(worst.hertz))
            placed.append(worst.hertz)
        }
        return (margin(chain: notched).decibels - start.decibels, placed)
    }

    /// The bands `bandOctaves` wide (a notch's) in which the loop, with its chain's gain raised by
    /// `raisedDecibels`, reaches +1 at zero phase: their count estimates the notches that gain
    /// takes, a notch a band. It is an estimate, not a bound: a crossing barely above 1 can be cut
    /// enough by a notch whose band misses it, and a notch's own phase can move a crossing just
    /// beside it and ask for another. Each band is given by its strongest crossing, with |L|
    /// there at the raised gain.
    /// - Thread: control.
    public func howlBands(chain: Chain, raisedDecibels: Float,
                          bandOctaves: Double) -> [Crossing] {
        let threshold = pow(10, -Double(raisedDecibels) / 20)
        var bands: [Crossing] = []
        var bandStartHertz = 0.0
        for crossing in zeroPhaseCrossings(chain: chain) where crossing.gain > threshold {
            if let last = bands.last, log2(max(crossing.hertz, 1) / max(bandStartHertz, 1)) < bandOctaves {
                // The same band: keep its strongest crossing.
                if crossing.gain > last.gain { bands[bands.count - 1] = crossing }
            } else {
                bands.append(crossing)
                bandStartHertz = crossing.hertz
            }
        }
        return bands.map { Crossing(hertz: $0.hertz, gain: $0.gain / threshold) }
    }
}
