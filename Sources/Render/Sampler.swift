import DSP

/// The sampled-instrument part of the renderer: MIDI channel state, the installed banks, and the
/// voice pool. Audio thread only; the control thread reaches it through `RenderCommand`s.
///
/// Bank switches are pointer swaps: an installed bank becomes current at once, while voices of the
/// previous bank ring out. A bank that is no longer current and has no voice left is handed back
/// on the return ring, to be freed on the control thread.
struct Sampler {
    /// Banks that may be live at once: the current one and up to seven still ringing out.
    static var bankSlotCount: Int {
        @_noAllocation @_noLocks get { 8 }
    }

    struct BankSlot {
        var handle: RetainedObject? = nil
        var samples: UnsafePointer<Float>? = nil
        var regions: UnsafeBufferPointer<SamplerRegion> = UnsafeBufferPointer(start: nil, count: 0)
        var presets: UnsafeBufferPointer<SampleBank.Preset> = UnsafeBufferPointer(start: nil, count: 0)
        var voiceCount = 0
        var isEmpty: Bool {
            @_noAllocation @_noLocks get { if case .none = handle { true } else { false } }
        }
    }

    let channels: UnsafeMutablePointer<ChannelState>
    let banks: UnsafeMutablePointer<BankSlot>
    /// One control block of four interleaved lanes: the voices being rendered together.
    let scratch: UnsafeMutablePointer<SIMD4<Float>>
    /// Per-lane mix buses, `maxFrameCount` frames: groups add into their lanes, and the lanes are
    /// summed into left/right once per block rather than once per group.
    let busLeft: UnsafeMutablePointer<SIMD4<Float>>
    let busRight: UnsafeMutablePointer<SIMD4<Float>>
    /// Eight zero frames: what an empty lane of the SIMD reader reads.
    let silence: UnsafeMutablePointer<Float>
    /// The voices of the group being rendered (up to four).
    let group: UnsafeMutablePointer<UnsafeMutablePointer<SamplerVoice>>
    let groupBlocks: UnsafeMutablePointer<SamplerVoice.ControlBlock>
    var currentBank = -1
    var pool: VoicePool
    let sampleRate: Double
    var interpolation = SamplerVoice.Interpolation.cubic

    // Statistics (audio thread writes; the renderer publishes them).
    var activeVoiceCount = 0
    var peakVoiceCount = 0
    var noteOnCount = 0
    /// Note-ons that found no preset or no region for their key: nothing to play, nothing stuck.
    var unmappedNoteCount = 0

    init(sampleRate: Double, voiceCount: Int, fadeSlotCount: Int, maxFrameCount: Int) {
        self.sampleRate = sampleRate
        channels = .allocate(capacity: ChannelState.count)
        for index in 0..<ChannelState.count {
            (channels + index).initialize(to: ChannelState(index: UInt8(index)))
        }
        banks = .allocate(capacity: Self.bankSlotCount)
        banks.initialize(repeating: BankSlot(), count: Self.bankSlotCount)
        pool = VoicePool(capacity: voiceCount, fadeCapacity: fadeSlotCount)
        scratch = .allocate(capacity: SamplerVoice.controlBlockFrameCount)
        busLeft = .allocate(capacity: maxFrameCount)
        busRight = .allocate(capacity: maxFrameCount)
        silence = .allocate(capacity: 8)
        silence.initialize(repeating: 0, count: 8)
        group = .allocate(capacity: 4)
        groupBlocks = .allocate(capacity: 4)
        groupBlocks.initialize(repeating: SamplerVoice.ControlBlock(), count: 4)
    }

    /// Frees the pools and hands every bank still held to `release`.
    /// - Thread: control, after the audio thread has stopped.
    func deallocate(releasing release: (RetainedObject) -> Void) {
        for index in 0..<Self.bankSlotCount { if let handle = banks[index].handle { release(handle) } }
        channels.deinitialize(count: ChannelState.count)
        channels.deallocate()
        banks.deinitialize(count: Self.bankSlotCount)
        banks.deallocate()
        pool.deallocate()
        scratch.deallocate()
        busLeft.deallocate()
        busRight.deallocate()
        silence.deallocate()
        group.deallocate()
        groupBlocks.deallocate()
    }

    // MARK: Commands

