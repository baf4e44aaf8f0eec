/// Suppresses acoustic feedback ("howl") with narrow notches, so the voice goes on sounding: a
/// microphone that hears its own speaker with a loop gain above 1 at some frequency builds up a
/// near-pure tone there, and a cut of a tenth of an octave at that frequency is enough to bring the
/// loop back below 1 while leaving the rest of the spectrum, and so the voice, alone.
///
/// Detection, once per hop of `hopFrameCount` frames of the mono sum (L+R)/2 of the input:
/// - A Hann-windowed FFT of the last `analysisFrameCount` frames; its local maxima that stand
///   `prominenceDecibels` above the bins four and five bins away are candidates (a tone, not the
///   slope of a broad formant), the strongest `candidateCount` of them each hop.
/// - Each candidate's frequency comes from the phase advance of its bin since the previous hop
///   (the phase vocoder's estimate): exact for a steady sinusoid, growing or not, and far finer
///   than the bins, which matters because a notch a tenth of an octave wide must sit on the howl.
/// - Candidates are followed from hop to hop in tracks. A track's growth is its level above the
///   lowest it has been since the count began; the count begins again when its frequency leaves
///   `steadyFraction` of where it started, when it rises by more than `maximumRiseDecibels` in a
///   hop (a note's onset: the window smears a step over four hops, two of them above 6 dB), or
///   when it falls `fallDecibels` below its highest (a tremolo's fall, a note's decay), so dips of
///   a dB or two, the voice beating against a howl still building, do not end it.
/// - A howl is confirmed at a new frequency when a pure track (no energy within
///   `purityDecibels` of it at the frequencies that would make it a harmonic of a note: ½, ⅓, 2×,
///   3×, and the (n±1)/n neighbours, leaving out any inside a notch's band: that is another howl)
///   has grown by `growthDecibelsToConfirm` over at least `growthHopsToConfirm` hops, or is still
///   rising after growing further than a tremolo does (`risingGrowthDecibelsToConfirm`) or for
///   longer (`steadyGrowthDecibelsToConfirm` over `steadyGrowthHopsToConfirm` hops: a loop a dB
///   above 1), or slowly for a second, or has risen steeply hop after hop in a straight line
///   of its raw level (`exponentialRiseDecibelsToConfirm`: a fast howl, caught long before the
///   ceiling, where the lagging lower envelope would be late), or has sat steady at the ceiling for
///   `saturatedHopsToConfirm` hops. Where a notch was released lately, a smaller rise is enough.
///   A feedback loop multiplies the level on every trip until something stops it; music does not
///   keep rising 20 dB at one pure, unwavering pitch: a sung or blown swell is about 15 dB and
///   carries harmonics, vibrato moves the pitch by far more than `steadyFraction`, tremolo falls
///   again after its ~12 dB rise, a flute's held note does not grow, and a piano's notes decay.
///
/// The notch law: a confirmed frequency gets a notch `stepDecibels` deep (two steps when the howl
/// was already at the ceiling). Growth seen again inside a notch's band (the loop still rising
/// there) deepens it by another step, down to `maximumDepthDecibels`, with a lower threshold
/// (`regrowthDecibelsToDeepen`), since that frequency is known to feed back; at the ceiling only
/// while the howl is not yet ringing down. A pure tone holding steady inside the band for half a
/// second (the loop ringing at a gain of exactly 1) deepens it too, unless the notch's last step
/// came on a tone that had already stopped rising and that has not fallen since: a notch changes
/// the input only through a loop, so a held note holds through its step, where a loop the step
/// stopped dies away. Growth on a notch's flank, beyond `flankRatio` of its centre, gets a notch
/// of its own instead. The notch is x − (1 − g)·bandPass(x): a band-pass of
/// fixed bandwidth (`notchBandwidthOctaves` between its −3 dB points) subtracted with weight
/// 1 − g, which is exactly a peaking cut of gain g at the centre; its skirts do not widen as it
/// deepens, and the depth is one number ramped frame by
/// frame, so a step makes no click. A notch that has seen no growth for `releaseHoldSeconds`
/// releases by `releaseDecibelsPerSecond` back to 0 dB and is freed; if the loop comes back, it
/// is caught again, and that notch holds `returningHoldFactor` times longer, as does a notch the
/// loop made deepen again once its release had begun. With all
/// `maximumNotchCount` notches in use, the shallowest (the oldest of equals) is moved to the new
/// frequency.
///
/// Ducking the whole output (by `duckDecibels` for `duckHoldSeconds`) is the last resort, counted
/// in `duckCount`: when a notch already at full depth must deepen, when a new frequency finds all
/// notches at full depth, when the output has stayed at the ceiling for `chasedHopsToDuck` hops
/// (a broadband loop the notches only chase), or when the input is stuck at the ceiling for
/// `stuckHopsToDuck` hops with a pinned level or a frozen spectrum while no notch is at work (a
/// broadband loop: the buzz or motorboating a flat loop builds, which no notch can fix).
///
/// Every decision falls on a hop boundary counted in frames and every ramp is counted in frames,
/// so the output is bit-identical whatever block sizes the caller uses. A value type owning raw
/// storage: create it (allocating) on the control thread, hand it to the audio thread, and call
/// `deallocate()` once nothing uses it.
public struct FeedbackSuppressor: @unchecked Sendable {  // raw storage, used by one thread at a time
    /// 4096 frames (85 ms at 48 kHz): bins of 11.7 Hz, fine enough to part a low howl (a room
    /// mode at 140 Hz) from the voice's partials around it, short enough to follow its growth.
    /// - Thread: any.
    @inlinable public static var analysisFrameCount: Int { @_noAllocation @_noLocks get { 4_096 } }
    /// A quarter of the window (21 ms at 48 kHz): the phase vocoder needs the overlap to tell
    /// the frequency unambiguously within ±2 bins.
    /// - Thread: any.
    @inlinable public static var hopFrameCount: Int { @_noAllocation @_noLocks get { 1_024 } }
    /// - Thread: any.
    @inlinable public static var maximumNotchCount: Int { @_noAllocation @_noLocks get { 8 } }
    /// Peaks followed per hop: more than the howls that build at once in any one room.
    /// - Thread: any.
    @inlinable public static var candidateCount: Int { @_noAllocation @_noLocks get { 8 } }
    /// Tracks followed from hop to hop.
    /// - Thread: any.
    @inlinable public static var trackCount: Int { @_noAllocation @_noLocks get { 16 } }
    /// Width of a notch between its −3 dB points (for a deep notch).
    /// - Thread: any.
    @inlinable public static var notchBandwidthOctaves: Double { @_noAllocation @_noLocks get { 0.1 } }
    /// 2^(1/40): a quarter of the bandwidth from a notch's centre, where a notch cuts about half
    /// its depth in dB.
    /// - Thread: any.
    @inlinable public static var flankRatio: Float { @_noAllocation @_noLocks get { 1.017_479 } }
    /// - Thread: any.
    @inlinable public static var stepDecibels: Float { @_noAllocation @_noLocks get { 3 } }
    /// - Thread: any.
    @inlinable public static var maximumDepthDecibels: Float { @_noAllocation @_noLocks get { 30 } }
    /// A candidate stands this far above the bins 4 and 5 bins away (a Hann window's main lobe
    /// is ±2 bins wide).
    /// - Thread: any.
    @inlinable public static var prominenceDecibels: Float { @_noAllocation @_noLocks get { 15 } }
    /// A howl is this much stronger than anything at its harmonic relatives.
    /// - Thread: any.
    @inlinable public static var purityDecibels: Float { @_noAllocation @_noLocks get { 15 } }
    /// Candidates quieter than this (dBFS, sinusoid amplitude) are ignored: nobody is hurt by a
    /// quiet tone.
    /// - Thread: any.
    @inlinable public static var quietestLevelDecibels: Float { @_noAllocation @_noLocks get { -66 } }
    /// A growing track's frequency stays within this fraction of where the growth began (or
    /// `steadyHertz`, whichever is wider). Vibrato of ±50 cents is ±2.9 %.
    /// - Thread: any.
    @inlinable public static var steadyFraction: Float { @_noAllocation @_noLocks get { 0.01 } }
    /// - Thread: any.
    @inlinable public static var steadyHertz: Float { @_noAllocation @_noLocks get { 2 } }
    /// A larger rise in one hop is an onset: the growth count starts again after it.
    /// - Thread: any.
    @inlinable public static var maximumRiseDecibels: Float { @_noAllocation @_noLocks get { 6 } }
    /// A fall this far below the highest level since the growth began ends the count (a tremolo's
    /// fall, a note's decay); smaller dips are the voice beating against a howl still building.
    /// - Thread: any.
    @inlinable public static var fallDecibels: Float { @_noAllocation @_noLocks get { 6 } }
    /// … for this many hops in a row (64 ms, on top of the lower envelope's own lag).
    /// - Thread: any.
    @inlinable public static var fallHops: Int { @_noAllocation @_noLocks get { 3 } }
    /// Growth that confirms a howl at a new frequency …
    /// - Thread: any.
    @inlinable public static var growthDecibelsToConfirm: Float { @_noAllocation @_noLocks get { 20 } }
    /// … over at least this many hops (128 ms at 48 kHz).
    /// - Thread: any.
    @inlinable public static var growthHopsToConfirm: Int { @_noAllocation @_noLocks get { 6 } }
    /// A slow howl (a loop barely above 1, growing a few dB a second) is confirmed by a smaller
    /// growth held for longer: `slowGrowthDecibelsToConfirm` over `slowGrowthHopsToConfirm` hops
    /// (1 s), its lower envelope still setting new highs: a plateau (a held note after a swell)
    /// stops setting them.
    /// - Thread: any.
    @inlinable public static var slowGrowthDecibelsToConfirm: Float { @_noAllocation @_noLocks get { 9 } }
    /// - Thread: any.
    @inlinable public static var slowGrowthHopsToConfirm: Int { @_noAllocation @_noLocks get { 47 } }
    /// Between the fast and the slow test, growth still rising when it has gone further than a
    /// tremolo's (12 dB in 12 hops, then a fall) …
    /// - Thread: any.
    @inlinable public static var risingGrowthDecibelsToConfirm: Float { @_noAllocation @_noLocks get { 14 } }
    /// - Thread: any.
    @inlinable public static var risingGrowthHopsToConfirm: Int { @_noAllocation @_noLocks get { 10 } }
    /// … or for longer than one (a loop a dB above 1 grows about half a dB a hop).
    /// - Thread: any.
    @inlinable public static var steadyGrowthDecibelsToConfirm: Float { @_noAllocation @_noLocks get { 12 } }
    /// - Thread: any.
    @inlinable public static var steadyGrowthHopsToConfirm: Int { @_noAllocation @_noLocks get { 22 } }
    /// A fast howl (a loop a fraction of a decibel past its edge with a short round trip) rises
    /// by the same number of decibels every hop, a few dB each, and would reach the ceiling before
    /// the lower envelope, which lags it by several hops, had grown enough. So the raw level's last
    /// `exponentialRiseHops` rises, each at least `exponentialStepDecibels` (and no onset's),
    /// adding up to `exponentialRiseDecibelsToConfirm`, confirm it at once. A loop multiplies the
    /// level by the same factor on every trip, so its rise in dB is a straight line; a tremolo's
    /// steepest rise (12 dB at 2 Hz) is under 2 dB a hop and 12 dB in all, and a note's attack,
    /// linear in amplitude, rises less every hop. A new track's levels all start at its first, so
    /// it needs that many hops of its own (at most `envelopeHops` − 1: the ring holds no more).
    /// - Thread: any.
    @inlinable public static var exponentialRiseHops: Int { @_noAllocation @_noLocks get { 4 } }
    /// - Thread: any.
    @inlinable public static var exponentialStepDecibels: Float { @_noAllocation @_noLocks get { 2.5 } }
    /// - Thread: any.
    @inlinable public static var exponentialRiseDecibelsToConfirm: Float { @_noAllocation @_noLocks get { 12 } }
    /// Hops since the last new high within which a track still counts as rising.
    /// - Thread: any.
    @inlinable public static var risingHops: Int { @_noAllocation @_noLocks get { 3 } }
    /// - Thread: any.
    @inlinable public static var newHighDecibels: Float { @_noAllocation @_noLocks get { 0.5 } }
    /// - Thread: any.
    @inlinable public static var hopsWithoutNewHigh: Int { @_noAllocation @_noLocks get { 10 } }
    /// A followed track is kept this many hops without being found (the voice may hide it).
    /// - Thread: any.
    @inlinable public static var maximumMissedHops: Int { @_noAllocation @_noLocks get { 12 } }
    /// Hops in a row off its frequency that end a track's growth count.
    /// - Thread: any.
    @inlinable public static var offFrequencyHops: Int { @_noAllocation @_noLocks get { 4 } }
    /// Prominence a followed track needs at its own bin to be found again.
    /// - Thread: any.
    @inlinable public static var trackedProminenceDecibels: Float { @_noAllocation @_noLocks get { 6 } }
    /// Growth inside a notch's band that deepens it, over at least `regrowthHopsToDeepen` hops.
    /// - Thread: any.
    @inlinable public static var regrowthDecibelsToDeepen: Float { @_noAllocation @_noLocks get { 3 } }
    /// A tone whose raw level rose less than `heldToneRiseDecibels` over the last `heldToneHops`
    /// hops before a notch stepped on it had stopped rising: a loop the step stopped was growing
    /// up to it (half a dB a hop even a dB above 1).
    /// - Thread: any.
    @inlinable public static var heldToneHops: Int { @_noAllocation @_noLocks get { 3 } }
    /// - Thread: any.
    @inlinable public static var heldToneRiseDecibels: Float { @_noAllocation @_noLocks get { 1 } }
    /// Once a notch's step has settled (`settlingHops`): if the stepped tone's raw level rose
    /// since by at least this fraction of its rise over the hop before the step, times the hops
    /// since, less `ignoredStepDecibels` (so a tone that holds its level counts too), the tone
    /// ignored the step. A loop answers a step: 3 dB less gain takes 3 dB off every round trip,
    /// so it dies away, or grows far slower. A source does not: a whistle or a sine pad swelling
    /// into the microphone, which a notch on the output does not touch at the input.
    /// - Thread: any.
    @inlinable public static var ignoredStepFraction: Float { @_noAllocation @_noLocks get { 0.6 } }
    /// - Thread: any.
    @inlinable public static var ignoredStepDecibels: Float { @_noAllocation @_noLocks get { 0.5 } }
    /// Hops (0.5 s) a pure tone holds steady inside a notch's band before the notch deepens.
    /// - Thread: any.
    @inlinable public static var ringingHopsToDeepen: Int { @_noAllocation @_noLocks get { 24 } }
    /// - Thread: any.
    @inlinable public static var regrowthHopsToDeepen: Int { @_noAllocation @_noLocks get { 3 } }
    /// Hops a steady tone sits with the input at the ceiling before it is notched (170 ms) …
    /// - Thread: any.
    @inlinable public static var saturatedHopsToConfirm: Int { @_noAllocation @_noLocks get { 8 } }
    /// … or, inside a notch's band, before the notch deepens.
    /// - Thread: any.
    @inlinable public static var saturatedHopsToDeepen: Int { @_noAllocation @_noLocks get { 3 } }
    /// Hops after a notch moved during which its band is not judged: the window still holds the
    /// signal from before the change.
    /// - Thread: any.
    @inlinable public static var settlingHops: Int { @_noAllocation @_noLocks get { 4 } }
    /// - Thread: any.
    @inlinable public static var releaseHoldSeconds: Double { @_noAllocation @_noLocks get { 4 } }
    /// A notch placed again where one was released, or deepened again once its release had
    /// begun, holds this many times longer.
    /// - Thread: any.
    @inlinable public static var returningHoldFactor: Int { @_noAllocation @_noLocks get { 4 } }
    /// - Thread: any.
    @inlinable public static var releaseDecibelsPerSecond: Double { @_noAllocation @_noLocks get { 2 } }
    /// - Thread: any.
    @inlinable public static var duckDecibels: Float { @_noAllocation @_noLocks get { -24 } }
    /// - Thread: any.
    @inlinable public static var duckSeconds: Double { @_noAllocation @_noLocks get { 0.02 } }
    /// - Thread: any.
    @inlinable public static var duckHoldSeconds: Double { @_noAllocation @_noLocks get { 2 } }
    /// - Thread: any.
    @inlinable public static var duckReleaseSeconds: Double { @_noAllocation @_noLocks get { 2 } }
    /// Hops (~430 ms) of a loop stuck at the ceiling before the last-resort duck.
    /// - Thread: any.
    @inlinable public static var stuckHopsToDuck: Int { @_noAllocation @_noLocks get { 20 } }
    /// Hops (~1.3 s) the output may sit at the ceiling before the notches count as beaten (a
    /// leaky count: a hop below the ceiling takes two off, so a loop whose limited peaks dip now
    /// and then still counts up, and music's occasional peaks never do): a broadband loop (a cable, a flat path with gain to spare) moves to the next
    /// frequency each time one is notched, or builds a buzz with no steady peak, and the limiter
    /// holds it there. Music that loud for that long is an overload worth ducking too.
    /// - Thread: any.
    @inlinable public static var chasedHopsToDuck: Int { @_noAllocation @_noLocks get { 60 } }
    /// Hops over which a track's lower envelope (the second lowest level) is taken (128 ms): the
    /// voice adds to a bin while it sounds there and then leaves, so the lower envelope is the
    /// howl's own level.
    /// - Thread: any.
    @inlinable public static var envelopeHops: Int { @_noAllocation @_noLocks get { 6 } }
    /// A hop this far above the lower envelope is disturbed (the voice is in the bin): its
    /// frequency estimate is not trusted.
    /// - Thread: any.
    @inlinable public static var disturbedDecibels: Float { @_noAllocation @_noLocks get { 3 } }
    /// RMS level (dBFS) that, with peaks at the ceiling, counts as pinned whatever the spectrum:
    /// a mastered record at its loudest stays below about −6 dBFS RMS.
    /// - Thread: any.
    @inlinable public static var pinnedLevelDecibels: Float { @_noAllocation @_noLocks get { -4 } }

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

