/// What one work item's voices sum to for a segment: stereo and the two send buses, each at most a
/// quantum long, and which send buses they reached.
struct VoiceItemMix {
    static var reverbSent: UInt8 {
        @_noAllocation @_noLocks get { 1 }
    }
    static var chorusSent: UInt8 {
        @_noAllocation @_noLocks get { 2 }
    }
    let left: UnsafeMutablePointer<Float>
    let right: UnsafeMutablePointer<Float>
    let reverb: UnsafeMutablePointer<Float>
    let chorus: UnsafeMutablePointer<Float>
    let sends: UnsafeMutablePointer<UInt8>
}

/// A segment's sounding voices split into work items: the unit the audio thread and the voice
/// workers claim, and the unit of summation.
///
/// The split depends on nothing but the voices: the list holds them in pool order (the fading
/// ones last), and item `i` is its voices `i * voicesPerItem ..< (i + 1) * voicesPerItem`, where
/// `voicesPerItem` follows from the number of voices alone. Each
/// item's voices are summed into the item's own mix, and the mixes are added to the output in item
/// order. So the sum is the same bits whichever thread renders which item, and however many
/// threads there are: one thread renders the same items and adds them in the same order.
///
/// Written by the audio thread between segments; read by the worker that claimed an item, while it
/// renders it (`VoiceWorkers` orders the two).
struct VoiceWorkItems {
    /// At most this many items a segment: enough for eight threads to share out evenly, few enough
    /// that summing each item's lanes and adding the items cost little beside rendering them.
    static var maximumItemCount: Int {
        @_noAllocation @_noLocks get { 16 }
    }
    /// The fewest groups of `Sampler.laneCount` voices an item holds: a smaller item costs about as
    /// much to hand out and to add as to render.
    static var minimumGroupsPerItem: Int {
        @_noAllocation @_noLocks get { 2 }
    }

    /// The segment's voices, in pool order.
    let voices: UnsafeMutablePointer<UnsafeMutablePointer<SamplerVoice>>
    /// Each item's mix: left, right, reverb and chorus, a quantum each.
    let mixFrames: UnsafeMutablePointer<Float>
    let mixSends: UnsafeMutablePointer<UInt8>
    var voiceCount = 0
    var frameCount = 0
    let context: VoiceRenderContext

    /// Whole groups, at least `minimumGroupsPerItem`, and as many as keep the items to
    /// `maximumItemCount`.
    var voicesPerItem: Int {
        @_noAllocation @_noLocks get {
            let groups = (voiceCount + Sampler.laneCount - 1) / Sampler.laneCount
            let groupsPerItem = max(Self.minimumGroupsPerItem, (groups + Self.maximumItemCount - 1) / Self.maximumItemCount)
            return groupsPerItem * Sampler.laneCount
        }
    }
    /// The items a segment has.
    var itemCount: Int {
        @_noAllocation @_noLocks get { (voiceCount + voicesPerItem - 1) / voicesPerItem }
    }

    /// Room for `voiceCapacity` voices. The mixes are written now, so that no page of them is first
    /// touched (faulted in) while rendering.
    /// - Thread: control.
    /// The list starts out naming `firstVoice` throughout (it is read only up to `voiceCount`).
    init(voiceCapacity: Int, firstVoice: UnsafeMutablePointer<SamplerVoice>, context: VoiceRenderContext) {
        let itemCapacity = Self.maximumItemCount
        voices = .allocate(capacity: voiceCapacity)
        voices.initialize(repeating: firstVoice, count: voiceCapacity)
        mixFrames = .allocate(capacity: itemCapacity * 4 * RenderQuantum.frameCount)
        mixFrames.initialize(repeating: 0, count: itemCapacity * 4 * RenderQuantum.frameCount)
        mixSends = .allocate(capacity: itemCapacity)
        mixSends.initialize(repeating: 0, count: itemCapacity)
        self.context = context
    }

    /// - Thread: stopped.
    func deallocate() {
        voices.deallocate()
        mixFrames.deallocate()
        mixSends.deallocate()
    }

    /// Item `item`'s mix.
    @_noAllocation @_noLocks
    func mix(_ item: Int) -> VoiceItemMix {
        let frames = mixFrames + item * 4 * RenderQuantum.frameCount
        let quantum = RenderQuantum.frameCount
        return VoiceItemMix(left: frames, right: frames + quantum, reverb: frames + 2 * quantum, chorus: frames + 3 * quantum,
                            sends: mixSends + item)
    }

    /// Renders item `item`'s voices into its mix with `workspace`.
    /// - Thread: audio. Or the voice worker that claimed the item.
    @_noAllocation @_noLocks
    func render(item: Int, with workspace: inout VoiceLaneWorkspace) {
        let perItem = voicesPerItem
        let first = item * perItem
        workspace.renderItem(voices: voices + first, voiceCount: min(perItem, voiceCount - first),
                             frameCount: frameCount, context: context, into: mix(item))
    }

    /// Adds every item's mix into the outputs, in item order.
    /// - Thread: audio. Once every item is rendered.
    @_noAllocation @_noLocks
    func addMixes(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>,
                  reverb: UnsafeMutablePointer<Float>, chorus: UnsafeMutablePointer<Float>) {
        for item in 0..<itemCount {
            let mix = mix(item)
            for frame in 0..<frameCount {
                left[frame] += mix.left[frame]
                right[frame] += mix.right[frame]
            }
            let sends = mix.sends.pointee
            if sends & VoiceItemMix.reverbSent != 0 { for frame in 0..<frameCount { reverb[frame] += mix.reverb[frame] } }
            if sends & VoiceItemMix.chorusSent != 0 { for frame in 0..<frameCount { chorus[frame] += mix.chorus[frame] } }
        }
    }
}
