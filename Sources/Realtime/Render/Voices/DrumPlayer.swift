/// The drum part of the renderer: one-shot pads with a fixed pool of voices each, hit round robin.
///
/// Every hit plays its pad's sample to the end; four quick hits on one pad are four voices, not one
/// voice restarted. Only when all of a pad's voices ring does a hit recycle one — the oldest — and
/// the old sound then fades over 5 ms on the voice's tail playhead instead of being cut. Choke
/// groups fade every other pad of the group (a closed hi-hat silences the open one).
///
/// Velocity curve: gain = pad gain × (velocity / 127)², i.e. 40·log10(velocity/127) dB — the same
/// curve the SoundFont default modulator gives the sampler, so kits and fonts balance alike. The
/// percussion channel's volume and expression (CC7, CC11) scale every hit, ringing ones too, as
/// SF2's default modulators scale a font's drums (`setChannelGain`).
struct DrumPlayer {
    /// Kits that may be live at once: the current one and up to three still ringing out.
    static var kitSlotCount: Int {
        @_noAllocation @_noLocks get { 4 }
    }

    /// What the audio thread reads of a slot's kit (`kitSlots` holds its retain).
    struct KitSlot {
        var samples: UnsafeBufferPointer<Float> = UnsafeBufferPointer(start: nil, count: 0)
        var pads: UnsafeBufferPointer<DrumKit.Pad> = UnsafeBufferPointer(start: nil, count: 0)
        var padForNote: UnsafeBufferPointer<Int16> = UnsafeBufferPointer(start: nil, count: 0)
        var voices: UnsafeMutableBufferPointer<DrumKitPlayback.Voice> = UnsafeMutableBufferPointer(start: nil, count: 0)
        var nextVoice: UnsafeMutableBufferPointer<Int> = UnsafeMutableBufferPointer(start: nil, count: 0)
    }

    let kits: UnsafeMutablePointer<KitSlot>
    /// The kits installed: the current one and those ringing out; `kits` holds what each plays.
    var kitSlots: InstrumentSlots
    let fadeStep: Float

    /// The percussion channel's gain and the ramp to it from a change: the gain at `from` moves
    /// to `target` in `rampFrameCount` frames, of which `framesLeft` are still to play. Counted in
    /// frames, not blocks, so the sound does not depend on how a stream cuts its blocks; read at
    /// any frame of a segment (`gain(at:)`), so each work item takes its own frames' gains.
    struct ChannelGainRamp {
        static var rampFrameCount: Int {
            @_noAllocation @_noLocks get { 64 }
        }
        var target: Float = 1
        var from: Float = 1
        var framesLeft = 0

        /// The gain `offset` frames into the next segment.
        @inline(__always) @_noAllocation @_noLocks
        func gain(at offset: Int) -> Float {
            guard offset < framesLeft else { return target }
            return target + (from - target) * Float(framesLeft - offset) / Float(Self.rampFrameCount)
        }

        /// Ramps from the gain now to `gain` over `rampFrameCount` frames when it changes.
        @_noAllocation @_noLocks
        mutating func move(to gain: Float) {
            guard gain != target else { return }
            from = self.gain(at: 0)
            target = gain
            framesLeft = Self.rampFrameCount
        }

        /// Moves the ramp on past a segment of `frameCount` frames.
        @_noAllocation @_noLocks
        mutating func advance(by frameCount: Int) { framesLeft = max(0, framesLeft - frameCount) }
    }

    /// The percussion channel's gain (`setChannelGain`).
    var channelGain = ChannelGainRamp()

    // Statistics (audio thread writes; the renderer publishes them).
    var hitCount = 0
    var recycledCount = 0
    var chokedCount = 0
    /// Hits on notes no pad plays.
    var unmappedHitCount = 0
    /// Voices whose hit still sounds after the last segment.
    var activeVoiceCount = 0

    init(sampleRate: Double) {
        kitSlots = InstrumentSlots(count: Self.kitSlotCount)
        kits = .allocate(capacity: Self.kitSlotCount)
        kits.initialize(repeating: KitSlot(), count: Self.kitSlotCount)
        fadeStep = -Float(1 / (ClickFreeFade.seconds * sampleRate))
    }

    /// Frees the slots and hands every kit still held to `release`.
    /// - Thread: stopped.
    func deallocate(releasing release: (RetainedObject) -> Void) {
        kitSlots.deallocate(releasing: release)
        kits.deinitialize(count: Self.kitSlotCount)
        kits.deallocate()
    }

    /// True when a kit is installed: channel 10 then plays it.
    var hasKit: Bool {
        @_noAllocation @_noLocks get { kitSlots.current >= 0 }
    }

