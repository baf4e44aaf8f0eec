import Render
import SoundFont
import XCTest

/// Generator semantics on synthetic fonts (SF2 2.04 §8, §9.4): defaults, global zones, preset
/// values added to instrument values, range intersection, the generators the preset level may
/// not set, and each conversion into the region model's units.
final class GeneratorSemanticsTests: XCTestCase {
    typealias Op = SF2Builder.Op
    let gen = SF2Builder.gen
    let range = SF2Builder.range

    func load(_ builder: SF2Builder) throws -> SampleBank {
        try SoundFontLoader.load(bytes: builder.build(), name: "synthetic.sf2", sampleRate: 48_000)
    }

    /// The single region of a one-zone font whose instrument zone has `instrument` and preset
    /// zone has `preset`.
    func region(instrument: [SF2Builder.Generator] = [], preset: [SF2Builder.Generator] = [],
                sample: SF2Builder.Sample = SF2Builder.rampSample()) throws -> SamplerRegion {
        let bank = try load(.simple(instrumentZones: [instrument], presetZones: [preset], sample: sample))
        XCTAssertEqual(bank.regions.count, 1)
        // `regions` points into memory the bank owns: keep the bank alive while reading it.
        return try withExtendedLifetime(bank) { try XCTUnwrap(bank.regions.first) }
    }

    func testDefaultsFollowTheSpecificationTable() throws {
        let region = try region()
        XCTAssertEqual(region.lowKey, 0)
        XCTAssertEqual(region.highKey, 127)
        XCTAssertEqual(region.lowVelocity, 0)
        XCTAssertEqual(region.highVelocity, 127)
        XCTAssertEqual(region.loopMode, .none)
        XCTAssertEqual(region.rootKey, 60)
        XCTAssertEqual(region.centsPerKey, 100)
        XCTAssertEqual(region.tuneCents, 0)
        XCTAssertEqual(region.attenuationCentibels, 0)
        XCTAssertEqual(region.pan, 0)
        XCTAssertEqual(region.filterCutoffCents, 13_500)
        XCTAssertEqual(region.filterResonanceCentibels, 0)
        XCTAssertEqual(region.volumeEnvelope, SamplerRegion.Envelope(), "all times -12000 → 0 s, sustain 0 cB → 1")
        XCTAssertEqual(region.modulationEnvelope, SamplerRegion.Envelope())
        XCTAssertEqual(region.vibratoLFO.frequency, 8.176, accuracy: 1e-9)
        XCTAssertEqual(region.modulationLFO.delay, 0)
        XCTAssertEqual(region.sampleRate, 44_100)
        XCTAssertEqual(region.end - region.start, 1_000)
    }

    func testInstrumentGlobalZoneGivesDefaultsThatLocalZonesReplace() throws {
        let bank = try load(.simple(
            instrumentGlobal: [gen(Op.initialAttenuation, 100), gen(Op.pan, -250)],
            instrumentZones: [[range(Op.keyRange, 0, 59)], [range(Op.keyRange, 60, 127), gen(Op.initialAttenuation, 30)]]))
        XCTAssertEqual(bank.regions.count, 2)
        // initialAttenuation comes out × 0.4, as FluidSynth reads it (SoundFontLoader.Options).
        XCTAssertEqual(bank.regions[0].attenuationCentibels, 40)
        XCTAssertEqual(bank.regions[0].pan, -0.5)
        XCTAssertEqual(bank.regions[1].attenuationCentibels, 12, "a local value replaces the global one, it is not added")
        XCTAssertEqual(bank.regions[1].pan, -0.5)
    }

    func testPresetValuesAddToInstrumentValues() throws {
        XCTAssertEqual(try region(instrument: [gen(Op.initialAttenuation, 100)],
                                  preset: [gen(Op.initialAttenuation, 60)]).attenuationCentibels, 64, "(100 + 60) × 0.4")
        // Preset global zone: a default for the preset's zones, replaced (not added to) locally.
        let bank = try load(.simple(instrumentZones: [[gen(Op.initialAttenuation, 100)]],
                                    presetGlobal: [gen(Op.initialAttenuation, 20), gen(Op.coarseTune, 1)],
                                    presetZones: [[range(Op.keyRange, 0, 63)], [range(Op.keyRange, 64, 127), gen(Op.initialAttenuation, 60)]]))
        XCTAssertEqual(bank.regions.map(\.attenuationCentibels), [48, 64])
        XCTAssertEqual(bank.regions.map(\.tuneCents), [100, 100])
    }

