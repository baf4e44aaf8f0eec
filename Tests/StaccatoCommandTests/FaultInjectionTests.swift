import AudioFile
import Foundation
import TestSupport
import XCTest

/// Faults injected into running `staccato` processes on the paced virtual devices: a sound server
/// killed under a microphone or a song, devices that refuse the period or every format asked
/// for, and stop signals at random moments. Each must end in the documented state: a clear
/// message, a bounded exit, no note left sounding, recordings finalised.
final class FaultInjectionTests: XCTestCase {
    static let rate = 48_000
    static let song = CommandRunner.repositoryRoot.appendingPathComponent("Tests/Fixtures/midi/mozart_turkish_march.mid").path

    override func setUpWithError() throws { try TestDevices.require() }

    /// The number in a stdout line such as "recorded 1234 frames to ..." (the word after `prefix`).
    static func count(after prefix: String, in output: String) -> Int? {
        output.split(separator: "\n").first { $0.hasPrefix(prefix) }
            .flatMap { Int($0.dropFirst(prefix.count).split(separator: " ")[0]) }
    }

    /// A loud stereo test tone as a raw FLOAT_LE file for `staccato_mic:FILE`.
    static func writeMicrophone(seconds: Double) throws -> String {
        let path = TestDevices.temporaryFile("fault-mic.raw")
        let frames = Int(seconds * Double(rate))
        var samples = [Float](repeating: 0, count: 2 * frames)
        for frame in 0..<frames {
            let value = Float(0.5 * sin(2 * Double.pi * 220 * Double(frame) / Double(rate)))
            samples[2 * frame] = value
            samples[2 * frame + 1] = value
        }
        try samples.withUnsafeBufferPointer { Data(buffer: $0) }.write(to: URL(fileURLWithPath: path))
        return path
    }

    // MARK: A sound server killed mid-stream

    func testKilledServerUnderTheMicrophoneKeepsTheRecordingAndNamesTheMicrophone() throws {
        let recordPath = TestDevices.temporaryFile("capture-killed.wav")
        let speakerPath = TestDevices.temporaryFile("capture-killed-speaker.raw")
        defer { unlink(recordPath); unlink(speakerPath) }
        // Only the microphone rides on the server that dies; the speaker is on no server at all.
        let (result, secondsAfterKill, report) = try TestDevices.runKillingTheServer(
            ["mic", "--in", "staccato_jack", "--out", "staccato_serverless_record:FILE=\(speakerPath)", "--record", recordPath, "--seconds", "30"],
            after: 1.5)
        let played = try XCTUnwrap(report, result.standardOutput)

        XCTAssertEqual(result.exitCode, 1, result.standardOutput + result.standardError)
        XCTAssertEqual(result.errorLines.count, 1, result.standardError)
        XCTAssertTrue(result.standardError.contains("'staccato_jack'"), "names the microphone: \(result.standardError)")
        XCTAssertTrue(result.standardError.contains("stopped delivering audio"), result.standardError)
        XCTAssertLessThan(secondsAfterKill, 3, "stops promptly")
        let recorded = try XCTUnwrap(played.integer("recordedFrames"), result.standardOutput)
        let recording = try AudioFileReader.read(recordPath)
        XCTAssertEqual(recording.frameCount, recorded, "the file is finalised: its header counts every frame recorded")
        // The kill comes 1.5 s after the command starts; a debug build's start-up on a busy host
        // takes up to half a second of it (one CI run recorded 0.95 s).
        XCTAssertGreaterThan(recorded, Self.rate / 2, "what was recorded before the kill is kept")
        XCTAssertEqual(played.framesPlayed, recorded, "every frame played is in the file")
        XCTAssertEqual(played.outcome, "failed")
        print("killed server under the microphone: stopped \(String(format: "%.3f", secondsAfterKill)) s after SIGKILL; recorded \(recorded) frames; \(result.errorLines[0])")
    }

