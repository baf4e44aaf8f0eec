import AudioFile
import Foundation
import TestSupport
import XCTest

/// The shipped piano written as SFZ (samples/piano: nine velocity layers of stereo key zones over
/// the samples of the shipped SF2's Yamaha Grand) renders through `staccato render` as the font's
/// own preset does: the same instrument described twice must sound the same.
final class SFZPianoCommandTests: XCTestCase {
    func testThePianoAsSFZSoundsAsTheFontsPreset() throws {
        guard FileManager.default.isExecutableFile(atPath: CommandRunner.staccatoExecutable.path) else {
            XCTFail("build the staccato executable first (swift build)")
            throw XCTSkip("no staccato executable")
        }
        let folder = try TemporaryFolder(self)
        let piano = CommandRunner.repositoryRoot.appendingPathComponent("samples/piano").path
        // The samples come out of the font; the instrument written beside them is the one committed.
        let made = try CommandRunner.shell("python3 '\(piano)/make-piano.py' '\(folder.path)'", timeout: 120)
        XCTAssertEqual(made.exitCode, 0, made.standardError)
        for file in ["piano.sfz", "zones.sfz"] {
            XCTAssertEqual(try String(contentsOfFile: folder.file(file), encoding: .utf8),
                           try String(contentsOfFile: piano + "/" + file, encoding: .utf8), "\(file) as committed")
        }
        let song = CommandRunner.repositoryRoot.appendingPathComponent("samples/midi/mozart_turkish_march.mid").path
        func render(_ instrument: String, _ extra: [String], to name: String) throws -> [Float] {
            let result = try CommandRunner.staccato(["render", song, "--out", folder.file(name), "--soundfont", instrument,
                                                     "--no-effects", "--gain", "0"] + extra, timeout: 300)
            XCTAssertEqual(result.exitCode, 0, result.standardError)
            XCTAssertFalse(result.standardError.contains("warning"), result.standardError)
            return SignalAnalysis.channel(0, of: try AudioFileReader.read(folder.file(name)).samples, channelCount: 2)
        }
        let font = try render(CommandRunner.shippedSoundFont, ["--program", "0"], to: "font.wav")
        let sfz = try render(folder.file("piano.sfz"), [], to: "sfz.wav")
        XCTAssertEqual(font.count, sfz.count)
        // The SFZ's samples are converted to the output rate when loaded, the font's read at their
        // own 32 kHz: the two interpolate differently, a hair apart, and no more.
        var sumFF = 0.0, sumSS = 0.0, sumFS = 0.0
        for (f, s) in zip(font, sfz) { sumFF += Double(f * f); sumSS += Double(s * s); sumFS += Double(f * s) }
        let correlation = sumFS / (sumFF * sumSS).squareRoot()
        var differences: [Double] = []
        let window = 2_400
        for start in stride(from: 0, to: min(font.count, sfz.count) - window, by: window) {
            let f = SignalAnalysis.rms(font[start ..< start + window]), s = SignalAnalysis.rms(sfz[start ..< start + window])
            if f > 1e-3 { differences.append(abs(20 * log10(Double(s / f)))) }
        }
        print("piano as SFZ against the font's preset: correlation \(correlation), largest 50 ms level difference \(differences.max() ?? 0) dB over \(differences.count) windows")
        XCTAssertGreaterThan(correlation, 0.9999)
        XCTAssertGreaterThan(differences.count, 500)
        XCTAssertLessThan(differences.max() ?? 1, 0.1)
    }
}
