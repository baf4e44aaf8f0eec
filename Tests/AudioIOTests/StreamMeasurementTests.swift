import AudioIO
import Engine
import Render
import TestSupport
import XCTest

/// The stream's optional measurement records (what `staccato-bench latency` and `roundtrip` read),
/// through the paced virtual devices.
final class StreamMeasurementTests: XCTestCase {
    override func setUpWithError() throws { try TestDevices.require() }

    func testTimingRecordHoldsOrderedPeriodsUpToItsCapacity() throws {
        let engine = Engine()
        let stream = try PlaybackStream(device: "staccato_jack", configuration: StreamConfiguration(periodFrameCount: 64, timingCapacity: 100),
                                        renderer: engine.renderer)
        try stream.start(frameLimit: 64 * 200)
        XCTAssertEqual(stream.join(), .finished)
        let timings = stream.periodTimings
        XCTAssertEqual(timings.count, 100, "the record stops at its capacity; the stream plays on")
        for (previous, timing) in zip(timings, timings.dropFirst()) {
            XCTAssertLessThanOrEqual(previous.renderEnd, timing.wakeup)
        }
        for timing in timings {
            XCTAssertLessThanOrEqual(timing.wakeup, timing.renderStart)
            XCTAssertLessThanOrEqual(timing.renderStart, timing.renderEnd)
        }
    }

    func testStreamsRecordNothingUnlessAsked() throws {
        let engine = Engine()
        let stream = try PlaybackStream(device: "staccato_loop", configuration: StreamConfiguration(), renderer: engine.renderer,
                                        captureDevice: "staccato_loop")
        try stream.start(frameLimit: 4_800)
        XCTAssertEqual(stream.join(), .finished)
        XCTAssertTrue(stream.periodTimings.isEmpty)
        XCTAssertTrue(stream.capturedFrames.isEmpty)
    }

    func testDuplexCaptureRecordingKeepsTheFirstFramesReadBack() throws {
        let engine = Engine()
        engine.send(.toneOn(slot: 0, frequency: 1_000, amplitude: 0.5))
        let stream = try PlaybackStream(device: "staccato_loop", configuration: StreamConfiguration(captureRecordingFrameCount: 9_600),
                                        renderer: engine.renderer, captureDevice: "staccato_loop")
        try stream.start(frameLimit: 24_000)
        XCTAssertEqual(stream.join(), .finished)
        let captured = stream.capturedFrames
        XCTAssertEqual(captured.count, 9_600 * stream.grantedCapture!.channelCount)
        XCTAssertGreaterThan(captured.suffix(4_800).map(abs).max() ?? 0, 0.1, "the tone came back through the cable")
    }
}
