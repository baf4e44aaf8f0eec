import AudioFile
import Foundation
import XCTest

/// A fresh folder under the system temporary directory, removed when the test ends, for kits
/// written by the tests themselves (no binary fixtures to keep in the repository).
final class KitFolder {
    let path: String

    init(_ test: XCTestCase) throws {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("DrumKitLoaderTests-\(UUID().uuidString)", isDirectory: true).path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        test.addTeardownBlock { [path] in try? FileManager.default.removeItem(atPath: path) }
    }

    func file(_ name: String) -> String { path + "/" + name }

    /// The manifest's path.
    var manifest: String { file("kit.json") }

    /// Writes `kit.json`.
    func writeManifest(_ text: String) throws {
        try writeBytes("kit.json", Array(text.utf8))
    }

    func writeBytes(_ name: String, _ bytes: [UInt8]) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: file(name)))
    }

    /// Writes interleaved `samples` (float WAV for `.wav`, so any value survives).
    func writeAudio(_ name: String, sampleRate: Int = 48_000, channelCount: Int = 1, _ samples: [Float]) throws {
        let writer = try AudioFileWriter(path: file(name), sampleRate: sampleRate, channelCount: channelCount)
        try writer.write(samples)
        try writer.close()
    }

    /// A 50 ms decaying 200 Hz burst, like a small drum.
    func writeHit(_ name: String, sampleRate: Int = 48_000) throws {
        try writeAudio(name, sampleRate: sampleRate, hit(sampleRate: Double(sampleRate)))
    }
}

/// A 50 ms decaying 200 Hz burst at `sampleRate`.
func hit(sampleRate: Double, seconds: Double = 0.05) -> [Float] {
    (0..<Int(seconds * sampleRate)).map {
        let time = Double($0) / sampleRate
        return Float(0.8 * exp(-time * 60) * sin(2 * Double.pi * 200 * time))
    }
}
