import Lockfree
import Synchronization

/// What one work item's voices sum to for one quantum of a segment: stereo and the two send buses,
/// each at most a quantum long, and which send buses they reached (none: the item adds nothing).
struct VoiceItemMix {
    static var reverbSent: UInt8 {
        @_noAllocation @_noLocks get { 1 }
    }
    static var chorusSent: UInt8 {
        @_noAllocation @_noLocks get { 2 }
    }
    /// No voice of the item sounded at the quantum's start: its mix holds nothing to add.
    static var silent: UInt8 {
        @_noAllocation @_noLocks get { 4 }
    }
    let left: UnsafeMutablePointer<Float>
    let right: UnsafeMutablePointer<Float>
    let reverb: UnsafeMutablePointer<Float>
    let chorus: UnsafeMutablePointer<Float>
    let sends: UnsafeMutablePointer<UInt8>
}

/// What rendering one work item of a segment found, for the audio thread once the segment is done.
struct VoiceItemReport {
    /// How many of the segment's quanta began with one of the item's voices sounding: a prefix,
    /// since no voice starts within a segment.
    var soundingQuantumCount = 0
    /// A sampler item's voices that ended in the segment: the audio thread looks for them in those
    /// items alone (`Sampler.finishVoices`), not through every voice listed.
    var endedVoiceCount = 0
}

/// Where a rendered segment's item mixes are (`VoiceWorkItems.renderedMixes`).
struct VoiceSegmentMixes {
    /// The set of mixes the segment rendered into.
    var set = 0
    /// Frames per quantum of the segment: a whole quantum when `quantumCount` is above 1.
    var frameCount = 0
    var quantumCount = 1
    /// How many of the segment's quanta began with a voice sounding: the later ones add nothing
    /// (none at all when the segment had no item).
    var soundingQuantumCount = 0
}

/// A segment's voices split into work items: the unit the audio thread and the voice workers
/// claim, and the unit of summation. The sampler's items come first, then the drum player's
/// (`DrumWorkItems`).
///
/// The split depends on nothing but the voice list (`Sampler.renderVoices`): the sampler's items
/// take whole groups of voices in list order, in runs of two large items and a small one, whose
/// sizes follow from the number of voices alone (`voiceRange(ofItem:)`). Each item's voices are
/// summed into the item's own mix, and the mixes are summed
/// in a binary tree whose shape follows from the number of items alone (`fold(after:)`): pairs of
/// neighbours, then pairs of pairs, into item 0's mix, which is added to the output. Whichever
/// thread finishes the second of two neighbours adds them, so the threads sum the mixes as they
/// render them, each mostly its own, from its own cache, and what is left when the last item is
/// done is a handful of additions. The sum is the same bits whichever thread renders or adds
/// what, and however many threads there are: one thread renders the same items and adds them in
/// the same tree.
///
/// A segment is one stretch of a quantum, or up to `maximumQuantumCount` whole quanta in which
/// nothing but the voices themselves changes (no command, no held release): each item renders its
/// voices quantum after quantum into a mix per quantum, just as one quantum at a time would, so a
/// stretch is the same bits as its quanta rendered one by one. Handing out a stretch once instead
/// of each quantum is what lets threads share a dense song's quanta of a few microseconds each.
///
/// Written by the audio thread between segments; read by the worker that claimed an item, while it
/// renders it (`VoiceWorkers` orders the two).
struct VoiceWorkItems {
    /// At most this many items a segment, the sampler's and the drums' together (`ItemClaims`'
    /// claim words have a bit for each).
    static var maximumItemCount: Int {
        @_noAllocation @_noLocks get { 32 }
    }
    /// At most this many of the sampler's items: enough that the last item claimed, which one thread
    /// may still be rendering when the others are done, is a small part of the work for two to eight
    /// threads; few enough that summing each item's lanes and adding the items cost little beside
    /// rendering them. The drums' items take the rest.
    static var maximumSamplerItemCount: Int {
        @_noAllocation @_noLocks get { maximumItemCount - DrumWorkItems.maximumItemCount }
    }
    /// The fewest groups of `Sampler.laneCount` voices an item holds: a smaller item costs about as
    /// much to hand out and to add as to render.
    static var minimumGroupsPerItem: Int {
        @_noAllocation @_noLocks get { 2 }
    }

