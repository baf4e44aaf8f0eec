import AudioFile
import Foundation
import TestSupport
import XCTest

/// `staccato mic` keeps every session: a new FLAC in the sessions folder (`$XDG_MUSIC_DIR/Staccato`)
/// by default, whole however the session ends; `--no-record` writes nothing; `staccato sessions`
/// lists them.
final class MicSessionTests: XCTestCase {
    /// A music folder of the test's own, and the sessions folder inside it.
    func musicFolder() throws -> (music: String, sessions: String) {
        let music = TestDevices.temporaryFile("music-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(atPath: music) }
        return (music, music + "/Staccato")
    }

    func sessionFiles(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    /// The recording is where the first lines say, and holds every frame played, after Ctrl-C.
    func testTheDefaultRecordingIsWholeAfterCtrlC() throws {
        let (music, sessions) = try musicFolder()
        let reportPath = TestDevices.temporaryFile("session-\(UUID().uuidString).json")
        defer { unlink(reportPath) }
        let process = try CommandRunner.start(CommandRunner.staccatoExecutable,
                                              ["mic", "--audio", "null", "--seconds", "30", "--report", reportPath],
                                              environment: ["XDG_MUSIC_DIR": music], timeout: 20)
        usleep(1_500_000)
        process.send(signal: SIGINT)
        let result = process.wait()
        XCTAssertEqual(result.exitCode, 130, result.standardError)
        let files = sessionFiles(in: sessions)
        XCTAssertEqual(files.count, 1, "one session recorded in \(sessions)")
        let name = try XCTUnwrap(files.first)
        XCTAssertTrue(name.hasPrefix("mic-") && name.hasSuffix(".flac"), name)
        XCTAssertNotNil(name.range(of: #"^mic-\d{4}-\d{2}-\d{2}-\d{6}\.flac$"#, options: .regularExpression), name)
        let path = sessions + "/" + name
        let firstLines = result.standardOutput.split(separator: "\n").prefix(3).joined(separator: "\n")
        XCTAssertTrue(firstLines.contains("recording the session to \(path)"), firstLines)
        let report = try XCTUnwrap(try TestDevices.Report.read(reportPath))
        XCTAssertEqual(report.fields["recordingPath"] as? String, path)
        let recorded = try AudioFileReader.summary(path)
        XCTAssertEqual(recorded.frameCount, report.integer("recordedFrames"), "the file holds every frame written")
        XCTAssertEqual(recorded.frameCount, report.framesPlayed, "and every frame played")
        XCTAssertGreaterThan(recorded.seconds, 1)
        print("Ctrl-C after 1.5 s: \(name) holds \(recorded.frameCount) frames, as played")

        let listing = try CommandRunner.staccato(["sessions"], environment: ["XDG_MUSIC_DIR": music])
        XCTAssertEqual(listing.exitCode, 0, listing.standardError)
        XCTAssertTrue(listing.standardOutput.contains(name), listing.standardOutput)
        XCTAssertTrue(listing.standardOutput.contains("1 session in \(sessions)"), listing.standardOutput)
        // Its length, as m:ss.t: 1.5 s and a little, then its peak (the null device's input is silence).
        XCTAssertNotNil(listing.standardOutput.range(of: name + #"\s+0:01\.\d\s+peak silent"#, options: .regularExpression), listing.standardOutput)
    }

    func testNoRecordWritesNothing() throws {
        let (music, sessions) = try musicFolder()
        let result = try CommandRunner.staccato(["mic", "--audio", "null", "--seconds", "0.3", "--no-record"],
                                                environment: ["XDG_MUSIC_DIR": music])
        XCTAssertEqual(result.exitCode, 0, result.standardError)
        XCTAssertFalse(result.standardOutput.contains("recording"), result.standardOutput)
        XCTAssertEqual(sessionFiles(in: sessions), [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: sessions), "not even the folder is made")
    }

    /// The JACK server dies under a session: the command ends with one line, and the session's
    /// file holds every frame played before it.
    func testTheDefaultRecordingIsWholeAfterTheDeviceDies() throws {
        try TestDevices.require()
        let (result, _, report) = try TestDevices.runKillingTheServer(
            ["mic", "--audio", "jack", "--jack-name", "staccato_session_kill", "--connect", "none", "--connect-input", "none",
             "--seconds", "30"], after: 1.5)
        XCTAssertEqual(result.exitCode, 1, result.standardError)
        let report_ = try XCTUnwrap(report)
        XCTAssertEqual(report_.outcome, "failed")
        let path = try XCTUnwrap(report_.fields["recordingPath"] as? String)
        defer { unlink(path) }
        XCTAssertTrue(path.hasPrefix(CommandRunner.sessionsFolder + "/Staccato/mic-"), path)
        let recorded = try AudioFileReader.summary(path)
        XCTAssertEqual(recorded.frameCount, report_.integer("recordedFrames"))
        XCTAssertEqual(recorded.frameCount, report_.framesPlayed)
        XCTAssertGreaterThan(recorded.seconds, 1)
        print("server killed after 1.5 s: the session holds \(recorded.frameCount) frames, as played")
    }

    /// `--record` names the file, and an `.mp3` is written through libsndfile's MPEG Layer III
    /// encoder: it reads back at the session's length (within the encoder's padding, a frame of
    /// 1,152 samples and its delay) and `sessions --dir` lists it.
    func testARecordingNamedMP3() throws {
        let (music, _) = try musicFolder()
        try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
        let path = music + "/mic-take.mp3"
        let result = try CommandRunner.staccato(["mic", "--audio", "null", "--seconds", "1", "--record", path, "--play",
                                                 CommandRunner.repositoryRoot.appendingPathComponent("samples/midi/mozart_turkish_march.mid").path,
                                                 "--soundfont", CommandRunner.shippedSoundFont], timeout: 30)
        XCTAssertEqual(result.exitCode, 0, result.standardError)
        let recorded = try AudioFileReader.summary(path)
        XCTAssertEqual(Double(recorded.frameCount), 48_000, accuracy: 3_000, "a second of audio")
        XCTAssertGreaterThan(recorded.peak, 0.001, "the song's first notes are in it")
        let listing = try CommandRunner.staccato(["sessions", "--dir", music])
        XCTAssertTrue(listing.standardOutput.contains("mic-take.mp3"), listing.standardOutput)
    }

    func testSessionsSaysSoWhenThereAreNone() throws {
        let (music, sessions) = try musicFolder()
        let result = try CommandRunner.staccato(["sessions"], environment: ["XDG_MUSIC_DIR": music])
        XCTAssertEqual(result.exitCode, 0)
        XCTAssertTrue(result.standardOutput.contains("no sessions in \(sessions) yet"), result.standardOutput)
    }

    /// With `--play`, the session ends with the song, as `LiveSession.play` ends any song: past its
    /// last message, once its voices have ended (the microphone keeps the output from falling
    /// silent, so its level cannot say), long before `--seconds`.
    func testASessionWithASongEndsWithTheSong() throws {
        // One quarter note at 120 bpm (0.5 s), then the end of the track.
        let track = SMF.noteOn(key: 60) + SMF.noteOn(delta: 480, key: 60, velocity: 0) + SMF.endOfTrack
        let songPath = TestDevices.temporaryFile("mic-song-\(UUID().uuidString).mid")
        defer { unlink(songPath) }
        try Data(SMF.file(format: 0, tracks: [track])).write(to: URL(fileURLWithPath: songPath))
        let started = Date()
        let result = try CommandRunner.staccato(["mic", "--audio", "null", "--seconds", "30", "--no-record", "--play", songPath,
                                                 "--soundfont", CommandRunner.shippedSoundFont], timeout: 40)
        XCTAssertEqual(result.exitCode, 0, result.standardError)
        let wall = Date().timeIntervalSince(started)
        XCTAssertLessThan(wall, 15, "the session ended with the song, not at --seconds 30")
        let played = try XCTUnwrap(result.standardOutput.split(separator: "\n").first { $0.hasPrefix("played ") }, result.standardOutput)
        let seconds = try XCTUnwrap(Double(played.split(separator: "(")[1].split(separator: " ")[0]), String(played))
        XCTAssertGreaterThan(seconds, 0.5, "the note played to its end")
        XCTAssertLessThan(seconds, 10, String(played))
    }
}
