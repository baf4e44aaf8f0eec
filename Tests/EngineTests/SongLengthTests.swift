import DrumKitLoader
import Engine
import MIDI
import Render
import TestSupport
import XCTest

/// How long an offline render of a MIDI file runs: to the song's end, which is its last
/// end-of-track, not its last note.
final class SongLengthTests: XCTestCase {
    let rate = 48_000.0

    func render(_ track: [UInt8]) throws -> MIDIRenderSummary {
        let file = try MIDIFile.parse(SMF.file(tracks: [track]), name: "song.mid")
        let engine = Engine(configuration: EngineConfiguration(render: RenderConfiguration(sampleRate: rate, outputLimiter: false)))
        XCTAssertTrue(engine.install(SyntheticBank.sine()))
        return engine.render(file) { _ in }
    }

    /// A quarter-second note, then silence to an end-of-track at 5 s (480 ticks a quarter note at
    /// 120 bpm: 960 ticks a second). FluidSynth plays such a file for its whole five seconds, and a
    /// channel rendered solo lasts as long as the song, whenever its last note falls: RMS levels of
    /// the two then measure the same stretch of time.
    func testRenderRunsToTheLastEndOfTrackNotTheLastNote() throws {
        let note = SMF.noteOn(channel: 0, key: 69, velocity: 100) + SMF.noteOn(delta: 240, channel: 0, key: 69, velocity: 0)
        let endAtFiveSeconds = SMF.vlq(4_800 - 240) + [0xFF, 0x2F, 0x00]
        let summary = try render(note + endAtFiveSeconds)
        // The render stops at the first block past the end (64-frame blocks), every voice ended.
        XCTAssertGreaterThanOrEqual(summary.frameCount, 5 * 48_000)
        XCTAssertLessThanOrEqual(summary.frameCount, 5 * 48_000 + 64)
        XCTAssertEqual(summary.statistics.noteOns, 1)
    }

    /// A crash cymbal struck under a short note rings 8.5 s; its last second is quieter than the
    /// −80 dB a reverb tail is taken to have ended at. The render runs until the cymbal's voice has
    /// played its sample to the end, not to the first quiet block: the file holds the whole decay,
    /// not a tail cut off with a step.
    func testARenderHoldsTheDrumKitsWholeDecay() throws {
        let kit = try DrumKitLoader.load(manifest: CommandRunner.repositoryRoot.appendingPathComponent("samples/drums/kit.json").path,
                                         sampleRate: rate)
        let crash = try XCTUnwrap(kit.padNotes.firstIndex(of: 49))
        let decayFrames = kit.pads[Int(kit.padForNote[49])].frameCount
        XCTAssertEqual(kit.padNames[crash], "crash")
        XCTAssertGreaterThan(decayFrames, 8 * 48_000, "the shipped crash rings over 8 s")
        let hit = SMF.noteOn(channel: 9, key: 49, velocity: 127) + SMF.noteOn(delta: 48, channel: 9, key: 49, velocity: 0)
        let file = try MIDIFile.parse(SMF.file(tracks: [hit + SMF.endOfTrack]), name: "crash.mid")
        let engine = Engine(configuration: EngineConfiguration(render: RenderConfiguration(sampleRate: rate, outputLimiter: false)))
        XCTAssertTrue(engine.install(SyntheticBank.sine()))
        XCTAssertTrue(engine.install(kit))
        var last: [Float] = []
        let summary = engine.render(file) { last = Array($0) }
        XCTAssertEqual(summary.statistics.drumHits, 1)
        XCTAssertGreaterThanOrEqual(summary.frameCount, decayFrames, "the render ends after the cymbal's decay")
        XCTAssertLessThanOrEqual(summary.frameCount, decayFrames + 48_000, "and not long after it")
        XCTAssertEqual(summary.statistics.activeDrumVoices, 0)
        XCTAssertLessThan(last.map(abs).max() ?? 1, MIDIRenderOptions.tailFloor, "the last block is silent")
    }
}