    /// Makes `bank` current. Returns false when every slot is still busy ringing out; the caller
    /// keeps the command and retries next block, after those voices have been faded.
    @_noAllocation @_noLocks
    mutating func install(_ handle: RetainedObject, layout: UnsafePointer<SampleBank.Layout>) -> Bool {
        var free = -1
        for index in 0..<Self.bankSlotCount where banks[index].isEmpty {
            free = index
            break
        }
        guard free >= 0 else {
            // Make room: fade every voice of banks that are no longer current.
            for index in 0..<pool.capacity where pool.voices[index].isActive && pool.voices[index].bankSlot != currentBank {
                pool.voices[index].fadeOut(sampleRate: sampleRate)
            }
            return false
        }
        // The slot keeps the handle's retain, which keeps `layout` and the buffers alive.
        banks[free] = BankSlot(handle: handle, samples: layout.pointee.samples.baseAddress,
                               regions: layout.pointee.regions, presets: layout.pointee.presets, voiceCount: 0)
        currentBank = free
        for index in 0..<ChannelState.count { selectPreset(channel: index) }
        return true
    }

    @_noAllocation @_noLocks
    mutating func noteOn(channel: UInt8, key: UInt8, velocity: UInt8) {
        guard Int(channel) < ChannelState.count, key < 128 else { return }
        guard velocity > 0 else { return noteOff(channel: channel, key: key) }
        noteOnCount += 1
        let state = channels[Int(channel)]
        guard currentBank >= 0, state.presetIndex >= 0 else { unmappedNoteCount += 1; return }
        let slot = banks[currentBank]
        guard let samples = slot.samples, state.presetIndex < slot.presets.count else { unmappedNoteCount += 1; return }
        let preset = slot.presets[state.presetIndex]

        // Same note again on this channel: the old one releases (no doubled, phasing voices).
        for index in 0..<pool.capacity where pool.voices[index].isActive && !pool.voices[index].isReleased
            && pool.voices[index].channel == channel && pool.voices[index].key == key {
            pool.voices[index].release()
        }

        var started = 0
        for regionIndex in preset.firstRegion ..< preset.firstRegion + preset.regionCount {
            let region = slot.regions[regionIndex]
            guard region.contains(key: key, velocity: velocity) else { continue }
            if region.exclusiveClass != 0 { silenceExclusiveClass(region.exclusiveClass, channel: channel) }
            let acquired = pool.acquire(sampleRate: sampleRate)
            voiceEnded(bankSlot: acquired.endedBankSlots.0)
            voiceEnded(bankSlot: acquired.endedBankSlots.1)
            let voice = acquired.voice
            voice.pointee.start(region: region, samples: samples, key: key, velocity: velocity,
                                channel: channel, engineRate: sampleRate)
            voice.pointee.bankSlot = currentBank
            voice.pointee.presetIndex = state.presetIndex
            voice.pointee.isPercussion = state.isPercussion
            banks[currentBank].voiceCount += 1
            started += 1
        }
        if started == 0 { unmappedNoteCount += 1 }
    }

    @_noAllocation @_noLocks
    mutating func noteOff(channel: UInt8, key: UInt8) {
        let sustained = Int(channel) < ChannelState.count && channels[Int(channel)].sustainPedal
        for index in 0..<pool.capacity where pool.voices[index].isActive && !pool.voices[index].isReleased
            && pool.voices[index].channel == channel && pool.voices[index].key == key {
            if sustained { pool.voices[index].isHeldByPedal = true } else { pool.voices[index].release() }
        }
    }

    @_noAllocation @_noLocks
    mutating func controlChange(channel: UInt8, controller: UInt8, value: UInt8) {
        guard Int(channel) < ChannelState.count else { return }
        let state = channels + Int(channel)
        let value = min(value, 127)
        switch controller {
        case 0: state.pointee.bankMSB = value
        case 32: state.pointee.bankLSB = value
        case 1: state.pointee.modulationWheel = value
        case 7: state.pointee.volume = value
        case 10: state.pointee.panPosition = value
        case 11: state.pointee.expression = value
        case 91: state.pointee.reverbLevel = value
        case 93: state.pointee.chorusLevel = value
        case 64:
            let down = value >= 64
            state.pointee.sustainPedal = down
            if !down { releasePedalHeldVoices(channel: channel) }
        case 101: state.pointee.registeredParameter.msb = value
        case 100: state.pointee.registeredParameter.lsb = value
        case 98, 99: state.pointee.registeredParameter = (127, 127)  // an NRPN deselects the RPN
        case 6 where state.pointee.registeredParameter == (0, 0):
            state.pointee.bendRangeSemitones = Float(value) + (state.pointee.bendRangeSemitones - Float(Int(state.pointee.bendRangeSemitones)))
        case 38 where state.pointee.registeredParameter == (0, 0):
            state.pointee.bendRangeSemitones = Float(Int(state.pointee.bendRangeSemitones)) + Float(value) / 100
        case 120: allSoundOff(channel: channel)
        case 121: state.pointee.resetControllers(); releasePedalHeldVoices(channel: channel)
        case 123, 124, 125, 126, 127: allNotesOff(channel: channel)
        default: break
        }
        state.pointee.refresh()
    }

