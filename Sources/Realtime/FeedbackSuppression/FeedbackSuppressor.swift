import DSP

/// Suppresses acoustic feedback ("howl") with narrow notches, so the voice goes on sounding: a
/// microphone that hears its own speaker with a loop gain above 1 at some frequency builds up a
/// near-pure tone there, and a cut of a tenth of an octave at that frequency is enough to bring the
/// loop back below 1 while leaving the rest of the spectrum, and so the voice, alone.
///
/// The work is in four parts, a file each: detection (`FeedbackDetection.swift`: spectra and
/// candidate tones, once a hop), tracking (`FeedbackTracking.swift`: candidates followed and
/// judged from hop to hop), the notch bank (`NotchBank.swift`: where notches go, how deep, when
/// they release) and the last-resort duck (`LastResortDuck.swift`). Its tuning, every threshold
/// named in those parts, is in `FeedbackTuning.swift`.
///
/// Every decision falls on a hop boundary counted in frames and every ramp is counted in frames,
/// so the output is bit-identical whatever block sizes the caller uses. A value type owning raw
/// storage: create it (allocating) on the control thread, hand it to the audio thread, and call
/// `deallocate()` once nothing uses it.
public struct FeedbackSuppressor: @unchecked Sendable {  // raw storage, used by one thread at a time
    // MARK: Storage

    /// One notch: the band-pass x → b·(x − x[n−2]) / (1 + a1·z⁻¹ + a2·z⁻²) (unity gain at the
    /// centre) subtracted from the signal with weight `weight` = 1 − g.
    @usableFromInline struct Notch {
        @usableFromInline var inUse = false
        @usableFromInline var hertz: Float = 0
        @usableFromInline var depthDecibels: Float = 0
        /// When the notch was placed, to reuse the oldest of equally shallow ones.
        @usableFromInline var serial = 0
        @usableFromInline var quietHops = 0
        /// Placed where a notch was released before, or deepened again after releasing part of
        /// its depth: the loop came back, so it is held longer.
        @usableFromInline var returning = false
        /// The tone it was stepped on fell away after the step: a loop of the room, which the
        /// notch holds down. It stays at its depth while the bank has room (`releaseQuietNotches`).
        @usableFromInline var answeredByLoop = false
        /// Hops since its last step: a loop answers a step at once (`answerHops`).
        @usableFromInline var hopsSinceStep = 0
        /// Placed as a probe on a tone that held steady without growing (`probeHops`): the step
        /// asks whether it is a loop ringing at its edge. A tone that ignores it frees it at once.
        @usableFromInline var isProbe = false
        /// Hops of the probe's judgement still to come once it has settled, and the tone's
        /// lowest raw level over them (`probeJudgementHops`).
        @usableFromInline var probeHopsLeft = 0
        @usableFromInline var probeLowestDecibels: Float = 0
        /// The deepest it has been since it was placed.
        @usableFromInline var deepestDecibels: Float = 0
        /// Its last step was taken on a tone whose level had stopped rising, and the tone has not
        /// fallen since: a held note, which no notch changes at the input, not a loop, which a
        /// step makes die away. Such a tone holding steady is no reason to deepen.
        @usableFromInline var steppedOnHeldTone = false
        @usableFromInline var stepLevelDecibels: Float = 0
        /// The tone went on through the last step as before it, rising at its pace or holding
        /// (`ignoredStepFraction`), and has not fallen since: a source, not a loop. Neither its
        /// growth nor its holding steady deepens the notch (another tone in the band is judged on
        /// its own); the ceiling still does.
        @usableFromInline var stepIgnored = false
        /// At the last step: the tone's raw level and its rise over the hop before, and whether
        /// the step's effect is still to be judged (`judgeStep`, on the hop it has settled).
        @usableFromInline var stepRawLevelDecibels: Float = 0
        @usableFromInline var stepPaceDecibels: Float = 0
        /// The stepped tone's frequency: another tone in the band (a loop's next comb tooth, a
        /// resonance on the flank) is judged on its own.
        @usableFromInline var stepHertz: Float = 0
        @usableFromInline var stepAwaitsJudgement = false
        @usableFromInline var settlingHops = 0
        @usableFromInline var b: Float = 0, a1: Float = 0, a2: Float = 0
        @usableFromInline var targetB: Float = 0, targetA1: Float = 0, targetA2: Float = 0
        @usableFromInline var stepB: Float = 0, stepA1: Float = 0, stepA2: Float = 0
        @usableFromInline var coefficientFramesLeft = 0
        @usableFromInline var weight: Float = 0, targetWeight: Float = 0, weightStep: Float = 0
        @usableFromInline var weightFramesLeft = 0
        @usableFromInline var left1: Float = 0, left2: Float = 0, right1: Float = 0, right2: Float = 0

