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
}
