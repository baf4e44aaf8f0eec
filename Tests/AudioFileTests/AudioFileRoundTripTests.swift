import AudioFile
import Foundation
import TestSupport
import XCTest

/// Sound files through libsndfile: what is written reads back (every format the writer takes, by
/// extension), ranges and headers read alone, and every failure is one `AudioFileError` naming the
/// file.
final class AudioFileRoundTripTests: XCTestCase {
    /// Two channels of a ramp and its negative, 0.1 s at 44.1 kHz.
    let frames: [Float] = (0..<4_410).flatMap { frame in
        let value = Float(frame % 441) / 441 - 0.5
        return [value, -value]
    }

    func testEveryWritableFormatReadsBackAsWritten() throws {
        let folder = try TemporaryFolder(self)
        // MP3, the fourth format, is lossy with an encoder delay: its round trip is the encoder's.
        for name in ["take.wav", "take.flac", "take.ogg"] {
            let path = folder.file(name)
            let format = try XCTUnwrap(AudioFileFormat(path: path), name)
            let writer = try AudioFileWriter(path: path, sampleRate: 44_100, channelCount: 2, format: format)
            try writer.write(frames)
            try writer.close()
            XCTAssertEqual(writer.frameCount, 4_410, name)
            let header = try AudioFileReader.header(path)
            XCTAssertEqual(header.sampleRate, 44_100, name)
            XCTAssertEqual(header.channelCount, 2, name)
            let decoded = try AudioFileReader.read(path)
            XCTAssertEqual(decoded.channelCount, 2, name)
            // Ogg Vorbis is lossy and may pad its last page; the others keep every frame.
            if name.hasSuffix(".ogg") {
                XCTAssertGreaterThanOrEqual(decoded.frameCount, 4_410, name)
                let left = stride(from: 0, to: frames.count, by: 2).map { frames[$0] }
                XCTAssertEqual(SignalAnalysis.rms(decoded.channel(0)[1_000..<3_000]), SignalAnalysis.rms(left[1_000..<3_000]), accuracy: 0.02, name)
            } else {
                XCTAssertEqual(decoded.frameCount, 4_410, name)
                // 16- or 24-bit storage: within a step of the quantisation.
                let worst = zip(decoded.samples, frames).map { abs($0 - $1) }.max() ?? 1
                XCTAssertLessThan(worst, 1.0 / 30_000, name)
            }
        }
    }

    func testARangeReadsJustThoseFrames() throws {
        let folder = try TemporaryFolder(self)
        let path = folder.file("range.wav")
        let writer = try AudioFileWriter(path: path, sampleRate: 44_100, channelCount: 2)
        try writer.write(frames)
        try writer.close()
        let whole = try AudioFileReader.read(path)
        let part = try AudioFileReader.readRange(path, frames: 1_000..<1_100)
        XCTAssertEqual(part.frameCount, 100)
        XCTAssertEqual(part.samples, Array(whole.samples[2_000..<2_200]))
    }

    func testFailuresNameTheFile() throws {
        let folder = try TemporaryFolder(self)
        XCTAssertThrowsError(try AudioFileReader.read(folder.file("absent.wav"))) { error in
            let text = String(describing: error)
            XCTAssertTrue(text.hasPrefix(folder.file("absent.wav") + ": "), text)
        }
        let garbage = folder.file("noise.wav")
        XCTAssertTrue(FileManager.default.createFile(atPath: garbage, contents: Data(repeating: 0x5A, count: 512)))
        XCTAssertThrowsError(try AudioFileReader.read(garbage)) { error in
            XCTAssertTrue(String(describing: error).hasPrefix(garbage + ": "), String(describing: error))
        }
        XCTAssertNil(AudioFileFormat(path: folder.file("take.xyz")), "an extension no format has")
        XCTAssertThrowsError(try AudioFileWriter(path: folder.file("missing-folder/take.wav"), sampleRate: 48_000, channelCount: 1)) { error in
            XCTAssertTrue(String(describing: error).contains("missing-folder/take.wav"), String(describing: error))
        }
    }
}