    // MARK: Analysis

    @inlinable @_noAllocation @_noLocks
    mutating func analyseHop() {
        let size = Self.analysisFrameCount
        let half = size / 2
        for n in 0..<size {
            real[n] = history[(writeIndex + n) & (size - 1)] * window[n]
            imaginary[n] = 0
        }
        transform()
        // Sinusoid amplitude from a bin: 2·|X| / Σw = 4·|X| / N, so dB = 10·log10(|X|²·16/N²).
        let powerScale = 16 / Float(size * size)
        for k in 0...half { power[k] = (real[k] * real[k] + imaginary[k] * imaginary[k]) * powerScale }

        let hopMeanSquare = hopSumOfSquares / Float(Self.hopFrameCount)
        let peakAtCeiling = hopPeak >= ceiling
        findCandidates()
        let quietest = decibelsToAmplitude(Self.quietestLevelDecibels)
        let quietestPower = quietest * quietest

        for index in 0..<Self.trackCount { tracks[index].matched = false }
        var strongestBin = 0
        var strongestPower: Float = 0
        for k in lowestBin...highestBin where power[k] > strongestPower {
            strongestPower = power[k]
            strongestBin = k
        }
        // Tracks already followed are looked for at their own bin first, however many louder
        // peaks the voice makes this hop: a howl building under the voice must not be lost.
        let relaxedProminence = decibelsToAmplitude(-Self.trackedProminenceDecibels)
        let binsPerHertz = Float(Self.analysisFrameCount) / Float(sampleRate)
        for index in 0..<Self.trackCount where tracks[index].active {
            let centre = Int(tracks[index].hertz * binsPerHertz + 0.5)
            var bin = -1
            var best: Float = quietestPower
            let low = max(lowestBin, centre - 1), high = min(highestBin, centre + 1)
            guard low <= high else { continue }
            for k in low...high where power[k] > best && power[k] > power[k - 1] && power[k] >= power[k + 1] {
                best = power[k]
                bin = k
            }
            guard bin >= 0, !binIsClaimed(bin) else { continue }
            let neighbours = neighbourPower(bin)
            guard neighbours <= power[bin] * relaxedProminence * relaxedProminence else { continue }
            let hertz = frequency(bin: bin)
            guard abs(hertz - tracks[index].hertz) < 0.035 * tracks[index].hertz else { continue }
            update(track: index, bin: bin, hertz: hertz, strongestPower: strongestPower, peakAtCeiling: peakAtCeiling)
        }
        // New tracks from the strongest prominent peaks no track holds.
        for rank in 0..<Self.candidateCount {
            let candidate = candidates[rank]
            guard candidate.power > 0 else { break }
            guard !binIsClaimed(candidate.bin, within: 2) else { continue }
            var free = -1
            for index in 0..<Self.trackCount where !tracks[index].active {
                free = index
                break
            }
            guard free >= 0 else { break }
            var track = Track()
            track.active = true
            track.hertz = frequency(bin: candidate.bin)
            track.anchorHertz = track.hertz
            tracks[free] = track
            let level = Self.decibels(candidate.power)
            for hop in 0..<Self.envelopeHops { trackLevels[free * Self.envelopeHops + hop] = level }
            tracks[free].envelopeDecibels = level
            tracks[free].levelDecibels = level
            tracks[free].restartGrowth(at: level)
            update(track: free, bin: candidate.bin, hertz: track.hertz, strongestPower: strongestPower, peakAtCeiling: peakAtCeiling)
        }
        for index in 0..<Self.trackCount where tracks[index].active && !tracks[index].matched {
            tracks[index].missedHops += 1
            if tracks[index].missedHops > Self.maximumMissedHops { tracks[index] = Track() }
        }
        judgeTracks()
        releaseQuietNotches()
        checkStuck(peakAtCeiling: peakAtCeiling, meanSquare: hopMeanSquare, strongestBin: strongestBin,
                   strongestDecibels: Self.decibels(strongestPower))
        if duckHopsLeft > 0 {
            duckHopsLeft -= 1
            if duckHopsLeft == 0 { moveDuck(to: 1, frameCount: duckReleaseFrameCount) }
        }
        for k in 0...half {
            previousReal[k] = real[k]
            previousImaginary[k] = imaginary[k]
        }
        for slot in 0..<Self.maximumNotchCount { notches[slot].flushDenormals() }
        hopPeak = 0
        hopSumOfSquares = 0
        hopsSinceNotchWork = min(hopsSinceNotchWork + 1, 1_000_000)
    }

