import DSP
import Synchronization

// MIDI's channel rules: note-offs and the pedals that hold them, controllers, programs, the wheel
// and pressures, resets and the rhythm part, as General MIDI and SF2 say.
extension Sampler {
    @_noAllocation @_noLocks
    mutating func noteOff(channel: UInt8, key: UInt8) {
        guard Int(channel) < MIDILimits.channelCount else { return }
        let state = channels + Int(channel)
        var heldBySostenuto = false
        var sounding = pool.firstSoundingVoice(channel: channel, key: key)
        while sounding < pool.capacity {
            let next = pool.nextSoundingVoice(after: sounding)
            let voice = pool.voices + sounding
            if state.pointee.sostenutoPedal && voice.pointee.isCaughtBySostenuto {
                voice.pointee.isHeldBySostenuto = true
                heldBySostenuto = true
            } else if state.pointee.sustainPedal {
                voice.pointee.isHeldByPedal = true
            } else {
                releaseKey(sounding)
            }
            sounding = next
        }
        guard Int(key) < MIDILimits.keyCount else { return }
        keyMemory(channel: channel, key: key).pointee.isDown = false
        startReleaseRegions(channel: channel, key: key, keyRelease: true)
        // A pedal that holds the note holds its release regions too, until it comes up.
        if !state.pointee.sustainPedal && !heldBySostenuto { startReleaseRegions(channel: channel, key: key) }
    }

    /// Releases voice `index` because its key, or the pedal holding it, went up: at once, or, when
    /// it has sounded less than the minimum note length, at the frame it reaches it. A note-off at
    /// the note-on's own frame would otherwise release a voice whose envelope has not risen yet,
    /// and the note would never be heard. (FluidSynth checks its pending note-offs once per
    /// 64-frame block; here the release falls on its exact frame.)
    @_noAllocation @_noLocks
    mutating func releaseKey(_ index: Int) {
        // A one-shot, or a region its key's release started, plays to its end whatever the key
        // or the pedals do.
        if let region = pool.voices[index].region {
            if case .oneShot = region.pointee.loopMode { return }
            if region.pointee.trigger.isRelease { return }
        }
        let heldUntil = pool.voices[index].noteOnFrame &+ minimumNoteFrames
        guard heldUntil > now else { return pool.release(index) }
        pool.voices[index].heldReleaseFrame = heldUntil
        nextHeldRelease = min(nextHeldRelease, heldUntil)
    }

    /// Releases the voices whose minimum note length ends at or before `now`.
    @_noAllocation @_noLocks
    mutating func releaseHeldNotes() {
        guard nextHeldRelease <= now else { return }
        nextHeldRelease = .max
        for index in pool.activeIndices where pool.voices[index].isActive && !pool.voices[index].isReleased
            && pool.voices[index].heldReleaseFrame != .max {
            let due = pool.voices[index].heldReleaseFrame
            if due <= now {
                pool.voices[index].heldReleaseFrame = .max
                pool.release(index)
            } else {
                nextHeldRelease = min(nextHeldRelease, due)
            }
        }
    }

    @_noAllocation @_noLocks
    mutating func controlChange(channel: UInt8, controller: UInt8, value: UInt8, triggers: Bool = true) {
        guard Int(channel) < MIDILimits.channelCount else { return }
        let state = channels + Int(channel)
        let value = min(value, 127)
        let previous = state.pointee.controllers[Int(controller & 0x7F)]
        state.pointee.setController(controller, value)
        if triggers, value != previous { startControllerTriggeredRegions(channel: channel, controller: controller & 0x7F, value: value) }
        switch MIDIController.named(controller) {
        case .bankSelect?: state.pointee.bankMSB = value
        case .bankSelectLSB?: state.pointee.bankLSB = value
        case .sustainPedal?:
            let down = MIDIController.isDown(pedalValue: value)
            state.pointee.sustainPedal = down
            if !down { releasePedalHeldVoices(channel: channel) }
        case .sostenutoPedal?:
            let down = MIDIController.isDown(pedalValue: value)
            // Only the moment it goes down catches notes: a repeated "down" catches no new ones.
            if down && !state.pointee.sostenutoPedal { catchSostenutoNotes(channel: channel) }
            if !down && state.pointee.sostenutoPedal { releaseSostenutoNotes(channel: channel) }
            state.pointee.sostenutoPedal = down
        case .registeredParameterMSB?: state.pointee.registeredParameter.msb = value
        case .registeredParameterLSB?: state.pointee.registeredParameter.lsb = value
        case .nonRegisteredParameterLSB?, .nonRegisteredParameterMSB?:
            state.pointee.registeredParameter = (127, 127)  // an NRPN deselects the RPN
        case .dataEntry?: state.pointee.enterData(msb: value, lsb: nil)
        case .dataEntryLSB?: state.pointee.enterData(msb: nil, lsb: value)
        case .allSoundOff?: allSoundOff(channel: channel)
        case .resetAllControllers?: resetAllControllers(channel: channel)
        case .allNotesOff?: allNotesOff(channel: channel)
        case .omniOff?, .omniOn?, .monoOn?, .polyOn?:
            // MIDI 1.0: a mode message is obeyed on the basic channel only, and acts as All Notes
            // Off there. Staccato stays multi-timbral whatever the mode, so that is all it does.
            // (FluidSynth also changes the mode of the basic channel's group, all 16 channels by
            // default, and so releases every channel's notes: a song that sends CC124 on channel
            // 1 loses the chords of the others. Only the basic channel's notes end here.)
            if channel == basicChannel { allNotesOff(channel: channel) }
        default: break
        }
    }

