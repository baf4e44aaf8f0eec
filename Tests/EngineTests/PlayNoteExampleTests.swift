import AudioAnalysis
import AudioFile
import Foundation
import TestSupport
import XCTest

/// `Examples/PlayNote` is a package of its own that depends on Staccato by path, as another project
/// would, and plays a chord through the public API (`make test` builds it first). Its file holds
/// C4, E4 and G4, and no note between them.
final class PlayNoteExampleTests: XCTestCase {
    static let binary = CommandRunner.repositoryRoot.appendingPathComponent("Examples/PlayNote/.build/debug/PlayNote")

    func testTheExampleBuiltAgainstThePackageRendersItsChord() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary.path) else {
            let message = "Examples/PlayNote is not built (swift build --package-path Examples/PlayNote)"
            if ProcessInfo.processInfo.environment["STACCATO_REQUIRE_DEVICES"] != nil { return XCTFail(message) }
            throw XCTSkip(message)
        }
        let folder = try TemporaryFolder(self)
        let output = folder.file("chord.wav")
        let run = try CommandRunner.start(Self.binary, [CommandRunner.shippedSoundFont, output], timeout: 60).wait()
        XCTAssertEqual(run.exitCode, 0, run.standardError)
        XCTAssertTrue(run.standardOutput.contains("C4 E4 G4"), run.standardOutput)
        let audio = try AudioFileReader.read(output)
        XCTAssertEqual(audio.channelCount, 2)
        XCTAssertEqual(audio.frameCount, 72_000, "a second and a half at 48 kHz")

        // The spectrum of the held chord (0.2 to 0.9 s), mono, Hann-windowed, 1.5 Hz a bin.
        let size = 32_768
        let start = Int(0.2 * 48_000)
        let frame = (0..<size).map { index -> Double in
            let sample = start + min(index, Int(0.7 * 48_000))
            let mono = index < Int(0.7 * 48_000) ? Double(audio.samples[2 * sample] + audio.samples[2 * sample + 1]) / 2 : 0
            return mono * 0.5 * (1 - cos(2 * Double.pi * Double(index) / Double(size - 1)))
        }
        let power = FourierTransform(size: size).powerSpectrum(frame)
        /// The strongest bin within a semitone's fifth of `hertz`, in dB.
        func level(at hertz: Double) -> Double {
            let low = Int(hertz * 0.989 / 48_000 * Double(size)), high = Int(hertz * 1.011 / 48_000 * Double(size))
            return 10 * log10(power[low...high].max()! + 1e-30)
        }
        let chord = [261.63, 329.63, 392.00].map(level(at:))
        let others = [277.18, 293.66, 311.13, 349.23, 369.99, 415.30].map(level(at:))  // C#4 D4 D#4 F4 F#4 G#4
        print("PlayNote: C4 E4 G4 at \(chord.map { String(format: "%.1f", $0) }) dB; the notes between at most \(String(format: "%.1f", others.max()!)) dB")
        XCTAssertGreaterThan(chord.min()! - others.max()!, 20, "each chord note stands 20 dB above every note between them")
    }
}