    @_noAllocation @_noLocks
    mutating func programChange(channel: UInt8, program: UInt8) {
        guard Int(channel) < ChannelState.count else { return }
        channels[Int(channel)].program = min(program, 127)
        selectPreset(channel: Int(channel))
    }

    @_noAllocation @_noLocks
    mutating func pitchBend(channel: UInt8, value: UInt16) {
        guard Int(channel) < ChannelState.count else { return }
        channels[Int(channel)].pitchBend = min(value, 16_383)
        channels[Int(channel)].refresh()
    }

    @_noAllocation @_noLocks
    mutating func channelPressure(channel: UInt8, pressure: UInt8) {
        guard Int(channel) < ChannelState.count else { return }
        channels[Int(channel)].channelPressure = min(pressure, 127)
        channels[Int(channel)].refresh()
    }

    /// Releases every note of `channel`, pedal-held ones included: All Notes Off is the message
    /// front ends send on every exit path, so it must leave nothing sounding.
    @_noAllocation @_noLocks
    mutating func allNotesOff(channel: UInt8) {
        for index in 0..<pool.capacity where pool.voices[index].isActive && pool.voices[index].channel == channel {
            pool.voices[index].release()
        }
    }

    /// Fades every voice of `channel` (all channels when `channel` is nil) out over 5 ms.
    @_noAllocation @_noLocks
    mutating func allSoundOff(channel: UInt8?) {
        for index in 0..<pool.capacity where pool.voices[index].isActive && (channel == nil || pool.voices[index].channel == channel!) {
            pool.voices[index].fadeOut(sampleRate: sampleRate)
        }
    }

    // MARK: Rendering

    /// Adds every sounding voice — the pool's and the fading ones — into `left`/`right`, four at a
    /// time so their reads, filters and gains share SIMD lanes.
    @_noAllocation @_noLocks
    mutating func render(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frameCount: Int) {
        busLeft.update(repeating: SIMD4<Float>(), count: frameCount)
        busRight.update(repeating: SIMD4<Float>(), count: frameCount)
        var grouped = 0
        for index in 0 ..< pool.capacity + pool.fadeCapacity {
            let voice = index < pool.capacity ? pool.voices + index : pool.fading + (index - pool.capacity)
            guard voice.pointee.isActive else { continue }
            group[grouped] = voice
            grouped += 1
            if grouped == 4 {
                renderGroup(count: grouped, frameCount: frameCount)
                grouped = 0
            }
        }
        if grouped > 0 { renderGroup(count: grouped, frameCount: frameCount) }
        for frame in 0..<frameCount {
            left[frame] += busLeft[frame].sum()
            right[frame] += busRight[frame].sum()
        }
        var active = 0
        for index in 0..<pool.capacity where pool.voices[index].isActive { active += 1 }
        activeVoiceCount = active
        peakVoiceCount = max(peakVoiceCount, active)
    }