    /// The strongest `candidateCount` prominent local maxima of the power spectrum.
    @inlinable @_noAllocation @_noLocks
    mutating func findCandidates() {
        for rank in 0..<Self.candidateCount { candidates[rank] = Candidate() }
        let quietest = decibelsToAmplitude(Self.quietestLevelDecibels)
        let quietestPower = quietest * quietest
        let prominence = decibelsToAmplitude(-Self.prominenceDecibels)
        let prominencePower = prominence * prominence
        for k in lowestBin...highestBin {
            let p = power[k]
            guard p >= quietestPower, p > power[k - 1], p >= power[k + 1] else { continue }
            let neighbours = neighbourPower(k)
            guard neighbours <= p * prominencePower else { continue }
            // Insert by power into the short list, strongest first.
            guard p > candidates[Self.candidateCount - 1].power else { continue }
            var position = Self.candidateCount - 1
            while position > 0 && candidates[position - 1].power < p {
                candidates[position] = candidates[position - 1]
                position -= 1
            }
            candidates[position].bin = k
            candidates[position].power = p
        }
    }

    /// The mean power 4 and 5 bins either side of `bin`; only above it for the lowest bins,
    /// whose lower neighbours would be DC (or beyond it).
    @inlinable @_noAllocation @_noLocks
    func neighbourPower(_ bin: Int) -> Float {
        let above = (power[bin + 4] + power[bin + 5]) * 0.5
        guard bin >= 6 else { return above }
        return (power[bin - 4] + power[bin - 5]) * 0.5 * 0.5 + above * 0.5
    }