        @inlinable init() {}

        /// Whether it changes the signal at all (a freed notch at weight 0 is skipped).
        @inlinable var isAudible: Bool {
            @_noAllocation @_noLocks get { weight != 0 || weightFramesLeft > 0 }
        }

        @inlinable @_noAllocation @_noLocks
        mutating func process(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frameCount: Int) {
            var l1 = left1, l2 = left2, r1 = right1, r2 = right2
            var b = self.b, a1 = self.a1, a2 = self.a2, w = weight
            for frame in 0..<frameCount {
                if coefficientFramesLeft > 0 {
                    coefficientFramesLeft -= 1
                    if coefficientFramesLeft == 0 {
                        b = targetB; a1 = targetA1; a2 = targetA2
                    } else {
                        b += stepB; a1 += stepA1; a2 += stepA2
                    }
                }
                if weightFramesLeft > 0 {
                    weightFramesLeft -= 1
                    w = weightFramesLeft == 0 ? targetWeight : w + weightStep
                }
                // Transposed direct form II of the band-pass (b1 = 0, b2 = −b).
                let x = left[frame]
                let bandLeft = b * x + l1
                l1 = l2 - a1 * bandLeft
                l2 = -b * x - a2 * bandLeft
                left[frame] = x - w * bandLeft
                let y = right[frame]
                let bandRight = b * y + r1
                r1 = r2 - a1 * bandRight
                r2 = -b * y - a2 * bandRight
                right[frame] = y - w * bandRight
            }
            left1 = l1; left2 = l2; right1 = r1; right2 = r2
            self.b = b; self.a1 = a1; self.a2 = a2; weight = w
        }

        /// Flushes state decaying towards zero before it turns denormal (called on hop boundaries
        /// only, so the output does not depend on where blocks end).
        @inlinable @_noAllocation @_noLocks
        mutating func flushDenormals() {
            if abs(left1) < 1e-20 { left1 = 0 }
            if abs(left2) < 1e-20 { left2 = 0 }
            if abs(right1) < 1e-20 { right1 = 0 }
            if abs(right2) < 1e-20 { right2 = 0 }
        }
    }

    /// A spectral peak followed from hop to hop.
    @usableFromInline struct Track {
        @usableFromInline var active = false
        @usableFromInline var matched = false
        @usableFromInline var hertz: Float = 0
        /// Where the current growth began: the frequency must stay near it.
        @usableFromInline var anchorHertz: Float = 0
        @usableFromInline var levelDecibels: Float = -200
        /// The lowest of the last `envelopeHops` levels, and where the next level is written.
        @usableFromInline var envelopeDecibels: Float = -200
        @usableFromInline var historyIndex = 0
        /// The lowest and highest levels since the growth count began.
        @usableFromInline var startDecibels: Float = 0
        @usableFromInline var peakDecibels: Float = 0
        @usableFromInline var growthDecibels: Float = 0
        @usableFromInline var growingHops = 0
        @usableFromInline var saturatedHops = 0
        @usableFromInline var missedHops = 0
        @usableFromInline var bin = 0
        /// Hops since the lower envelope last set a new high (by `newHighDecibels`): a howl
        /// still building keeps setting them, a plateau does not.
        @usableFromInline var hopsSinceNewHigh = 0
        @usableFromInline var offFrequencyHops = 0
        @usableFromInline var fallingHops = 0
        /// Hops since the growth count began: how long the tone has held steady.
        @usableFromInline var steadyHops = 0
        @usableFromInline var highMark: Float = -200
        @usableFromInline var purityDecibels: Float = 0
        /// Hops in a row with the frequency within `steadyFraction` of where the growth began.
        @usableFromInline var onFrequencyHops = 0
        /// The raw level's rise over the last `exponentialRiseHops` hops when it rose steeply in
        /// every one of them at one pitch (0 otherwise): a fast howl's straight line in dB.
        @usableFromInline var exponentialRiseDecibels: Float = 0
        /// A probe notch has been placed on it once (`probeHops`): a held note is probed once.
        @usableFromInline var probed = false

