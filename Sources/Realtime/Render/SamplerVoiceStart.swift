import DSP
import Synchronization

// Voice start: the regions a note-on, a release or a controller reaches, and a voice started on each
// (round robins, random sets, exclusive classes silenced first).
extension Sampler {
    @_noAllocation @_noLocks
    mutating func noteOn(channel: UInt8, key: UInt8, velocity: UInt8) {
        guard Int(channel) < MIDILimits.channelCount, Int(key) < MIDILimits.keyCount else { return }
        guard velocity > 0 else { return noteOff(channel: channel, key: key) }
        noteOnCount += 1
        // Pointers, not copies: in a burst of note-ons, copying the channel state and every region
        // tested (a few hundred bytes each) cost more than the rest of starting a voice.
        let state = channels + Int(channel)
        guard let (slot, regions, keyRegions, candidates) = regionsOfKey(key, state: state) else { unmappedNoteCount += 1; return }
        let preset = slot.pointee.presets.baseAddress! + state.pointee.presetIndex
        let isKeyswitch = key >= preset.pointee.lowKeyswitch && key <= preset.pointee.highKeyswitch
        if isKeyswitch { state.pointee.keyswitch = key }

        // Same note again on this channel: the old one releases (no doubled, phasing voices).
        var sounding = pool.firstSoundingVoice(channel: channel, key: key)
        while sounding < pool.capacity {
            let next = pool.nextSoundingVoice(after: sounding)
            pool.release(sounding)
            sounding = next
        }

        let memory = keyMemory(channel: channel, key: key)
        let noteCount = memory.pointee.noteOnCount
        let random = nextRandom()
        memory.pointee.noteOnCount = noteCount &+ 1
        memory.pointee.random = random
        memory.pointee.noteOnFrame = now
        memory.pointee.velocity = velocity
        memory.pointee.isDown = true
        memory.pointee.forgetReleases()
        var started = 0
        let firstSerial = pool.nextSerial
        // Whether another key of the channel is down: looked up once, for the first region that asks.
        var otherKeysDown: Bool? = nil
        for candidate in candidates {
            guard let region = answeringRegion(candidate, regions: regions, keyRegions: keyRegions, velocity: velocity,
                                               channel: channel, state: state, noteCount: noteCount, random: random) else { continue }
            switch region.pointee.trigger {
            case .attack: break
            case .release:
                memory.pointee.releasePending = true
                continue
            case .releaseKey:
                memory.pointee.releaseKeyPending = true
                continue
            case .first, .legato:
                let legato = otherKeysDown ?? anotherKeyIsDown(channel: channel, besides: key)
                otherKeysDown = legato
                if case .first = region.pointee.trigger, legato { continue }
                if case .legato = region.pointee.trigger, !legato { continue }
            }
            startVoice(region: region, slot: slot, key: key, velocity: velocity, channel: channel, state: state, sparing: firstSerial)
            started += 1
        }
        if started == 0 && !isKeyswitch && !memory.pointee.releasePending && !memory.pointee.releaseKeyPending { unmappedNoteCount += 1 }
    }

    /// The current bank's slot, its regions and key table, and the entries of that table for
    /// `key` in the channel's preset (`SampleBank.Layout.keyRegions`: a region index, then its
    /// velocity range); nil when the channel plays no preset.
    @_noAllocation @_noLocks
    func regionsOfKey(_ key: UInt8, state: UnsafeMutablePointer<ChannelState>)
        -> (UnsafeMutablePointer<BankSlot>, UnsafePointer<SamplerRegion>, UnsafePointer<Int32>, Range<Int>)? {
        let presetIndex = state.pointee.presetIndex
        guard bankSlots.current >= 0, presetIndex >= 0 else { return nil }
        let slot = banks + bankSlots.current
        guard let regions = slot.pointee.regions.baseAddress, let keyRegionStarts = slot.pointee.keyRegionStarts,
              let keyRegions = slot.pointee.keyRegions, presetIndex < slot.pointee.presets.count else { return nil }
        let keyEntry = presetIndex * MIDILimits.keyCount + Int(key)
        return (slot, regions, keyRegions, Int(keyRegionStarts[keyEntry]) ..< Int(keyRegionStarts[keyEntry + 1]))
    }