    /// The frequency of the sinusoid in `bin`, from its phase advance over the hop: the bin's
    /// own advance is k·hop/N turns; the rest, wrapped to ±½ turn, is the offset from the bin's
    /// centre in units of N/hop bins (±2 bins with a quarter-window hop).
    @inlinable @_noAllocation @_noLocks
    func frequency(bin: Int) -> Float {
        let size = Self.analysisFrameCount
        // X_now · conj(X_before): its angle is the phase advance.
        let re = real[bin] * previousReal[bin] + imaginary[bin] * previousImaginary[bin]
        let im = imaginary[bin] * previousReal[bin] - real[bin] * previousImaginary[bin]
        let advance = Self.angleTurns(x: Double(re), y: Double(im))
        let hopsPerWindow = Double(size / Self.hopFrameCount)
        var deviation = advance - Double(bin) / hopsPerWindow
        deviation -= Double(Int(deviation + (deviation < 0 ? -0.5 : 0.5)))  // wrap to ±½ turn
        let bins = Double(bin) + deviation * hopsPerWindow
        return Float(bins * sampleRate / Double(size))
    }

    /// The strongest power found at the frequencies that would make a tone at `hertz` part of a
    /// harmonic series (a note's partial, not a loop's single tone).
    @inlinable @_noAllocation @_noLocks
    func harmonicRelativesPower(bin: Int, hertz: Float) -> Float {
        let binsPerHertz = Float(Self.analysisFrameCount) / Float(sampleRate)
        let half = Self.analysisFrameCount / 2
        var strongest: Float = 1e-30
        // ½ and ⅓ (it is the 2nd or 3rd partial), 2× and 3× (it is a fundamental), and the
        // neighbouring partials (n ± 1)/n of a 2nd to 5th partial.
        for ratioIndex in 0..<14 {
            let ratio: Float
            switch ratioIndex {
            case 0: ratio = 0.5
            case 1: ratio = 1.0 / 3
            case 2: ratio = 2
            case 3: ratio = 3
            case 4: ratio = 1.5
            case 5: ratio = 2.0 / 3
            case 6: ratio = 4.0 / 3
            case 7: ratio = 0.75
            case 8: ratio = 1.25
            case 9: ratio = 0.8
            case 10: ratio = 1.2
            case 11: ratio = 5.0 / 6
            case 12: ratio = 7.0 / 6
            default: ratio = 6.0 / 7
            }
            let centre = Int(hertz * ratio * binsPerHertz + 0.5)
            // Too near the peak itself (its own main lobe, ±2 bins) says nothing: low tones'
            // close ratios fall there.
            guard centre >= 2, centre <= half - 2, abs(centre - bin) >= 4 else { continue }
            // A relative inside a notch's band is a howl of its own (two modes a fifth or a
            // twelfth apart feed back together), not the rest of a note.
            guard notchCovering(hertz: hertz * ratio) == nil else { continue }
            strongest = max(strongest, max(power[centre - 1], max(power[centre], power[centre + 1])))
        }
        return strongest
    }

    /// Whether a track matched this hop holds `bin` (or one within `within` bins of it).
    @inlinable @_noAllocation @_noLocks
    func binIsClaimed(_ bin: Int, within: Int = 0) -> Bool {
        for index in 0..<Self.trackCount where tracks[index].active && tracks[index].matched {
            if abs(tracks[index].bin - bin) <= within { return true }
        }
        return false
    }

