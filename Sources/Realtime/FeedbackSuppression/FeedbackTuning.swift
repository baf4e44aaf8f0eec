import DSP

// Every threshold and time constant of the suppressor, one place for each; the parts that use
// them say why each has its value.
extension FeedbackSuppressor {
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
    /// Hops (1.5 s) a pure tone holds one pitch, neither growing nor falling away, before it is
    /// probed with one step (`probeNotch`): a loop a hair past its edge grows a decibel a second
    /// from the voice's level, too slowly for the growth tests, yet it rings at one frequency
    /// for seconds, as a loop just below its edge does too. A sung or played note that long is
    /// rarely pure and unwavering; one that is meets the probe for a quarter of a second.
    /// - Thread: any.
    @inlinable public static var probeHops: Int { @_noAllocation @_noLocks get { 70 } }
    /// Hops (170 ms) over which a settled probe is judged: a held note keeps its level within
    /// `probeFallDecibels` on every one of them; a loop's ringing sinks to the voice's level in
    /// its bin on some, or is gone. One hop alone says little: the voice moves the bin by a
    /// decibel or two from hop to hop.
    /// - Thread: any.
    @inlinable public static var probeJudgementHops: Int { @_noAllocation @_noLocks get { 8 } }
    /// - Thread: any.
    @inlinable public static var probeFallDecibels: Float { @_noAllocation @_noLocks get { 1.5 } }
    /// Hops (260 ms) after a step within which a tone that falls by a step, or goes, answers it
    /// as a loop: a loop a step below its edge dies away by a step within a few round trips, a
    /// room mode's ring within a twentieth of its RT60. A note that ends later is no answer.
    /// - Thread: any.
    @inlinable public static var answerHops: Int { @_noAllocation @_noLocks get { 12 } }
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
}
