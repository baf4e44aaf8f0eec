/// Recognises acoustic feedback ("howl"): a microphone that hears its own speaker with a loop gain
/// above 1 at some frequency builds up a near-pure tone there, which grows by the loop gain on every
/// trip round the loop until something clips, and then screams at full level.
///
/// Per window of `windowFrameCount` frames of the mono sum, an order-2 linear predictor fitted by
/// least squares (the covariance method, exact for one sinusoid even while it grows) gives the
/// strongest resonance's frequency and how much of the signal it explains (the prediction gain). A howl is confirmed by either
/// - *growth*: consecutive windows in which one steady frequency (within about 5 %) dominates and
///   the level keeps rising (by at least `minimumRiseDecibels` each time), `growthDecibelsToTrigger`
///   in all over at least `growthWindowsToTrigger` windows: a feedback loop multiplies the level on
///   every trip, while a note's attack is over in a window or two and then decays; or
/// - *saturation*: `saturatedWindowsToTrigger` consecutive windows of one steady, strongly
///   predictable frequency at a steady level with peaks at the limiter's ceiling: a howl that is
///   already screaming; or
/// - *a loop stuck at the ceiling*: `stuckWindowsToTrigger` consecutive windows (~430 ms) with
///   peaks at the ceiling and either a steady level with an unchanging spectral shape (the
///   predictor's coefficients move by less than `stuckPredictorTolerance`) or a level above
///   `pinnedLevelDecibels` RMS. A flat loop (a virtual cable, or a room whose response the EQ
///   dominates) does not build one pure tone: it builds a periodic buzz, or with the bass up a
///   sub-sonic square wave ("motorboating"), that the limiter then holds at full level. Music
///   pinned at the limiter that hard, or with a frozen spectrum, for that long is an overload
///   worth ducking too.
/// Music changes pitch or level far sooner than that; `EffectsGraphTests` checks the committed
/// MIDI renders never trigger it.
///
/// Windows are counted whatever the block size, so it behaves the same on any period. Value type;
/// every call is real-time safe.
public struct HowlDetector: Sendable {
    /// 512 frames: 10.7 ms at 48 kHz, short enough to follow a howl's growth of a few dB per loop trip.
    /// - Thread: any.
    @inlinable public static var windowFrameCount: Int { 512 }
    /// Prediction gain above which a window has one dominant resonance.
    /// - Thread: any.
    @inlinable public static var tonalPredictionGainDecibels: Float { 20 }
    /// A saturated howl is a purer tone than that.
    /// - Thread: any.
    @inlinable public static var saturatedPredictionGainDecibels: Float { 35 }
    /// The smallest window-to-window rise that counts as growth.
    /// - Thread: any.
    @inlinable public static var minimumRiseDecibels: Float { 0.25 }
    /// Growth over consecutive growing windows of one frequency that confirms a howl …
    /// - Thread: any.
    @inlinable public static var growthDecibelsToTrigger: Float { 10 }
    /// … over at least this many windows (~53 ms).
    /// - Thread: any.
    @inlinable public static var growthWindowsToTrigger: Int { 5 }
    /// Consecutive steady windows at the ceiling that confirm a saturated howl (~210 ms).
    /// - Thread: any.
    @inlinable public static var saturatedWindowsToTrigger: Int { 20 }
    /// Consecutive frozen windows at the ceiling that confirm a stuck loop (~430 ms).
    /// - Thread: any.
    @inlinable public static var stuckWindowsToTrigger: Int { 40 }
    /// RMS level (dBFS) that, with peaks at the ceiling, counts as pinned whatever the spectrum:
    /// a mastered record at its loudest stays below about −6 dBFS RMS.
    /// - Thread: any.
    @inlinable public static var pinnedLevelDecibels: Float { -4 }
    /// How far either predictor coefficient may move between windows of a stuck loop.
    /// - Thread: any.
    @inlinable public static var stuckPredictorTolerance: Float { 0.02 }
    /// Windows quieter than this (dBFS, RMS) are ignored: nobody is hurt by a quiet tone.
    /// - Thread: any.
    @inlinable public static var quietestLevelDecibels: Float { -50 }