    /// Takes this hop's measurement of the peak at `bin` into a track: its lower envelope, its
    /// growth, its steadiness, and whether it sits at the ceiling.
    @inlinable @_noAllocation @_noLocks
    mutating func update(track best: Int, bin: Int, hertz: Float, strongestPower: Float, peakAtCeiling: Bool) {
        let level = Self.decibels(power[bin])
        let purity = level - Self.decibels(harmonicRelativesPower(bin: bin, hertz: hertz))
        // Two howls can build at once and share the ceiling: either counts if it is within
        // 6 dB of the strongest peak.
        let saturated = peakAtCeiling && power[bin] >= strongestPower * 0.25
        var track = tracks[best]
        track.matched = true
        track.missedHops = 0
        track.bin = bin
        let levels = trackLevels + best * Self.envelopeHops
        levels[track.historyIndex] = level
        track.historyIndex = track.historyIndex + 1 == Self.envelopeHops ? 0 : track.historyIndex + 1
        // The second lowest of the last hops: the voice adds to the bin while it sounds there (so
        // not the highest), and a partial beating against the howl can cancel it for a hop (so
        // not the very lowest either).
        var lowest: Float = .infinity, secondLowest: Float = .infinity
        for hop in 0..<Self.envelopeHops {
            let value = levels[hop]
            if value < lowest {
                secondLowest = lowest
                lowest = value
            } else if value < secondLowest {
                secondLowest = value
            }
        }
        let envelope = secondLowest
        let rise = envelope - track.envelopeDecibels
        track.steadyHops += 1
        track.envelopeDecibels = envelope
        track.levelDecibels = level
        track.purityDecibels = purity
        let disturbed = abs(level - envelope) > Self.disturbedDecibels
        let withinTolerance = Self.isSteady(hertz, at: track.anchorHertz)
        track.onFrequencyHops = withinTolerance ? track.onFrequencyHops + 1 : 0
        // A straight-line rise counts only at one unwavering pitch: a glide or vibrato is a voice.
        track.exponentialRiseDecibels = track.onFrequencyHops > Self.exponentialRiseHops
            ? Self.exponentialRise(levels: levels, historyIndex: track.historyIndex) : 0
        // A frequency off for a few hops may be a voice partial passing through the bin; off for
        // longer (85 ms: half a vibrato cycle), the tone moved.
        track.offFrequencyHops = withinTolerance || disturbed ? 0 : track.offFrequencyHops + 1
        let steady = track.offFrequencyHops < Self.offFrequencyHops
        if withinTolerance || !disturbed { track.hertz = hertz }
        if !steady {
            track.anchorHertz = hertz
            track.offFrequencyHops = 0
            track.restartGrowth(at: envelope)
        } else if rise > Self.maximumRiseDecibels {
            track.restartGrowth(at: envelope)  // an onset: the rise so far was not a loop's
        } else if envelope < track.peakDecibels - Self.fallDecibels {
            // A fall that lasts ends the count (a tremolo's, a decay's); a short one is a voice
            // partial beating against the howl, and only pauses it.
            track.fallingHops += 1
            if track.fallingHops >= Self.fallHops { track.restartGrowth(at: envelope) }
        } else {
            track.fallingHops = 0
            // Growth is the lower envelope's rise from its lowest since the count began.
            track.startDecibels = min(track.startDecibels, envelope)
            track.peakDecibels = max(track.peakDecibels, envelope)
            track.growthDecibels = envelope - track.startDecibels
            track.growingHops = track.growthDecibels > 0 ? track.growingHops + 1 : 0
            if envelope >= track.highMark + Self.newHighDecibels {
                track.highMark = envelope
                track.hopsSinceNewHigh = 0
            } else {
                track.hopsSinceNewHigh += 1
            }
        }
        track.saturatedHops = saturated && steady && purity >= Self.purityDecibels - 5 ? track.saturatedHops + 1 : 0
        tracks[best] = track
    }

    /// Turns the tracks' evidence into notches.
    @inlinable @_noAllocation @_noLocks
    mutating func judgeTracks() {
        for index in 0..<Self.trackCount where tracks[index].active && tracks[index].matched {
            let track = tracks[index]
            let pure = track.purityDecibels >= Self.purityDecibels
            if let slot = notchCovering(hertz: track.hertz) {
                if track.growthDecibels >= 3 || track.saturatedHops > 0 || track.steadyHops >= Self.ringingHopsToDeepen / 2 {
                    notches[slot].quietHops = 0
                }
                guard notches[slot].settlingHops == 0 else { continue }
                let steppedTone = Self.isSteady(track.hertz, at: notches[slot].stepHertz)
                if notches[slot].stepAwaitsJudgement && steppedTone {
                    judgeStep(slot: slot, track: index)
                }
                let ignored = notches[slot].stepIgnored && steppedTone
                if track.envelopeDecibels < notches[slot].stepLevelDecibels - Self.stepDecibels {
                    // It fell after the step: the loop answered.
                    notches[slot].steppedOnHeldTone = false
                    notches[slot].stepIgnored = false
                }
                let regrowing = pure && track.growthDecibels >= Self.regrowthDecibelsToDeepen
                    && track.growingHops >= Self.regrowthHopsToDeepen && !ignored
                // A pure tone that holds its level inside a notch for half a second is the loop
                // ringing at a gain of 1 there: not enough cut yet (unless it held through the
                // notch's last step, as a note does).
                let ringing = pure && track.steadyHops >= Self.ringingHopsToDeepen
                    && track.envelopeDecibels >= track.peakDecibels - Self.stepDecibels
                    && !notches[slot].steppedOnHeldTone && !ignored
                // At the ceiling a mode-fed howl rings down at the room's pace, a dB or so a hop,
                // however deep the notch: once it falls, the notch is deep enough.
                let stillSaturated = track.saturatedHops >= Self.saturatedHopsToDeepen
                    && track.envelopeDecibels >= track.peakDecibels - 1
                guard regrowing || ringing || stillSaturated else { continue }
                // A howl on the notch's flank, where it cuts a fraction of its depth, is a second
                // resonance (or the loop pulled aside by the notch's phase): deepening would drag
                // the notch off the first, so it gets a notch of its own.
                let ratio = track.hertz / notches[slot].hertz
                if ratio > Self.flankRatio || ratio < 1 / Self.flankRatio {
                    place(hertz: track.hertz, steps: stillSaturated ? 2 : 1)
                } else {
                    deepen(slot: slot, hertz: track.hertz, onto: stillSaturated)
                }
                noteStep(onTrack: index, atCeiling: stillSaturated)
                tracks[index].restartGrowth(at: track.envelopeDecibels)
                tracks[index].saturatedHops = 0
            } else {
                let grownFast = track.growthDecibels >= Self.growthDecibelsToConfirm
                    && track.growingHops >= Self.growthHopsToConfirm
                let grownSlowly = track.growthDecibels >= Self.slowGrowthDecibelsToConfirm
                    && track.growingHops >= Self.slowGrowthHopsToConfirm && track.hopsSinceNewHigh <= Self.hopsWithoutNewHigh
                // Still setting new highs now: a tremolo or a swell has stopped rising by the time
                // it could pass these.
                let rising = track.hopsSinceNewHigh <= Self.risingHops
                let grownBeyondTremolo = track.growthDecibels >= Self.risingGrowthDecibelsToConfirm
                    && track.growingHops >= Self.risingGrowthHopsToConfirm && rising
                let grownSteadily = track.growthDecibels >= Self.steadyGrowthDecibelsToConfirm
                    && track.growingHops >= Self.steadyGrowthHopsToConfirm && rising
                // Where a notch was released, the loop is known to feed back: growth that would
                // deepen a notch (a little more, and still rising) brings it back.
                let grownAgain = wasReleased(near: track.hertz) && rising
                    && track.growthDecibels >= 2 * Self.regrowthDecibelsToDeepen && track.growingHops >= 2 * Self.regrowthHopsToDeepen
                let grownExponentially = track.exponentialRiseDecibels >= Self.exponentialRiseDecibelsToConfirm
                let grown = pure && (grownFast || grownBeyondTremolo || grownSteadily || grownSlowly || grownAgain
                    || grownExponentially)
                // A tone that grew by half the confirming growth and then met the ceiling (where
                // its growth can only stop) needs less time there.
                let saturated = track.saturatedHops >= Self.saturatedHopsToConfirm
                    || (track.saturatedHops >= Self.saturatedHopsToDeepen && track.growthDecibels >= Self.growthDecibelsToConfirm / 2)
                guard grown || saturated else { continue }
                place(hertz: track.hertz, steps: saturated ? 2 : 1)
                noteStep(onTrack: index, atCeiling: saturated)
                tracks[index].restartGrowth(at: track.envelopeDecibels)
                tracks[index].saturatedHops = 0
            }
        }
    }