    func testSumsAreClampedToTheSpecificationRanges() throws {
        let region = try region(
            instrument: [gen(Op.pan, 400), gen(Op.initialAttenuation, 1_400), gen(Op.initialFilterFc, 13_000),
                         gen(Op.coarseTune, 100), gen(Op.delayVolEnv, 4_000)],
            preset: [gen(Op.pan, 300), gen(Op.initialAttenuation, 100), gen(Op.initialFilterFc, 1_000),
                     gen(Op.coarseTune, 100), gen(Op.delayVolEnv, 2_000)])
        XCTAssertEqual(region.pan, 1)
        XCTAssertEqual(region.attenuationCentibels, 600, "(1400 + 100) × 0.4: scaled before the clamp, as FluidSynth")
        XCTAssertEqual(region.filterCutoffCents, 13_500)
        XCTAssertEqual(region.tuneCents, 12_000)
        XCTAssertEqual(region.volumeEnvelope.delay, pow(2, 5_000.0 / 1_200), accuracy: 1e-9)
        // An absurdly low instrument value is clamped as well.
        XCTAssertEqual(try self.region(instrument: [gen(Op.initialFilterFc, 100)]).filterCutoffCents, 1_500)
    }

    func testKeyAndVelocityRangesIntersectAndEmptyIntersectionsAreDropped() throws {
        let bank = try load(.simple(
            instrumentZones: [[range(Op.keyRange, 0, 50)], [range(Op.keyRange, 51, 70), range(Op.velRange, 0, 40)],
                              [range(Op.keyRange, 90, 127)], [range(Op.keyRange, 60, 61), range(Op.velRange, 110, 127)]],
            presetZones: [[range(Op.keyRange, 40, 80), range(Op.velRange, 20, 100)]]))
        XCTAssertEqual(bank.regions.count, 2)
        XCTAssertEqual(bank.regions.map { [$0.lowKey, $0.highKey, $0.lowVelocity, $0.highVelocity] },
                       [[40, 50, 20, 100], [51, 70, 20, 40]])
        XCTAssertEqual(bank.presets[0].regionCount, 2)
    }

    func testRangeGeneratorsCountOnlyFirst() throws {
        // keyRange must be the first generator, velRange may follow only keyRange (SF2 §8.1.2).
        XCTAssertEqual(try region(instrument: [gen(Op.initialAttenuation, 10), range(Op.keyRange, 0, 10)]).highKey, 127)
        let both = try region(instrument: [range(Op.keyRange, 5, 10), range(Op.velRange, 30, 40)])
        XCTAssertEqual([both.lowKey, both.highKey, both.lowVelocity, both.highVelocity], [5, 10, 30, 40])
        XCTAssertEqual(try region(instrument: [gen(Op.pan, 10), range(Op.velRange, 30, 40)]).lowVelocity, 0)
    }

    func testPresetLevelSampleAndInstrumentOnlyGeneratorsAreIgnored() throws {
        let plain = try region()
        let withForbidden = try region(preset: [
            gen(Op.startAddrsOffset, 10), gen(Op.endAddrsOffset, -10), gen(Op.startloopAddrsOffset, 5),
            gen(Op.endloopAddrsOffset, -5), gen(Op.startAddrsCoarseOffset, 1), gen(Op.endAddrsCoarseOffset, -1),
            gen(Op.startloopAddrsCoarseOffset, 1), gen(Op.endloopAddrsCoarseOffset, -1), gen(Op.keynum, 30),
            gen(Op.velocity, 20), gen(Op.sampleModes, 1), gen(Op.exclusiveClass, 5), gen(Op.overridingRootKey, 40),
            gen(Op.sampleID, 0),
        ])
        XCTAssertEqual(withForbidden, plain)
    }