    @_noAllocation @_noLocks
    mutating func programChange(channel: UInt8, program: UInt8) {
        guard Int(channel) < MIDILimits.channelCount else { return }
        channels[Int(channel)].program = min(program, 127)
        selectPreset(channel: Int(channel))
    }

    @_noAllocation @_noLocks
    mutating func pitchBend(channel: UInt8, value: UInt16) {
        guard Int(channel) < MIDILimits.channelCount else { return }
        channels[Int(channel)].pitchBend = min(value, 16_383)
        channels[Int(channel)].noteSourceChange()
    }

    @_noAllocation @_noLocks
    mutating func channelPressure(channel: UInt8, pressure: UInt8) {
        guard Int(channel) < MIDILimits.channelCount else { return }
        channels[Int(channel)].channelPressure = min(pressure, 127)
        channels[Int(channel)].noteSourceChange()
    }

    /// Polyphonic key pressure: the pressure of `key` alone, which the voices played on that key
    /// read through a poly-pressure modulator source (FluidSynth's `polyPressure`); the channel's
    /// own pressure stays where it is. Every voice of the channel re-evaluates its modulators, as
    /// for channel pressure: the others' come out unchanged.
    @_noAllocation @_noLocks
    mutating func polyPressure(channel: UInt8, key: UInt8, pressure: UInt8) {
        guard Int(channel) < MIDILimits.channelCount, Int(key) < MIDILimits.keyCount else { return }
        channels[Int(channel)].keyPressures[Int(key)] = min(pressure, 127)
        channels[Int(channel)].noteSourceChange()
    }

    /// Releases every note of `channel`, pedal-held ones included: All Notes Off is the message
    /// front ends send on every exit path, so it must leave nothing sounding. A note younger than
    /// the minimum note length sounds that long first, as FluidSynth's all-notes-off does.
    @_noAllocation @_noLocks
    mutating func allNotesOff(channel: UInt8) {
        for index in pool.activeIndices where pool.voices[index].isActive && pool.voices[index].channel == channel {
            releaseKey(index)
        }
        // Notes ended together are not released one by one: no release regions.
        for key in 0..<MIDILimits.keyCount { keyMemory[Int(channel) * MIDILimits.keyCount + key].forgetReleases() }
    }

    /// Reset All Controllers (CC121) on `channel`: the pedals come up and let go of their notes.
    @_noAllocation @_noLocks
    mutating func resetAllControllers(channel: UInt8) {
        let sostenutoWasDown = channels[Int(channel)].sostenutoPedal
        channels[Int(channel)].resetControllers()
        releasePedalHeldVoices(channel: channel)
        if sostenutoWasDown { releaseSostenutoNotes(channel: channel) }
    }

    /// A system reset (GM, GM2, GS, XG System On): every sound stops, as FluidSynth's reset stops
    /// it, and every channel is as it was at start: General MIDI's default controllers, program 0
    /// of bank 0, channel 10 the only drum channel, no tuning.
    @_noAllocation @_noLocks
    mutating func systemReset() {
        allSoundOff(channel: nil)
        for index in 0..<MIDILimits.channelCount {
            channels[index] = ChannelState(index: UInt8(index), controllers: channels[index].controllers,
                                           keyPressures: channels[index].keyPressures)
            selectPreset(channel: index)
        }
    }