    /// Whether `hertz` lies within `steadyFraction` (or `steadyHertz`) of `reference`: the same
    /// tone, held at one pitch.
    @inlinable @_noAllocation @_noLocks
    static func isSteady(_ hertz: Float, at reference: Float) -> Bool {
        abs(hertz - reference) <= max(steadyHertz, steadyFraction * reference)
    }

    /// A track's raw level `hopsAgo` hops before its newest (0: the newest), from its ring of
    /// `envelopeHops` levels, `historyIndex` the slot the next level goes to.
    @inlinable @_noAllocation @_noLocks
    static func rawLevel(in levels: UnsafeMutablePointer<Float>, historyIndex: Int, hopsAgo: Int) -> Float {
        levels[(historyIndex + envelopeHops - 1 - hopsAgo) % envelopeHops]
    }

    /// The sum of the last `exponentialRiseHops` hop-to-hop rises in a track's raw levels when
    /// every one of them lies between `exponentialStepDecibels` and `maximumRiseDecibels`; 0
    /// otherwise.
    @inlinable @_noAllocation @_noLocks
    static func exponentialRise(levels: UnsafeMutablePointer<Float>, historyIndex: Int) -> Float {
        var total: Float = 0
        var later = rawLevel(in: levels, historyIndex: historyIndex, hopsAgo: 0)
        for back in 1...exponentialRiseHops {
            let earlier = rawLevel(in: levels, historyIndex: historyIndex, hopsAgo: back)
            let step = later - earlier
            guard step >= exponentialStepDecibels, step <= maximumRiseDecibels else { return 0 }
            total += step
            later = earlier
        }
        return total
    }

    /// Records, on the notch over track `index` that just stepped, whether the tone had stopped
    /// rising (its raw level up by less than `heldToneRiseDecibels` over the last
    /// `heldToneHops` hops, and not held down by the ceiling) and at what level.
    @inlinable @_noAllocation @_noLocks
    mutating func noteStep(onTrack index: Int, atCeiling: Bool) {
        guard let slot = notchCovering(hertz: tracks[index].hertz) else { return }
        // Each step is judged afresh, perhaps on another tone of the band than the last.
        notches[slot].stepAwaitsJudgement = false
        notches[slot].stepIgnored = false
        guard !atCeiling else {
            notches[slot].steppedOnHeldTone = false  // the ceiling stopped its rise: not a held note
            return
        }
        let levels = trackLevels + index * Self.envelopeHops, historyIndex = tracks[index].historyIndex
        let level = Self.rawLevel(in: levels, historyIndex: historyIndex, hopsAgo: 0)
        let rise = level - Self.rawLevel(in: levels, historyIndex: historyIndex, hopsAgo: Self.heldToneHops)
        notches[slot].steppedOnHeldTone = rise < Self.heldToneRiseDecibels
        notches[slot].stepLevelDecibels = tracks[index].envelopeDecibels
        notches[slot].stepRawLevelDecibels = level
        notches[slot].stepHertz = tracks[index].hertz
        notches[slot].stepPaceDecibels = max(0, level - Self.rawLevel(in: levels, historyIndex: historyIndex, hopsAgo: 1))
        notches[slot].stepAwaitsJudgement = true
    }

    /// Once the last step on notch `slot` has settled: whether the tone of track `index` went on
    /// as before it, rising at the pace of its last hop before the step (`ignoredStepFraction` of
    /// it, less `ignoredStepDecibels`) or holding its level, as a source does and a loop cannot.
    @inlinable @_noAllocation @_noLocks
    mutating func judgeStep(slot: Int, track index: Int) {
        notches[slot].stepAwaitsJudgement = false
        let levels = trackLevels + index * Self.envelopeHops
        let rise = Self.rawLevel(in: levels, historyIndex: tracks[index].historyIndex, hopsAgo: 0) - notches[slot].stepRawLevelDecibels
        let expected = notches[slot].stepPaceDecibels * Float(Self.settlingHops)
        notches[slot].stepIgnored = rise >= Self.ignoredStepFraction * expected - Self.ignoredStepDecibels
    }

    /// Whether a notch released lately sat within a quarter of its bandwidth of `hertz`.
    @inlinable @_noAllocation @_noLocks
    func wasReleased(near hertz: Float) -> Bool {
        for index in 0..<Self.maximumNotchCount where releasedHertz[index] > 0 {
            let ratio = hertz / releasedHertz[index]
            if ratio <= Self.flankRatio && ratio >= 1 / Self.flankRatio { return true }
        }
        return false
    }