        @inlinable init() {}

        @inlinable @_noAllocation @_noLocks
        mutating func restartGrowth(at level: Float) {
            startDecibels = level
            peakDecibels = level
            highMark = level
            hopsSinceNewHigh = 0
            fallingHops = 0
            steadyHops = 0
            growthDecibels = 0
            growingHops = 0
        }
    }

    /// A candidate peak of this hop's spectrum.
    @usableFromInline struct Candidate {
        @usableFromInline var bin = 0
        @usableFromInline var power: Float = 0
        @inlinable init() {}
    }

    /// A track or a candidate as new, made here beside their fields' initial values: code in the
    /// other files calls these, since a debug build checks real-time code a file at a time and
    /// cannot see those values from there.
    @inlinable @_noAllocation @_noLocks
    static func newTrack() -> Track { Track() }
    @inlinable @_noAllocation @_noLocks
    static func newCandidate() -> Candidate { Candidate() }

    public let sampleRate: Double
    @usableFromInline let ceiling: Float
    /// The last `analysisFrameCount` frames of the mono input, oldest at `writeIndex`.
    @usableFromInline let history: UnsafeMutablePointer<Float>
    @usableFromInline let window: UnsafeMutablePointer<Float>
    /// FFT work space (real, imaginary), the power spectrum, and the previous hop's spectrum.
    @usableFromInline let real: UnsafeMutablePointer<Float>
    @usableFromInline let imaginary: UnsafeMutablePointer<Float>
    @usableFromInline let power: UnsafeMutablePointer<Float>
    @usableFromInline let previousReal: UnsafeMutablePointer<Float>
    @usableFromInline let previousImaginary: UnsafeMutablePointer<Float>
    /// cos and sin of 2π·j/N for j < N/2, and the bit-reversal permutation.
    @usableFromInline let twiddleCosine: UnsafeMutablePointer<Float>
    @usableFromInline let twiddleSine: UnsafeMutablePointer<Float>
    @usableFromInline let bitReversed: UnsafeMutablePointer<Int32>
    @usableFromInline let notches: UnsafeMutablePointer<Notch>
    @usableFromInline let tracks: UnsafeMutablePointer<Track>
    @usableFromInline let candidates: UnsafeMutablePointer<Candidate>
    /// Each track's last `envelopeHops` levels, track-major.
    @usableFromInline let trackLevels: UnsafeMutablePointer<Float>
    /// The frequencies of the last `maximumNotchCount` notches released (0 where none), a ring:
    /// a room's feedback frequencies stay where they are, so a howl coming back at one is known.
    @usableFromInline let releasedHertz: UnsafeMutablePointer<Float>
    @usableFromInline var releasedIndex = 0

    @usableFromInline var writeIndex = 0
    @usableFromInline var filledFrameCount = 0
    @usableFromInline var hopPeak: Float = 0
    @usableFromInline var hopSumOfSquares: Float = 0
    @usableFromInline var notchSerial = 0
    @usableFromInline var stuckHops = 0
    /// Hops with the peak at the ceiling, notches at work or not, less two for each hop below it.
    @usableFromInline var ceilingHops = 0
    @usableFromInline var previousStrongestBin = 0
    @usableFromInline var previousStrongestDecibels: Float = -200
    /// Hops since any notch last deepened or moved: a loop being notched is not a stuck loop.
    @usableFromInline var hopsSinceNotchWork = 1_000_000
    /// The duck's gain, ramped linearly frame by frame (counted in frames, like every ramp here).
    @usableFromInline var duckGain: Float = 1
    @usableFromInline var duckTarget: Float = 1
    @usableFromInline var duckStep: Float = 0
    @usableFromInline var duckFramesLeft = 0
    @usableFromInline var duckHopsLeft = 0
    @usableFromInline let duckFrameCount: Int
    @usableFromInline let duckReleaseFrameCount: Int
    @usableFromInline let holdHops: Int
    @usableFromInline let releaseDecibelsPerHop: Float
    @usableFromInline let lowestBin: Int
    @usableFromInline let highestBin: Int
    @usableFromInline var ducks = 0
    @usableFromInline var newFrequencies = 0
    @usableFromInline var lastPlacedHertz: Float = 0

