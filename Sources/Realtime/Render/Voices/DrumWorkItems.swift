import Lockfree

/// The drum player's voices for one segment, split into work items that the audio thread and the
/// voice workers claim beside the sampler's (`VoiceWorkItems`): a kit's hits are rendered on every
/// thread as the sampler's notes are, and summed in the same tree.
///
/// Each kit is split by its own voice count alone: up to `itemsPerKit` items of at least
/// `minimumVoicesPerItem` voices, the kits' items in slot order. A kit's voices (pad after pad) are
/// dealt to its items in runs of `runVoices`, run 0 to item 0, run 1 to item 1 and so on round, so
/// every pad's voices are spread over the items: a roll on one pad, or a long crash ringing while
/// the hi-hats choke, loads them alike. Each item sums its voices into its own mix, so the output
/// is the same bits whichever thread renders which item, and however many threads there are. A kit
/// that rings out and is then freed (at a block's end, `Renderer.retireUnusedInstruments`) takes
/// only silent items with it, so when that happens changes nothing of the sum, whatever the block
/// size.
///
/// Written by the audio thread between segments (`DrumPlayer.prepareSegment`); read by the thread
/// that claimed an item while it renders it, which writes only its own voices' playheads and its
/// own counts (`VoiceWorkers` orders the two).
struct DrumWorkItems {
    /// At most this many items a kit: two threads share a large kit's rolls, and the sampler's
    /// voices, far more work as a rule, keep most of the items.
    static var itemsPerKit: Int {
        @_noAllocation @_noLocks get { 2 }
    }
    /// At most this many drum items a segment: `itemsPerKit` for each kit slot.
    static var maximumItemCount: Int {
        @_noAllocation @_noLocks get { itemsPerKit * DrumPlayer.kitSlotCount }
    }
    /// The fewest voices an item holds: fewer cost more to hand out and add than to render.
    static var minimumVoicesPerItem: Int {
        @_noAllocation @_noLocks get { 8 }
    }
    /// Voices dealt to an item at a time: four voices' playheads (192 bytes) keep the cache lines
    /// two threads write apart, but for the line a run's edge may share.
    static var runVoices: Int {
        @_noAllocation @_noLocks get { 4 }
    }

    /// The drum player's kit slots (`DrumPlayer.kits`), and which of them hold a kit this segment.
    var kits: UnsafeMutablePointer<DrumPlayer.KitSlot>?
    var occupiedSlots: UInt32 = 0
    /// The items this segment: each occupied slot's `itemCount(voiceCount:)`, all told.
    var itemCount = 0
    /// The percussion channel's gain for the segment, and its ramp.
    var channelGain = DrumPlayer.ChannelGainRamp()
    /// Per item, a slot each (different threads render neighbouring items): voices whose head
    /// still sounds after the segment (`activeCount(ofItem:)`).
    let activeCounts: UnsafeMutableRawPointer

    /// - Thread: control.
    init() {
        activeCounts = CacheLine.allocateSlots(count: Self.maximumItemCount)
        for item in 0..<Self.maximumItemCount {
            CacheLine.slot(item, in: activeCounts).initializeMemory(as: Int.self, repeating: 0, count: 1)
        }
    }

    /// - Thread: stopped.
    func deallocate() {
        activeCounts.deallocate()
    }

    /// Item `item`'s count of voices whose head still sounds after the segment.
    /// - Thread: audio. Or the voice worker that renders the item.
    @_noAllocation @_noLocks
    func activeCount(ofItem item: Int) -> UnsafeMutablePointer<Int> {
        CacheLine.slot(item, in: activeCounts).assumingMemoryBound(to: Int.self)
    }

    /// The items of a kit of `voiceCount` voices: as many as give each at least
    /// `minimumVoicesPerItem`, at most `itemsPerKit`, and one for a smaller kit.
    @_noAllocation @_noLocks
    static func itemCount(voiceCount: Int) -> Int {
        max(1, min(itemsPerKit, voiceCount / minimumVoicesPerItem))
    }