    func testLaterDuplicateGeneratorWins() throws {
        XCTAssertEqual(try region(instrument: [gen(Op.pan, 100), gen(Op.pan, -100)]).pan, -0.2, accuracy: 1e-6)
    }

    func testGeneratorsAfterTheSampleIDAreIgnored() throws {
        var builder = SF2Builder.simple()
        builder.instruments[0].zones = [[gen(Op.sampleID, 0), gen(Op.initialAttenuation, 50)]]
        // Held in a constant: `regions` points into the bank, which a temporary would free before
        // the read (AddressSanitizer caught that: a use after free).
        let bank = try load(builder)
        withExtendedLifetime(bank) { XCTAssertEqual(bank.regions[0].attenuationCentibels, 0) }
    }

    func testNonFirstZoneWithoutSampleIsIgnored() throws {
        var builder = SF2Builder.simple()
        builder.instruments[0].zones = [[gen(Op.pan, 500), gen(Op.sampleID, 0)], [gen(Op.initialAttenuation, 50)]]
        let bank = try load(builder)
        XCTAssertEqual(bank.regions.count, 1)
        XCTAssertEqual(bank.regions[0].attenuationCentibels, 0, "not a global zone: only the first zone can be")
    }

    func testRootKey() throws {
        var sample = SF2Builder.rampSample()
        sample.originalPitch = 65
        XCTAssertEqual(try region(sample: sample).rootKey, 65)
        XCTAssertEqual(try region(instrument: [gen(Op.overridingRootKey, 72)], sample: sample).rootKey, 72)
        XCTAssertEqual(try region(instrument: [gen(Op.overridingRootKey, -1)], sample: sample).rootKey, 65)
        sample.originalPitch = 255
        XCTAssertEqual(try region(sample: sample).rootKey, 60, "unpitched samples play as key 60")
    }

    func testTuning() throws {
        var sample = SF2Builder.rampSample()
        sample.pitchCorrection = -7
        let region = try region(instrument: [gen(Op.coarseTune, 2), gen(Op.fineTune, -30), gen(Op.scaleTuning, 50)],
                                preset: [gen(Op.coarseTune, 1), gen(Op.fineTune, 5)], sample: sample)
        XCTAssertEqual(region.tuneCents, 300 - 25 - 7)
        XCTAssertEqual(region.centsPerKey, 50)
        XCTAssertEqual(try self.region(preset: [gen(Op.scaleTuning, -100)]).centsPerKey, 0)
    }

    /// Two zones on the same sample: the first without offsets (the reference), the second with.
    func offsetRegions(_ offsets: [SF2Builder.Generator], sampleModes: Int = 1,
                       frames: Int = 1_000) throws -> (plain: SamplerRegion, moved: SamplerRegion) {
        var sample = SF2Builder.rampSample(frames: frames)
        sample.loopStart = 100
        sample.loopEnd = frames - 100
        let bank = try load(.simple(instrumentZones: [[range(Op.keyRange, 0, 63), gen(Op.sampleModes, sampleModes)],
                                                      [range(Op.keyRange, 64, 127), gen(Op.sampleModes, sampleModes)] + offsets],
                                    sample: sample))
        XCTAssertEqual(bank.regions.count, 2)
        return (bank.regions[0], bank.regions[1])
    }

