import AudioFile
import Foundation
import TestSupport
import XCTest

/// `render` and `play` never go silent without a word: presets the font lacks fall back, with one
/// warning line; a silent render of notes fails; a damaged MIDI file plays what was read, with one
/// warning line, or is refused; what is not a file is refused before it is opened.
final class SongWarningCommandTests: XCTestCase {
    var folder: TemporaryFolder!
    let gmFont = CommandRunner.repositoryRoot.appendingPathComponent("soundfonts/sf_GMbank_piano_xylo_drums.sf2").path
    let fontWithoutKit = CommandRunner.repositoryRoot.appendingPathComponent("soundfonts/FluidR3_GM_piano_xylo.sf2").path

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: CommandRunner.staccatoExecutable.path) else {
            XCTFail("build the staccato executable first (swift build)")
            throw XCTSkip("no staccato executable")
        }
        folder = try TemporaryFolder(self)
    }

    /// A one-track song: `events` then a second of silence.
    func writeSong(_ name: String, _ events: [UInt8]) throws -> String {
        try folder.writeBytes(name, SMF.file(format: 0, tracks: [events + SMF.vlq(960) + [0xFF, 0x2F, 0x00]]))
        return folder.file(name)
    }

    func programChange(channel: UInt8, _ program: UInt8) -> [UInt8] { [0x00, 0xC0 | channel, program] }

    func render(_ song: String, _ extra: [String] = []) throws -> (CommandRunner.Result, Float) {
        let out = folder.file("out.wav")
        unlink(out)
        let result = try CommandRunner.staccato(["render", song, "--out", out] + extra, timeout: 60)
        XCTAssertFalse(result.timedOut)
        let peak = (try? AudioFileReader.read(out)).map { SignalAnalysis.largestAbs($0.samples[...]) } ?? 0
        return (result, peak)
    }

    func testAProgramTheFontLacksPlaysThePianoWithOneWarningLine() throws {
        let song = try writeSong("violin.mid", programChange(channel: 2, 40) + SMF.noteOn(channel: 2, key: 69))
        let (result, peak) = try render(song, ["--soundfont", gmFont])
        XCTAssertEqual(result.exitCode, 0, result.standardError)
        XCTAssertEqual(result.errorLines, ["staccato: warning: sf_GMbank_piano_xylo_drums.sf2 has no preset for channel 3 program 40 "
                                             + "(Violin): played with bank 0 program 0 (Acoustic Grand Piano)"])
        XCTAssertGreaterThan(peak, 0.01, "the fallback plays, not silence")
    }

    func testTheDrumChannelAskingForKitNinePlaysKitZero() throws {
        let song = try writeSong("room.mid", programChange(channel: 9, 9) + SMF.noteOn(channel: 9, key: 36))
        let (result, peak) = try render(song, ["--soundfont", gmFont])
        XCTAssertEqual(result.exitCode, 0, result.standardError)
        XCTAssertEqual(result.errorLines, ["staccato: warning: sf_GMbank_piano_xylo_drums.sf2 has no preset for channel 10 drum kit 128:9: played with 128:0"])
        XCTAssertGreaterThan(peak, 0.01)
    }

    func testAFontWithoutAKitPlaysTheDrumChannelFromTheShippedKit() throws {
        let song = try writeSong("drums.mid", SMF.noteOn(channel: 9, key: 36))
        let (result, peak) = try render(song, ["--soundfont", fontWithoutKit])
        XCTAssertEqual(result.exitCode, 0, result.standardError)
        let lines = result.errorLines
        XCTAssertEqual(lines.count, 1, result.standardError)
        XCTAssertTrue(lines[0].hasPrefix("staccato: warning: FluidR3_GM_piano_xylo.sf2 has no preset for channel 10 drums: played with the kit "), lines[0])
        XCTAssertTrue(lines[0].hasSuffix("samples/drums/kit.json"), lines[0])
        XCTAssertTrue(result.standardOutput.contains("drum hits 1,"), result.standardOutput)
        XCTAssertGreaterThan(peak, 0, "the kit sounds")
        // A kit given on the command line plays it, and nothing is missing.
        let kit = CommandRunner.repositoryRoot.appendingPathComponent("samples/drums/kit.json").path
        let (withKit, _) = try render(song, ["--soundfont", fontWithoutKit, "--kit", kit])
        XCTAssertEqual(withKit.exitCode, 0, withKit.standardError)
        XCTAssertEqual(withKit.standardError, "")
    }

    func testARenderOfNotesThatIsAllSilenceExitsOneWithOneLine() throws {
        // Key 0 on the drum channel: the GM kit has no sound there.
        let song = try writeSong("nothing.mid", SMF.noteOn(channel: 9, key: 0))
        let (result, peak) = try render(song, ["--soundfont", gmFont])
        XCTAssertEqual(result.exitCode, 1, result.standardOutput)
        XCTAssertEqual(peak, 0)
        XCTAssertEqual(result.errorLines.count, 1, result.standardError)
        XCTAssertTrue(result.standardError.hasPrefix("staccato: \(song): 1 note, but nothing sounded in "), result.standardError)
        XCTAssertTrue(result.standardError.contains("1 found no preset or no key range in sf_GMbank_piano_xylo_drums.sf2"), result.standardError)
    }

    /// The fixture cut at many points: each cut either renders what was read with one warning line
    /// naming the track and the byte, or exits 1 with one line; never a silent success.
    func testATruncatedMIDIFileWarnsAndPlaysWhatWasReadOrIsRefused() throws {
        let fixture = CommandRunner.repositoryRoot.appendingPathComponent("Tests/Fixtures/midi/timidity_test_sample_drums.mid")
        let bytes = try [UInt8](Data(contentsOf: fixture))
        var warned = 0
        var refused = 0
        for length in stride(from: 10, to: bytes.count, by: bytes.count / 12) {
            try folder.writeBytes("cut.mid", Array(bytes.prefix(length)))
            let (result, peak) = try render(folder.file("cut.mid"), ["--soundfont", gmFont])
            let lines = result.errorLines
            if result.exitCode == 0 {
                warned += 1
                XCTAssertEqual(lines.filter { $0.contains("cut.mid") }.count, 1, "cut at \(length): \(result.standardError)")
                XCTAssertTrue(lines[0].hasPrefix("staccato: warning: cut.mid: "), lines[0])
                XCTAssertTrue(lines[0].contains("track ") && lines[0].contains("byte \(length)"), lines[0])
                XCTAssertTrue(lines[0].hasSuffix("; playing what was read"), lines[0])
                XCTAssertGreaterThan(peak, 0, "cut at \(length)")
            } else {
                refused += 1
                XCTAssertEqual(result.exitCode, 1, "cut at \(length): \(result.standardError)")
                XCTAssertEqual(lines.count, 1, "cut at \(length): \(result.standardError)")
                XCTAssertTrue(lines[0].hasPrefix("staccato: cut.mid: "), lines[0])
            }
        }
        XCTAssertGreaterThan(warned, 6, "most cuts leave notes to play")
        XCTAssertGreaterThan(refused, 0, "a cut in the header leaves nothing")
    }

    func testFIFOsAndDirectoriesAreRefusedInOneLine() throws {
        let fifo = folder.file("fifo")
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let song = try writeSong("song.mid", SMF.noteOn())
        let kit = CommandRunner.repositoryRoot.appendingPathComponent("samples/drums/kit.json").path
        let cases: [(arguments: [String], expected: String)] = [
            (["render", song, "--soundfont", fifo, "--out", folder.file("a.wav")], "staccato: \(fifo): is a FIFO, not a regular file"),
            (["render", song, "--kit", fifo, "--out", folder.file("a.wav")], "staccato: \(fifo): is a FIFO, not a regular file"),
            (["render", song, "--kit", folder.path, "--out", folder.file("a.wav")], "\(folder.path): is a directory, not a regular file"),
            (["render", fifo, "--out", folder.file("a.wav")], "staccato: \(fifo): is a FIFO, not a regular file"),
            (["play", "--midi-in", folder.path, "--soundfont", gmFont, "--kit", kit], "device '\(folder.path)': is a directory"),
        ]
        for (arguments, expected) in cases {
            let result = try CommandRunner.staccato(arguments, timeout: 20)
            XCTAssertFalse(result.timedOut, "\(arguments) waited on the FIFO")
            XCTAssertEqual(result.exitCode, 1, "\(arguments): \(result.standardError)")
            XCTAssertEqual(result.errorLines.count, 1, "\(arguments): \(result.standardError)")
            XCTAssertTrue(result.standardError.contains(expected), "\(arguments): \(result.standardError)")
        }
    }
}
