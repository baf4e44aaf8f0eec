import Engine
import Foundation
import Render
import SoundFont
import TestSupport
import XCTest

/// SoundFont 2.04 modulators (§8.2–8.5, §9.5) and initialAttenuation as FluidSynth applies it,
/// end to end: synthetic fonts with pmod/imod chunks, loaded and rendered offline, levels measured.
final class ModulatorTests: XCTestCase {
    typealias Op = SF2Builder.Op
    typealias Modulator = SF2Builder.Modulator
    let gen = SF2Builder.gen
    let rate = 48_000.0

    /// sfModulator source words (SF2 §8.2): index, CC flag 0x80, direction 0x100, polarity 0x200, type << 10.
    static func controller(_ number: UInt16, curve: UInt16 = 0, bipolar: Bool = false, negative: Bool = false) -> UInt16 {
        number | 0x80 | (negative ? 0x100 : 0) | (bipolar ? 0x200 : 0) | curve << 10
    }

    /// The steady level of key 60 (left channel, RMS) after `before` and a note-on, with `during`
    /// sent 0.1 s into the note.
    func level(_ builder: SF2Builder, options: SoundFontLoader.Options = .init(), before: [RenderCommand.Action] = [],
               velocity: UInt8 = 127, during: [RenderCommand.Action] = []) throws -> Float {
        SignalAnalysis.rms(try render(builder, options: options, before: before, velocity: velocity, during: during)[2_400...])
    }

    func render(_ builder: SF2Builder, options: SoundFontLoader.Options = .init(), before: [RenderCommand.Action] = [],
                velocity: UInt8 = 127, during: [RenderCommand.Action] = []) throws -> [Float] {
        let bank = try SoundFontLoader.load(bytes: builder.build(), name: "modulators.sf2", sampleRate: rate, options: options)
        // Dry: these tests measure the voices alone.
        let engine = Engine(configuration: EngineConfiguration(render: RenderConfiguration(sampleRate: rate, outputLimiter: false,
                                                                                           feedbackSuppression: false, effects: false, songGainDecibels: 0)))
        XCTAssertTrue(engine.install(bank))
        for action in before { engine.send(action) }
        engine.send(midi: .noteOn(channel: 0, key: 60, velocity: velocity))
        _ = engine.renderOffline(frameCount: 4_800, blockFrameCount: 64)
        for action in during { engine.send(action) }
        return SignalAnalysis.channel(0, of: engine.renderOffline(frameCount: 9_600, blockFrameCount: 64), channelCount: 2)
    }

    func decibels(_ level: Float, over reference: Float) -> Double { 20 * log10(Double(level) / Double(reference)) }

    func cc(_ number: UInt8, _ value: UInt8) -> RenderCommand.Action { .midi(.controlChange(channel: 0, controller: number, value: value)) }
    func channelPressure(_ pressure: UInt8) -> RenderCommand.Action { .midi(.channelPressure(channel: 0, pressure: pressure)) }
    func polyPressure(_ key: UInt8, _ pressure: UInt8) -> RenderCommand.Action { .midi(.polyPressure(channel: 0, key: key, pressure: pressure)) }

    /// One looped instrument zone with `modulators` (and `generators`), one plain preset zone.
    func font(generators: [SF2Builder.Generator] = [], modulators: [Modulator] = [], presetModulators: [Modulator] = []) -> SF2Builder {
        var builder = SF2Builder.simple(instrumentZones: [[gen(Op.sampleModes, 1)] + generators])
        builder.instruments[0].modulators = [modulators]
        builder.presets[0].modulators = [presetModulators]
        return builder
    }

    /// The SF2 §8.2.4 curves on a 7-bit value, written from the specification's figures (the
    /// "127/128" top of §8.4 as FluidSynth reads it).
    func mapping(_ value: Int, curve: UInt16, bipolar: Bool, negative: Bool) -> Double {
        var x = Double(value) / 128
        if negative { x = 127.0 / 128 - x }
        func concave(_ i: Double) -> Double { i <= 0 ? 0 : i >= 127 ? 1 : 400.0 / 960 * log10(127 / (127 - i)) }
        func shape(_ u: Double) -> Double {
            switch curve {
            case 1: min(concave(128 * u), 127.0 / 128)
            case 2: min(1 - concave(127 - 128 * u), 127.0 / 128)
            case 3: u >= 0.5 ? 1 : 0
            default: u
            }
        }
        guard bipolar else { return shape(x) }
        let b = 2 * x - 1
        if curve == 3 { return b >= 0 ? 1 : -1 }
        return (b < 0 ? -1 : 1) * shape(abs(b))
    }