    /// At most this many quanta a segment: 1,024 frames. Handing out
    /// 16 quanta at once already makes the handing out a small share of a dense song's work, and
    /// the item mixes of a stretch stay in the second-level cache.
    static var maximumQuantumCount: Int {
        @_noAllocation @_noLocks get { 16 }
    }

    /// Sets of mixes: a segment renders into one while the renderer adds up those before it
    /// (`Renderer.advanceInstruments`): two may wait, so a short segment rendered on the audio
    /// thread alone leaves the one before it for the next segment the workers share.
    static var mixSetCount: Int {
        @_noAllocation @_noLocks get { 3 }
    }

    /// How far apart each item's sends and report are: on lines of their own
    /// (`CacheLine.separationByteCount`), since neighbouring items are rendered by different
    /// threads; room for a send byte per quantum.
    static var itemRecordByteCount: Int {
        @_noAllocation @_noLocks get { max(CacheLine.separationByteCount, maximumQuantumCount) }
    }

    /// One counter per pair the summation tree adds (`fold(after:)`), `CacheLine.separationByteCount`
    /// apart: the pair whose right half starts at item `s` counts at index `s`.
    let foldCounts: UnsafeMutableRawPointer

    /// The segment's voices, in pool order.
    let voices: UnsafeMutablePointer<UnsafeMutablePointer<SamplerVoice>>
    /// Each item's mixes, one per quantum of the segment: left, right, reverb and chorus, a
    /// quantum each; `mixSetCount` sets of them.
    let mixFrames: UnsafeMutablePointer<Float>
    /// Each item's sends, one byte per quantum, `itemRecordByteCount` apart: neighbouring items are
    /// rendered by different threads, and each writes its own.
    let mixSends: UnsafeMutablePointer<UInt8>
    /// The set of mixes the segment renders into.
    var mixSet = 0
    /// What each item's renderer reports of it, `itemRecordByteCount` apart (`report(ofItem:)`).
    let reports: UnsafeMutableRawPointer
    var voiceCount = 0
    /// Frames per quantum of the segment: a whole quantum when `quantumCount` is above 1.
    var frameCount = 0
    var quantumCount = 1
    let context: VoiceRenderContext
    /// The drum player's voices for the segment: its items follow the sampler's.
    var drums = DrumWorkItems()

    /// The sampler's items come in runs of this many: large ones, then one of `minimumGroupsPerItem`
    /// groups, which the threads claim last (`isClaimedLast`). When the last large items are done,
    /// each thread still has small ones of its own or another's to take, so the threads finish
    /// within about a small item of each other instead of one waiting for the other's large item.
    static var itemsPerRun: Int {
        @_noAllocation @_noLocks get { 3 }
    }
    /// The groups of `Sampler.laneCount` voices the segment's voices fill.
    var groupCount: Int {
        @_noAllocation @_noLocks get { (voiceCount + Sampler.laneCount - 1) / Sampler.laneCount }
    }
    /// The groups of a large sampler item: as few as keep the runs to
    /// `maximumSamplerItemCount / itemsPerRun`, and `minimumGroupsPerItem` at least (then every
    /// item is that size).
    var groupsPerLargeItem: Int {
        @_noAllocation @_noLocks get {
            let runs = Self.maximumSamplerItemCount / Self.itemsPerRun
            let groupsEachRun = (groupCount + runs - 1) / runs
            let largePerRun = Self.itemsPerRun - 1
            return max(Self.minimumGroupsPerItem, (groupsEachRun - Self.minimumGroupsPerItem + largePerRun - 1) / largePerRun)
        }
    }
    /// The groups a run holds when its large items hold `groupsPerLargeItem`.
    @_noAllocation @_noLocks
    static func groupsPerRun(groupsPerLargeItem: Int) -> Int {
        (itemsPerRun - 1) * groupsPerLargeItem + minimumGroupsPerItem
    }
    /// The sampler's items in the segment: the runs' items, up to the one holding the last group.
    var samplerItemCount: Int {
        @_noAllocation @_noLocks get {
            let large = groupsPerLargeItem, groups = groupCount
            let runGroups = Self.groupsPerRun(groupsPerLargeItem: large)
            let left = groups % runGroups
            let lastRunItems = left == 0 ? 0 : min(Self.itemsPerRun, (left + large - 1) / large)
            return groups / runGroups * Self.itemsPerRun + lastRunItems
        }
    }
    /// The indices in `voices` of sampler item `item`'s voices. Like the item count, it follows from
    /// the number of voices alone.
    @_noAllocation @_noLocks
    func voiceRange(ofItem item: Int) -> Range<Int> {
        let large = groupsPerLargeItem
        let runGroups = Self.groupsPerRun(groupsPerLargeItem: large)
        let run = item / Self.itemsPerRun, place = item % Self.itemsPerRun
        let firstGroup = run * runGroups + place * large
        let groups = place == Self.itemsPerRun - 1 ? Self.minimumGroupsPerItem : large
        return min(firstGroup * Sampler.laneCount, voiceCount)..<min((firstGroup + groups) * Sampler.laneCount, voiceCount)
    }
    /// Whether item `item` is a small sampler item, which a thread claims only once every share's
    /// large items are claimed (`ItemClaims.claim`).
    @_noAllocation @_noLocks
    func isClaimedLast(_ item: Int) -> Bool {
        Self.isClaimedLast(item, samplerItemCount: samplerItemCount, groupsPerLargeItem: groupsPerLargeItem)
    }
    /// `isClaimedLast` for a segment of `samplerItemCount` sampler items whose large ones hold
    /// `groupsPerLargeItem` groups: what a loop over the items takes once.
    @_noAllocation @_noLocks
    static func isClaimedLast(_ item: Int, samplerItemCount: Int, groupsPerLargeItem: Int) -> Bool {
        item < samplerItemCount && item % itemsPerRun == itemsPerRun - 1 && groupsPerLargeItem > minimumGroupsPerItem
    }
    /// The items a segment has: the sampler's, then the drums'.
    var itemCount: Int {
        @_noAllocation @_noLocks get { samplerItemCount + drums.itemCount }
    }