    /// Renders the `count` voices in `group` for `frameCount` frames into the lane buses, a control
    /// block at a time.
    @_noAllocation @_noLocks
    mutating func renderGroup(count: Int, frameCount: Int) {
        let lanes = UnsafeMutableRawPointer(scratch).assumingMemoryBound(to: Float.self)
        var offset = 0
        while offset < frameCount {
            let blockFrames = min(SamplerVoice.controlBlockFrameCount, frameCount - offset)
            // Control rate for every lane, then the longest stretch every lane can read without a
            // boundary: that stretch is read for all four at once, the rest lane by lane.
            var fastFrames = blockFrames
            for lane in 0..<4 {
                if lane < count && group[lane].pointee.isActive {
                    groupBlocks[lane] = group[lane].pointee.prepare(frameCount: blockFrames, channel: channels[Int(group[lane].pointee.channel)],
                                                                    sampleRate: sampleRate)
                    fastFrames = min(fastFrames, group[lane].pointee.clearFrameCount(limit: blockFrames))
                } else {
                    groupBlocks[lane] = SamplerVoice.ControlBlock()
                }
            }
            if fastFrames > 0 { readGroup(count: count, frameCount: fastFrames) }
            var filtering = false
            for lane in 0..<4 {
                guard lane < count, group[lane].pointee.isActive else {
                    for frame in fastFrames..<blockFrames { lanes[frame * 4 + lane] = 0 }
                    continue
                }
                let voice = group[lane]
                let rest = voice.pointee.readSample(into: lanes + fastFrames * 4 + lane, stride: 4, frameCount: blockFrames - fastFrames,
                                                    increment: voice.pointee.lastIncrement, interpolation: interpolation)
                groupBlocks[lane].produced = fastFrames + rest
                for frame in groupBlocks[lane].produced ..< blockFrames { lanes[frame * 4 + lane] = 0 }
                filtering = filtering || groupBlocks[lane].filterActive
            }
            if filtering {
                var quad = LowPassFilterQuad()
                for lane in 0..<count where groupBlocks[lane].filterActive { quad.load(lane: lane, from: group[lane].pointee.filter) }
                quad.process(scratch, count: blockFrames)
                for lane in 0..<count where groupBlocks[lane].filterActive { quad.store(lane: lane, into: &group[lane].pointee.filter) }
            }
            mixGroup(frameCount: blockFrames, busLeft: busLeft + offset, busRight: busRight + offset)
            for lane in 0..<count where group[lane].pointee.isActive {
                let voice = group[lane]
                voice.pointee.finish(groupBlocks[lane], frameCount: blockFrames)
                if !voice.pointee.isActive { voiceEnded(bankSlot: voice.pointee.bankSlot) }
            }
            offset += blockFrames
        }
    }

    /// Reads `frameCount` frames for all four lanes at once (no lane is near a boundary): the four
    /// positions advance in 32.32 fixed point, the 16 neighbouring samples are gathered, and the
    /// interpolation runs in SIMD lanes. Empty lanes read silence at a standstill.
    @_noAllocation @_noLocks
    func readGroup(count: Int, frameCount: Int) {
        let quiet = UnsafePointer(silence + 2)
        var bases = (quiet, quiet, quiet, quiet)
        // Within a block each lane's position is split into a whole frame count from its base and
        // a Float fraction: cheap to step and convert. The error (under 1e-5 frames a block) never
        // accumulates: the Double position is advanced exactly at the end.
        var whole = SIMD4<Int32>(repeating: 0), wholeStep = SIMD4<Int32>(repeating: 0)
        var fraction = SIMD4<Float>(repeating: 0), fractionStep = SIMD4<Float>(repeating: 0)
        for lane in 0..<count where group[lane].pointee.isActive {
            let voice = group[lane]
            let start = Int(voice.pointee.position)
            let base = voice.pointee.samples! + start
            switch lane {
            case 0: bases.0 = base
            case 1: bases.1 = base
            case 2: bases.2 = base
            default: bases.3 = base
            }
            fraction[lane] = Float(voice.pointee.position - Double(start))
            let increment = voice.pointee.lastIncrement
            wholeStep[lane] = Int32(increment)
            fractionStep[lane] = Float(increment - Double(Int32(increment)))
        }
        let one = SIMD4<Float>(repeating: 1)
        let cubic = interpolation.isCubic
        for frame in 0..<frameCount {
            let w0 = Int(whole[0]), w1 = Int(whole[1]), w2 = Int(whole[2]), w3 = Int(whole[3])
            let y0 = SIMD4<Float>(bases.0[w0], bases.1[w1], bases.2[w2], bases.3[w3])
            let y1 = SIMD4<Float>(bases.0[w0 + 1], bases.1[w1 + 1], bases.2[w2 + 1], bases.3[w3 + 1])
            if cubic {
                let ym1 = SIMD4<Float>(bases.0[w0 - 1], bases.1[w1 - 1], bases.2[w2 - 1], bases.3[w3 - 1])
                let y2 = SIMD4<Float>(bases.0[w0 + 2], bases.1[w1 + 2], bases.2[w2 + 2], bases.3[w3 + 2])
                // The same factored Catmull-Rom as `cubic(_:_:_:_:_:)`, four lanes at a time.
                let slope = (y1 - ym1) * 0.5
                let v = y0 - y1
                let w = slope + v
                let a = w + v + (y2 - y0) * 0.5
                let b = w + a
                scratch[frame] = ((a * fraction - b) * fraction + slope) * fraction + y0
            } else {
                scratch[frame] = y0 + (y1 - y0) * fraction
            }
            fraction += fractionStep
            let carry = fraction .>= one
            fraction.replace(with: fraction - one, where: carry)
            whole &+= wholeStep
            whole.replace(with: whole &+ 1, where: carry)
        }
        for lane in 0..<count where group[lane].pointee.isActive {
            group[lane].pointee.position += Double(frameCount) * group[lane].pointee.lastIncrement
        }
    }