    /// The notch in use whose band (half its bandwidth either side) holds `hertz`.
    @inlinable @_noAllocation @_noLocks
    func notchCovering(hertz: Float) -> Int? {
        // 2^(±1/20): half of a tenth of an octave.
        let above: Float = 1.035_264_9, below: Float = 0.965_936_3
        var best: Int? = nil
        var bestDistance: Float = .infinity
        for slot in 0..<Self.maximumNotchCount where notches[slot].inUse {
            let centre = notches[slot].hertz
            guard hertz <= centre * above, hertz >= centre * below else { continue }
            let distance = abs(hertz - centre)
            if distance < bestDistance { bestDistance = distance; best = slot }
        }
        return best
    }

    /// The loop still grows inside a notch: one step deeper, centred halfway to where the howl is
    /// now (the notch's own phase pulls the howl aside; chasing it all the way would walk the notch
    /// off the room's resonance), or `onto` it when it is pinned at the ceiling.
    @inlinable @_noAllocation @_noLocks
    mutating func deepen(slot: Int, hertz: Float, onto: Bool = false) {
        if notches[slot].depthDecibels >= Self.maximumDepthDecibels {
            startDuck()  // full depth and still growing: the last resort
            return
        }
        let depth = min(notches[slot].depthDecibels + Self.stepDecibels, Self.maximumDepthDecibels)
        // Deepened again after its release had begun: the loop it holds is still there.
        if notches[slot].depthDecibels < notches[slot].deepestDecibels { notches[slot].returning = true }
        // A howl pinned at the ceiling is the loop's one tone and its frequency sure: the notch
        // goes onto it.
        let centre = onto ? hertz : (notches[slot].hertz + hertz) * 0.5
        setNotch(slot: slot, hertz: centre, depthDecibels: depth, fresh: false)
    }

    /// A new feedback frequency: a free slot, or else the shallowest (oldest of equals).
    @inlinable @_noAllocation @_noLocks
    mutating func place(hertz: Float, steps: Int) {
        var chosen = -1
        for slot in 0..<Self.maximumNotchCount where !notches[slot].inUse {
            chosen = slot
            break
        }
        if chosen < 0 {
            var shallowest: Float = .infinity
            var oldest = Int.max
            for slot in 0..<Self.maximumNotchCount {
                let notch = notches[slot]
                if notch.depthDecibels < shallowest || (notch.depthDecibels == shallowest && notch.serial < oldest) {
                    shallowest = notch.depthDecibels
                    oldest = notch.serial
                    chosen = slot
                }
            }
            if shallowest >= Self.maximumDepthDecibels {
                startDuck()  // every notch at full depth: nothing left to move
                return
            }
        }
        newFrequencies += 1
        lastPlacedHertz = hertz
        notchSerial += 1
        let fresh = !notches[chosen].inUse && !notches[chosen].isAudible
        notches[chosen].inUse = true
        notches[chosen].serial = notchSerial
        notches[chosen].returning = wasReleased(near: hertz)
        notches[chosen].deepestDecibels = 0
        notches[chosen].steppedOnHeldTone = false
        notches[chosen].stepIgnored = false
        notches[chosen].stepAwaitsJudgement = false
        setNotch(slot: chosen, hertz: hertz, depthDecibels: Self.stepDecibels * Float(steps), fresh: fresh)
    }

    /// Sets a notch's centre and depth: the coefficients and the weight ramp over one hop (a
    /// fresh notch, silent until now, takes its coefficients at once from a cleared state).
    @inlinable @_noAllocation @_noLocks
    mutating func setNotch(slot: Int, hertz: Float, depthDecibels: Float, fresh: Bool) {
        let (b, a1, a2) = Self.bandPassCoefficients(hertz: Double(hertz), sampleRate: sampleRate)
        var notch = notches[slot]
        notch.hertz = hertz
        notch.depthDecibels = depthDecibels
        notch.deepestDecibels = max(notch.deepestDecibels, depthDecibels)
        notch.quietHops = 0
        notch.settlingHops = Self.settlingHops
        let ramp = Self.hopFrameCount
        if fresh {
            notch.b = b; notch.a1 = a1; notch.a2 = a2
            notch.targetB = b; notch.targetA1 = a1; notch.targetA2 = a2
            notch.coefficientFramesLeft = 0
            notch.left1 = 0; notch.left2 = 0; notch.right1 = 0; notch.right2 = 0
        } else {
            notch.targetB = b; notch.targetA1 = a1; notch.targetA2 = a2
            notch.stepB = (b - notch.b) / Float(ramp)
            notch.stepA1 = (a1 - notch.a1) / Float(ramp)
            notch.stepA2 = (a2 - notch.a2) / Float(ramp)
            notch.coefficientFramesLeft = ramp
        }
        Self.moveWeight(of: &notch, toDepth: depthDecibels)
        notches[slot] = notch
        hopsSinceNotchWork = 0
    }

    @inlinable @_noAllocation @_noLocks
    static func moveWeight(of notch: inout Notch, toDepth depthDecibels: Float) {
        let target = depthDecibels <= 0 ? 0 : 1 - decibelsToAmplitude(-depthDecibels)
        notch.targetWeight = target
        notch.weightStep = (target - notch.weight) / Float(hopFrameCount)
        notch.weightFramesLeft = hopFrameCount
    }

    /// Notches whose band has been quiet for `releaseHoldSeconds` come back towards 0 dB.
    @inlinable @_noAllocation @_noLocks
    mutating func releaseQuietNotches() {
        for slot in 0..<Self.maximumNotchCount where notches[slot].inUse {
            // A step is judged on the first hop after it has settled, or not at all: the tone
            // met later at that frequency may be another.
            if notches[slot].settlingHops == 0 { notches[slot].stepAwaitsJudgement = false }
            if notches[slot].settlingHops > 0 { notches[slot].settlingHops -= 1 }
            notches[slot].quietHops += 1
            // No steady tone in the band for half a second: the held note is gone.
            if notches[slot].quietHops > Self.ringingHopsToDeepen {
                notches[slot].steppedOnHeldTone = false
                notches[slot].stepIgnored = false
            }
            let hold = notches[slot].returning ? holdHops * Self.returningHoldFactor : holdHops
            guard notches[slot].quietHops > hold else { continue }
            let depth = notches[slot].depthDecibels - releaseDecibelsPerHop
            if depth <= 0 {
                notches[slot].depthDecibels = 0
                notches[slot].inUse = false
                releasedHertz[releasedIndex] = notches[slot].hertz
                releasedIndex = releasedIndex + 1 == Self.maximumNotchCount ? 0 : releasedIndex + 1
                Self.moveWeight(of: &notches[slot], toDepth: 0)
            } else {
                notches[slot].depthDecibels = depth
                Self.moveWeight(of: &notches[slot], toDepth: depth)
            }
        }
    }