    /// A song on a dying server: no note can be heard from a dead device, so what can be observed is
    /// that the player does not keep running with its notes held: it ends at once, with one line.
    func testKilledServerUnderASongEndsThePlayerWithOneLine() throws {
        let (result, secondsAfterKill, _) = try TestDevices.runKillingTheServer(["play", Self.song, "--device", "staccato_jack"], after: 1.5)
        XCTAssertEqual(result.exitCode, 1, result.standardOutput + result.standardError)
        XCTAssertEqual(result.errorLines.count, 1, result.standardError)
        XCTAssertTrue(result.standardError.contains("'staccato_jack'") && result.standardError.contains("sound server died"), result.standardError)
        XCTAssertLessThan(secondsAfterKill, 3)
    }

    // MARK: Devices that refuse what is asked

    func testAPeriodTheDeviceDoesNotOfferIsRoundedToTheNearestAndReported() throws {
        // The raw JACK PCM offers whole multiples of the server's 64-frame period only.
        let result = try CommandRunner.staccato(["tone", "--device", "staccato_jack_raw", "--period", "100",
                                                 "--frequency", "440", "--seconds", "0.5"], timeout: 10)
        XCTAssertEqual(result.exitCode, 0, result.standardError)
        XCTAssertTrue(result.errorLines.isEmpty, result.standardError)
        let grantedLine = try XCTUnwrap(result.standardOutput.split(separator: "\n").first { $0.hasPrefix("playing on") })
        XCTAssertTrue(grantedLine.contains("period 128 frames"), String(grantedLine))
        XCTAssertTrue(grantedLine.contains("asked for a period of 100 frames, the nearest the device allows is 128"), String(grantedLine))
        XCTAssertEqual(Self.count(after: "played ", in: result.standardOutput), Self.rate / 2, "plays all it was asked to")
    }

    func testAGrantedPeriodAsLongAsTheRenderersBlocksPlays() throws {
        let result = try CommandRunner.staccato(["tone", "--device", "staccato_jack_raw", "--period", "4096",
                                                 "--frequency", "440", "--seconds", "0.5"], timeout: 10)
        XCTAssertEqual(result.exitCode, 0, result.standardError)
        XCTAssertTrue(result.standardOutput.contains("period 4096 frames"), result.standardOutput)
    }

    func testACardWithNoFormatStaccatoWritesIsOneLineNamingWhatItOffers() throws {
        for arguments in [["tone", "--device", "staccato_u8_only", "--frequency", "440", "--seconds", "1"],
                          ["play", Self.song, "--device", "staccato_u8_only"]] {
            let result = try CommandRunner.staccato(arguments, timeout: 10)
            XCTAssertEqual(result.exitCode, 1, result.standardError)
            XCTAssertEqual(result.errorLines.count, 1, result.standardError)
            XCTAssertTrue(result.standardError.contains("'staccato_u8_only'"), result.standardError)
            XCTAssertTrue(result.standardError.contains("supports none of the sample formats FLOAT_LE, S32_LE, S16_LE (it offers U8)"),
                          result.standardError)
            XCTAssertFalse(result.standardOutput.contains("audio thread"), "nothing started: \(result.standardOutput)")
        }
    }

    // MARK: Stop signals at random moments

