import DSP
import Engine
import MIDI
import Render
import TestSupport
import XCTest

/// The controllers and SysEx messages General MIDI files rely on, and the minimum note length,
/// rendered offline on synthetic banks.
final class ControllerRenderTests: XCTestCase {
    let rate = 48_000.0

    func engine(bank: SampleBank = SyntheticBank.sine(), minimumNoteSeconds: Double = RenderConfiguration.defaultMinimumNoteSeconds) -> Engine {
        // Dry and at unity gain: these tests look at the voices alone.
        let engine = Engine(configuration: EngineConfiguration(render: RenderConfiguration(
            sampleRate: rate, outputLimiter: false, minimumNoteSeconds: minimumNoteSeconds, effects: false, songGainDecibels: 0)))
        XCTAssertTrue(engine.install(bank))
        return engine
    }

    func left(_ engine: Engine, frames: Int, block: Int = 64) -> [Float] {
        SignalAnalysis.channel(0, of: engine.renderOffline(frameCount: frames, blockFrameCount: block), channelCount: 2)
    }

    func cc(_ channel: UInt8, _ controller: MIDIController, _ value: UInt8) -> RenderCommand.Action {
        .midi(.controlChange(channel: channel, controller: controller.rawValue, value: value))
    }

    func cents(_ measured: Double, from expected: Double) -> Double { 1_200 * log2(measured / expected) }

    // MARK: Minimum note length

    func testZeroLengthNoteSoundsForTheMinimumNoteLengthOnItsExactFrame() {
        for block in [1, 64, 1_000] {
            // A note-off on the note-on's frame is held 10 ms (480 frames), then released...
            let held = engine()
            held.send(midi: .noteOn(channel: 0, key: 69, velocity: 127), at: 100)
            held.send(midi: .noteOff(channel: 0, key: 69, velocity: 64), at: 100)
            let heldOutput = left(held, frames: 24_000, block: block)
            XCTAssertGreaterThan(SignalAnalysis.largestAbs(heldOutput[100 ..< 580]), 0.1, "block \(block)")
            // ...exactly as a note-off sent for that frame releases it, whatever the block size.
            let explicit = engine(minimumNoteSeconds: 0)
            explicit.send(midi: .noteOn(channel: 0, key: 69, velocity: 127), at: 100)
            explicit.send(midi: .noteOff(channel: 0, key: 69, velocity: 64), at: 580)
            XCTAssertEqual(heldOutput, left(explicit, frames: 24_000, block: block), "block \(block)")
        }
    }

    func testNoteLongerThanTheMinimumIsReleasedWhenItsNoteOffSays() {
        let late = engine()
        late.send(midi: .noteOn(channel: 0, key: 69, velocity: 127))
        late.send(midi: .noteOff(channel: 0, key: 69, velocity: 64), at: 1_000)
        let unheld = engine(minimumNoteSeconds: 0)
        unheld.send(midi: .noteOn(channel: 0, key: 69, velocity: 127))
        unheld.send(midi: .noteOff(channel: 0, key: 69, velocity: 64), at: 1_000)
        XCTAssertEqual(left(late, frames: 9_600), left(unheld, frames: 9_600))
    }

    func testMinimumNoteLengthOfZeroLosesTheNoteAsBefore() {
        let engine = engine(minimumNoteSeconds: 0)
        engine.send(midi: .noteOn(channel: 0, key: 69, velocity: 127), at: 100)
        engine.send(midi: .noteOff(channel: 0, key: 69, velocity: 64), at: 100)
        XCTAssertLessThan(SignalAnalysis.largestAbs(left(engine, frames: 4_800)[...]), 1e-3)
    }

    // MARK: Tuning

    func pitch(after actions: [RenderCommand.Action]) -> Double {
        let engine = engine()
        for action in actions { engine.send(action) }
        engine.send(midi: .noteOn(channel: 0, key: 69, velocity: 127))
        return SignalAnalysis.frequency(of: left(engine, frames: 48_000)[4_800...], sampleRate: rate)!
    }