    func testSampleOffsetsFineAndCoarse() throws {
        let fine = try offsetRegions([gen(Op.startAddrsOffset, 10), gen(Op.endAddrsOffset, -20),
                                      gen(Op.startloopAddrsOffset, 30), gen(Op.endloopAddrsOffset, -40)])
        XCTAssertEqual(fine.plain.loopStart - fine.plain.start, 100)
        XCTAssertEqual(fine.plain.loopEnd - fine.plain.start, 900)
        XCTAssertEqual(fine.moved.start, fine.plain.start + 10)
        XCTAssertEqual(fine.moved.end, fine.plain.end - 20)
        XCTAssertEqual(fine.moved.loopStart, fine.plain.loopStart + 30)
        XCTAssertEqual(fine.moved.loopEnd, fine.plain.loopEnd - 40)
        XCTAssertEqual(fine.moved.loopMode, .continuous)

        let frames = 100_000
        let coarse = try offsetRegions([gen(Op.startAddrsOffset, 5), gen(Op.startAddrsCoarseOffset, 1),
                                        gen(Op.endAddrsOffset, -3), gen(Op.endAddrsCoarseOffset, -1),
                                        gen(Op.startloopAddrsOffset, 7), gen(Op.startloopAddrsCoarseOffset, 1),
                                        gen(Op.endloopAddrsOffset, 1), gen(Op.endloopAddrsCoarseOffset, -1)], frames: frames)
        XCTAssertEqual(coarse.plain.end - coarse.plain.start, frames)
        XCTAssertEqual(coarse.moved.start, coarse.plain.start + 32_773)
        XCTAssertEqual(coarse.moved.end, coarse.plain.end - 32_771)
        XCTAssertEqual(coarse.moved.loopStart, coarse.plain.loopStart + 32_775)
        XCTAssertEqual(coarse.moved.loopEnd, coarse.plain.loopEnd - 32_767)
    }

    func testSampleOffsetsAreClampedIntoTheSample() throws {
        let outside = try offsetRegions([gen(Op.startAddrsOffset, -50), gen(Op.endAddrsOffset, 50),
                                         gen(Op.startloopAddrsOffset, -500), gen(Op.endloopAddrsOffset, 500)])
        XCTAssertEqual(outside.moved.start, outside.plain.start)
        XCTAssertEqual(outside.moved.end, outside.plain.end)
        XCTAssertEqual(outside.moved.loopStart, outside.plain.start)
        XCTAssertEqual(outside.moved.loopEnd, outside.plain.end)
        XCTAssertEqual(outside.moved.loopMode, .continuous)

        let collapsed = try offsetRegions([gen(Op.startloopAddrsOffset, 700), gen(Op.endloopAddrsOffset, -200)])
        XCTAssertEqual(collapsed.moved.loopMode, .none, "loop start at or after loop end: the zone cannot loop")
        XCTAssertGreaterThanOrEqual(collapsed.moved.loopStart, collapsed.moved.start)

        let inverted = try offsetRegions([gen(Op.startAddrsOffset, 900), gen(Op.endAddrsOffset, -900)])
        XCTAssertLessThanOrEqual(inverted.moved.start, inverted.moved.end)
        XCTAssertEqual(inverted.moved.loopMode, .none)
    }

    func testLoopModes() throws {
        XCTAssertEqual(try region(instrument: [gen(Op.sampleModes, 0)]).loopMode, .none)
        let continuous = try region(instrument: [gen(Op.sampleModes, 1)])
        XCTAssertEqual(continuous.loopMode, .continuous)
        XCTAssertEqual(continuous.loopStart - continuous.start, 100)
        XCTAssertEqual(continuous.loopEnd - continuous.start, 900)
        XCTAssertEqual(try region(instrument: [gen(Op.sampleModes, 2)]).loopMode, .none, "2 is unused and means no loop")
        XCTAssertEqual(try region(instrument: [gen(Op.sampleModes, 3)]).loopMode, .untilRelease, "loop, then play on in the release")
        // The sample's own loop marked absent (start == end) cannot loop either.
        var sample = SF2Builder.rampSample()
        sample.loopStart = 0
        sample.loopEnd = 0
        XCTAssertEqual(try region(instrument: [gen(Op.sampleModes, 1)], sample: sample).loopMode, .none)
    }

    func testExclusiveClassPanAndSends() throws {
        let region = try region(instrument: [gen(Op.exclusiveClass, 7), gen(Op.pan, -500), gen(Op.reverbEffectsSend, 200),
                                             gen(Op.chorusEffectsSend, 1_000)],
                                preset: [gen(Op.reverbEffectsSend, 50)])
        XCTAssertEqual(region.exclusiveClass, 7)
        XCTAssertEqual(region.pan, -1)
        XCTAssertEqual(region.reverbSend, 0.25, accuracy: 1e-6)
        XCTAssertEqual(region.chorusSend, 1)
        XCTAssertEqual(try self.region(instrument: [gen(Op.pan, 250)]).pan, 0.5)
    }

