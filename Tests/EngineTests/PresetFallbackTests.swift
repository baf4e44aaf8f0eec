import Engine
import MIDI
import Render
import TestSupport
import XCTest

/// A song asking for presets the font lacks plays FluidSynth's fallbacks, not silence, and the
/// control thread foresees each substitution exactly as the renderer makes it.
final class PresetFallbackTests: XCTestCase {
    /// One note on `channel` after selecting `bank`:`program`, a second long.
    func song(channel: UInt8, bank: UInt8 = 0, program: UInt8, key: UInt8 = 69) -> MIDIFile {
        MIDIFile(format: 0, division: .ticksPerQuarter(480), tracks: [[
            TrackEvent(tick: 0, kind: .channel(.controlChange(channel: channel, controller: 0, value: bank))),
            TrackEvent(tick: 0, kind: .channel(.programChange(channel: channel, program: program))),
            TrackEvent(tick: 0, kind: .channel(.noteOn(channel: channel, key: key, velocity: 100))),
            TrackEvent(tick: 960, kind: .channel(.noteOff(channel: channel, key: key, velocity: 64))),
            TrackEvent(tick: 960, kind: .endOfTrack),
        ]])
    }

    /// Renders `song` through `bank`: the peak and the notes nothing played.
    func render(_ song: MIDIFile, through bank: SampleBank) -> (peak: Float, unplayable: Int) {
        let engine = Engine(configuration: EngineConfiguration(render: RenderConfiguration(sampleRate: SyntheticBank.rate, songGainDecibels: 0)))
        engine.install(bank)
        let summary = engine.render(song) { _ in }
        return (summary.peak, summary.statistics.unmappedNotes)
    }

    func substitutions(_ song: MIDIFile, in bank: SampleBank) -> [PresetSubstitution] {
        MIDISequencer(song, sampleRate: SyntheticBank.rate).presetSubstitutions(in: bank, kitPlaysPercussion: false)
    }

    func testAMissingMelodicProgramPlaysBankZeroProgramZero() {
        let bank = SyntheticBank.sine(presets: [(0, 0)])
        let violin = song(channel: 2, program: 40)
        let rendered = render(violin, through: bank)
        XCTAssertGreaterThan(rendered.peak, 0.05, "program 40 plays the piano, not silence")
        XCTAssertEqual(rendered.unplayable, 0)
        XCTAssertEqual(substitutions(violin, in: bank), [PresetSubstitution(
            channels: [2], requested: .init(bank: 0, program: 40), played: .init(bank: 0, program: 0))])
        XCTAssertEqual(PresetSubstitution.clauses(substitutions(violin, in: bank)),
                       ["channel 3 program 40 (Violin): played with bank 0 program 0 (Acoustic Grand Piano)"])
    }

    func testAMissingBankPlaysBankZeroOfTheSameProgram() {
        let bank = SyntheticBank.sine(presets: [(0, 0), (0, 40)])
        let variation = song(channel: 0, bank: 8, program: 40)
        XCTAssertGreaterThan(render(variation, through: bank).peak, 0.05)
        XCTAssertEqual(substitutions(variation, in: bank).map(\.played), [.init(bank: 0, program: 40)])
    }

    func testAFontWithoutBankZeroPlaysItsFirstMelodicPreset() {
        let bank = SyntheticBank.sine(presets: [(128, 0), (5, 7)])
        XCTAssertEqual(substitutions(song(channel: 0, program: 40), in: bank).map(\.played), [.init(bank: 5, program: 7)])
        XCTAssertGreaterThan(render(song(channel: 0, program: 40), through: bank).peak, 0.05)
    }

    func testTheDrumChannelAskingForKitNinePlaysKitZero() {
        let bank = SyntheticBank.sine(presets: [(0, 0), (128, 0)])
        let room = song(channel: GeneralMIDI.percussionChannel, program: 9, key: 36)
        XCTAssertGreaterThan(render(room, through: bank).peak, 0.05, "kit 128:9 missing: 128:0 plays")
        XCTAssertEqual(PresetSubstitution.clauses(substitutions(room, in: bank)), ["channel 10 drum kit 128:9: played with 128:0"])
    }

    func testPresetsTheFontHasAreNoSubstitution() {
        let bank = SyntheticBank.sine(presets: [(0, 0), (0, 40), (128, 0)])
        XCTAssertEqual(substitutions(song(channel: 0, program: 40), in: bank), [])
        XCTAssertEqual(substitutions(song(channel: 9, program: 0, key: 36), in: bank), [])
    }

    func testADrumChannelInAFontWithoutKitsIsSilentAndSaysSo() {
        let bank = SyntheticBank.sine(presets: [(0, 0)])
        let drums = song(channel: 9, program: 0, key: 36)
        let rendered = render(drums, through: bank)
        XCTAssertEqual(rendered.peak, 0, "a melodic preset never plays the drum channel")
        XCTAssertEqual(rendered.unplayable, 1)
        XCTAssertEqual(PresetSubstitution.clauses(substitutions(drums, in: bank)),
                       ["channel 10 drum kit 128:0: nothing plays (the font has no drum kit)"])
        XCTAssertEqual(MIDISequencer(drums, sampleRate: SyntheticBank.rate).presetSubstitutions(in: bank, kitPlaysPercussion: true), [])
    }
}