    /// Least-squares sums over the window: s_ij = Σ x[n−i]·x[n−j]. Double: at low frequencies
    /// the normal equations are nearly singular and Float would lose the answer.
    @usableFromInline var s00 = 0.0, s01 = 0.0, s02 = 0.0, s11 = 0.0, s12 = 0.0, s22 = 0.0
    @usableFromInline var previous1: Float = 0, previous2: Float = 0
    @usableFromInline var windowPeak: Float = 0
    @usableFromInline var filledFrameCount = 0
    @usableFromInline var previousLevelDecibels: Float = -200
    @usableFromInline var growingWindowCount = 0
    @usableFromInline var growthDecibels: Float = 0
    @usableFromInline var saturatedWindowCount = 0
    @usableFromInline var stuckWindowCount = 0
    /// The previous window's predictor, whatever its quality, to tell a frozen spectrum.
    @usableFromInline var previousC1: Float = 0, previousC2: Float = 0
    /// cos(ω) of the previous window's resonance, to tell a steady frequency from a moving one.
    @usableFromInline var previousCosine: Float = 2
    @usableFromInline let saturationLevel: Float
    @usableFromInline var lastPredictor1: Float = 0
    @usableFromInline var lastPredictor2: Float = 0
    @usableFromInline var lastLevelDecibels: Float = -200
    /// The predictor of the last narrow window: x[n] ≈ c1·x[n−1] + c2·x[n−2]. For a sinusoid of
    /// frequency f, c1 = 2·cos(2πf/fs) and c2 = −1; `frequency(sampleRate:)` turns it into hertz.
    /// - Thread: audio.
    public var predictor1: Float { @_noAllocation @_noLocks get { lastPredictor1 } }
    /// - Thread: audio.
    public var predictor2: Float { @_noAllocation @_noLocks get { lastPredictor2 } }
    /// The level of the last analysed window, RMS in dBFS.
    /// - Thread: audio.
    public var levelDecibels: Float { lastLevelDecibels }

    /// - Parameter saturationLevel: the sample magnitude at which the output is being limited
    ///   (the limiter's ceiling): a narrow tone reaching it is a howl that has already saturated.
    /// - Thread: any.
    public init(saturationLevel: Float) {
        self.saturationLevel = saturationLevel
    }

    /// Feeds a stereo block; returns true when a window completed in it confirms a howl.
    /// - Thread: audio.
    @inlinable @_noAllocation @_noLocks
    public mutating func analyse(left: UnsafePointer<Float>, right: UnsafePointer<Float>, frameCount: Int) -> Bool {
        var confirmed = false
        var x1 = Double(previous1), x2 = Double(previous2)
        var peak = windowPeak
        for frame in 0..<frameCount {
            let x = Double((left[frame] + right[frame]) * 0.5)
            s00 += x * x; s01 += x * x1; s02 += x * x2
            s11 += x1 * x1; s12 += x1 * x2; s22 += x2 * x2
            peak = max(peak, max(abs(left[frame]), abs(right[frame])))
            x2 = x1
            x1 = x
            filledFrameCount += 1
            if filledFrameCount == Self.windowFrameCount {
                if finishWindow(peak: peak) { confirmed = true }
                s00 = 0; s01 = 0; s02 = 0; s11 = 0; s12 = 0; s22 = 0
                peak = 0
                filledFrameCount = 0
            }
        }
        previous1 = Float(x1); previous2 = Float(x2)
        windowPeak = peak
        return confirmed
    }

    /// Forgets everything seen so far (after the output was ducked, the loop starts over).
    /// - Thread: audio.
    @inlinable @_noAllocation @_noLocks
    public mutating func restart() {
        stuckWindowCount = 0
        growingWindowCount = 0
        growthDecibels = 0
        saturatedWindowCount = 0
        previousLevelDecibels = -200
        previousCosine = 2
    }