    func testFixedKeyAndVelocityGenerators() throws {
        let fixed = try region(instrument: [gen(Op.keynum, 72), gen(Op.velocity, 40)])
        XCTAssertEqual(fixed.fixedKey, 72)
        XCTAssertEqual(fixed.fixedVelocity, 40)
        let free = try region(instrument: [])
        XCTAssertEqual(free.fixedKey, -1, "absent: the played key counts")
        XCTAssertEqual(free.fixedVelocity, -1)
    }

    func testTimecentAndOtherUnitConversions() throws {
        let region = try region(instrument: [
            gen(Op.attackVolEnv, 0), gen(Op.holdVolEnv, 1_200), gen(Op.decayVolEnv, -1_200), gen(Op.releaseVolEnv, -32_768),
            gen(Op.delayVolEnv, -12_000), gen(Op.sustainVolEnv, 200), gen(Op.keynumToVolEnvHold, 100), gen(Op.keynumToVolEnvDecay, -50),
            gen(Op.delayModEnv, 2_400), gen(Op.attackModEnv, -2_400), gen(Op.sustainModEnv, 250), gen(Op.releaseModEnv, 600),
            gen(Op.keynumToModEnvHold, 30), gen(Op.keynumToModEnvDecay, 40), gen(Op.modEnvToPitch, 1_000), gen(Op.modEnvToFilterFc, -2_000),
            gen(Op.delayModLFO, 0), gen(Op.freqModLFO, 1_200), gen(Op.modLfoToPitch, 50), gen(Op.modLfoToFilterFc, 60), gen(Op.modLfoToVolume, 70),
            gen(Op.delayVibLFO, -1_200), gen(Op.freqVibLFO, -16_000), gen(Op.vibLfoToPitch, -20),
            gen(Op.initialFilterFc, 6_000), gen(Op.initialFilterQ, 100),
        ])
        let volume = region.volumeEnvelope
        XCTAssertEqual(volume.attack, 1, accuracy: 1e-12)
        XCTAssertEqual(volume.hold, 2, accuracy: 1e-12)
        XCTAssertEqual(volume.decay, 0.5, accuracy: 1e-12)
        XCTAssertEqual(volume.release, 0, "-32768 is the customary 'instant'")
        XCTAssertEqual(volume.delay, 0, "-12000 means zero, not 1 ms")
        XCTAssertEqual(volume.sustainLevel, 0.1, accuracy: 1e-12, "200 cB = 20 dB down")
        XCTAssertEqual(volume.holdKeyScalingTimecents, 100)
        XCTAssertEqual(volume.decayKeyScalingTimecents, -50)
        let modulation = region.modulationEnvelope
        XCTAssertEqual(modulation.delay, 4, accuracy: 1e-12)
        XCTAssertEqual(modulation.attack, 0.25, accuracy: 1e-12)
        XCTAssertEqual(modulation.sustainLevel, 0.75, accuracy: 1e-12, "sustain is a decrease in 0.1 % units")
        XCTAssertEqual(modulation.release, pow(2, 0.5), accuracy: 1e-12)
        XCTAssertEqual(modulation.holdKeyScalingTimecents, 30)
        XCTAssertEqual(modulation.decayKeyScalingTimecents, 40)
        XCTAssertEqual(region.modulationEnvelopeToPitchCents, 1_000)
        XCTAssertEqual(region.modulationEnvelopeToCutoffCents, -2_000)
        XCTAssertEqual(region.modulationLFO.delay, 1, accuracy: 1e-12)
        XCTAssertEqual(region.modulationLFO.frequency, 16.352, accuracy: 1e-9)
        XCTAssertEqual(region.modulationLFOToPitchCents, 50)
        XCTAssertEqual(region.modulationLFOToCutoffCents, 60)
        XCTAssertEqual(region.modulationLFOToVolumeCentibels, 70)
        XCTAssertEqual(region.vibratoLFO.delay, 0.5, accuracy: 1e-12)
        XCTAssertEqual(region.vibratoLFO.frequency, 8.176 * pow(2, -16_000.0 / 1_200), accuracy: 1e-12)
        XCTAssertEqual(region.vibratoLFOToPitchCents, -20)
        XCTAssertEqual(region.filterCutoffCents, 6_000)
        XCTAssertEqual(region.filterResonanceCentibels, 100)
    }

