import Foundation
import Render

/// Turns one preset zone × instrument zone pair into a `SamplerRegion`: ranges intersected,
/// generator values combined (instrument absolute, preset added, clamped) and converted to the
/// units the renderer uses, so a note-on does no SoundFont arithmetic.
///
/// Sample positions come out in smpl frames; the loader moves them into its pool afterwards.
enum RegionBuilder {
    /// The region, or nil when the two zones' key or velocity ranges do not overlap.
    /// `attenuationScale` multiplies both levels' initialAttenuation before they are added
    /// (`SoundFontLoader.Options.attenuationScale`).
    static func region(preset: GeneratorSet, instrument: GeneratorSet, sample: Hydra.SampleHeader,
                       attenuationScale: Double) -> SamplerRegion? {
        guard let keys = intersection(preset.range(.keyRange), instrument.range(.keyRange)),
              let velocities = intersection(preset.range(.velRange), instrument.range(.velRange)) else { return nil }
        func value(_ op: GeneratorOperator) -> Int { GeneratorSet.combined(op, instrument: instrument, preset: preset) }

        var region = SamplerRegion()
        region.lowKey = UInt8(keys.lowerBound)
        region.highKey = UInt8(keys.upperBound)
        region.lowVelocity = UInt8(velocities.lowerBound)
        region.highVelocity = UInt8(velocities.upperBound)

        // Sample addresses: instrument-level offsets only (the preset level may not move them),
        // then kept inside the sample so playback can never leave its guarded slot in the pool.
        let start = clamp(sample.start + instrument.sampleOffset(fine: .startAddrsOffset, coarse: .startAddrsCoarseOffset),
                          sample.start, sample.end)
        let end = clamp(sample.end + instrument.sampleOffset(fine: .endAddrsOffset, coarse: .endAddrsCoarseOffset),
                        start, sample.end)
        let loopStart = clamp(sample.loopStart + instrument.sampleOffset(fine: .startloopAddrsOffset, coarse: .startloopAddrsCoarseOffset),
                              start, end)
        let loopEnd = clamp(sample.loopEnd + instrument.sampleOffset(fine: .endloopAddrsOffset, coarse: .endloopAddrsCoarseOffset),
                            start, end)
        region.start = start
        region.end = end
        region.loopStart = loopStart
        region.loopEnd = loopEnd
        region.sampleStart = sample.start
        region.sampleEnd = sample.end
        switch value(.sampleModes) {
        case 1: region.loopMode = .continuous
        case 3: region.loopMode = .untilRelease
        default: region.loopMode = .none
        }
        // A loop with nothing in it (the sample has none, or the offsets collapsed it) cannot play.
        if loopStart >= loopEnd { region.loopMode = .none }
        region.sampleRate = Double(sample.sampleRate)

        let overridingRootKey = value(.overridingRootKey)
        // An original pitch of 255 (or anything above 127) marks an unpitched sample: SF2 §7.10
        // says to treat it as 60.
        region.rootKey = Double(overridingRootKey >= 0 ? overridingRootKey : sample.originalPitch <= 127 ? sample.originalPitch : 60)
        region.centsPerKey = Double(value(.scaleTuning))
        region.tuneCents = Double(value(.coarseTune) * 100 + value(.fineTune) + sample.pitchCorrection)

        // Scaled at both levels, where FluidSynth scales it (at load, fluid_defsfont.c): the scale
        // applies to the generator only, not to the modulators that add to the attenuation
        // (velocity, CC7, CC11). Not clamped here: the voice clamps the sum of the generators and
        // the modulators to the 0…1440 cB range, as FluidSynth clamps it (fluid_voice.c, at
        // GEN_ATTENUATION), so a preset's negative attenuation offsets the velocity's and is not
        // lost. (MuseScore_General's kicks carry -100 cB at the preset level: clamped at load they
        // played 4 dB under FluidSynth at velocity 100.) The specification gives the range of the
        // value, and does not say whether it holds before the modulators add; FluidSynth's choice
        // is the one fonts are voiced against.
        region.attenuationCentibels = Float(
            Double(GeneratorSet.unclamped(.initialAttenuation, instrument: instrument, preset: preset)) * attenuationScale)
        region.pan = Float(value(.pan)) / 500
        region.reverbSend = Float(value(.reverbEffectsSend)) / 1_000
        region.chorusSend = Float(value(.chorusEffectsSend)) / 1_000
        region.exclusiveClass = UInt16(value(.exclusiveClass))
        region.offBy = region.exclusiveClass
        region.fixedKey = Int16(value(.keynum))
        region.fixedVelocity = Int16(value(.velocity))

        region.volumeEnvelope.delay = seconds(value(.delayVolEnv))
        region.volumeEnvelope.attack = seconds(value(.attackVolEnv))
        region.volumeEnvelope.hold = seconds(value(.holdVolEnv))
        region.volumeEnvelope.decay = seconds(value(.decayVolEnv))
        region.volumeEnvelope.sustainLevel = pow(10, -Double(value(.sustainVolEnv)) / 200)
        region.volumeEnvelope.release = seconds(value(.releaseVolEnv))
        region.volumeEnvelope.holdKeyScalingTimecents = Double(value(.keynumToVolEnvHold))
        region.volumeEnvelope.decayKeyScalingTimecents = Double(value(.keynumToVolEnvDecay))

        region.modulationEnvelope.delay = seconds(value(.delayModEnv))
        region.modulationEnvelope.attack = seconds(value(.attackModEnv))
        region.modulationEnvelope.hold = seconds(value(.holdModEnv))
        region.modulationEnvelope.decay = seconds(value(.decayModEnv))
        region.modulationEnvelope.sustainLevel = 1 - Double(value(.sustainModEnv)) / 1_000
        region.modulationEnvelope.release = seconds(value(.releaseModEnv))
        region.modulationEnvelope.holdKeyScalingTimecents = Double(value(.keynumToModEnvHold))
        region.modulationEnvelope.decayKeyScalingTimecents = Double(value(.keynumToModEnvDecay))
        region.modulationEnvelopeToPitchCents = Float(value(.modEnvToPitch))
        region.modulationEnvelopeToCutoffCents = Float(value(.modEnvToFilterFc))

        region.modulationLFO.delay = seconds(value(.delayModLFO))
        region.modulationLFO.frequency = hertz(value(.freqModLFO))
        region.modulationLFOToPitchCents = Float(value(.modLfoToPitch))
        region.modulationLFOToCutoffCents = Float(value(.modLfoToFilterFc))
        region.modulationLFOToVolumeCentibels = Float(value(.modLfoToVolume))
        region.vibratoLFO.delay = seconds(value(.delayVibLFO))
        region.vibratoLFO.frequency = hertz(value(.freqVibLFO))
        region.vibratoLFOToPitchCents = Float(value(.vibLfoToPitch))

        region.filterCutoffCents = Float(value(.initialFilterFc))
        region.filterResonanceCentibels = Float(value(.initialFilterQ))
        return region
    }

    /// Timecents to seconds. -12000 (the floor every time generator is clamped to, and what the
    /// customary -32768 "instant" becomes) means zero, not 1 ms.
    static func seconds(_ timecents: Int) -> Double {
        timecents <= -12_000 ? 0 : pow(2, Double(timecents) / 1_200)
    }

    /// Absolute cents to hertz: 0 cents is 8.176 Hz (MIDI key 0).
    static func hertz(_ cents: Int) -> Double { 8.176 * pow(2, Double(cents) / 1_200) }

    private static func clamp(_ value: Int, _ low: Int, _ high: Int) -> Int { min(high, max(low, value)) }

    private static func intersection(_ a: ClosedRange<Int>?, _ b: ClosedRange<Int>?) -> ClosedRange<Int>? {
        guard let a, let b, a.overlaps(b) else { return nil }
        return a.clamped(to: b)
    }
}