    func testFineAndCoarseTuningShiftThePitchByExactlyWhatTheySay() {
        let reference = pitch(after: [])
        // RPN 1, data 12288 (MSB 96, LSB 0) = +50 cents.
        let fine = pitch(after: [cc(0, .registeredParameterMSB, 0), cc(0, .registeredParameterLSB, 1),
                                 cc(0, .dataEntry, 96), cc(0, .dataEntryLSB, 0)])
        XCTAssertEqual(cents(fine, from: reference), 50, accuracy: 0.5)
        // RPN 2, MSB 66 = +2 semitones.
        let coarse = pitch(after: [cc(0, .registeredParameterMSB, 0), cc(0, .registeredParameterLSB, 2), cc(0, .dataEntry, 66)])
        XCTAssertEqual(cents(coarse, from: reference), 200, accuracy: 0.5)
        // An LSB alone adjusts the fine tuning's own MSB: 96 << 7 | 64 = +50.78 cents.
        let both = pitch(after: [cc(0, .registeredParameterMSB, 0), cc(0, .registeredParameterLSB, 1), cc(0, .dataEntry, 96),
                                 cc(0, .registeredParameterLSB, 2), cc(0, .dataEntry, 62),
                                 cc(0, .registeredParameterLSB, 1), cc(0, .dataEntryLSB, 64)])
        XCTAssertEqual(cents(both, from: reference), -200 + 4_160.0 / 8_192 * 100, accuracy: 0.5)
    }

    func testBendRangeCentsNeverSpillIntoItsSemitones() {
        let reference = pitch(after: [])
        // RPN 0: 2 semitones + 120 "cents" (FluidSynth reads the LSB as 1.20 semitones), then the
        // LSB back to 0: the range is 2 semitones again.
        let bent = pitch(after: [cc(0, .registeredParameterMSB, 0), cc(0, .registeredParameterLSB, 0),
                                 cc(0, .dataEntry, 2), cc(0, .dataEntryLSB, 120), cc(0, .dataEntryLSB, 0),
                                 .midi(.pitchBend(channel: 0, value: 16_383))])
        XCTAssertEqual(cents(bent, from: reference), 200 * 8_191 / 8_192, accuracy: 0.5)
    }

    // MARK: Pedals and mode messages

    func testSostenutoHoldsExactlyTheNotesDownWhenItWentDown() {
        let engine = engine()
        engine.send(midi: .noteOn(channel: 0, key: 60, velocity: 127))
        engine.send(cc(0, .sostenutoPedal, 127), at: 480)
        engine.send(midi: .noteOn(channel: 0, key: 72, velocity: 127), at: 960)
        engine.send(midi: .noteOff(channel: 0, key: 60, velocity: 64), at: 4_800)
        engine.send(midi: .noteOff(channel: 0, key: 72, velocity: 64), at: 4_800)
        engine.send(cc(0, .sostenutoPedal, 127), at: 9_600)  // still down: catches nothing new
        let held = left(engine, frames: 48_000)
        // Key 72 has released (0.3 s) by 0.6 s; key 60 (261.6 Hz) sounds on alone.
        let frequency = SignalAnalysis.frequency(of: held[28_800 ..< 38_400], sampleRate: rate) ?? 0
        XCTAssertEqual(cents(frequency, from: 440 * pow(2, -9.0 / 12)), 0, accuracy: 1)
        XCTAssertGreaterThan(SignalAnalysis.rms(held[28_800 ..< 38_400]), 0.1)
        engine.send(cc(0, .sostenutoPedal, 0), at: 48_000)
        XCTAssertLessThan(SignalAnalysis.largestAbs(left(engine, frames: 48_000)[24_000...]), 1e-3)
    }

    func testModeMessagesCutNotesOnlyOnTheBasicChannel() {
        let engine = engine()
        for key: UInt8 in [60, 64, 67] { engine.send(midi: .noteOn(channel: 2, key: key, velocity: 100)) }
        engine.send(midi: .noteOn(channel: 0, key: 69, velocity: 100))
        // All Notes Off on channel 2 is channel 2's; the mode messages on channels 2 and 3 (not
        // the basic channel) mean nothing.
        engine.send(cc(1, .allNotesOff, 0), at: 480)
        for channel: UInt8 in [1, 2] {
            for mode: MIDIController in [.omniOff, .omniOn, .monoOn, .polyOn] { engine.send(cc(channel, mode, 0), at: 480) }
        }
        engine.send(cc(0, .omniOn, 0), at: 480)  // channel 1, the basic channel: its note ends
        let samples = left(engine, frames: 48_000)
        // Channel 3's chord alone sounds on: C major, no A 440.
        XCTAssertGreaterThan(SignalAnalysis.rms(samples[38_400...]), 0.1)
        let chordOnly = self.engine()
        for key: UInt8 in [60, 64, 67] { chordOnly.send(midi: .noteOn(channel: 2, key: key, velocity: 100)) }
        let expected = left(chordOnly, frames: 48_000)
        XCTAssertTrue(samples[38_400...] == expected[38_400...], "channel 3's chord is not all that sounds")
    }