    /// Makes `kit` current; false when every slot is still ringing out (the caller retries next
    /// block, after the old kits' voices have been faded).
    @_noAllocation @_noLocks
    mutating func install(_ handle: RetainedObject, layout: UnsafePointer<DrumKitPlayback.Layout>) -> Bool {
        let free = kitSlots.firstFree()
        guard free >= 0 else {
            for index in 0..<Self.kitSlotCount where kitSlots.isRingingOut(index) { fadeAll(slot: index) }
            return false
        }
        kits[free] = KitSlot(samples: layout.pointee.samples, pads: layout.pointee.pads,
                             padForNote: layout.pointee.padForNote, voices: layout.pointee.voices,
                             nextVoice: layout.pointee.nextVoice)
        kitSlots.occupy(free, with: handle)
        return true
    }

    /// Plays `note` at `velocity` on the current kit. Returns false when no pad plays the note.
    @_noAllocation @_noLocks
    mutating func hit(note: UInt8, velocity: UInt8) -> Bool {
        guard kitSlots.current >= 0, Int(note) < MIDILimits.keyCount else { return false }
        let kit = kits[kitSlots.current]
        let padIndex = Int(kit.padForNote[Int(note)])
        guard padIndex >= 0 else { unmappedHitCount += 1; return false }
        let pad = kit.pads[padIndex]
        if pad.chokeGroup != 0 {
            for other in 0..<kit.pads.count where other != padIndex && kit.pads[other].chokeGroup == pad.chokeGroup {
                for voice in kit.pads[other].firstVoice ..< kit.pads[other].firstVoice + kit.pads[other].voiceCount {
                    if kit.voices[voice].head.isActive { chokedCount += 1 }
                    fade(&kit.voices[voice].head)
                    fade(&kit.voices[voice].tail)
                }
            }
        }
        let voiceIndex = pad.firstVoice + kit.nextVoice[padIndex]
        kit.nextVoice[padIndex] = (kit.nextVoice[padIndex] + 1) % pad.voiceCount
        if kit.voices[voiceIndex].head.isActive {
            // Round robin came back to a ringing voice: it is the oldest. Its sound moves to the
            // tail and fades; a tail still fading from an earlier recycle is replaced.
            recycledCount += 1
            kit.voices[voiceIndex].tail = kit.voices[voiceIndex].head
            fade(&kit.voices[voiceIndex].tail)
        }
        let level = Float(min(velocity, 127)) / 127
        kit.voices[voiceIndex].head = DrumKitPlayback.Voice.Playhead(isActive: true, gain: pad.gain * level * level)
        hitCount += 1
        return true
    }

    /// Fades every voice of every kit (all sound off).
    @_noAllocation @_noLocks
    mutating func fadeAll() {
        for slot in 0..<Self.kitSlotCount { fadeAll(slot: slot) }
    }

    @_noAllocation @_noLocks
    mutating func fadeAll(slot: Int) {
        let voices = kits[slot].voices
        for index in 0..<voices.count {
            fade(&voices[index].head)
            fade(&voices[index].tail)
        }
    }

    @_noAllocation @_noLocks
    func fade(_ playhead: inout DrumKitPlayback.Voice.Playhead) {
        if playhead.isActive && playhead.fadeStep == 0 { playhead.fadeStep = fadeStep }
    }

    /// Sets the gain every hit is scaled by from here on, ramping to it over
    /// `ChannelGainRamp.rampFrameCount` frames when it changes.
    @_noAllocation @_noLocks
    mutating func setChannelGain(_ gain: Float) { channelGain.move(to: gain) }

    /// Describes the next segment's voices to `items`: the kits that sound and the channel's gain.
    /// The segment's voices are then rendered as work items (`DrumWorkItems`), on whichever threads
    /// render the sampler's, and `finishSegment` takes the counts.
    @_noAllocation @_noLocks
    func prepareSegment(_ items: inout DrumWorkItems) {
        items.kits = kits
        var occupied: UInt32 = 0
        var itemCount = 0
        for slot in 0..<Self.kitSlotCount where kitSlots.isOccupied(slot) {
            occupied |= 1 << UInt32(slot)
            itemCount += DrumWorkItems.itemCount(voiceCount: kits[slot].voices.count)
        }
        items.occupiedSlots = occupied
        items.itemCount = itemCount
        items.channelGain = channelGain
    }

    /// Takes the counts of a segment of `frameCount` frames rendered as `items` describe, and moves
    /// the channel gain's ramp on past it.
    @_noAllocation @_noLocks
    mutating func finishSegment(_ items: DrumWorkItems, frameCount: Int) {
        channelGain.advance(by: frameCount)
        var active = 0
        for item in 0..<items.itemCount { active += items.activeCount(ofItem: item).pointee }
        activeVoiceCount = active
    }

    /// Hands back a kit that is neither current nor sounding.
    @_noAllocation @_noLocks
    mutating func collectRetiredKit() -> RetainedObject? {
        for slot in 0..<Self.kitSlotCount where kitSlots.isRingingOut(slot) {
            var sounding = false
            for index in 0..<kits[slot].voices.count where kits[slot].voices[index].head.isActive || kits[slot].voices[index].tail.isActive {
                sounding = true
                break
            }
            if sounding { continue }
            kits[slot] = KitSlot()
            return kitSlots.vacate(slot)
        }
        return nil
    }
}
