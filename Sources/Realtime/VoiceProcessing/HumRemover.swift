import DSP

/// Mains hum removal: the hum of a ground loop or a lamp dimmer, found by its fundamental (50 or
/// 60 Hz, followed as it drifts) and cancelled with its harmonics, before the noise suppressor,
/// which estimates a smooth noise floor and leaves tones standing.
///
/// Each harmonic up to `highestHarmonicHertz` has an adaptive canceller (two weights on a cosine
/// and a sine at the harmonic's frequency, adapted by least mean squares): a notch whose width is
/// set by its settling time, about 1 Hz for `settlingSeconds`. So a speech partial that passes a
/// harmonic loses nothing but the instant it takes to cross that hertz, and hum whose level
/// changes is followed. While searching, both families (50 and 60 Hz) run; the one holding
/// `lockRatio` times the other's power for `lockSeconds` is the hum's, and the other is dropped.
/// A fundamental off its nominal shows as the weights turning: every `trackingSeconds` the turn,
/// weighed by each harmonic's power, moves the fundamental towards the hum's, within
/// `trackingRangeHertz` of the nominal.
///
/// Guarantees: `init` (control thread) allocates everything; `process` allocates nothing, locks
/// nothing and makes no system call. Sample by sample: the output does not depend on the block
/// size, and the stage adds no delay.
///
/// - Thread: audio. Built on the control thread; `deallocate` when no audio thread runs it.
public struct HumRemover {
    /// Harmonics are cancelled up to here: a ground loop's buzz has most of its power below.
    /// - Thread: any.
    public static var highestHarmonicHertz: Double { 2_000 }
    /// How long a notch takes to settle on a steady hum (its time constant): about 1 Hz wide.
    /// - Thread: any.
    public static var settlingSeconds: Double { 0.2 }
    /// How far the fundamental is followed from 50 or 60 Hz: grids hold ±0.2 Hz, generators less.
    /// - Thread: any.
    public static var trackingRangeHertz: Double { 1.5 }
    /// How often the fundamental is corrected.
    /// - Thread: any.
    public static var trackingSeconds: Double { 0.02 }
    /// How much of a measured frequency error is corrected at once: the fundamental settles over
    /// about 10 corrections (0.2 s), smoothing the speech that passes the harmonics.
    static var trackingGain: Double { 0.1 }
    /// The most frequency error one harmonic may report to a correction, in hertz: mains drifts
    /// by hundredths of a hertz a second; a speech partial near a harmonic turns its weights by hertz.
    static var largestErrorHertz: Double { 0.1 }
    /// How much more power one family must hold than the other, and for how long, to be the hum's.
    static var lockRatio: Float { 4 }
    /// - Thread: any.
    public static var lockSeconds: Double { 1 }
    /// Below this power (−80 dBFS, mean square) a family holds no hum worth the name.
    static var floorPower: Float { 1e-8 }

    /// One family of harmonics: the fundamental's phasor and each harmonic's two weights.
    struct Family {
        let nominalHertz: Double
        var fundamentalHertz: Double
        let harmonicCount: Int
        /// e^{iφ}, the fundamental's phase, in double precision (renormalised every correction).
        var phaseReal = 1.0, phaseImaginary = 0.0
        /// The weights on cos kφ and sin kφ, interleaved, and their values at the last correction.
        let weights: UnsafeMutablePointer<Float>
        let previousWeights: UnsafeMutablePointer<Float>
        /// This sample's cos kφ and sin kφ, interleaved, for the update after the estimate.
        let phasors: UnsafeMutablePointer<Float>
        var isRunning = true

        init(nominalHertz: Double) {
            self.nominalHertz = nominalHertz
            fundamentalHertz = nominalHertz
            let count = Int(HumRemover.highestHarmonicHertz / nominalHertz)
            harmonicCount = count
            weights = Self.buffer(count)
            previousWeights = Self.buffer(count)
            phasors = Self.buffer(count)
        }

        /// Two floats a harmonic, touched now, not on the audio thread.
        private static func buffer(_ harmonicCount: Int) -> UnsafeMutablePointer<Float> {
            let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 2 * harmonicCount)
            buffer.initialize(repeating: 0, count: 2 * harmonicCount)
            return buffer
        }

