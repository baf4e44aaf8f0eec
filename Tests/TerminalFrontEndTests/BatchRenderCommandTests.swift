import CommandLineSpec
import Foundation
import Engine
@testable import staccato
import TestSupport
import XCTest

/// `staccato render SONG.mid... --out-dir DIR`: every song to a file of its own, several at a time,
/// each file's audio what `render --out` writes for it; a song that fails is named in the summary
/// and never stops the others.
final class BatchRenderCommandTests: XCTestCase {
    var folder: TemporaryFolder!
    /// The shipped piano font, 10 MB: it loads in a moment, and it lacks a drum kit, so the songs
    /// that drum share the shipped kit, loaded once.
    let font = CommandRunner.shippedSoundFont
    /// Half the default rate: the files render in half the time, and equal is equal at any rate.
    let fastOptions = ["--rate", "22050"]

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: CommandRunner.staccatoExecutable.path) else {
            XCTFail("build the staccato executable first (swift build)")
            throw XCTSkip("no staccato executable")
        }
        folder = try TemporaryFolder(self)
    }

    /// Every MIDI fixture (Tests/Fixtures/midi), by path.
    private func fixtures() throws -> [String] {
        let directory = CommandRunner.repositoryRoot.appendingPathComponent("Tests/Fixtures/midi").path
        return try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".mid") }.sorted()
            .map { directory + "/" + $0 }
    }

    /// A one-note song, a second long: renders in a blink.
    private func writeShortSong(_ name: String) throws -> String {
        try FileManager.default.createDirectory(atPath: (folder.file(name) as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try folder.writeBytes(name, SMF.file(format: 0, tracks: [SMF.noteOn() + SMF.vlq(960) + [0x80, 60, 0] + SMF.endOfTrack]))
        return folder.file(name)
    }

    /// A float WAV's bytes with the PEAK chunk's time stamp zeroed: libsndfile stamps the chunk
    /// with the second it was written, so two renders of the same audio differ in those 4 bytes.
    private func wavBytesWithoutTimeStamp(_ path: String) throws -> [UInt8] {
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        var offset = 12
        while offset + 8 <= bytes.count {
            let size = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16 | Int(bytes[offset + 7]) << 24
            if String(decoding: bytes[offset ..< offset + 4], as: UTF8.self) == "PEAK" {
                // The chunk's body: a version (4 bytes), then the time stamp (4 bytes).
                for index in offset + 12 ..< offset + 16 { bytes[index] = 0 }
                break
            }
            offset += 8 + size + (size & 1)
        }
        return bytes
    }

    /// The fixtures, a file of random bytes named like a song and a missing one, in one batch on two
    /// threads: an output for every fixture, each the same as a single `render --out` of it, the two
    /// bad ones named in the summary with their reasons, exit code 1.
    func testABatchRendersEveryGoodFileAsASingleRenderDoesAndNamesTheBadOnes() throws {
        let songs = try fixtures()
        XCTAssertGreaterThanOrEqual(songs.count, 6)
        var generator = SeededGenerator(state: 772)
        try folder.writeBytes("bad.mid", (0 ..< 4_096).map { _ in UInt8.random(in: 0 ... 255, using: &generator) })
        let bad = folder.file("bad.mid"), missing = folder.file("missing.mid")
        let outputs = folder.file("out")

        let batch = try CommandRunner.staccato(["render"] + songs + [bad, missing, "--out-dir", outputs, "--soundfont", font, "--threads", "2"]
                                               + fastOptions, timeout: 600)
        XCTAssertFalse(batch.timedOut)
        XCTAssertEqual(batch.exitCode, 1, batch.standardError)
        let total = songs.count + 2
        let lines = batch.standardOutput.split(separator: "\n").map(String.init)
        // Not a terminal: one line per finished file, then the summary.
        for number in 1 ... total {
            XCTAssertEqual(lines.filter { $0.hasPrefix("[\(number)/\(total)] ") }.count, 1, batch.standardOutput)
        }
        XCTAssertTrue(lines.contains { $0.hasSuffix("] \(missing) failed: no such file") }, batch.standardOutput)
        let summary = try XCTUnwrap(lines.last)
        XCTAssertTrue(summary.hasPrefix("rendered \(songs.count) of \(total) MIDI files into \(outputs), 2 failed: "), summary)
        XCTAssertTrue(summary.contains("x real time; 2 at a time; "), summary)
        let failures = batch.errorLines.filter { !$0.hasPrefix("staccato: warning: ") }
        XCTAssertEqual(failures.count, 2, batch.standardError)
        XCTAssertTrue(failures[0].hasPrefix("staccato: \(bad): byte 0: header chunk 'MThd' expected"), failures[0])
        XCTAssertEqual(failures[1], "staccato: \(missing): no such file")
        // A song's warning says which song it is about.
        for warning in batch.errorLines where warning.hasPrefix("staccato: warning: ") {
            XCTAssertTrue(songs.contains { warning.hasPrefix("staccato: warning: \($0): ") }, warning)
        }

        let expectedNames = Set(songs.map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent + ".wav" })
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: outputs)), expectedNames, "no file for the bad songs")
        for song in songs {
            let name = URL(fileURLWithPath: song).deletingPathExtension().lastPathComponent
            let single = folder.file("\(name).wav")
            let result = try CommandRunner.staccato(["render", song, "--out", single, "--soundfont", font] + fastOptions, timeout: 300)
            XCTAssertEqual(result.exitCode, 0, result.standardError)
            XCTAssertEqual(try wavBytesWithoutTimeStamp(outputs + "/\(name).wav"), try wavBytesWithoutTimeStamp(single),
                           "\(name): the batch's file differs from render --out's")
        }
    }

    /// Two songs of the same name would write one file: the first on the command line writes it,
    /// the second fails, named with the first, and the third, elsewhere named, renders.
    func testASecondSongOfTheSameNameFailsRatherThanOverwriteTheFirst() throws {
        let first = try writeShortSong("a/song.mid"), second = try writeShortSong("b/song.mid"), other = try writeShortSong("b/other.mid")
        let outputs = folder.file("out")
        let result = try CommandRunner.staccato(["render", first, second, other, "--out-dir", outputs, "--soundfont", font,
                                                 "--format", "flac", "--threads", "3"], timeout: 120)
        XCTAssertEqual(result.exitCode, 1, result.standardError)
        XCTAssertEqual(result.errorLines, ["staccato: \(second): not rendered: \(first) writes \(outputs)/song.flac (the same name)"])
        XCTAssertTrue(result.standardOutput.contains("\nrendered 2 of 3 MIDI files into \(outputs), 1 failed: "), result.standardOutput)
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: outputs)), ["song.flac", "other.flac"])
    }

    /// Where the output goes is checked before anything loads: one line each, exit code 2.
    func testOutputMistakesAreOneLineUsageErrors() throws {
        let outputs = folder.file("out")
        let cases: [([String], String)] = [
            (["render", "a.mid", "b.mid", "--out", "x.wav"], "staccato render: --out FILE is for one MIDI file, got 2: --out-dir DIR renders several"),
            (["render", "a.mid"], "staccato render: --out FILE or --out-dir DIR is required"),
            (["render", "a.mid", "--out", "x.wav", "--out-dir", outputs], "staccato render: --out and --out-dir exclude each other"),
            (["render", "--out-dir", outputs], "staccato render: which MIDI file?"),
            (["render", "a.mid", "--out", "x.wav", "--format", "flac"], "staccato render: --format is for --out-dir"),
            (["render", "a.mid", "--out-dir", outputs, "--format", "aiff"], "staccato render: --format must be wav, flac, ogg or mp3, got 'aiff'"),
            (["render", "a.mid", "--out-dir", outputs, "--threads", "65"], "staccato render: --threads must be within 1...64, got 65"),
        ]
        for (arguments, expected) in cases {
            let result = try CommandRunner.staccato(arguments)
            XCTAssertEqual(result.exitCode, 2, "\(arguments): \(result.standardError)")
            XCTAssertEqual(result.errorLines.count, 1, "\(arguments): \(result.standardError)")
            XCTAssertTrue(result.standardError.hasPrefix(expected), "\(arguments): \(result.standardError)")
            XCTAssertEqual(result.standardOutput, "", "\(arguments): nothing loads")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: outputs), "no output folder is made for a mistake")
    }

    func testAnOutputFolderThatIsAFileIsOneLine() throws {
        let song = try writeShortSong("song.mid")
        try folder.writeText("taken", "")
        let result = try CommandRunner.staccato(["render", song, "--out-dir", folder.file("taken") + "/inner", "--soundfont", font])
        XCTAssertEqual(result.exitCode, 1, result.standardError)
        XCTAssertEqual(result.errorLines, ["staccato: \(folder.file("taken")): is a regular file, not a folder"])
    }

    // MARK: the parts, without a process

    func testTheDestinationIsReadFromTheOptions() throws {
        func destination(_ arguments: [String]) throws -> RenderDestination {
            try RenderDestination(ParsedOptions(command: Commands.render, arguments: arguments))
        }
        XCTAssertEqual(try destination(["a.mid", "--out", "a.flac"]), .file("a.flac"))
        XCTAssertEqual(try destination(["a.mid", "--out-dir", "d"]), .folder("d", format: .wav))
        XCTAssertEqual(try destination(["a.mid", "b.mid", "--out-dir", "d", "--format", "mp3"]), .folder("d", format: .mp3))
        XCTAssertTrue(Commands.render.usageLine.hasPrefix("staccato render SONG.mid... (--out FILE | --out-dir DIR) [--format wav] [--threads N] "),
                      Commands.render.usageLine)
    }

    func testOutputsAreNamedAfterTheSongsAndASecondOfTheSameNameIsRefused() {
        let batch = BatchRender(songs: ["x/A.mid", "y/B.midi", "C", "z/A.MID", "x/A.mid"], folder: "out/", format: .ogg)
        XCTAssertEqual(batch.jobs.map(\.output), ["out/A.ogg", "out/B.ogg", "out/C.ogg", "out/A.ogg", "out/A.ogg"])
        XCTAssertEqual(batch.refusals.keys.sorted(), [3, 4])
        XCTAssertEqual(batch.refusals[3]?.line, "staccato: z/A.MID: not rendered: x/A.mid writes out/A.ogg (the same name)")
    }

    /// A failure's line names the song as given, once, whichever way its error named it.
    func testAFailureNamesTheSongAsGivenOnce() {
        struct Described: Error, CustomStringConvertible { let description: String }
        XCTAssertEqual(BatchFailure(song: "x/A.mid", error: Described(description: "A.mid: byte 0: header chunk 'MThd' expected")).line,
                       "staccato: x/A.mid: byte 0: header chunk 'MThd' expected")
        XCTAssertEqual(BatchFailure(song: "x/A.mid", error: Described(description: "x/A.mid: no such file")).line, "staccato: x/A.mid: no such file")
        XCTAssertEqual(BatchFailure(song: "x/A.mid", error: Described(description: "out/A.wav: cannot open: Permission denied")).line,
                       "staccato: x/A.mid: out/A.wav: cannot open: Permission denied")
    }

    /// On a terminal the progress is one live line and no line per file; elsewhere, a line per file.
    func testProgressIsALiveLineOnATerminalAndALinePerFileElsewhere() {
        let jobs = [BatchRender.Job(index: 0, song: "songs/a.mid", output: "out/a.wav"), BatchRender.Job(index: 1, song: "songs/b.mid", output: "out/b.wav")]
        let failure = BatchOutcome.failed(BatchFailure(song: "songs/a.mid", reason: "no such file"))
        for isTerminal in [true, false] {
            let recorder = StatusLineTests.Recorder()
            let progress = BatchProgress(songCount: 2, folder: "out", sampleRate: 48_000, gainDecibels: 0, line: recorder.statusLine(isTerminal: isTerminal))
            progress.started(jobs[0])
            progress.started(jobs[1])
            progress.finished(jobs[0], failure)
            if isTerminal {
                XCTAssertEqual(recorder.bytes, "\rrendering into out: 0 of 2 done; at work: a.mid\u{1B}[K"
                               + "\rrendering into out: 0 of 2 done; at work: a.mid, b.mid\u{1B}[K"
                               + "\rrendering into out: 1 of 2 done, 1 failed; at work: b.mid\u{1B}[K")
            } else {
                XCTAssertEqual(recorder.bytes, "[1/2] songs/a.mid failed: no such file\n")
            }
        }
    }
}