    /// The broadband loop no notch can fix: peaks at the ceiling hop after hop, with a pinned
    /// level or an unchanging spectrum, while no notch is at work on it.
    @inlinable @_noAllocation @_noLocks
    mutating func checkStuck(peakAtCeiling: Bool, meanSquare: Float, strongestBin: Int, strongestDecibels: Float) {
        let pinnedPower = decibelsToAmplitude(Self.pinnedLevelDecibels)
        let pinned = meanSquare >= pinnedPower * pinnedPower
        let frozen = abs(strongestBin - previousStrongestBin) <= 1 && abs(strongestDecibels - previousStrongestDecibels) < 1
        previousStrongestBin = strongestBin
        previousStrongestDecibels = strongestDecibels
        let idle = hopsSinceNotchWork >= Self.stuckHopsToDuck
        stuckHops = peakAtCeiling && (pinned || frozen) && idle ? stuckHops + 1 : 0
        ceilingHops = peakAtCeiling ? ceilingHops + 1 : max(0, ceilingHops - 2)
        if stuckHops >= Self.stuckHopsToDuck || ceilingHops >= Self.chasedHopsToDuck {
            startDuck()
            stuckHops = 0
            ceilingHops = 0
        }
    }

    /// Ducks the output, holds, then (counted in hops) releases; the tracks start over, as the
    /// loop dies down.
    @inlinable @_noAllocation @_noLocks
    mutating func startDuck() {
        if duckHopsLeft == 0 && duckTarget == 1 { ducks += 1 }
        moveDuck(to: decibelsToAmplitude(Self.duckDecibels), frameCount: duckFrameCount)
        duckHopsLeft = max(1, Int(Self.duckHoldSeconds * sampleRate) / Self.hopFrameCount)
        for index in 0..<Self.trackCount { tracks[index] = Track() }
    }

    @inlinable @_noAllocation @_noLocks
    mutating func moveDuck(to target: Float, frameCount: Int) {
        duckTarget = target
        duckFramesLeft = frameCount
        duckStep = (target - duckGain) / Float(frameCount)
    }

    // MARK: Arithmetic

    /// In-place radix-2 FFT of `real`/`imaginary` (decimation in time, bit-reversed input order).
    @inlinable @_noAllocation @_noLocks
    func transform() {
        let size = Self.analysisFrameCount
        for n in 0..<size {
            let m = Int(bitReversed[n])
            if m > n {
                let r = real[n]; real[n] = real[m]; real[m] = r
                let i = imaginary[n]; imaginary[n] = imaginary[m]; imaginary[m] = i
            }
        }
        var span = 2
        while span <= size {
            let half = span / 2
            let stride = size / span
            var start = 0
            while start < size {
                for j in 0..<half {
                    // e^(−2πi·j/span)
                    let wr = twiddleCosine[j * stride], wi = -twiddleSine[j * stride]
                    let a = start + j, b = a + half
                    let tr = wr * real[b] - wi * imaginary[b]
                    let ti = wr * imaginary[b] + wi * real[b]
                    real[b] = real[a] - tr
                    imaginary[b] = imaginary[a] - ti
                    real[a] += tr
                    imaginary[a] += ti
                }
                start += span
            }
            span *= 2
        }
    }

    /// 10·log10 of a power, floored at −200 dB.
    @inlinable @_noAllocation @_noLocks
    static func decibels(_ power: Float) -> Float {
        power > 1e-20 ? 3.010_3 * log2Approximation(power) : -200
    }

    /// The angle of (x, y) in turns, −½ … ½ (atan2 / 2π), without libm: folded to |t| ≤ tan 15°,
    /// where the arctangent's series converges fast (its 13th-order term is below 3e-9).
    @inlinable @_noAllocation @_noLocks
    static func angleTurns(x: Double, y: Double) -> Double {
        let ax = abs(x), ay = abs(y)
        guard ax > 0 || ay > 0 else { return 0 }
        // atan of the smaller over the larger, in 0 … π/4.
        let swapped = ay > ax
        var t = swapped ? ax / ay : ay / ax
        var offset = 0.0
        let tan15 = 0.267_949_192_431_122_7, root3 = 1.732_050_807_568_877_2
        if t > tan15 {
            // atan t = π/6 + atan((√3·t − 1)/(t + √3))
            t = (root3 * t - 1) / (t + root3)
            offset = Double.pi / 6
        }
        let t2 = t * t
        var angle = offset + t * (1 - t2 * (1.0 / 3 - t2 * (1.0 / 5 - t2 * (1.0 / 7 - t2 * (1.0 / 9 - t2 / 11)))))
        if swapped { angle = Double.pi / 2 - angle }
        if x < 0 { angle = Double.pi - angle }
        if y < 0 { angle = -angle }
        return angle / (2 * Double.pi)
    }

    /// The notch's band-pass at `hertz`: the cookbook's constant-peak band-pass whose bandwidth
    /// (between −3 dB points, prewarped) is `notchBandwidthOctaves`, normalised so a0 = 1:
    /// b0 = α/(1+α), b2 = −b0, a1 = −2cos ω/(1+α), a2 = (1−α)/(1+α).
    @inlinable @_noAllocation @_noLocks
    static func bandPassCoefficients(hertz: Double, sampleRate: Double) -> (Float, Float, Float) {
        let turns = min(max(hertz / sampleRate, 1e-5), 0.49)
        let sine = sineOfTurns(turns)
        let cosine = cosineOfTurns(turns)
        let omega = 2 * Double.pi * turns
        // α = sin ω · sinh(ln 2 / 2 · BW · ω / sin ω); sinh by its series (its argument is < 0.06).
        let u = 0.346_573_590_279_972_65 * notchBandwidthOctaves * omega / sine
        let alpha = sine * u * (1 + u * u * (1.0 / 6 + u * u / 120))
        let a0 = 1 + alpha
        return (Float(alpha / a0), Float(-2 * cosine / a0), Float((1 - alpha) / a0))
    }

    /// A notch of `depthDecibels` (0 or below) at `hertz` as one biquad: x − w·bandPass(x) with
    /// w = 1 − g puts (1 + a1 z⁻¹ + a2 z⁻²) − w·b(1 − z⁻²) over the band-pass's denominator.
    /// What the filter built from these coefficients does, for its frequency response.
    /// - Thread: any.
    public static func notchCoefficients(hertz: Double, depthDecibels: Float, sampleRate: Double) -> BiquadCoefficients {
        let (b, a1, a2) = bandPassCoefficients(hertz: hertz, sampleRate: sampleRate)
        let weightedB = (1 - decibelsToAmplitude(depthDecibels)) * b
        return BiquadCoefficients(b0: 1 - weightedB, b1: a1, b2: a2 + weightedB, a1: a1, a2: a2)
    }

    /// |H| in dB of a notch of `depthDecibels` (0 or below) at `hertz`, measured at `frequency`.
    /// - Thread: any.
    public static func notchResponseDecibels(hertz: Double, depthDecibels: Float, at frequency: Double,
                                             sampleRate: Double) -> Double {
        let (real, imaginary) = notchCoefficients(hertz: hertz, depthDecibels: depthDecibels, sampleRate: sampleRate)
            .response(at: frequency, sampleRate: sampleRate)
        return 10 * Double(log2Approximation(Float(real * real + imaginary * imaginary))) * 0.301_029_995_663_981_2
    }
}