    // MARK: Counters

    /// How many times the last-resort duck set in.
    /// - Thread: audio.
    public var duckCount: Int { @inlinable @_noAllocation @_noLocks get { ducks } }
    /// How many times a feedback frequency was newly notched (an event counter: publish changes).
    /// - Thread: audio.
    public var notchedFrequencyCount: Int { @inlinable @_noAllocation @_noLocks get { newFrequencies } }
    /// The frequency of the last feedback newly notched, in hertz (0 before the first).
    /// - Thread: audio.
    public var lastNotchedHertz: Float { @inlinable @_noAllocation @_noLocks get { lastPlacedHertz } }
    /// True while the output is ducked or coming back from a duck.
    /// - Thread: audio.
    public var isDucking: Bool { @inlinable @_noAllocation @_noLocks get { duckHopsLeft > 0 || duckGain != 1 } }
    /// Notches placed and not yet released.
    /// - Thread: audio.
    public var activeNotchCount: Int {
        @inlinable @_noAllocation @_noLocks get {
            var count = 0
            for index in 0..<Self.maximumNotchCount where notches[index].inUse { count += 1 }
            return count
        }
    }
    /// The notch in slot `index` (0 ..< `maximumNotchCount`): its centre and its gain there in dB
    /// (0 or below; 0 for a free slot).
    /// - Thread: audio.
    @inlinable @_noAllocation @_noLocks
    public func notch(at index: Int) -> (hertz: Float, depthDecibels: Float) {
        guard index >= 0, index < Self.maximumNotchCount, notches[index].inUse else { return (0, 0) }
        return (notches[index].hertz, -notches[index].depthDecibels)
    }
    /// The deepest notch's gain in dB (0 when none is placed; −30 at full depth).
    /// - Thread: audio.
    public var deepestNotchDecibels: Float {
        @inlinable @_noAllocation @_noLocks get {
            var deepest: Float = 0
            for index in 0..<Self.maximumNotchCount where notches[index].inUse {
                deepest = max(deepest, notches[index].depthDecibels)
            }
            return -deepest
        }
    }

    // MARK: Life cycle

    /// - Parameters:
    ///   - ceilingDecibels: the level (dBFS) of the limiter after it: a howl reaching it has
    ///     saturated, and a loop pinned there is stuck.
    /// - Thread: control. Not real-time safe: allocates.
    public init(sampleRate: Double, ceilingDecibels: Float = -1) {
        self.sampleRate = sampleRate
        ceiling = decibelsToAmplitude(ceilingDecibels)
        let size = Self.analysisFrameCount
        history = .allocate(capacity: size)
        history.initialize(repeating: 0, count: size)
        window = .allocate(capacity: size)
        real = .allocate(capacity: size)
        real.initialize(repeating: 0, count: size)
        imaginary = .allocate(capacity: size)
        imaginary.initialize(repeating: 0, count: size)
        power = .allocate(capacity: size / 2 + 1)
        power.initialize(repeating: 0, count: size / 2 + 1)
        previousReal = .allocate(capacity: size / 2 + 1)
        previousReal.initialize(repeating: 0, count: size / 2 + 1)
        previousImaginary = .allocate(capacity: size / 2 + 1)
        previousImaginary.initialize(repeating: 0, count: size / 2 + 1)
        twiddleCosine = .allocate(capacity: size / 2)
        twiddleSine = .allocate(capacity: size / 2)
        bitReversed = .allocate(capacity: size)
        for n in 0..<size {
            // Periodic Hann: its overlapped copies at a quarter-window hop sum to a constant.
            let turns = Double(n) / Double(size)
            window.advanced(by: n).initialize(to: Float(0.5 - 0.5 * cosineOfTurns(turns)))
        }
        for j in 0..<size / 2 {
            let turns = Double(j) / Double(size)
            twiddleCosine.advanced(by: j).initialize(to: Float(cosineOfTurns(turns)))
            twiddleSine.advanced(by: j).initialize(to: Float(sineOfTurns(turns)))
        }
        var bits = 0
        while (1 << bits) < size { bits += 1 }
        for n in 0..<size {
            var reversed = 0
            for bit in 0..<bits where n & (1 << bit) != 0 { reversed |= 1 << (bits - 1 - bit) }
            bitReversed.advanced(by: n).initialize(to: Int32(reversed))
        }
        notches = .allocate(capacity: Self.maximumNotchCount)
        notches.initialize(repeating: Notch(), count: Self.maximumNotchCount)
        tracks = .allocate(capacity: Self.trackCount)
        tracks.initialize(repeating: Track(), count: Self.trackCount)
        candidates = .allocate(capacity: Self.candidateCount)
        candidates.initialize(repeating: Candidate(), count: Self.candidateCount)
        trackLevels = .allocate(capacity: Self.trackCount * Self.envelopeHops)
        trackLevels.initialize(repeating: -200, count: Self.trackCount * Self.envelopeHops)
        releasedHertz = .allocate(capacity: Self.maximumNotchCount)
        releasedHertz.initialize(repeating: 0, count: Self.maximumNotchCount)
        duckFrameCount = max(1, Int(sampleRate * Self.duckSeconds))
        duckReleaseFrameCount = max(1, Int(sampleRate * Self.duckReleaseSeconds))
        let hopSeconds = Double(Self.hopFrameCount) / sampleRate
        holdHops = Int(Self.releaseHoldSeconds / hopSeconds)
        releaseDecibelsPerHop = Float(Self.releaseDecibelsPerSecond * hopSeconds)
        // 40 Hz up to 16 kHz (or 0.45·sampleRate): with the bass left flat, a small room's loop
        // can howl below its lowest mode, and no notch above would touch it; below, a howl is a
        // rumble the bass cut handles; above, few speakers reproduce enough to feed back.
        let binHertz = sampleRate / Double(size)
        lowestBin = max(3, Int(40 / binHertz))
        highestBin = min(size / 2 - 8, Int(min(16_000, 0.45 * sampleRate) / binHertz))
    }