    /// The region of entry `candidate` of a key's table (`regionsOfKey`) when it answers a note of
    /// `velocity` on `channel` with its `noteCount` and `random` number, else nil: first the
    /// velocity range, which sits beside the region's index (the regions of the other layers are
    /// never read), then `SamplerRegion.answers`.
    @_noAllocation @_noLocks
    func answeringRegion(_ candidate: Int, regions: UnsafePointer<SamplerRegion>, keyRegions: UnsafePointer<Int32>, velocity: UInt8,
                         channel: UInt8, state: UnsafeMutablePointer<ChannelState>, noteCount: UInt32, random: Float)
        -> UnsafePointer<SamplerRegion>? {
        guard SampleBank.Layout.velocity(velocity, isIn: keyRegions[2 * candidate + 1]) else { return nil }
        let region = regions + Int(keyRegions[2 * candidate])
        guard region.pointee.answers(channel: channel, keyswitch: state.pointee.keyswitch, noteCount: noteCount, random: random,
                                     controllers: state.pointee.controllers) else { return nil }
        return region
    }

    /// Starts a voice of `region` (in the current bank, `slot`) for `key` on `channel`, cutting off
    /// the voices its class silences except those of serial `sparing` on: the note's own (a stereo
    /// hi-hat's two voices share a class, and the second must not cut the first, as in FluidSynth).
    @_noAllocation @_noLocks
    mutating func startVoice(region: UnsafePointer<SamplerRegion>, slot: UnsafeMutablePointer<BankSlot>, key: UInt8, velocity: UInt8,
                             channel: UInt8, state: UnsafeMutablePointer<ChannelState>, sparing firstSerial: UInt64,
                             attenuationOffsetCentibels: Float = 0) {
        guard let samples = slot.pointee.samples, let modulators = slot.pointee.modulators,
              var level = region.pointee.crossfade.attenuationCentibels(key: key, velocity: velocity) else { return }
        if region.pointee.velocityCurve >= 0, let curves = slot.pointee.curves {
            let gain = curves[Int(region.pointee.velocityCurve) * SampleBank.Layout.curveLength + Int(velocity)]
            guard gain > 0 else { return }
            level -= 10 * amplitudeToDecibels(gain)
        }
        // Last before the voice is taken: from here the note counts as a user of its sample.
        // A sample not wholly in memory is not read past what is written: a region with nothing
        // written stays silent, counted, rather than the audio thread waiting; a voice on a sample
        // whose head alone is in watches its frontier (`SamplerVoice.prepare`) and asks for the rest.
        let residency = startSampleVoice(region.pointee.sampleIndex, start: region.pointee.start, now: now,
                                         cells: slot.pointee.residentSamples, requests: slot.pointee.sampleRequests,
                                         pending: slot.pointee.pendingSampleRequests)
        guard residency.playable else {
            sampleUnderrunCount += 1
            return
        }
        if region.pointee.exclusiveClass != 0 { silenceExclusiveClass(region.pointee.exclusiveClass, channel: channel, sparing: firstSerial) }
        if region.pointee.notePolyphony != 0 || region.pointee.polyphony != 0 {
            pool.makeRoom(for: region, channel: channel, key: key, sparing: firstSerial, sampleRate: sampleRate)
        }
        // A voice taken (free or stolen, and a stolen one's fade) changes who sounds.
        listIsStale = true
        let acquired = pool.acquire(sampleRate: sampleRate)
        voiceEnded(bankSlot: acquired.endedBankSlots.0)
        voiceEnded(bankSlot: acquired.endedBankSlots.1)
        sampleVoiceEnded(acquired.endedSampleCells.0)
        sampleVoiceEnded(acquired.endedSampleCells.1)
        let voice = acquired.voice
        // SFZ's `*_random`: draws of this note alone, in the fixed sequence (none for a region that
        // names none, so every other render keeps its draws).
        if region.pointee.drawsRandomly { level -= 10 * region.pointee.randomLouderDecibels * nextRandom() }
        voice.pointee.start(region: region, samples: samples, modulators: modulators, key: key, velocity: velocity,
                            channel: channel, state: state, engineRate: sampleRate,
                            attenuationOffsetCentibels: attenuationOffsetCentibels + level)
        if region.pointee.drawsRandomly {
            voice.pointee.pitchCents += Double(region.pointee.randomPitchCents * (2 * nextRandom() - 1))
            let frames = Double(region.pointee.randomOffsetFrames) * Double(nextRandom())
            voice.pointee.position = min(voice.pointee.position + Double(Int(frames)), Double(max(region.pointee.start, voice.pointee.end - 1)))
            voice.pointee.waitingFrames += Int32(min(Double(region.pointee.randomDelaySeconds) * Double(nextRandom()) * sampleRate, Double(Int32.max / 2)))
            voice.pointee.randomCutoffCents = region.pointee.randomCutoffCents * (2 * nextRandom() - 1)
            voice.pointee.cutoffCents += voice.pointee.randomCutoffCents
        }
        voice.pointee.sampleFrontier = residency.cells
        voice.pointee.bankSlot = bankSlots.current
        voice.pointee.isPercussion = state.pointee.isPercussion
        voice.pointee.noteOnFrame = now
        voice.pointee.startSerial = firstSerial
        voice.pointee.heldReleaseFrame = .max
        voice.pointee.isCaughtBySostenuto = false
        voice.pointee.isHeldBySostenuto = false
        banks[bankSlots.current].voiceCount += 1
        pool.refreshKey(voice - pool.voices)
    }

