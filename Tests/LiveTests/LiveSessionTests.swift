import AudioIO
import Engine
import Foundation
import Live
import MIDI
import Render
import TestSupport
import XCTest

/// `LiveSession`, the control loop every live command runs, on the null device: a song played live
/// is its offline render frame for frame, and each way a session ends (its frame limit, `stop()`,
/// an input that ends) gives its outcome.
final class LiveSessionTests: XCTestCase {
    let configuration = StreamConfiguration()

    /// Four notes of the shipped piano, a quarter note each at 120 bpm, the last held a beat longer.
    static let song: [UInt8] = SMF.file(format: 0, tracks: [
        SMF.noteOn(key: 60) + SMF.noteOn(delta: 480, key: 60, velocity: 0)
            + SMF.noteOn(key: 64) + SMF.noteOn(delta: 480, key: 64, velocity: 0)
            + SMF.noteOn(key: 67) + SMF.noteOn(delta: 480, key: 67, velocity: 0)
            + SMF.noteOn(key: 72) + SMF.noteOn(delta: 960, key: 72, velocity: 0) + SMF.endOfTrack,
    ])

    func session(pacing: PlaybackStream.NullOptions.Pacing, recordingFrameCount: Int = 0) throws -> LiveSession {
        let engine = Engine(for: configuration)
        XCTAssertTrue(engine.install(try InstrumentLoader.load(path: CommandRunner.shippedSoundFont, sampleRate: Double(configuration.sampleRate))))
        let stream = try PlaybackStream(null: PlaybackStream.NullOptions(pacing: pacing, outputRecordingFrameCount: recordingFrameCount),
                                        configuration: configuration, renderer: engine.renderer)
        return LiveSession(engine: engine, stream: stream, wakeMicroseconds: 1_000)
    }

    func testASongPlayedLiveIsItsOfflineRenderFrameForFrame() throws {
        let song = try MIDIFile.parse(Self.song, name: "four-notes.mid")
        let rate = Double(configuration.sampleRate)
        let bank = try InstrumentLoader.load(path: CommandRunner.shippedSoundFont, sampleRate: rate)
        let offline = try SongRenderer(configuration: RenderConfiguration(sampleRate: rate), options: MIDIRenderOptions(), bank: bank,
                                       kitPath: nil, kits: DrumKitShelf(sampleRate: rate), warning: { _ in })
            .render(song, from: "four-notes.mid").samples

        let session = try session(pacing: .realtime, recordingFrameCount: 10 * configuration.sampleRate)
        let sequencer = session.sequencer(for: song)
        session.cue(sequencer)
        try session.stream.start()
        var progressCalls = 0
        let outcome = session.play(sequencer, progress: { _ in progressCalls += 1 })
        XCTAssertEqual(outcome, .stopped(signal: nil), "a song's end stops the session")
        XCTAssertEqual(outcome.exitCode, 0)
        XCTAssertGreaterThan(progressCalls, 0)

        let recorded = session.stream.recordedOutput
        let start = Int(sequencer.startFrame) * configuration.channelCount
        XCTAssertGreaterThanOrEqual(recorded.count, start + offline.count, "the session played the whole song and its tail")
        XCTAssertTrue(recorded[..<start].allSatisfy { $0 == 0 }, "silence before the song's start frame")
        let live = Array(recorded[start..<min(recorded.count, start + offline.count)])
        XCTAssertEqual(live.count, offline.count)
        let firstDifference = live.indices.first { live[$0] != offline[$0] }
        XCTAssertNil(firstDifference, "live and offline differ from sample \(firstDifference ?? -1)")
    }

    func testAFrameLimitFinishesTheSession() throws {
        let session = try session(pacing: .freeRunning)
        try session.stream.start(frameLimit: 9_600)
        XCTAssertEqual(session.run(), .finished)
        XCTAssertGreaterThanOrEqual(session.stream.framesWritten, 9_600)
    }

    func testStopEndsTheSessionWithoutASignal() throws {
        let session = try session(pacing: .realtime)
        try session.stream.start()
        var wakes = 0
        let outcome = session.run { session in
            wakes += 1
            if wakes == 5 { session.stop() }
        }
        XCTAssertEqual(outcome, .stopped(signal: nil))
        XCTAssertEqual(outcome.exitCode, 0)
        XCTAssertGreaterThanOrEqual(wakes, 5)
        XCTAssertGreaterThan(session.stream.framesWritten, 0)
    }

    /// An input that ends (a pipe, a MIDI source) rings out for `ringOutSeconds`, then stops: a held
    /// note is heard fading, not cut at the input's end.
    func testAnInputThatEndsRingsOutThenStops() throws {
        let session = try session(pacing: .realtime)
        try session.stream.start()
        var endedAt: Double?
        let outcome = session.run { session in
            if endedAt == nil {
                XCTAssertTrue(session.engine.send(midi: .noteOn(channel: 0, key: 60, velocity: 100)))
                session.inputEnded()
                endedAt = MonotonicClock.seconds()
            }
        }
        let ringOut = MonotonicClock.seconds() - (endedAt ?? 0)
        XCTAssertEqual(outcome, .stopped(signal: nil))
        XCTAssertTrue(session.hasInputEnded)
        XCTAssertGreaterThanOrEqual(ringOut, LiveSession.ringOutSeconds, "the session rang out before it stopped")
        XCTAssertLessThan(ringOut, 30, "the session stopped after ringing out")
        XCTAssertGreaterThan(session.engine.renderer.statistics.noteOns, 0)
    }
}