    @inlinable @_noAllocation @_noLocks
    mutating func finishWindow(peak: Float) -> Bool {
        let meanSquare = Float(s00 / Double(Self.windowFrameCount))
        let level = meanSquare > 1e-20 ? 3.010_3 * log2Approximation(meanSquare) : -200  // 10·log10
        let rise = level - previousLevelDecibels
        previousLevelDecibels = level
        lastLevelDecibels = level
        // Normal equations [s11 s12; s12 s22]·[c1 c2] = [s01 s02]; residual s00 − c1·s01 − c2·s02.
        // A clipped square wave's flat tops make them singular: no predictor, but still pinned.
        let determinant = s11 * s22 - s12 * s12
        let wellPosed = determinant > 1e-12 * s11 * s22
        let c1 = wellPosed ? (s01 * s22 - s02 * s12) / determinant : 0
        let c2 = wellPosed ? (s02 * s11 - s01 * s12) / determinant : 0
        let frozen = wellPosed && abs(Float(c1) - previousC1) < Self.stuckPredictorTolerance
            && abs(Float(c2) - previousC2) < Self.stuckPredictorTolerance
        previousC1 = Float(c1)
        previousC2 = Float(c2)
        let stuck = (frozen && abs(rise) < 1) || level > Self.pinnedLevelDecibels
        stuckWindowCount = stuck && peak >= saturationLevel ? stuckWindowCount + 1 : 0
        if stuckWindowCount >= Self.stuckWindowsToTrigger { return true }
        guard level > Self.quietestLevelDecibels, wellPosed else {
            forgetTone()
            return false
        }
        let residualFraction = Float(max(s00 - c1 * s01 - c2 * s02, 0) / s00)
        let predictionGain = residualFraction > 1e-12 ? -3.010_3 * log2Approximation(residualFraction) : 120
        let predictor1 = Float(c1), predictor2 = Float(c2)
        guard predictionGain >= Self.tonalPredictionGainDecibels, predictor2 < 0 else {
            forgetTone()
            return false
        }
        // x[n] ≈ c1·x[n−1] + c2·x[n−2] resonates at cos ω = c1 / (2·√−c2).
        let cosine = predictor1 * 0.5 * fastExp2(-0.5 * log2Approximation(-predictor2))
        // ~5 % in frequency: near DC cos ω moves by ω·Δω ≈ 2·(1 − cos ω)·Δω/ω, so scale by 1 − cos ω.
        let steady = abs(cosine - previousCosine) <= 0.1 * max(1 - previousCosine, 0.001)
        previousCosine = cosine
        lastPredictor1 = predictor1
        lastPredictor2 = predictor2
        if steady && rise >= Self.minimumRiseDecibels {
            growingWindowCount += 1
            growthDecibels += rise
        } else {
            growingWindowCount = 0
            growthDecibels = 0
        }
        let growing = growingWindowCount >= Self.growthWindowsToTrigger && growthDecibels >= Self.growthDecibelsToTrigger
        let atCeiling = peak >= saturationLevel && abs(rise) < 1
        saturatedWindowCount = steady && atCeiling && predictionGain >= Self.saturatedPredictionGainDecibels
            ? saturatedWindowCount + 1 : 0
        return growing || saturatedWindowCount >= Self.saturatedWindowsToTrigger
    }

    @inlinable @_noAllocation @_noLocks
    mutating func forgetTone() {
        growingWindowCount = 0
        growthDecibels = 0
        saturatedWindowCount = 0
        previousCosine = 2
    }
}

extension HowlDetector {
    /// The frequency of the last narrow tone, in hertz. Control-thread use (it calls libm).
    /// - Thread: any.
    public func frequency(sampleRate: Double) -> Double {
        HowlDetector.frequency(predictor1: predictor1, predictor2: predictor2, sampleRate: sampleRate)
    }

    /// The frequency of the sinusoid an order-2 predictor x[n] ≈ c1·x[n−1] + c2·x[n−2] describes.
    /// - Thread: any.
    public static func frequency(predictor1 c1: Float, predictor2 c2: Float, sampleRate: Double) -> Double {
        let radius = max(Double(-c2), 1e-9).squareRoot()
        let cosine = min(max(Double(c1) / (2 * radius), -1), 1)
        return sampleRate * acosTurns(cosine)
    }

    /// acos(x)/(2π) by bisection on `sineOfTurns`, so DSP needs no libm.
    static func acosTurns(_ cosine: Double) -> Double {
        var low = 0.0, high = 0.5  // cos falls from 1 to −1 over 0…½ turn
        for _ in 0..<60 {
            let middle = (low + high) / 2
            if sineOfTurns(middle + 0.25) > cosine { low = middle } else { high = middle }
        }
        return (low + high) / 2
    }
}
