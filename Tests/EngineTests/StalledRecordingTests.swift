import AudioFile
import Engine
import Foundation
import Render
import TestSupport
import XCTest

/// A recording disk that stops taking data: the audio thread keeps rendering, drops what the
/// recording ring cannot hold (whole blocks, counted), and the file is finalised with every frame
/// accounted for.
final class StalledRecordingTests: XCTestCase {
    /// A file that hangs on its first write until `resume()`, as a disk that stalls does.
    final class StallingSink: RecordingSink, @unchecked Sendable {
        let file: AudioFileWriter
        private let gate = DispatchSemaphore(value: 0)
        private let stalled = DispatchSemaphore(value: 0)
        private var stallPending = true
        var path: String { file.path }

        init(file: AudioFileWriter) { self.file = file }

        func write(_ samples: UnsafePointer<Float>, frameCount: Int) throws(AudioFileError) {
            if stallPending {
                stallPending = false
                stalled.signal()
                gate.wait()
            }
            try file.write(samples, frameCount: frameCount)
        }

        func close() throws(AudioFileError) { try file.close() }
        /// Waits until the writer thread is stuck in a write.
        func waitUntilStalled() -> Bool { stalled.wait(timeout: .now() + 10) == .success }
        func resume() { gate.signal() }
    }

    func testAStalledDiskNeverStallsTheAudioAndEveryFrameIsAccountedFor() throws {
        let rate = 48_000, block = 64
        let folder = try TemporaryFolder(self)
        let path = folder.file("stalled.wav")
        let engine = Engine(configuration: EngineConfiguration(recordingBufferSeconds: 0.1))
        let sink = StallingSink(file: try AudioFileWriter(path: path, sampleRate: rate, channelCount: 2))
        let recorder = Recorder(tap: try XCTUnwrap(engine.outputTap), sink: sink)
        engine.send(.toneOn(slot: 0, frequency: 440, amplitude: 0.5))
        recorder.start()

        // The first block reaches the writer, which then hangs in its write.
        var renderedFrames = 0
        engine.renderOffline(frameCount: block) { _ in renderedFrames += block }
        XCTAssertTrue(sink.waitUntilStalled(), "the writer thread wrote")

        // Two seconds of audio (twenty times what the ring holds) while the disk is stuck, on a
        // thread of its own: if rendering ever waited for the disk it would not come back.
        let blocksDuringStall = 2 * rate / block
        let audioDone = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var blocksRendered = 0
        nonisolated(unsafe) let audioEngine = engine
        let audio = Thread {
            audioEngine.renderOffline(frameCount: blocksDuringStall * block) { _ in blocksRendered += 1 }
            audioDone.signal()
        }
        audio.start()
        XCTAssertEqual(audioDone.wait(timeout: .now() + 60), .success, "rendering waited for the stalled disk")
        XCTAssertEqual(blocksRendered, blocksDuringStall, "every block rendered while the disk was stalled")
        renderedFrames += blocksRendered * block
        XCTAssertEqual(recorder.writtenFrameCount, 0, "the disk was stalled throughout")
        let droppedDuringStall = recorder.droppedFrameCount
        XCTAssertGreaterThan(droppedDuringStall, rate, "more than a second could not be held")
        XCTAssertEqual(droppedDuringStall % block, 0, "whole blocks are dropped, never torn frames")

        // The disk comes back: the writer empties the ring, and with a disk that keeps up (each
        // ring's worth of audio is written before the next is rendered) nothing more is lost.
        sink.resume()
        func waitForTheWriter() {
            let deadline = Date().addingTimeInterval(20)
            while recorder.writtenFrameCount + recorder.droppedFrameCount < renderedFrames, Date() < deadline { usleep(1_000) }
        }
        waitForTheWriter()
        for _ in 0..<10 {
            engine.renderOffline(frameCount: rate / 20) { renderedFrames += $0.count / 2 }
            waitForTheWriter()
        }
        engine.send(.toneOff(slot: 0))
        engine.renderOffline(frameCount: rate / 20) { renderedFrames += $0.count / 2 }
        try recorder.finish()

        XCTAssertEqual(recorder.droppedFrameCount, droppedDuringStall, "nothing lost once the disk is back")
        XCTAssertEqual(recorder.writtenFrameCount + recorder.droppedFrameCount, renderedFrames,
                       "written + dropped = rendered")
        let recording = try AudioFileReader.read(path)
        XCTAssertEqual(recording.frameCount, recorder.writtenFrameCount, "the file is finalised with every written frame")
        print("stalled disk: rendered \(renderedFrames) frames (\(blocksRendered) blocks during the stall), wrote \(recorder.writtenFrameCount), dropped \(recorder.droppedFrameCount)")
    }
}