    /// What `channel` remembers of `key`.
    @_noAllocation @_noLocks
    func keyMemory(channel: UInt8, key: UInt8) -> UnsafeMutablePointer<KeyMemory> {
        keyMemory + Int(channel) * MIDILimits.keyCount + Int(key)
    }

    /// Whether a key of `channel` other than `key` is down (`KeyMemory.isDown`).
    @_noAllocation @_noLocks
    func anotherKeyIsDown(channel: UInt8, besides key: UInt8) -> Bool {
        let first = keyMemory + Int(channel) * MIDILimits.keyCount
        for other in 0..<MIDILimits.keyCount where other != Int(key) && first[other].isDown { return true }
        return false
    }

    /// The next note's random number in 0..<1 (xorshift64*, 24 bits: exactly representable).
    @_noAllocation @_noLocks
    mutating func nextRandom() -> Float {
        randomState ^= randomState >> 12
        randomState ^= randomState << 25
        randomState ^= randomState >> 27
        return Float((randomState &* 0x2545_F491_4F6C_DD1D) >> 40) / Float(1 << 24)
    }

    /// `key`'s release regions on `channel` start, if its note-on left any waiting: those of
    /// `trigger=release_key` with `keyRelease`, else those of `trigger=release`; at the note-on's
    /// velocity, count and random number, quieter by their decay over the time the key was held.
    @_noAllocation @_noLocks
    mutating func startReleaseRegions(channel: UInt8, key: UInt8, keyRelease: Bool = false) {
        let memory = keyMemory(channel: channel, key: key)
        if keyRelease {
            guard memory.pointee.releaseKeyPending else { return }
            memory.pointee.releaseKeyPending = false
        } else {
            guard memory.pointee.releasePending else { return }
            memory.pointee.releasePending = false
        }
        let state = channels + Int(channel)
        guard let (slot, regions, keyRegions, candidates) = regionsOfKey(key, state: state) else { return }
        let velocity = memory.pointee.velocity
        let heldSeconds = Float(Double(now &- memory.pointee.noteOnFrame) / sampleRate)
        let firstSerial = pool.nextSerial
        for candidate in candidates {
            guard let region = answeringRegion(candidate, regions: regions, keyRegions: keyRegions, velocity: velocity, channel: channel,
                                               state: state, noteCount: memory.pointee.noteOnCount &- 1, random: memory.pointee.random)
            else { continue }
            let trigger = region.pointee.trigger
            var isKeyRelease = false
            if case .releaseKey = trigger { isKeyRelease = true }
            guard trigger.isRelease, keyRelease == isKeyRelease else { continue }
            startVoice(region: region, slot: slot, key: key, velocity: velocity, channel: channel, state: state, sparing: firstSerial,
                       attenuationOffsetCentibels: region.pointee.releaseDecayCentibelsPerSecond * heldSeconds)
        }
    }