    /// Adds the four lanes into the lane buses, each through its own ramped gains. Lanes past a
    /// voice's end hold zeros, and empty lanes have zero gain, so all four mix in one pass.
    @_noAllocation @_noLocks
    func mixGroup(frameCount: Int, busLeft: UnsafeMutablePointer<SIMD4<Float>>, busRight: UnsafeMutablePointer<SIMD4<Float>>) {
        var leftGain = SIMD4<Float>(), leftStep = SIMD4<Float>()
        var rightGain = SIMD4<Float>(), rightStep = SIMD4<Float>()
        for lane in 0..<4 {
            leftGain[lane] = groupBlocks[lane].leftStart
            leftStep[lane] = groupBlocks[lane].leftStep
            rightGain[lane] = groupBlocks[lane].rightStart
            rightStep[lane] = groupBlocks[lane].rightStep
        }
        for frame in 0..<frameCount {
            leftGain += leftStep
            rightGain += rightStep
            let values = scratch[frame]
            busLeft[frame] += values * leftGain
            busRight[frame] += values * rightGain
        }
    }

    /// Hands back banks that are neither current nor used by any voice.
    @_noAllocation @_noLocks
    mutating func collectRetiredBank() -> RetainedObject? {
        for index in 0..<Self.bankSlotCount where index != currentBank && !banks[index].isEmpty && banks[index].voiceCount <= 0 {
            let handle = banks[index].handle
            banks[index] = BankSlot()
            return handle
        }
        return nil
    }

    // MARK: Helpers

    /// A voice stopped sounding: its bank has one user fewer (-1: no voice ended).
    @_noAllocation @_noLocks
    mutating func voiceEnded(bankSlot: Int) {
        guard bankSlot >= 0, bankSlot < Self.bankSlotCount else { return }
        banks[bankSlot].voiceCount -= 1
    }

    @_noAllocation @_noLocks
    mutating func releasePedalHeldVoices(channel: UInt8) {
        for index in 0..<pool.capacity where pool.voices[index].isActive && pool.voices[index].isHeldByPedal
            && pool.voices[index].channel == channel {
            pool.voices[index].release()
        }
    }

    @_noAllocation @_noLocks
    mutating func silenceExclusiveClass(_ exclusiveClass: UInt16, channel: UInt8) {
        for index in 0..<pool.capacity where pool.voices[index].isActive && pool.voices[index].channel == channel
            && pool.voices[index].exclusiveClass == exclusiveClass {
            pool.voices[index].fadeOut(sampleRate: sampleRate)
        }
    }

    /// Picks the channel's preset in the current bank: its bank and program, else bank 0 with the
    /// same program (melodic channels only), else none. Percussion uses bank 128.
    @_noAllocation @_noLocks
    mutating func selectPreset(channel: Int) {
        let state = channels + channel
        state.pointee.presetIndex = -1
        guard currentBank >= 0 else { return }
        let presets = banks[currentBank].presets
        let bank: UInt16 = state.pointee.isPercussion ? 128 : UInt16(state.pointee.bankMSB)
        let program = state.pointee.program
        var fallback = -1
        for index in 0..<presets.count {
            if presets[index].bank == bank && presets[index].program == program {
                state.pointee.presetIndex = index
                return
            }
            if !state.pointee.isPercussion && presets[index].bank == 0 && presets[index].program == program { fallback = index }
        }
        state.pointee.presetIndex = fallback
    }
}
