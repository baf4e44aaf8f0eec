/// What the sampler remembers of one key of one channel from its note-on to what follows: the
/// count round robin picks from, and what a release trigger needs when the key comes up.
/// Plain data, one per channel and key, owned by the audio thread.
struct KeyMemory: BitwiseCopyable {
    /// Note-ons of this key so far (wrapping): the last one's count picks its round robin
    /// (`SamplerRegion.sequenceLength`), and its release regions pick by the same count.
    var noteOnCount: UInt32 = 0
    /// The last note-on's random number in 0..<1 (`SamplerRegion.lowRandom`), for its release.
    var random: Float = 0
    /// The last note-on's frame: a release region's `releaseDecayCentibelsPerSecond` counts from it.
    var noteOnFrame: FrameTime = 0
    /// The last note-on's velocity: its release regions are chosen and played at it.
    var velocity: UInt8 = 0
    /// Whether the key is down.
    var isDown = false
    /// Whether release regions wait for this note's release: set at a note-on that has some,
    /// cleared when they start or the note ends without a release (All Notes Off, a new note).
    var releasePending = false
    /// The same for `trigger=release_key` regions, which the key's own release starts, pedal or not.
    var releaseKeyPending = false

    /// The note ends without a release: nothing waits for one.
    @_noAllocation @_noLocks
    mutating func forgetReleases() {
        releasePending = false
        releaseKeyPending = false
    }
}