        func deallocate() {
            weights.deallocate()
            previousWeights.deallocate()
            phasors.deallocate()
        }

        /// The hum this family holds: the mean square of its harmonics' sum.
        var power: Float {
            @_noAllocation @_noLocks get {
                var sum: Float = 0
                for index in 0..<(2 * harmonicCount) { sum += weights[index] * weights[index] }
                return sum / 2
            }
        }

        /// This sample's estimate of the family's hum; leaves the phasors for `adapt`.
        @inline(__always) @_noAllocation @_noLocks
        func estimate() -> Float {
            let baseReal = Float(phaseReal), baseImaginary = Float(phaseImaginary)
            var real = baseReal, imaginary = baseImaginary
            var sum: Float = 0
            for harmonic in 0..<harmonicCount {
                phasors[2 * harmonic] = real
                phasors[2 * harmonic + 1] = imaginary
                sum += weights[2 * harmonic] * real + weights[2 * harmonic + 1] * imaginary
                (real, imaginary) = (real * baseReal - imaginary * baseImaginary, real * baseImaginary + imaginary * baseReal)
            }
            return sum
        }

        /// Moves each weight against the error `step` (the output times the adaptation rate).
        @inline(__always) @_noAllocation @_noLocks
        func adapt(_ step: Float) {
            for index in 0..<(2 * harmonicCount) { weights[index] += step * phasors[index] }
        }

        /// The fundamental's turn in one sample, e^{i2πf/rate}.
        @_noAllocation @_noLocks
        func rotation(sampleRate: Double) -> (real: Double, imaginary: Double) {
            let turns = fundamentalHertz / sampleRate
            return (cosineOfTurns(turns), sineOfTurns(turns))
        }

        /// Advances the phase by one sample.
        @inline(__always) @_noAllocation @_noLocks
        mutating func advance(by rotation: (real: Double, imaginary: Double)) {
            (phaseReal, phaseImaginary) = (phaseReal * rotation.real - phaseImaginary * rotation.imaginary,
                                           phaseReal * rotation.imaginary + phaseImaginary * rotation.real)
        }

        /// The frequency error the weights' turn since the last correction shows, in hertz (the
        /// hum's frequency less the fundamental's), each harmonic weighed by its power.
        @_noAllocation @_noLocks
        func frequencyError(overSeconds seconds: Double) -> Double {
            var weighted = 0.0, total = 0.0
            for harmonic in 0..<harmonicCount {
                // W = a − ib turns by 2πkδ·t: its product with the last value's conjugate.
                let a = Double(weights[2 * harmonic]), b = Double(weights[2 * harmonic + 1])
                let lastA = Double(previousWeights[2 * harmonic]), lastB = Double(previousWeights[2 * harmonic + 1])
                let real = a * lastA + b * lastB, imaginary = lastB * a - b * lastA
                let power = a * a + b * b
                guard power > 0, real != 0 || imaginary != 0 else { continue }
                // Each harmonic's say is capped: a partial passing near one turns its weights fast,
                // and must not drag the fundamental off the rest.
                let error = angleInTurns(x: real, y: imaginary) / (Double(harmonic + 1) * seconds)
                weighted += power * min(max(error, -HumRemover.largestErrorHertz), HumRemover.largestErrorHertz)
                total += power
            }
            return total > 0 ? weighted / total : 0
        }

        /// Puts the phasor back on the unit circle, off which rounding moves it.
        @_noAllocation @_noLocks
        mutating func renormalise() {
            // 1/√m² by one Newton step from 1: exact enough a hair off the circle, and no libm.
            let scale = (3 - (phaseReal * phaseReal + phaseImaginary * phaseImaginary)) / 2
            phaseReal *= scale
            phaseImaginary *= scale
        }

        /// Keeps the weights for the next correction's comparison.
        @_noAllocation @_noLocks
        func rememberWeights() {
            // (A loop: `update(from:count:)` is not proved deallocation-free.)
            for index in 0..<(2 * harmonicCount) { previousWeights[index] = weights[index] }
        }