    // MARK: SysEx

    func renderPeak(_ body: [UInt8], bank: SampleBank = SyntheticBank.sine()) throws -> (peak: Float, summary: MIDIRenderSummary, samples: [Float]) {
        let file = try MIDIFile.parse(SMF.file(tracks: [body + SMF.noteOn(channel: 0, key: 69, velocity: 0) + SMF.endOfTrack]), name: "song.mid")
        var samples: [Float] = []
        let summary = engine(bank: bank).render(file) { samples.append(contentsOf: $0) }
        return (SignalAnalysis.largestAbs(samples[...]), summary, samples)
    }

    func testEverySystemResetRestoresFullVolume() throws {
        let note = SMF.noteOn(channel: 0, key: 69, velocity: 127) + SMF.noteOn(delta: 960, channel: 0, key: 69, velocity: 0)
        let full = try renderPeak(note).peak
        let quiet = try renderPeak([0x00, 0xB0, 7, 20] + note).peak
        XCTAssertLessThan(quiet, full / 10)
        for reset: [UInt8] in [SMF.gmSystemOn, [0xF0, 0x7E, 0x7F, 0x09, 0x03, 0xF7], [0xF0, 0x7E, 0x7F, 0x09, 0x02, 0xF7],
                               SMF.gsReset, [0xF0, 0x43, 0x10, 0x4C, 0x00, 0x00, 0x7E, 0x00, 0xF7]] {
            let restored = try renderPeak([0x00, 0xB0, 7, 20] + SMF.sysEx(reset) + note).peak
            XCTAssertEqual(restored, full, "\(reset)")
        }
    }

    func testGSRhythmPartMakesChannel11PlayTheDrumBank() throws {
        let kitsOnly = SyntheticBank.sine(presets: [(bank: 128, program: 0)])
        let note = SMF.noteOn(channel: 10, key: 69, velocity: 127) + SMF.noteOn(delta: 960, channel: 10, key: 69, velocity: 0)
        let melodic = try renderPeak(note, bank: kitsOnly)
        XCTAssertEqual(melodic.summary.statistics.unmappedNotes, 1)
        let drums = try renderPeak(SMF.sysEx(SMF.gsRhythmOnChannel11) + note, bank: kitsOnly)
        XCTAssertEqual(drums.summary.statistics.unmappedNotes, 0)
        XCTAssertGreaterThan(drums.peak, 0.1)
    }

    func testMasterVolumeAtHalfScaleIsSixDecibelsDown() throws {
        let note = SMF.noteOn(channel: 0, key: 69, velocity: 127) + SMF.noteOn(delta: 960, channel: 0, key: 69, velocity: 0)
        // Measured once the 5 ms ramp to the new volume is over.
        let full = SignalAnalysis.rms(try renderPeak(note).samples[9_600 ..< 48_000])
        let half = SignalAnalysis.rms(try renderPeak(SMF.sysEx([0xF0, 0x7F, 0x7F, 0x04, 0x01, 0x00, 0x40, 0xF7]) + note).samples[9_600 ..< 48_000])
        XCTAssertEqual(Double(20 * log10(half / full)), 20 * log10(8_192.0 / 16_383), accuracy: 0.01)
    }

    func testLiveStreamResetsAsTheFileDoes() {
        let engine = engine()
        var parser = MIDIStreamParser()
        parser.feed([0xB0, 7, 20] + SMF.gmSystemOn + [0x90, 69, 127]) { engine.send(midi: $0) }
        let live = SignalAnalysis.largestAbs(left(engine, frames: 9_600)[...])
        let reference = self.engine()
        reference.send(midi: .noteOn(channel: 0, key: 69, velocity: 127))
        XCTAssertEqual(live, SignalAnalysis.largestAbs(left(reference, frames: 9_600)[...]))
    }
}