    /// Room for `voiceCapacity` voices. The mixes are written now, so that no page of them is first
    /// touched (faulted in) while rendering.
    /// - Thread: control.
    /// The list starts out naming `firstVoice` throughout (it is read only up to `voiceCount`).
    init(voiceCapacity: Int, firstVoice: UnsafeMutablePointer<SamplerVoice>, context: VoiceRenderContext) {
        let itemCapacity = Self.maximumItemCount
        voices = .allocate(capacity: voiceCapacity)
        voices.initialize(repeating: firstVoice, count: voiceCapacity)
        let mixCount = Self.mixSetCount * itemCapacity * Self.maximumQuantumCount
        // On a line boundary, so that each mix (a whole number of lines) has its lines to itself.
        mixFrames = UnsafeMutableRawPointer.allocate(byteCount: mixCount * 4 * RenderQuantum.frameCount * MemoryLayout<Float>.stride,
                                                     alignment: CacheLine.separationByteCount)
            .initializeMemory(as: Float.self, repeating: 0, count: mixCount * 4 * RenderQuantum.frameCount)
        let sendsByteCount = Self.mixSetCount * itemCapacity * Self.itemRecordByteCount
        mixSends = UnsafeMutableRawPointer.allocate(byteCount: sendsByteCount, alignment: CacheLine.separationByteCount)
            .initializeMemory(as: UInt8.self, repeating: 0, count: sendsByteCount)
        reports = .allocate(byteCount: itemCapacity * Self.itemRecordByteCount, alignment: CacheLine.separationByteCount)
        for item in 0..<itemCapacity {
            (reports + item * Self.itemRecordByteCount).initializeMemory(as: VoiceItemReport.self, repeating: VoiceItemReport(), count: 1)
        }
        foldCounts = CacheLine.allocateSlots(count: itemCapacity)
        for index in 0..<itemCapacity {
            CacheLine.slot(index, in: foldCounts).bindMemory(to: Atomic<Int>.self, capacity: 1).initialize(to: Atomic(0))
        }
        self.context = context
    }

    /// - Thread: stopped.
    func deallocate() {
        voices.deallocate()
        drums.deallocate()
        mixFrames.deallocate()
        mixSends.deallocate()
        reports.deallocate()
        foldCounts.deallocate()
    }

    /// Item `item`'s mix for quantum `quantum` of the segment.
    @_noAllocation @_noLocks
    func mix(_ item: Int, quantum: Int) -> VoiceItemMix {
        mix(item, quantum: quantum, set: mixSet)
    }