    func testModWheelToAttenuationGivesMinus47Point6DecibelsAtFullScale() throws {
        let reference = try level(font())
        let attenuating = font(modulators: [(Self.controller(1), Op.initialAttenuation, 480, 0, 0)])
        XCTAssertEqual(try decibels(level(attenuating, before: [cc(1, 127)]), over: reference), -47.625, accuracy: 0.05)
        XCTAssertEqual(try decibels(level(attenuating, before: [cc(1, 0)]), over: reference), 0, accuracy: 0.05)
        // Moved while the note sounds: the voice follows at control rate.
        XCTAssertEqual(try decibels(level(attenuating, during: [cc(1, 127)]), over: reference), -47.625, accuracy: 0.05)
    }

    func testEveryCurvePolarityAndDirectionFollowsTheSpecification() throws {
        let reference = try level(font())
        for curve: UInt16 in 0...3 {
            for bipolar in [false, true] {
                for negative in [false, true] {
                    // Bipolar outputs swing ±480 cB around a base of 480 (initialAttenuation 1200 × 0.4).
                    let base = bipolar ? 480.0 : 0
                    let builder = font(generators: bipolar ? [gen(Op.initialAttenuation, 1_200)] : [],
                                       modulators: [(Self.controller(1, curve: curve, bipolar: bipolar, negative: negative),
                                                     Op.initialAttenuation, 480, 0, 0)])
                    for value in [0, 20, 64, 100, 127] {
                        let expected = -(base + 480 * mapping(value, curve: curve, bipolar: bipolar, negative: negative)) / 10
                        XCTAssertEqual(try decibels(level(builder, before: [cc(1, UInt8(value))]), over: reference), expected, accuracy: 0.05,
                                       "curve \(curve) bipolar \(bipolar) negative \(negative) CC1 \(value)")
                    }
                }
            }
        }
    }

    /// SF2 §8.2.1 general controller indices (CC flag clear).
    static let polyPressureSource: UInt16 = 10, channelPressureSource: UInt16 = 13

    /// Polyphonic key pressure is its own message: it moves the pressure of its key, never the
    /// channel's, so a voice whose level follows channel pressure keeps it.
    func testPolyPressureLeavesTheChannelPressureAlone() throws {
        let followsChannelPressure = font(modulators: [(Self.channelPressureSource, Op.initialAttenuation, 480, 0, 0)])
        let pressed = try level(followsChannelPressure, before: [channelPressure(127)])
        XCTAssertEqual(decibels(pressed, over: try level(font())), -47.625, accuracy: 0.05, "the modulator reads the channel's pressure")
        for pressure: UInt8 in [0, 64, 127] {
            for key: UInt8 in [60, 61] {
                let afterPolyPressure = try level(followsChannelPressure, before: [channelPressure(127)], during: [polyPressure(key, pressure)])
                XCTAssertEqual(decibels(afterPolyPressure, over: pressed), 0, accuracy: 0.05, "poly pressure \(pressure) on key \(key)")
            }
        }
    }

    /// A modulator reading polyphonic key pressure (SF2 §8.2.1 index 10) follows the pressure of
    /// the voice's own key, as FluidSynth applies it: another key's pressure, or the channel's,
    /// changes nothing, and Reset All Controllers takes it back to 0.
    func testPolyPressureModulatesTheVoicesOfItsKey() throws {
        let followsKeyPressure = font(modulators: [(Self.polyPressureSource, Op.initialAttenuation, 480, 0, 0)])
        let reference = try level(font())
        XCTAssertEqual(decibels(try level(followsKeyPressure, during: [polyPressure(60, 127)]), over: reference), -47.625, accuracy: 0.05)
        XCTAssertEqual(decibels(try level(followsKeyPressure, during: [polyPressure(60, 64)]), over: reference), -24, accuracy: 0.05)
        XCTAssertEqual(decibels(try level(followsKeyPressure, before: [polyPressure(60, 127)]), over: reference), -47.625, accuracy: 0.05,
                       "a note started on a pressed key reads its pressure at note-on")
        XCTAssertEqual(decibels(try level(followsKeyPressure, during: [polyPressure(61, 127)]), over: reference), 0, accuracy: 0.05,
                       "another key's pressure")
        XCTAssertEqual(decibels(try level(followsKeyPressure, during: [polyPressure(60, 127), polyPressure(61, 0)]), over: reference),
                       -47.625, accuracy: 0.05, "another key's release of pressure")
        XCTAssertEqual(decibels(try level(followsKeyPressure, during: [channelPressure(127)]), over: reference),
                       0, accuracy: 0.05, "the channel's pressure")
        XCTAssertEqual(decibels(try level(followsKeyPressure, during: [polyPressure(60, 127), cc(121, 0)]), over: reference),
                       0, accuracy: 0.05, "Reset All Controllers")
        // A zone with a fixed keynum plays key 60 as 72: the pressure that counts is still the
        // pressed key's (FluidSynth reads the voice's note key, not the keynum).
        let fixedKey = font(generators: [gen(Op.keynum, 72)], modulators: [(Self.polyPressureSource, Op.initialAttenuation, 480, 0, 0)])
        let fixedReference = try level(font(generators: [gen(Op.keynum, 72)]))
        XCTAssertEqual(decibels(try level(fixedKey, during: [polyPressure(60, 127)]), over: fixedReference), -47.625, accuracy: 0.05)
        XCTAssertEqual(decibels(try level(fixedKey, during: [polyPressure(72, 127)]), over: fixedReference), 0, accuracy: 0.05)
    }

