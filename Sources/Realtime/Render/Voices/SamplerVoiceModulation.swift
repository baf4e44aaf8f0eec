import DSP
import Synchronization

// A voice's modulation: its modulators summed on a start or a controller change, and what the sums
// move (the sample's addresses, the filter's stages).
extension SamplerVoice {
    /// Moves the sample's start, end and loop by what the modulators on the address offsets give at
    /// note-on, kept inside the sample as the loader keeps the generators' offsets.
    @_noAllocation @_noLocks
    mutating func moveSampleAddresses(by sums: ModulatorSums) {
        guard let region, region.pointee.sampleEnd > region.pointee.sampleStart else { return }
        let first = region.pointee.sampleStart, last = region.pointee.sampleEnd
        // Int(_:) truncates toward zero, as FluidSynth truncates the summed offsets.
        func moved(_ frame: Int, by frames: Float, within bounds: ClosedRange<Int>) -> Int {
            min(max(frame + Int(frames), bounds.lowerBound), bounds.upperBound)
        }
        let start = moved(region.pointee.start, by: sums.startFrames, within: first...last)
        end = moved(region.pointee.end, by: sums.endFrames, within: start...last)
        loopStart = moved(region.pointee.loopStart, by: sums.loopStartFrames, within: start...end)
        loopEnd = moved(region.pointee.loopEnd, by: sums.loopEndFrames, within: start...end)
        position = Double(start)
    }

    /// Evaluates the voice's modulators against `state` and sets everything they may move while the
    /// note sounds (level, pan, filter, pitch, modulation depths, sends) from the region's values
    /// plus their outputs; returns the sums, for `start` to set the timing with. Called at note-on
    /// and whenever the channel's controller serial has moved since.
    @_noAllocation @_noLocks @discardableResult
    mutating func applyModulators(channel state: UnsafePointer<ChannelState>) -> ModulatorSums {
        controllerSerial = state.pointee.controllerSerial
        guard let region, let modulators else { return ModulatorSums() }
        var sources = state.pointee.modulatorSources(key: playedKey, velocity: playedVelocity, pressedKey: key)
        sources.curves = UnsafePointer(bitPattern: region.pointee.curveTableAddress)
        let sums = ModulatorSums(modulators, count: modulatorCount, sources: sources)
        let base = region
        // The SF2 ranges (§8.1.3), applied to the sums as FluidSynth applies them.
        attenuationCentibels = min(max(base.pointee.attenuationCentibels + attenuationOffsetCentibels + sums.attenuation,
                                       base.pointee.leastAttenuationCentibels), 1_440)
        pan = base.pointee.pan + sums.pan / 500
        pan += SamplerRegion.stereoPan(side: base.pointee.stereoSide, width: sums.width / 100, position: sums.position / 100)
        cutoffCents = base.pointee.filterCutoffCents + sums.cutoff + randomCutoffCents
        let resonance = min(max(base.pointee.filterResonanceCentibels + sums.resonance, 0), 960)
        resonanceCentibels = resonance
        filterQ = Self.filterQ(resonanceCentibels: resonance)
        // SF2.04 §8.1.3 (initialFilterQ): "the gain at DC is reduced by half the specified gain":
        // a 10 dB peak stands 5 dB above unity, the passband 5 dB below it. FluidSynth lowers its
        // gain by √q, the same half of the peak in dB, but of a q it has already taken 3.01 dB off,
        // which leaves every FluidSynth voice 1.5 dB above unity whatever its resonance. That
        // departs from the spec and is the same for every voice (a song's balance does not move,
        // only its overall level), so it is not copied: no resonance is unity gain here.
        filterPassbandGain = centibelsToAmplitude(resonance / 2)
        modulatedPitchCents = sums.pitch
        modulationEnvelopeToPitch = base.pointee.modulationEnvelopeToPitchCents + sums.modEnvToPitch
        modulationEnvelopeToCutoff = base.pointee.modulationEnvelopeToCutoffCents + sums.modEnvToCutoff
        modulationLFOToPitch = base.pointee.modulationLFOToPitchCents + sums.modLfoToPitch
        modulationLFOToCutoff = base.pointee.modulationLFOToCutoffCents + sums.modLfoToCutoff
        modulationLFOToVolume = base.pointee.modulationLFOToVolumeCentibels + sums.modLfoToVolume
        vibratoLFOToPitch = base.pointee.vibratoLFOToPitchCents + sums.vibLfoToPitch
        reverbSend = min(max(base.pointee.reverbSend + sums.reverbSend / 1_000, 0), 1)
        chorusSend = min(max(base.pointee.chorusSend + sums.chorusSend / 1_000, 0), 1)
        return sums
    }

    /// Sets the second filter and the equalizer the voice runs from its region, the note and the
    /// channel's controllers: at the note-on (`reset`: their state at rest) and when a controller
    /// moves.
    @_noAllocation @_noLocks
    mutating func setFilterStages(channel state: UnsafePointer<ChannelState>, sampleRate: Double, reset: Bool) {
        guard runsEqualizer || runsSecondFilter, let filterStages, let region else { return }
        if runsEqualizer {
            filterStages.pointee.setEqualizer(region.pointee.equalizer, velocity: playedVelocity, controllers: state.pointee.controllers,
                                              sampleRate: sampleRate, reset: reset)
        }
        if runsSecondFilter {
            filterStages.pointee.setSecondFilter(region.pointee.secondFilter, key: playedKey, velocity: playedVelocity,
                                                 controllers: state.pointee.controllers,
                                                 curves: UnsafePointer(bitPattern: region.pointee.curveTableAddress), sampleRate: sampleRate, reset: reset)
        }
    }

    /// The filter's Q for a resonance of `resonanceCentibels` (0…960): Q in dB = cB/10 − 3.01, as
    /// FluidSynth has it, so 0 cB is a Butterworth filter, no peak; exactly `butterworthQ` at 0, so
    /// an unresonant voice is not taken for a resonant one.
    @_noAllocation @_noLocks
    static func filterQ(resonanceCentibels resonance: Float) -> Float {
        resonance > 0 ? centibelsToAmplitude(-(resonance - 30.1)) : VoiceFilter.butterworthQ
    }
}