    func testSixteenBitDecoding() throws {
        var sample = SF2Builder.rampSample(frames: 4)
        sample.frames = [0, 16_384, -32_768, 32_767]
        sample.loopStart = 0
        sample.loopEnd = 4
        let bank = try load(.simple(sample: sample))
        let region = bank.regions[0]
        XCTAssertEqual(Array(bank.samples[region.start..<region.end]), [0, 0.5, -1, 32_767.0 / 32_768])
    }

    func testSM24TwentyFourBitDecoding() throws {
        var sample = SF2Builder.rampSample(frames: 4)
        sample.frames = [0, 1, -1, -32_768]
        sample.lowBytes = [0x80, 0xFF, 0x01, 0x00]
        sample.loopStart = 0
        sample.loopEnd = 4
        var builder = SF2Builder.simple(sample: sample)
        builder.includeSM24 = true
        let expected: [Float] = [0x80, 0x1FF, -0xFF, -0x800000].map { Float($0) / 8_388_608 }
        var bank = try load(builder)
        XCTAssertEqual(Array(bank.samples[bank.regions[0].start..<bank.regions[0].end]), expected)
        XCTAssertEqual(bank.samples.encoding, .float32, "24 bits need more than a word; a Float holds them exactly")

        // Before version 2.04, sm24 is ignored (SF2 2.04 §6.2).
        builder.version = (2, 1)
        bank = try load(builder)
        XCTAssertEqual(Array(bank.samples[bank.regions[0].start..<bank.regions[0].end]), [0, 1, -1, -32_768].map { Float($0) / 32_768 })
        XCTAssertEqual(bank.samples.encoding, .int16, "16-bit samples stay words")
        XCTAssertEqual(bank.sampleByteCount, 2 * bank.samples.frameCount)
    }

    func testSM24OfTheWrongSizeIsIgnored() throws {
        var sample = SF2Builder.rampSample(frames: 4)
        sample.frames = [256, 0, 0, 0]
        sample.lowBytes = [0x7F, 0, 0, 0]
        var builder = SF2Builder.simple(sample: sample)
        builder.includeSM24 = true
        var bytes = builder.build()
        // Cut the sm24 chunk by two bytes, fixing up the enclosing sizes (sdta LIST and RIFF).
        let sm24 = try XCTUnwrap(find("sm24", in: bytes))
        let size = Int(bytes[sm24 + 4]) | Int(bytes[sm24 + 5]) << 8
        bytes.removeSubrange((sm24 + 8 + size - 2)..<(sm24 + 8 + size))
        patchSize(&bytes, at: sm24 + 4, by: -2)
        let sdtaList = try XCTUnwrap(listHeader("sdta", in: bytes))
        patchSize(&bytes, at: sdtaList + 4, by: -2)
        patchSize(&bytes, at: 4, by: -2)
        let bank = try SoundFontLoader.load(bytes: bytes, name: "short-sm24.sf2", sampleRate: 48_000)
        XCTAssertEqual(bank.samples[bank.regions[0].start], 256.0 / 32_768)
    }

    func testPresetsAreSortedByBankThenProgramWithNames() throws {
        var builder = SF2Builder.simple()
        let zone = [[gen(Op.instrument, 0)]]
        builder.presets = [SF2Builder.Preset(name: "Kit", bank: 128, program: 0, zones: zone),
                           SF2Builder.Preset(name: "Five", bank: 0, program: 5, zones: zone),
                           SF2Builder.Preset(name: "Bank one", bank: 1, program: 0, zones: zone),
                           SF2Builder.Preset(name: "One", bank: 0, program: 1, zones: zone + zone)]
        let bank = try load(builder)
        XCTAssertEqual(Array(bank.presets).map { "\($0.bank):\($0.program)" }, ["0:1", "0:5", "1:0", "128:0"])
        XCTAssertEqual(bank.presetNames, ["One", "Five", "Bank one", "Kit"])
        XCTAssertEqual(Array(bank.presets).map(\.firstRegion), [0, 2, 3, 4])
        XCTAssertEqual(Array(bank.presets).map(\.regionCount), [2, 1, 1, 1])
        XCTAssertEqual(bank.presetIndex(bank: 128, program: 0), 3)
    }