    /// Frees the storage. Call once, when no thread uses the suppressor any more.
    /// - Thread: stopped. Not real-time safe: frees.
    public func deallocate() {
        history.deallocate(); window.deallocate()
        real.deallocate(); imaginary.deallocate(); power.deallocate()
        previousReal.deallocate(); previousImaginary.deallocate()
        twiddleCosine.deallocate(); twiddleSine.deallocate(); bitReversed.deallocate()
        notches.deallocate(); tracks.deallocate(); candidates.deallocate(); trackLevels.deallocate()
        releasedHertz.deallocate()
    }

    // MARK: Processing

    /// Filters a stereo block in place: the notches (the same on both channels), then the duck.
    /// Detection runs on the mono sum of the input, before the notches: the loop's growth shows
    /// there whatever the notches already do.
    /// - Thread: audio.
    @inlinable @_noAllocation @_noLocks
    public mutating func process(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frameCount: Int) {
        var done = 0
        while done < frameCount {
            // Runs end on hop boundaries, where decisions fall, whatever the block size.
            let run = min(frameCount - done, Self.hopFrameCount - filledFrameCount)
            let l = left + done, r = right + done
            var index = writeIndex
            var peak = hopPeak, sum = hopSumOfSquares
            let mask = Self.analysisFrameCount - 1
            for frame in 0..<run {
                let x = (l[frame] + r[frame]) * 0.5
                history[index] = x
                index = (index + 1) & mask
                peak = max(peak, max(abs(l[frame]), abs(r[frame])))
                sum += x * x
            }
            writeIndex = index
            hopPeak = peak
            hopSumOfSquares = sum
            for slot in 0..<Self.maximumNotchCount where notches[slot].isAudible {
                notches[slot].process(left: l, right: r, frameCount: run)
            }
            if duckFramesLeft > 0 || duckGain != 1 {
                var gain = duckGain
                for frame in 0..<run {
                    if duckFramesLeft > 0 {
                        duckFramesLeft -= 1
                        gain = duckFramesLeft == 0 ? duckTarget : gain + duckStep
                    }
                    l[frame] *= gain
                    r[frame] *= gain
                }
                duckGain = gain
            }
            filledFrameCount += run
            done += run
            if filledFrameCount == Self.hopFrameCount {
                filledFrameCount = 0
                analyseHop()
            }
        }
    }

}
