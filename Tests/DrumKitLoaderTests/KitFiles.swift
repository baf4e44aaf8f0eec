import AudioFile
import Foundation
import TestSupport

/// Kits written by the tests into a `TemporaryFolder`: the manifest and the pads' audio.
extension TemporaryFolder {
    /// The manifest's path.
    var manifest: String { file("kit.json") }

    /// Writes `kit.json`.
    func writeManifest(_ text: String) throws {
        try writeText("kit.json", text)
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
