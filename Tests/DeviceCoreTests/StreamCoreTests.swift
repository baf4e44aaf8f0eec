import AudioIO
import DeviceCore
import Engine
import Render
import XCTest

/// The stream core through the null backend: what every backend shares (the frames a period makes,
/// the frame limit, the stop, the counters and the records), with no device or server at all.
final class StreamCoreTests: XCTestCase {
    /// An engine playing a chord of tones from frame 0, a note of it stopping at `stopFrame`.
    static func engine(period: Int = 64, stopFrame: FrameTime = 3_000) -> Engine {
        let engine = Engine(configuration: EngineConfiguration(render: RenderConfiguration(maxFrameCount: max(4_096, period))))
        engine.send(.toneOn(slot: 0, frequency: 440, amplitude: 0.4), at: 0)
        engine.send(.toneOn(slot: 1, frequency: 660, amplitude: 0.3), at: 700)
        engine.send(.toneOff(slot: 1), at: stopFrame)
        return engine
    }

    func null(_ engine: Engine, period: Int = 64, pacing: PlaybackStream.NullOptions.Pacing = .freeRunning,
              recordFrames: Int = 20_000, timing: Int = 0, input: [Float] = [], inputChannels: Int = 0,
              captureRecordingFrames: Int = 0) throws -> PlaybackStream {
        try PlaybackStream(null: PlaybackStream.NullOptions(pacing: pacing, inputChannelCount: inputChannels, input: input,
                                                            outputRecordingFrameCount: recordFrames),
                           configuration: StreamConfiguration(periodFrameCount: period, timingCapacity: timing,
                                                              captureRecordingFrameCount: captureRecordingFrames),
                           renderer: engine.renderer)
    }

    func testNullStreamPlaysTheOfflineRendersFramesForAnyPeriod() throws {
        let frameCount = 10_000
        let offline = Self.engine().renderOffline(frameCount: frameCount)
        for period in [64, 100, 256, 17] {
            let stream = try null(Self.engine(period: period), period: period)
            try stream.start(frameLimit: frameCount)
            XCTAssertEqual(stream.join(), .finished)
            XCTAssertEqual(stream.framesWritten, frameCount, "period \(period): the limit is exact")
            let played = stream.recordedOutput
            XCTAssertEqual(Array(played.prefix(frameCount * 2)), offline, "period \(period): the offline render's frames, bit for bit")
            XCTAssertTrue(played.dropFirst(frameCount * 2).allSatisfy { $0 == 0 }, "silence past the limit")
        }
    }

    func testStopEndsTheStreamWithSilenceAndSaysStopped() throws {
        let stream = try null(Self.engine(), pacing: .realtime, recordFrames: 96_000)
        try stream.start()
        usleep(150_000)
        stream.stop()
        XCTAssertEqual(stream.join(), .stopped)
        let written = stream.framesWritten
        XCTAssertGreaterThan(written, 2_400, "played for a while in real time")
        let played = stream.recordedOutput
        XCTAssertTrue(played.dropFirst(written * 2).allSatisfy { $0 == 0 }, "the period that saw the stop is silence")
        XCTAssertTrue(stream.isDone)
    }

    func testRealtimePacingKeepsToTheClock() throws {
        let stream = try null(Self.engine(), pacing: .realtime, recordFrames: 0)
        try stream.start(frameLimit: 9_600)  // 0.2 s
        XCTAssertEqual(stream.join(), .finished)
        XCTAssertEqual(stream.elapsedSeconds, 0.2, accuracy: 0.1)
    }

    func testRecordsAreKeptUpToTheirCapacityAndReadableOnceDone() throws {
        let input = (0..<2_000).map { Float($0 % 100) / 100 }  // mono, looped
        let stream = try null(Self.engine(), timing: 10, input: input, inputChannels: 1, captureRecordingFrames: 3_000)
        try stream.start(frameLimit: 64 * 50)
        XCTAssertEqual(stream.join(), .finished)
        let timings = stream.periodTimings
        XCTAssertEqual(timings.count, 10, "the timing record stops at its capacity")
        for timing in timings {
            XCTAssertLessThanOrEqual(timing.wakeup, timing.renderStart)
            XCTAssertLessThanOrEqual(timing.renderStart, timing.renderEnd)
        }
        let captured = stream.capturedFrames
        XCTAssertEqual(captured.count, 3_000)
        XCTAssertEqual(Array(captured.prefix(2_000)), input, "the input as the callback took it")
        XCTAssertEqual(Array(captured[2_000..<3_000]), Array(input.prefix(1_000)), "looped")
    }

    func testTheMicrophoneJoinsTheMixAsOfflineRenderingWithItWould() throws {
        // The same input block through the stream's callback and straight into a renderer.
        let input = (0..<6_400).map { sin(Float($0) * 0.05) * 0.25 }
        let stream = try null(Self.engine(), recordFrames: 6_400, input: input, inputChannels: 1)
        try stream.start(frameLimit: 6_400)
        XCTAssertEqual(stream.join(), .finished)

        let engine = Self.engine()
        var expected = [Float](repeating: 0, count: 6_400 * 2)
        input.withUnsafeBufferPointer { source in
            expected.withUnsafeMutableBufferPointer { output in
                for start in stride(from: 0, to: 6_400, by: 64) {
                    engine.renderer.render(input: source.baseAddress! + start, inputChannelCount: 1,
                                           into: output.baseAddress! + start * 2, frameCount: 64)
                }
            }
        }
        XCTAssertEqual(stream.recordedOutput, expected)
    }
}