        /// Stops the family and clears its weights (it holds no hum).
        @_noAllocation @_noLocks
        mutating func stop() {
            isRunning = false
            for index in 0..<(2 * harmonicCount) {
                weights[index] = 0
                previousWeights[index] = 0
            }
        }
    }

    private let sampleRate: Double
    private var fifty: Family
    private var sixty: Family
    /// The least-mean-squares rate: a settling time of `settlingSeconds` on unit phasors.
    private let rate: Float
    private let trackingFrameCount: Int
    private var framesToCorrection: Int
    /// Corrections in a row where one family held `lockRatio` times the other's power, signed:
    /// positive for 50 Hz, negative for 60 Hz.
    private var lead = 0
    private let correctionsToLock: Int

    /// - Thread: control. Not real-time safe: allocates.
    public init(sampleRate: Double) {
        self.sampleRate = sampleRate
        fifty = Family(nominalHertz: 50)
        sixty = Family(nominalHertz: 60)
        rate = Float(2 / (Self.settlingSeconds * sampleRate))
        trackingFrameCount = max(1, Int(Self.trackingSeconds * sampleRate))
        framesToCorrection = trackingFrameCount
        correctionsToLock = Int((Self.lockSeconds / Self.trackingSeconds).rounded())
    }

    /// - Thread: stopped.
    public func deallocate() {
        fifty.deallocate()
        sixty.deallocate()
    }

    /// The hum's fundamental, once one family is found to hold it; nil while searching.
    /// - Thread: audio.
    public var fundamentalHertz: Double? {
        @_noAllocation @_noLocks get {
            switch (fifty.isRunning, sixty.isRunning) {
            case (true, false): fifty.fundamentalHertz
            case (false, true): sixty.fundamentalHertz
            default: nil
            }
        }
    }

    /// The power of the hum being cancelled, mean square (both families while searching).
    /// - Thread: audio.
    public var humPower: Float { @_noAllocation @_noLocks get { fifty.power + sixty.power } }

    /// Takes the hum out of `frameCount` mono samples, in place.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    public mutating func process(_ samples: UnsafeMutablePointer<Float>, frameCount: Int) {
        var fiftyRotation = fifty.rotation(sampleRate: sampleRate)
        var sixtyRotation = sixty.rotation(sampleRate: sampleRate)
        for index in 0..<frameCount {
            var estimate: Float = 0
            if fifty.isRunning { estimate += fifty.estimate() }
            if sixty.isRunning { estimate += sixty.estimate() }
            let output = samples[index] - estimate
            samples[index] = output
            let step = rate * output
            if fifty.isRunning {
                fifty.adapt(step)
                fifty.advance(by: fiftyRotation)
            }
            if sixty.isRunning {
                sixty.adapt(step)
                sixty.advance(by: sixtyRotation)
            }
            framesToCorrection -= 1
            if framesToCorrection == 0 {
                framesToCorrection = trackingFrameCount
                correct()
                fiftyRotation = fifty.rotation(sampleRate: sampleRate)
                sixtyRotation = sixty.rotation(sampleRate: sampleRate)
            }
        }
    }

    /// Every `trackingSeconds`: renormalises the phasors, decides which family holds the hum,
    /// and moves the found fundamental towards the hum's.
    @_noAllocation @_noLocks
    private mutating func correct() {
        fifty.renormalise()
        sixty.renormalise()
        if fifty.isRunning && sixty.isRunning {
            let fiftyPower = fifty.power, sixtyPower = sixty.power
            if fiftyPower > Self.floorPower && fiftyPower > Self.lockRatio * sixtyPower {
                lead = max(lead, 0) + 1
            } else if sixtyPower > Self.floorPower && sixtyPower > Self.lockRatio * fiftyPower {
                lead = min(lead, 0) - 1
            } else {
                lead = 0
            }
            if lead >= correctionsToLock { sixty.stop() }
            if lead <= -correctionsToLock { fifty.stop() }
        } else if fifty.isRunning {
            track(&fifty)
        } else {
            track(&sixty)
        }
        fifty.rememberWeights()
        sixty.rememberWeights()
    }

    @_noAllocation @_noLocks
    private func track(_ family: inout Family) {
        guard family.power > Self.floorPower else { return }
        let error = family.frequencyError(overSeconds: Double(trackingFrameCount) / sampleRate)
        let range = Self.trackingRangeHertz
        family.fundamentalHertz = min(max(family.fundamentalHertz + Self.trackingGain * error, family.nominalHertz - range),
                                      family.nominalHertz + range)
    }
}