    /// The release regions of `channel`'s keys that are up and no pedal holds start: the sustain
    /// or sostenuto pedal came up.
    @_noAllocation @_noLocks
    mutating func startWaitingReleaseRegions(channel: UInt8) {
        guard !channels[Int(channel)].sustainPedal else { return }
        // Keys the sostenuto pedal still holds wait for it.
        var heldBySostenuto: (UInt64, UInt64) = (0, 0)
        for index in pool.activeIndices where pool.voices[index].isActive && pool.voices[index].channel == channel
            && pool.voices[index].isHeldBySostenuto {
            let key = pool.voices[index].key
            if key < 64 { heldBySostenuto.0 |= 1 << UInt64(key) } else { heldBySostenuto.1 |= 1 << UInt64(key & 63) }
        }
        let first = keyMemory + Int(channel) * MIDILimits.keyCount
        for key in 0..<MIDILimits.keyCount where first[key].releasePending && !first[key].isDown {
            let held = key < 64 ? heldBySostenuto.0 & (1 << UInt64(key)) : heldBySostenuto.1 & (1 << UInt64(key & 63))
            if held == 0 { startReleaseRegions(channel: channel, key: UInt8(key)) }
        }
    }

    /// Starts the channel's preset's regions that `controller` moving to `value` triggers (SFZ
    /// `on_loccN`/`on_hiccN`, as sfizz plays them: a value in the range that differs from the
    /// last), at their recorded pitch and full level, after the same checks a note's regions pass
    /// but the key's and the velocity's.
    @_noAllocation @_noLocks
    mutating func startControllerTriggeredRegions(channel: UInt8, controller: UInt8, value: UInt8) {
        let state = channels + Int(channel)
        let presetIndex = state.pointee.presetIndex
        guard bankSlots.current >= 0, presetIndex >= 0 else { return }
        let slot = banks + bankSlots.current
        let words = slot.pointee.triggeringControllers
        let bit = controller < 64 ? words.0 >> UInt64(controller) : words.1 >> UInt64(controller - 64)
        guard bit & 1 != 0, let regions = slot.pointee.regions.baseAddress, presetIndex < slot.pointee.presets.count else { return }
        let preset = slot.pointee.presets[presetIndex]
        let random = nextRandom()
        let firstSerial = pool.nextSerial
        for index in preset.firstRegion ..< preset.firstRegion + preset.regionCount {
            let region = regions + index
            let trigger = region.pointee.controllerTrigger
            guard trigger.controller == controller, value >= trigger.low, value <= trigger.high,
                  region.pointee.answers(channel: channel, keyswitch: state.pointee.keyswitch, noteCount: 0, random: random,
                                         controllers: state.pointee.controllers) else { continue }
            let key = UInt8(min(max(region.pointee.rootKey + 0.5, 0), 127))
            startVoice(region: region, slot: slot, key: key, velocity: 127, channel: channel, state: state, sparing: firstSerial)
        }
    }

    @_noAllocation @_noLocks
    mutating func silenceExclusiveClass(_ exclusiveClass: UInt16, channel: UInt8, sparing firstSerial: UInt64) {
        for index in pool.activeIndices where pool.voices[index].isActive && pool.voices[index].channel == channel
            && pool.voices[index].offBy == exclusiveClass && pool.voices[index].noteSerial < firstSerial {
            if pool.voices[index].cutOffByRelease {
                pool.release(index)
            } else if let region = pool.voices[index].region, region.pointee.offSeconds > 0 {
                pool.fadeOut(index, sampleRate: sampleRate, seconds: Double(region.pointee.offSeconds))
            } else {
                pool.fadeOut(index, sampleRate: sampleRate)
            }
        }
    }
}