    /// Twelve runs, seeded: `play SONG`, `mic --record` and `tone` (whose end is queued for a later
    /// frame, ahead of which the fade must still come), each sent SIGINT, SIGTERM or SIGHUP at a
    /// random moment from straight after spawning (before the runtime is up, while loading, while
    /// opening the device) to well into playing. Every run exits within two seconds of the signal
    /// with 128 + the signal's number, says nothing on stderr, and leaves a whole recording whose
    /// last two periods are silence: every note released and the output faded, not cut.
    func testStopSignalsAtRandomMomentsEndCleanlyWithEveryRecordingWholeAndSilentAtTheEnd() throws {
        var generator = SeededGenerator(state: 8)
        let microphone = try Self.writeMicrophone(seconds: 10)
        defer { unlink(microphone) }
        let signals: [(Int32, String)] = [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM"), (SIGHUP, "SIGHUP")]
        // Fixed early moments first (the signal before and during start-up), then random ones.
        let moments = [0, 0.03, 0.15] + (0..<9).map { _ in Double.random(in: 0...2.5, using: &generator) }
        for (run, moment) in moments.enumerated() {
            let (signalNumber, signalName) = signals[Int.random(in: 0..<signals.count, using: &generator)]
            let command = ["play", "mic", "tone"][run % 3]
            let usesMicrophone = command == "mic"
            let speakerPath = TestDevices.temporaryFile("signal-\(run).raw")
            let recordPath = TestDevices.temporaryFile("signal-\(run).wav")
            defer { unlink(speakerPath); unlink(recordPath) }
            let speaker = "staccato_record:FILE=\(speakerPath)"
            let arguments = switch command {
            case "mic": ["mic", "--in", "staccato_mic:FILE=\(microphone)", "--out", speaker, "--volume", "1", "--record", recordPath]
            case "tone": ["tone", "--device", speaker, "--frequency", "440", "--seconds", "30"]
            default: ["play", Self.song, "--device", speaker]
            }
            let process = try CommandRunner.start(CommandRunner.staccatoExecutable, arguments, timeout: 20)
            usleep(UInt32(moment * 1_000_000))
            process.send(signal: signalNumber)
            let signalledAt = Date()
            let result = process.wait()
            let secondsAfterSignal = Date().timeIntervalSince(signalledAt)
            let label = "run \(run): \(command) + \(signalName) at \(String(format: "%.3f", moment)) s"
            print("\(label): exit \(result.exitCode) after \(String(format: "%.3f", secondsAfterSignal)) s; \(result.standardOutput.split(separator: "\n").filter { $0.hasPrefix("played") || $0.hasPrefix("recorded") }.joined(separator: "; "))")

            XCTAssertFalse(result.timedOut, "\(label): hung")
            XCTAssertLessThan(secondsAfterSignal, 2, "\(label): exits promptly")
            XCTAssertEqual(result.exitCode, 128 + signalNumber, "\(label): \(result.standardError)")
            XCTAssertTrue(result.errorLines.isEmpty, "\(label): \(result.standardError)")

            // What the speaker got ends in silence (a signal before the device opened leaves no file).
            if let speaker = try? TestDevices.readRaw(speakerPath), speaker.count >= 2 * 128 {
                XCTAssertLessThan(SignalAnalysis.largestAbs(speaker[(speaker.count - 2 * 128)...]), 1e-6,
                                  "\(label): the speaker's last two periods are silent")
            }
            guard usesMicrophone else { continue }
            guard let recorded = Self.count(after: "recorded ", in: result.standardOutput) else {
                // Ended before the recorder existed: there is no half-written file either.
                XCTAssertFalse(result.standardOutput.contains("recording to"), "\(label): started recording but did not say how it ended")
                continue
            }
            let recording = try AudioFileReader.read(recordPath)
            XCTAssertEqual(recording.frameCount, recorded, "\(label): the WAV header counts every frame recorded")
            XCTAssertTrue(result.standardOutput.contains("frames dropped: 0"), "\(label): \(result.standardOutput)")
            if recording.samples.count >= 2 * 128 {
                XCTAssertLessThan(SignalAnalysis.largestAbs(recording.samples[(recording.samples.count - 2 * 128)...]), 1e-6,
                                  "\(label): the recording's last two periods are silent")
            }
            if recorded > Self.rate / 2 {
                XCTAssertGreaterThan(SignalAnalysis.largestAbs(recording.samples[...]), 0.1, "\(label): the microphone was heard before the fade")
            }
        }
    }
}