    /// GS "use for rhythm part": `channel` becomes a drum channel playing bank 128, or a melodic
    /// one. Like FluidSynth (and the Roland units), its controllers are reset and program 0 of
    /// the part's bank is selected: the file sends its own program change after.
    @_noAllocation @_noLocks
    mutating func setRhythmPart(channel: UInt8, isDrum: Bool) {
        guard Int(channel) < MIDILimits.channelCount else { return }
        resetAllControllers(channel: channel)
        channels[Int(channel)].isPercussion = isDrum
        channels[Int(channel)].bankMSB = 0
        channels[Int(channel)].bankLSB = 0
        channels[Int(channel)].program = 0
        selectPreset(channel: Int(channel))
    }

    /// Fades every voice of `channel` (all channels when `channel` is nil) out over 5 ms.
    @_noAllocation @_noLocks
    mutating func allSoundOff(channel: UInt8?) {
        for index in pool.activeIndices where pool.voices[index].isActive && (channel == nil || pool.voices[index].channel == channel!) {
            pool.fadeOut(index, sampleRate: sampleRate)
        }
        // Silenced notes leave no release regions to start when their keys come up.
        for index in 0..<(MIDILimits.channelCount * MIDILimits.keyCount) where channel == nil || index / MIDILimits.keyCount == Int(channel!) {
            keyMemory[index].forgetReleases()
        }
    }

    @_noAllocation @_noLocks
    mutating func releasePedalHeldVoices(channel: UInt8) {
        for index in pool.activeIndices where pool.voices[index].isActive && pool.voices[index].isHeldByPedal
            && pool.voices[index].channel == channel {
            releaseKey(index)
        }
        startWaitingReleaseRegions(channel: channel)
    }

    /// The sostenuto pedal went down: the notes of `channel` whose keys are down now are caught.
    /// Notes only the sustain pedal holds are not (their keys are up), as in FluidSynth.
    @_noAllocation @_noLocks
    mutating func catchSostenutoNotes(channel: UInt8) {
        for index in pool.activeIndices where pool.voices[index].isActive && pool.voices[index].channel == channel
            && !pool.voices[index].isReleased && !pool.voices[index].isHeldByPedal
            && pool.voices[index].heldReleaseFrame == .max {
            pool.voices[index].isCaughtBySostenuto = true
        }
    }

    /// The sostenuto pedal came up: the notes it held are released, or handed to the sustain
    /// pedal when that is down.
    @_noAllocation @_noLocks
    mutating func releaseSostenutoNotes(channel: UInt8) {
        let sustained = channels[Int(channel)].sustainPedal
        for index in pool.activeIndices where pool.voices[index].isActive && pool.voices[index].channel == channel {
            pool.voices[index].isCaughtBySostenuto = false
            guard pool.voices[index].isHeldBySostenuto else { continue }
            pool.voices[index].isHeldBySostenuto = false
            if sustained { pool.voices[index].isHeldByPedal = true } else { releaseKey(index) }
        }
        startWaitingReleaseRegions(channel: channel)
    }

    /// The level the percussion channel's volume and expression give (CC7, CC11), through SF2's
    /// default modulators for them, as the sampler's own voices take it: what the drum player
    /// scales its hits by. Evaluated again only when the channel's controllers have moved.
    @_noAllocation @_noLocks
    mutating func percussionChannelGain() -> Float {
        let channel = channels + Int(GeneralMIDI.percussionChannel)
        guard channel.pointee.controllerSerial != percussionGainSerial else { return percussionGain }
        percussionGainSerial = channel.pointee.controllerSerial
        let sources = channel.pointee.modulatorSources(key: 60, velocity: 127, pressedKey: 60)
        let centibels = SamplerModulator.channelVolume.value(sources) + SamplerModulator.channelExpression.value(sources)
        percussionGain = centibelsToAmplitude(min(max(centibels, 0), 1_440))
        return percussionGain
    }

    /// Picks the channel's preset in the current bank, falling back as `SampleBank.Preset.index`
    /// says when the bank lacks the one asked for. Percussion uses the percussion bank.
    @_noAllocation @_noLocks
    mutating func selectPreset(channel: Int) {
        let state = channels + channel
        state.pointee.presetIndex = -1
        guard bankSlots.current >= 0 else { return }
        let percussion = state.pointee.isPercussion
        state.pointee.presetIndex = SampleBank.Preset.index(
            playing: percussion ? SampleBank.Preset.percussionBank : UInt16(state.pointee.bankMSB),
            program: state.pointee.program, percussion: percussion, in: banks[bankSlots.current].presets)
        if state.pointee.presetIndex >= 0 {
            state.pointee.keyswitch = banks[bankSlots.current].presets[state.pointee.presetIndex].defaultKeyswitch
        }
    }
}