    func testAnInstrumentModulatorIdenticalToADefaultReplacesIt() throws {
        // CC1 → vibrato LFO pitch with amount 0: the default 50 cents of mod-wheel vibrato is gone.
        let noVibrato = font(modulators: [(Self.controller(1), Op.vibLfoToPitch, 0, 0, 0)])
        XCTAssertEqual(try render(noVibrato, before: [cc(1, 127)]), try render(noVibrato, before: [cc(1, 0)]))
        XCTAssertNotEqual(try render(font(), before: [cc(1, 127)]), try render(font(), before: [cc(1, 0)]),
                          "without the font's modulator the mod wheel does bring vibrato")
        // CC7 → attenuation with amount 480 replaces the default's 960: CC7 = 0 gives 47.6 dB, not 95.
        let reference = try level(font(), before: [cc(7, 127)])
        let halfVolume = font(modulators: [(Self.controller(7, curve: 1, negative: true), Op.initialAttenuation, 480, 0, 0)])
        XCTAssertEqual(try decibels(level(halfVolume, before: [cc(7, 0)]), over: reference), -47.625, accuracy: 0.05)
    }

    /// A modulator on the start address moves where a note begins in its sample, at note-on, as
    /// FluidSynth moves it (MuseScore_General's flute starts its low notes earlier in the sample by
    /// the key: unmoved, its short notes played 4-5 dB louder than FluidSynth's), and never past
    /// the sample's first frame.
    func testAStartAddressModulatorMovesWhereTheNoteBeginsInItsSample() throws {
        // 2,000 silent frames, then 2,000 loud ones; the zone's own offset skips the silence.
        let sample = SF2Builder.Sample(name: "Gap", frames: [Int16](repeating: 0, count: 2_000) + [Int16](repeating: 16_000, count: 2_000),
                                       loopStart: 0, loopEnd: 0, sampleRate: 48_000)
        func onset(_ modulators: [Modulator]) throws -> Int {
            var builder = SF2Builder.simple(instrumentZones: [[gen(Op.startAddrsOffset, 2_000)]], sample: sample)
            builder.instruments[0].modulators = [modulators]
            let bank = try SoundFontLoader.load(bytes: builder.build(), name: "addresses.sf2", sampleRate: rate)
            let engine = Engine(configuration: EngineConfiguration(render: RenderConfiguration(sampleRate: rate, outputLimiter: false,
                                                                                               feedbackSuppression: false, effects: false, songGainDecibels: 0)))
            XCTAssertTrue(engine.install(bank))
            engine.send(midi: .noteOn(channel: 0, key: 60, velocity: 127))
            let left = SignalAnalysis.channel(0, of: engine.renderOffline(frameCount: 4_800, blockFrameCount: 64), channelCount: 2)
            return try XCTUnwrap(left.firstIndex { abs($0) > 0.01 }, "the note never sounded")
        }
        let keyNumber: UInt16 = 3  // the note-on key: linear, unipolar, positive
        XCTAssertEqual(try onset([]), 0, accuracy: 4)
        // Key 60 gives 60/128 of the amount: 2,000 frames earlier, back into the silence.
        XCTAssertEqual(try onset([(keyNumber, Op.startAddrsOffset, -4_267, 0, 0)]), 2_000, accuracy: 8)
        // Coarse steps are 32,768 frames: reaching past the sample's first frame stops there.
        XCTAssertEqual(try onset([(keyNumber, Op.startAddrsCoarseOffset, -100, 0, 0)]), 2_000, accuracy: 8)
    }

    func testPresetModulatorsAddToTheInstrumentLevel() throws {
        let reference = try level(font())
        let presetOnly = font(presetModulators: [(Self.controller(1), Op.initialAttenuation, 480, 0, 0)])
        XCTAssertEqual(try decibels(level(presetOnly, before: [cc(1, 127)]), over: reference), -47.625, accuracy: 0.05)
        let both = font(modulators: [(Self.controller(1), Op.initialAttenuation, 240, 0, 0)],
                        presetModulators: [(Self.controller(1), Op.initialAttenuation, 240, 0, 0)])
        XCTAssertEqual(try decibels(level(both, before: [cc(1, 127)]), over: reference), -47.625, accuracy: 0.05)
    }