    /// Item `item`'s mix for quantum `quantum` in mix set `set`.
    @_noAllocation @_noLocks
    func mix(_ item: Int, quantum: Int, set: Int) -> VoiceItemMix {
        let index = (set * Self.maximumItemCount + item) * Self.maximumQuantumCount + quantum
        let frames = mixFrames + index * 4 * RenderQuantum.frameCount
        let length = RenderQuantum.frameCount
        return VoiceItemMix(left: frames, right: frames + length, reverb: frames + 2 * length, chorus: frames + 3 * length,
                            sends: mixSends + (set * Self.maximumItemCount + item) * Self.itemRecordByteCount + quantum)
    }

    /// Renders item `item`'s voices into its mixes, quantum after quantum, with `workspace` (a
    /// sampler item's), and adds them into the summation tree as far as the items finished allow.
    /// - Thread: audio. Or the voice worker that claimed the item.
    @_noAllocation @_noLocks
    func render(item: Int, with workspace: inout VoiceLaneWorkspace) {
        renderVoices(ofItem: item, with: &workspace)
        fold(after: item)
    }

    /// After item `item` is rendered, adds up the summation tree's pairs it completes: the tree of
    /// `itemCount` leaves in which level `l + 1` pairs level `l`'s nodes 2j and 2j + 1 (a node
    /// without a right neighbour passes up as it is), and a node's sum lives in the mix of its first
    /// item. Of a pair's two halves, the thread that finishes the second adds it to the first (the
    /// pair's counter, incremented twice a segment, tells which came second), then goes on up with
    /// the pair. The root is item 0's mix.
    /// - Thread: audio. Or the voice worker that rendered the item.
    @_noAllocation @_noLocks
    func fold(after item: Int) {
        let count = itemCount
        var node = item, level = 0
        while 1 << level < count {
            let parent = node >> 1
            let rightStart = (2 * parent + 1) << level
            if rightStart < count {
                let counter = CacheLine.slot(rightStart, in: foldCounts).assumingMemoryBound(to: Atomic<Int>.self)
                // Odd after this thread's increment: the other half is not done yet, and the thread
                // that finishes it adds the pair.
                guard counter.pointee.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue & 1 == 1 else { return }
                let leftStart = parent << (level + 1)
                let mark = context.stageClock.now()
                for quantum in 0..<quantumCount { addMix(rightStart, into: leftStart, quantum: quantum) }
                _ = context.stageClock.charge(.sum, since: mark)
            }
            node = parent
            level += 1
        }
    }

    /// Adds item `source`'s mix for quantum `quantum` into item `target`'s: a silent mix adds
    /// nothing, a mix added to a silent one or a send bus added to an unused one is copied.
    @_noAllocation @_noLocks
    func addMix(_ source: Int, into target: Int, quantum: Int) {
        let from = mix(source, quantum: quantum), to = mix(target, quantum: quantum)
        let fromSends = from.sends.pointee, toSends = to.sends.pointee
        guard fromSends != VoiceItemMix.silent else { return }
        let frames = frameCount
        if toSends == VoiceItemMix.silent {
            Self.copy(from.left, to: to.left, frameCount: frames)
            Self.copy(from.right, to: to.right, frameCount: frames)
            if fromSends & VoiceItemMix.reverbSent != 0 { Self.copy(from.reverb, to: to.reverb, frameCount: frames) }
            if fromSends & VoiceItemMix.chorusSent != 0 { Self.copy(from.chorus, to: to.chorus, frameCount: frames) }
            to.sends.pointee = fromSends
            return
        }
        for frame in 0..<frames {
            to.left[frame] += from.left[frame]
            to.right[frame] += from.right[frame]
        }
        if fromSends & VoiceItemMix.reverbSent != 0 {
            if toSends & VoiceItemMix.reverbSent != 0 {
                for frame in 0..<frames { to.reverb[frame] += from.reverb[frame] }
            } else {
                Self.copy(from.reverb, to: to.reverb, frameCount: frames)
            }
        }
        if fromSends & VoiceItemMix.chorusSent != 0 {
            if toSends & VoiceItemMix.chorusSent != 0 {
                for frame in 0..<frames { to.chorus[frame] += from.chorus[frame] }
            } else {
                Self.copy(from.chorus, to: to.chorus, frameCount: frames)
            }
        }
        to.sends.pointee = toSends | fromSends
    }

    /// (A loop: `update(from:count:)` is not proved deallocation-free.)
    @_noAllocation @_noLocks
    static func copy(_ source: UnsafeMutablePointer<Float>, to target: UnsafeMutablePointer<Float>, frameCount: Int) {
        for frame in 0..<frameCount { target[frame] = source[frame] }
    }

