import AudioFile
import Engine
import Foundation
import Glibc
import Render
import TestSupport
import XCTest

/// A recording disk that fills up: the recorder stops, says the disk is full with the frames it
/// saved, and the file is finalised with them (a slow disk is StalledRecordingTests).
final class FullDiskRecordingTests: XCTestCase {
    /// A file on a disk with room for `capacity` frames: the write that would pass it fails with
    /// ENOSPC, as `write(2)` does on a full file system.
    final class FullDiskSink: RecordingSink, @unchecked Sendable {
        let file: AudioFileWriter
        let capacity: Int
        var path: String { file.path }

        init(file: AudioFileWriter, capacity: Int) {
            self.file = file
            self.capacity = capacity
        }

        func write(_ samples: UnsafePointer<Float>, frameCount: Int) throws(AudioFileError) {
            guard file.frameCount + frameCount <= capacity else {
                throw AudioFileError(path: path, reason: "write failed: System error : No space left on device.", systemErrorCode: ENOSPC)
            }
            try file.write(samples, frameCount: frameCount)
        }

        func close() throws(AudioFileError) { try file.close() }
    }

    func testAFullDiskStopsTheRecordingSaysSoAndFinalisesTheFile() throws {
        let rate = 48_000, block = 64
        let folder = try TemporaryFolder(self)
        let path = folder.file("full.wav")
        let engine = Engine(configuration: EngineConfiguration(recordingBufferSeconds: 0.1))
        let sink = FullDiskSink(file: try AudioFileWriter(path: path, sampleRate: rate, channelCount: 2), capacity: rate / 2)
        let recorder = Recorder(tap: try XCTUnwrap(engine.outputTap), sink: sink)
        engine.send(.toneOn(slot: 0, frequency: 440, amplitude: 0.5))
        recorder.start()
        // A second of audio, in pieces the writer keeps up with, until it has failed.
        for _ in 0..<20 where !recorder.hasFailed {
            engine.renderOffline(frameCount: rate / 20, blockFrameCount: block) { _ in }
            usleep(20_000)
        }
        let deadline = Date().addingTimeInterval(10)
        while !recorder.hasFailed, Date() < deadline { usleep(1_000) }
        XCTAssertTrue(recorder.hasFailed, "the failed write is reported while recording")

        XCTAssertThrowsError(try recorder.finish()) { error in
            let saved = recorder.writtenFrameCount
            XCTAssertEqual((error as? AudioFileError)?.isDiskFull, true, "\(error)")
            XCTAssertEqual("\(error)", "\(path): the disk is full: recording stopped; the file is finalised with the \(saved) frames saved before it")
        }
        let saved = recorder.writtenFrameCount
        XCTAssertGreaterThan(saved, 0)
        XCTAssertLessThanOrEqual(saved, rate / 2)
        let file = try AudioFileReader.read(path)
        XCTAssertEqual(file.frameCount, saved, "the file is finalised with every frame saved")
    }
}