    func testStereoPairBecomesTwoMonoRegions() throws {
        var builder = SF2Builder.simple()
        var left = SF2Builder.rampSample()
        left.name = "L"
        left.type = 4
        var right = SF2Builder.rampSample()
        right.name = "R"
        right.type = 2
        right.frames = right.frames.map { -$0 }
        builder.samples = [left, right]
        builder.instruments[0].zones = [[gen(Op.pan, -500), gen(Op.sampleID, 0)], [gen(Op.pan, 500), gen(Op.sampleID, 1)]]
        let bank = try load(builder)
        XCTAssertEqual(bank.regions.map(\.pan), [-1, 1])
        XCTAssertEqual(bank.samples[bank.regions[0].start + 10], -bank.samples[bank.regions[1].start + 10])
    }

    func testOnlyReferencedSamplesArePooledEachBetweenZeroGuards() throws {
        var builder = SF2Builder.simple()
        var other = SF2Builder.rampSample(frames: 500)
        other.name = "Unused"
        builder.samples.append(other)
        var third = SF2Builder.rampSample(frames: 300)
        third.name = "Third"
        builder.samples.append(third)
        builder.instruments[0].zones = [[range(Op.keyRange, 0, 60), gen(Op.sampleID, 0)], [range(Op.keyRange, 61, 127), gen(Op.sampleID, 2)]]
        let bank = try load(builder)
        let guardFrames = SampleBank.guardFrameCount
        XCTAssertEqual(bank.samples.frameCount, guardFrames + 1_000 + guardFrames + 300 + guardFrames)
        for region in bank.regions {
            XCTAssertTrue(bank.samples[(region.start - guardFrames)..<region.start].allSatisfy { $0 == 0 })
            XCTAssertTrue(bank.samples[region.end..<(region.end + guardFrames)].allSatisfy { $0 == 0 })
        }
    }

    func testROMSampleIsAnErrorNamingTheSample() throws {
        var sample = SF2Builder.rampSample()
        sample.name = "Rom Piano"
        sample.type = 0x8001
        XCTAssertThrowsError(try load(.simple(sample: sample))) { error in
            guard let error = error as? SoundFontError else { return XCTFail("\(error)") }
            XCTAssertEqual(error.chunk, "pdta/shdr")
            XCTAssertTrue(error.reason.contains("'Rom Piano'"), error.description)
            XCTAssertTrue(error.reason.contains("ROM"), error.description)
        }
    }

    func testInfoFields() throws {
        var builder = SF2Builder.simple()
        builder.bankName = "Synthetic"
        let info = try SoundFontLoader.info(bytes: builder.build(), name: "synthetic.sf2")
        XCTAssertEqual(info.version, SoundFontInfo.Version(major: 2, minor: 4))
        XCTAssertEqual(info.version.description, "2.04")
        XCTAssertEqual(info.name, "Synthetic")
        XCTAssertEqual(info.soundEngine, "EMU8000")
        XCTAssertNil(info.copyright)
    }

    // MARK: Byte surgery helpers

    func find(_ id: String, in bytes: [UInt8], after start: Int = 12) -> Int? {
        let pattern = Array(id.utf8)
        var index = start
        while index + 4 <= bytes.count {
            if Array(bytes[index..<(index + 4)]) == pattern { return index }
            index += 1
        }
        return nil
    }

    func listHeader(_ type: String, in bytes: [UInt8]) -> Int? {
        find(type, in: bytes).map { $0 - 8 }
    }

    func patchSize(_ bytes: inout [UInt8], at offset: Int, by delta: Int) {
        let size = (0..<4).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) } + delta
        for index in 0..<4 { bytes[offset + index] = UInt8((size >> (8 * index)) & 0xff) }
    }
}
