import AudioFile
import Foundation
import TestSupport
import XCTest

/// The instruments shipped as SFZ over the shipped samples render through `staccato render` as
/// their other descriptions do: the piano (samples/piano: nine velocity layers of stereo key zones
/// over the samples of the shipped SF2's Yamaha Grand) as the font's own preset, the drum kit
/// (samples/drums/kit.sfz) as the JSON kit. The same instrument described twice must sound the same.
final class ShippedSFZCommandTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: CommandRunner.staccatoExecutable.path) else {
            XCTFail("build the staccato executable first (swift build)")
            throw XCTSkip("no staccato executable")
        }
        folder = try TemporaryFolder(self)
    }

    func testThePianoAsSFZSoundsAsTheFontsPreset() throws {
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

    /// A Standard MIDI File (format 0, 480 ticks a quarter at 120 bpm: 960 ticks a second) of
    /// `notes` on `channel`, one every 0.3 s, each released 50 ms later.
    func drumSong(_ notes: [(key: UInt8, velocity: UInt8)], channel: UInt8) -> Data {
        var track: [UInt8] = []
        for (index, note) in notes.enumerated() {
            track += SMF.noteOn(delta: index == 0 ? 0 : 288 - 48, channel: channel, key: note.key, velocity: note.velocity)
            track += SMF.vlq(48) + [0x80 | channel, note.key, 0]
        }
        track += SMF.vlq(960) + [0xFF, 0x2F, 0x00]
        return Data(SMF.file(format: 0, division: 480, tracks: [track]))
    }

    func testTheDrumKitAsSFZSoundsAsTheJSONKit() throws {
        let drums = CommandRunner.repositoryRoot.appendingPathComponent("samples/drums").path
        // kick, snare, closed hat, open hat, closed hat (choking it), low tom, crash; loud and soft.
        let notes: [(key: UInt8, velocity: UInt8)] = [(36, 127), (38, 100), (42, 127), (46, 90), (42, 64), (45, 127), (49, 110), (36, 40)]
        // Channel 10 plays a JSON kit (--kit); an SFZ plays on the melodic channels, here channel 1.
        try drumSong(notes, channel: 9).write(to: URL(fileURLWithPath: folder.file("kit-channel.mid")))
        try drumSong(notes, channel: 0).write(to: URL(fileURLWithPath: folder.file("sfz-channel.mid")))
        func render(_ song: String, _ instrument: [String], to name: String) throws -> (left: [Float], right: [Float]) {
            let result = try CommandRunner.staccato(["render", folder.file(song), "--out", folder.file(name), "--no-effects", "--gain", "0",
                                                     "--min-note-length", "0"] + instrument, timeout: 120)
            XCTAssertEqual(result.exitCode, 0, result.standardError)
            let samples = try AudioFileReader.read(folder.file(name)).samples
            return (SignalAnalysis.channel(0, of: samples, channelCount: 2), SignalAnalysis.channel(1, of: samples, channelCount: 2))
        }
        let json = try render("kit-channel.mid", ["--soundfont", CommandRunner.shippedSoundFont, "--kit", drums + "/kit.json"], to: "json.wav")
        let sfz = try render("sfz-channel.mid", ["--soundfont", drums + "/kit.sfz"], to: "sfz.wav")
        var report: [String] = []
        for (index, note) in notes.enumerated() {
            // Each hit's first 100 ms, and (for the choked open hat) what rings after the choke.
            let start = index * 14_400
            for (name, range) in [("hit", start ..< start + 4_800), ("after", start + 9_600 ..< start + 14_400)] {
                let levels = [json.left, json.right, sfz.left, sfz.right].map { SignalAnalysis.rms($0[range]) }
                report.append("\(note.key)/\(note.velocity) \(name): JSON \(levels[0]), \(levels[1]); SFZ \(levels[2]), \(levels[3])")
                for side in 0..<2 where levels[side] > 1e-3 {
                    XCTAssertEqual(20 * log10(Double(levels[side + 2] / levels[side])), 0, accuracy: 0.2,
                                   "key \(note.key) velocity \(note.velocity) \(name), channel \(side)")
                }
            }
        }
        print("shipped kit through staccato render, JSON vs SFZ:\n" + report.joined(separator: "\n"))
    }
}