    /// Renders item `item`'s voices into its mixes, quantum after quantum. Once none of its voices
    /// sounds, the quanta left add nothing.
    @_noAllocation @_noLocks
    func renderVoices(ofItem item: Int, with workspace: inout VoiceLaneWorkspace) {
        let samplerItems = samplerItemCount
        guard item < samplerItems else {
            report(ofItem: item).pointee.soundingQuantumCount = drums.render(item: item - samplerItems, quantumCount: quantumCount, frameCount: frameCount,
                                                mixes: self, mixIndex: item)
            return
        }
        let range = voiceRange(ofItem: item)
        let first = voices + range.lowerBound
        let count = range.count
        // No voice starts within a segment, so those active now and not at the end ended in it.
        let activeAtStart = activeCount(first, count: count)
        var sounding = 0
        for quantum in 0..<quantumCount {
            var anySounding = false
            for index in 0..<count where first[index].pointee.isActive {
                anySounding = true
                break
            }
            guard anySounding else {
                for silent in quantum..<quantumCount { mix(item, quantum: silent).sends.pointee = VoiceItemMix.silent }
                break
            }
            sounding += 1
            workspace.renderItem(voices: first, voiceCount: count, frameCount: frameCount, context: context,
                                 into: mix(item, quantum: quantum))
        }
        report(ofItem: item).pointee.soundingQuantumCount = sounding
        report(ofItem: item).pointee.endedVoiceCount = activeAtStart == 0 ? 0 : activeAtStart - activeCount(first, count: count)
    }

    /// What the thread that rendered item `item` reports of it.
    @_noAllocation @_noLocks
    func report(ofItem item: Int) -> UnsafeMutablePointer<VoiceItemReport> {
        (reports + item * Self.itemRecordByteCount).assumingMemoryBound(to: VoiceItemReport.self)
    }

    /// How many of the `count` voices from `first` on are active.
    @_noAllocation @_noLocks
    func activeCount(_ first: UnsafeMutablePointer<UnsafeMutablePointer<SamplerVoice>>, count: Int) -> Int {
        var active = 0
        for index in 0..<count where first[index].pointee.isActive { active += 1 }
        return active
    }

    /// How many of the segment's quanta began with a voice sounding.
    /// - Thread: audio. Once every item is rendered.
    @_noAllocation @_noLocks
    func soundingQuantumCount() -> Int {
        var most = 0
        for item in 0..<itemCount { most = max(most, report(ofItem: item).pointee.soundingQuantumCount) }
        return most
    }

    /// What a rendered segment left for mixing: its set of mixes, and what reading them takes.
    /// Taken once every item is rendered, it stays valid while the next segment renders into the
    /// other set.
    /// - Thread: audio.
    var renderedMixes: VoiceSegmentMixes {
        @_noAllocation @_noLocks get {
            VoiceSegmentMixes(set: mixSet, frameCount: frameCount, quantumCount: quantumCount, soundingQuantumCount: soundingQuantumCount())
        }
    }

    /// What a segment in which nothing sounded left: its length, and nothing to add.
    /// - Thread: audio.
    var silentMixes: VoiceSegmentMixes {
        @_noAllocation @_noLocks get {
            VoiceSegmentMixes(set: mixSet, frameCount: frameCount, quantumCount: quantumCount, soundingQuantumCount: 0)
        }
    }

    /// Adds the sum of every item's mix for quantum `quantum` of a rendered segment (the summation
    /// tree's root, item 0's mix) into the outputs.
    /// - Thread: audio. Once every item of that segment is rendered.
    @_noAllocation @_noLocks
    func addMixes(_ mixes: VoiceSegmentMixes, quantum: Int, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>,
                  reverb: UnsafeMutablePointer<Float>, chorus: UnsafeMutablePointer<Float>) {
        guard quantum < mixes.soundingQuantumCount else { return }
        let frameCount = mixes.frameCount
        let mix = mix(0, quantum: quantum, set: mixes.set)
        let sends = mix.sends.pointee
        guard sends != VoiceItemMix.silent else { return }
        for frame in 0..<frameCount {
            left[frame] += mix.left[frame]
            right[frame] += mix.right[frame]
        }
        if sends & VoiceItemMix.reverbSent != 0 { for frame in 0..<frameCount { reverb[frame] += mix.reverb[frame] } }
        if sends & VoiceItemMix.chorusSent != 0 { for frame in 0..<frameCount { chorus[frame] += mix.chorus[frame] } }
    }
}