    func testTheAmountSourceMultipliesTheAmount() throws {
        let reference = try level(font())
        let builder = font(modulators: [(Self.controller(1), Op.initialAttenuation, 960, Self.controller(2), 0)])
        XCTAssertEqual(try decibels(level(builder, before: [cc(1, 127), cc(2, 64)]), over: reference), -47.625, accuracy: 0.05)
        XCTAssertEqual(try decibels(level(builder, before: [cc(1, 127), cc(2, 0)]), over: reference), 0, accuracy: 0.05)
    }

    func testAGlobalZonesModulatorsApplyToEveryZoneThatDoesNotOverrideThem() throws {
        var builder = SF2Builder.simple(instrumentGlobal: [], instrumentZones: [
            [SF2Builder.range(Op.keyRange, 0, 59)], [SF2Builder.range(Op.keyRange, 60, 127)],
        ])
        builder.instruments[0].modulators = [[(Self.controller(1), Op.initialAttenuation, 480, 0, 0)], [],
                                             [(Self.controller(1), Op.initialAttenuation, 0, 0, 0)]]
        let bank = try SoundFontLoader.load(bytes: builder.build(), name: "global.sf2", sampleRate: rate)
        withExtendedLifetime(bank) {
            func attenuationAmounts(_ region: SamplerRegion) -> [Float] {
                bank.modulators[Int(region.firstModulator) ..< Int(region.firstModulator + region.modulatorCount)]
                    .filter { $0.source == ModulatorSource(controller: 1) && $0.destination == .initialAttenuation }.map(\.amount)
            }
            XCTAssertEqual(attenuationAmounts(bank.regions[0]), [480], "the global zone's modulator")
            XCTAssertEqual(attenuationAmounts(bank.regions[1]), [], "replaced by the zone's own, amount 0")
        }
    }

    func testVelocityNoLongerLowersTheCutoffByDefault() throws {
        // A cutoff (≈ 260 Hz) among the sawtooth's first harmonics, so moving it changes the level.
        let filtered = font(generators: [gen(Op.initialFilterFc, 6_000)])
        let loud = try level(filtered, velocity: 127)
        let soft = try level(filtered, velocity: 80)
        // Only velocity → attenuation: 400·log10(127/80) cB.
        XCTAssertEqual(decibels(soft, over: loud), -40 * log10(127.0 / 80), accuracy: 0.05)
        // A font's own velocity → cutoff modulator (FluidSynth's form of the default: −2400 cents
        // × (127 − v)/128 from velocity 64 up) still applies.
        let velocityToCutoff: Modulator = (0x0102, Op.initialFilterFc, -2_400, 0x0C02, 0)
        let withModulator = font(generators: [gen(Op.initialFilterFc, 6_000)], modulators: [velocityToCutoff])
        XCTAssertLessThan(decibels(try level(withModulator, velocity: 80), over: try level(withModulator, velocity: 127)),
                          -40 * log10(127.0 / 80) - 0.2)
    }

    func testInitialAttenuationAppliesAtFourTenthsUnlessNominalIsAsked() throws {
        let reference = try level(font())
        let attenuated = font(generators: [gen(Op.initialAttenuation, 100)])
        XCTAssertEqual(try decibels(level(attenuated), over: reference), -4, accuracy: 0.05)
        let nominal = SoundFontLoader.Options(attenuationScale: .nominal)
        XCTAssertEqual(try decibels(level(attenuated, options: nominal), over: level(font(), options: nominal)), -10, accuracy: 0.05)
        // The scale is the generator's only: CC7 → attenuation is not scaled.
        XCTAssertEqual(try decibels(level(font(), before: [cc(7, 64)]), over: reference), -40 * log10(100.0 / 64), accuracy: 0.05)
    }

    /// A preset's negative initialAttenuation (-100 cB: -40 once scaled) is added before the range
    /// clamp, not lost in it: at velocity 80 the default velocity modulator adds about 80 cB, of
    /// which 40 remain, so the note plays 4 dB louder than with no preset attenuation, as in
    /// FluidSynth, which clamps the generators' and the modulators' sum (MuseScore_General's kicks).
    func testANegativePresetAttenuationOffsetsTheVelocityAttenuation() throws {
        var boosted = font()
        boosted.presets[0].zones[0].insert(gen(Op.initialAttenuation, -100), at: 0)  // before its instrument link
        XCTAssertEqual(try decibels(level(boosted, velocity: 80), over: level(font(), velocity: 80)), 4, accuracy: 0.05)
    }
}