    /// Playheads sounding now, over every item: what the segment's work is weighed by.
    @_noAllocation @_noLocks
    func soundingPlayheadCount() -> Int {
        guard let kits else { return 0 }
        var sounding = 0
        for slot in 0..<DrumPlayer.kitSlotCount where occupiedSlots & (1 << UInt32(slot)) != 0 {
            let voices = kits[slot].voices
            for index in 0..<voices.count {
                if voices[index].head.isActive { sounding += 1 }
                if voices[index].tail.isActive { sounding += 1 }
            }
        }
        return sounding
    }

    /// Renders item `item`'s voices, quantum after quantum (`frameCount` frames each), into the
    /// mixes `mixes.mix(mixIndex, quantum:)`, and returns how many quanta had one of them sounding;
    /// once none sounds (no hit comes within a segment), the quanta left are marked silent.
    /// - Thread: audio. Or the voice worker that claimed the item.
    @_noAllocation @_noLocks
    func render(item: Int, quantumCount: Int, frameCount: Int, mixes: VoiceWorkItems, mixIndex: Int) -> Int {
        // The kit the item belongs to, and its voices.
        var slot = 0, firstItem = 0
        while true {
            if occupiedSlots & (1 << UInt32(slot)) != 0 {
                let items = Self.itemCount(voiceCount: kits![slot].voices.count)
                if item < firstItem + items { break }
                firstItem += items
            }
            slot += 1
        }
        let kit = kits![slot]
        let kitItems = Self.itemCount(voiceCount: kit.voices.count), kitItem = item - firstItem
        var played = 0, active = 0, sounding = 0
        for quantum in 0..<quantumCount {
            let mix = mixes.mix(mixIndex, quantum: quantum)
            mix.left.update(repeating: 0, count: frameCount)
            mix.right.update(repeating: 0, count: frameCount)
            let playedBefore = played
            active = 0
            let rampOffset = quantum * frameCount
            // The item's voices, pad by pad: those of its runs.
            for padIndex in 0..<kit.pads.count {
                let pad = kit.pads[padIndex]
                for voice in pad.firstVoice..<(pad.firstVoice + pad.voiceCount) where (voice / Self.runVoices) % kitItems == kitItem {
                    if kit.voices[voice].head.isActive {
                        played += 1
                        play(&kit.voices[voice].head, pad: pad, samples: kit.samples, into: mix, frameCount: frameCount, rampOffset: rampOffset)
                        if kit.voices[voice].head.isActive { active += 1 }
                    }
                    if kit.voices[voice].tail.isActive {
                        played += 1
                        play(&kit.voices[voice].tail, pad: pad, samples: kit.samples, into: mix, frameCount: frameCount, rampOffset: rampOffset)
                    }
                }
            }
            guard played > playedBefore else {
                for silent in quantum..<quantumCount { mixes.mix(mixIndex, quantum: silent).sends.pointee = VoiceItemMix.silent }
                break
            }
            mix.sends.pointee = 0
            sounding += 1
        }
        activeCount(ofItem: item).pointee = active
        return sounding
    }

    /// Adds `frameCount` frames of one playhead into `mix`, fading it when it was faded (a choke,
    /// a recycle, all sound off); it ends at its sample's end or when the fade does.
    @_noAllocation @_noLocks
    func play(_ playhead: inout DrumKitPlayback.Voice.Playhead, pad: DrumKit.Pad, samples: UnsafeBufferPointer<Float>,
              into mix: VoiceItemMix, frameCount: Int, rampOffset: Int) {
        guard let base = samples.baseAddress else { playhead.isActive = false; return }
        let count = min(frameCount, pad.frameCount - playhead.position)
        var sample = base + 2 * (pad.start + playhead.position)
        var fade = playhead.fade
        let step = playhead.fadeStep
        let gain = playhead.gain * channelGain.target
        let left = mix.left, right = mix.right
        for frame in 0..<max(0, count) {
            fade = max(0, fade + step)
            // Within a ramp the channel's gain moves frame by frame; otherwise it is in `gain`.
            let frameGain = rampOffset + frame < channelGain.framesLeft ? playhead.gain * channelGain.gain(at: rampOffset + frame) : gain
            left[frame] += sample[0] * frameGain * fade
            right[frame] += sample[1] * frameGain * fade
            sample += 2
        }
        playhead.position += max(0, count)
        playhead.fade = fade
        if playhead.position >= pad.frameCount || fade <= 0 { playhead.isActive = false }
    }
}
