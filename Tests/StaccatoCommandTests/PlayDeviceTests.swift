import AudioFile
import Engine
import Foundation
import MIDI
import Render
import SoundFont
import TestSupport
import XCTest

/// `staccato play` through the paced virtual devices: a MIDI file in real time, a live MIDI byte
/// stream, the sequencer's absence, and the keyboard piano driven through tmux.
final class PlayDeviceTests: XCTestCase {
    static let rate = 48_000
    static let root = CommandRunner.repositoryRoot

    override func setUpWithError() throws { try TestDevices.require() }

    /// The strongest pitch in `samples` (mono), by autocorrelation over 50–1000 Hz.
    static func pitch(of samples: ArraySlice<Float>) -> Double {
        let values = Array(samples)
        var best = (lag: 0, score: -Double.infinity)
        for lag in (rate / 1_000)...(rate / 50) {
            var sum = 0.0
            for index in stride(from: 0, to: values.count - lag, by: 2) { sum += Double(values[index]) * Double(values[index + lag]) }
            if sum > best.score { best = (lag, sum) }
        }
        return Double(rate) / Double(best.lag)
    }

    /// Onsets: starts of 20 ms windows whose level jumps 5 dB above the previous window's (a piano
    /// note's attack does, even over the tail of the note before), at least 100 ms apart.
    static func onsets(in samples: [Float]) -> [Int] {
        let window = rate / 50
        var onsets: [Int] = []
        var previous = 1e-6
        for start in stride(from: 0, to: samples.count - window, by: window) {
            let level = Double(SignalAnalysis.rms(samples[start..<(start + window)])) + 1e-6
            if level > previous * 1.8, level > 0.002, (onsets.last.map { start - $0 > rate / 10 } ?? true) { onsets.append(start) }
            previous = level
        }
        return onsets
    }

    func testSongInRealTimeLastsItsLengthWithoutXrunsAndMatchesTheOfflineRender() throws {
        let song = Self.root.appendingPathComponent("Tests/Fixtures/midi/mozart_turkish_march.mid").path
        // Three periods of 128 frames: the smallest setting on which a reference player ran clean
        // on this clock (shared/notes).
        let live = try Self.playRecorded(song, rate: Self.rate, arguments: ["--period", "128"], timeout: 120)
        // The pace of the run that counts: a re-run's first try (with its xruns) may have kept
        // another.
        let pace = live.pace
        XCTAssertEqual(live.granted.period, 128, live.result.standardOutput)
        let (offline, summary) = try Self.renderOffline(song, rate: Self.rate)

        let playedFrames = live.played.count / 2
        let songSeconds = summary.seconds
        let wallSeconds = live.result.seconds
        print("play in real time: \(String(format: "%.2f", Double(playedFrames - live.start) / Double(Self.rate))) s of song after a \(live.start)-frame lead-in, offline render \(String(format: "%.2f", songSeconds)) s, wall clock \(String(format: "%.2f", wallSeconds)) s at a server pace of \(String(format: "%.3f", pace)); xruns per run \(live.xrunsPerRun)")
        XCTAssertEqual(Double(playedFrames - live.start) / Double(Self.rate), songSeconds, accuracy: songSeconds * 0.02)
        // Real time is the server's (`ServerClock`): the song's length at the pace it kept.
        XCTAssertEqual(wallSeconds, songSeconds / pace, accuracy: songSeconds * 0.02 + 1.5, "real time (plus start-up and loading)")

        let (largest, count) = Self.largestDifference(offline, live.played, start: live.start)
        print("play in real time vs offline render: largest sample difference \(largest) over \(count) frames")
        XCTAssertEqual(largest, 0, "the live recording is the offline render, bit for bit")
    }

    /// Whatever the device's period, the song's quanta fall where the offline render's do: the
    /// recording at periods of 64 and 256 frames (and 128 above) is the render in blocks of 64.
    func testPlayAtAnyPeriodRecordsExactlyTheOfflineRender() throws {
        let song = Self.root.appendingPathComponent("Tests/Fixtures/midi/mozart_turkish_march.mid").path
        let (offline, _) = try Self.renderOffline(song, rate: Self.rate)
        for period in [64, 256] {
            let live = try Self.playRecorded(song, rate: Self.rate, arguments: ["--period", "\(period)", "--seconds", "10"], timeout: 60)
            XCTAssertEqual(live.granted.period, period, live.result.standardOutput)
            let (largest, count) = Self.largestDifference(offline, live.played, start: live.start)
            print("play at a period of \(period) frames vs offline render: largest sample difference \(largest) over \(count) frames")
            XCTAssertGreaterThan(count, 8 * Self.rate, "compared over most of the ten seconds")
            XCTAssertEqual(largest, 0, "period \(period): the live recording is the offline render, bit for bit")
        }
    }

    /// With its voices on two threads (a voice worker at the device thread's priority beside it),
    /// `play` records the one-thread offline render, bit for bit, and the worker did render voices.
    func testPlayWithTwoThreadsRecordsExactlyTheOneThreadOfflineRender() throws {
        // A hymn held by the sustain pedal: its first ten seconds sound enough voices to share.
        let song = Self.root.appendingPathComponent("Tests/Fixtures/midi/converse_what_a_friend_piano_pedal.mid").path
        let (offline, _) = try Self.renderOffline(song, rate: Self.rate)
        let live = try Self.playRecorded(song, rate: Self.rate, arguments: ["--threads", "2", "--seconds", "10"], timeout: 60)
        XCTAssertTrue(live.result.standardOutput.contains("; voices on 2 threads"), live.result.standardOutput)
        let (largest, count) = Self.largestDifference(offline, live.played, start: live.start)
        let items = (live.report.fields["statistics"] as? [String: Any])?["voiceItemsByWorkers"] as? Int ?? -1
        print("play --threads 2 vs the one-thread offline render: largest sample difference \(largest) over \(count) frames; the worker rendered \(items) work items")
        XCTAssertGreaterThan(count, 8 * Self.rate, "compared over most of the ten seconds")
        XCTAssertEqual(largest, 0, "the two-thread live recording is the one-thread offline render, bit for bit")
        XCTAssertGreaterThan(items, 0, "the voice worker rendered some of the voices")
    }

    /// What `staccato play` recorded on `staccato_record`, with what it printed.
    struct LiveRecording {
        var result: CommandRunner.Result
        /// Interleaved stereo frames, as the device got them.
        var played: [Float]
        /// The frame the song starts at (the lookahead lead-in).
        var start: Int
        var granted: (period: Int, buffer: Int)
        var xrunsPerRun: [Int]
        var report: TestDevices.Report
        /// The server clock's pace over the run recorded (`ServerClock`).
        var pace: Double
    }

    /// Plays `song` at `rate` into a `staccato_record` file and checks it ended cleanly with no
    /// xrun; one re-run is allowed for the dummy clock's own misses.
    static func playRecorded(_ song: String, rate: Int, arguments: [String] = [], timeout: Double) throws -> LiveRecording {
        let recordPath = TestDevices.temporaryFile("play-song-\(rate).raw")
        defer { unlink(recordPath) }
        let command = ["play", song, "--device", "staccato_record:FILE=\(recordPath)", "--rate", "\(rate)"] + arguments
        // A run with xruns (the dummy clock's own misses on a busy host) is taken again, four runs
        // in all: a CI run had xruns in two in a row.
        let clock = try ServerClock()
        var ((result, report), pace) = try clock.measuringPace { try TestDevices.staccatoReported(command, timeout: timeout) }
        var xrunsPerRun = [report.xruns]
        while report.xruns != 0 && xrunsPerRun.count < 4 {
            ((result, report), pace) = try clock.measuringPace { try TestDevices.staccatoReported(command, timeout: timeout) }
            xrunsPerRun.append(report.xruns)
        }
        XCTAssertEqual(result.exitCode, 0, result.standardError)
        XCTAssertEqual(report.exitCode, 0)
        XCTAssertEqual(xrunsPerRun.last, 0, "xruns per run: \(xrunsPerRun)")
        let start = try XCTUnwrap(report.songStartFrame, "the report names the song's start frame")
        return LiveRecording(result: result, played: try TestDevices.readRaw(recordPath), start: start,
                             granted: (report.period, report.buffer), xrunsPerRun: xrunsPerRun, report: report, pace: pace)
    }

    /// `song` rendered offline with the shipped font, in the default blocks (64 frames).
    static func renderOffline(_ song: String, rate: Int) throws -> (samples: [Float], summary: MIDIRenderSummary) {
        // The defaults `play` runs with (song gain, effects), as a library user gets them.
        let engine = Engine(configuration: EngineConfiguration(render: RenderConfiguration(sampleRate: Double(rate))))
        engine.install(try SoundFontLoader.load(path: root.appendingPathComponent("soundfonts/FluidR3_GM_piano_xylo.sf2").path, sampleRate: Double(rate)))
        var offline: [Float] = []
        let summary = try engine.render(MIDIFile.read(path: song), options: MIDIRenderOptions()) { offline.append(contentsOf: $0) }
        return (offline, summary)
    }

    /// The largest sample difference between an offline render and a live recording whose song
    /// starts at frame `start`, over the frames both hold.
    static func largestDifference(_ offline: [Float], _ played: [Float], start: Int) -> (largest: Float, frameCount: Int) {
        let count = max(0, min(offline.count, played.count - 2 * start))
        var largest: Float = 0
        for index in 0..<count { largest = max(largest, abs(offline[index] - played[2 * start + index])) }
        return (largest, count / 2)
    }

    func testLiveMIDIByteStreamPlaysEveryNoteAndEndsReleased() throws {
        // C4, E4, G4, half a second each, with running status, real-time bytes in the middle of
        // messages, a SysEx and a stray data byte: the stream parser's whole job.
        var stream: [UInt8] = [0x42, 0x90, 60, 0xF8, 100]
        stream += [0xF0, 0x7E, 0x7F, 0x06, 0x01, 0xF7]
        let pathIn = TestDevices.temporaryFile("midi-in.fifo")
        let recordPath = TestDevices.temporaryFile("midi-in.raw")
        defer { unlink(pathIn); unlink(recordPath) }
        XCTAssertEqual(mkfifo(pathIn, 0o600), 0)
        let clock = try ServerClock()
        let started = clock.reading()
        let player = try CommandRunner.start(CommandRunner.staccatoExecutable,
                                             ["play", "--midi-in", pathIn, "--device", "staccato_record:FILE=\(recordPath)"], timeout: 30)
        let writer = FileHandle(forWritingAtPath: pathIn)!  // returns once the player has opened it
        usleep(1_000_000)  // the player loads its instruments and starts its device after that
        writer.write(Data(stream))
        usleep(500_000)
        writer.write(Data([0x80, 60, 0, 0x90, 64, 100]))
        usleep(500_000)
        writer.write(Data([64, 0, 67, 0xFE, 100]))  // running status: note-on 64 velocity 0 = off, then G4
        usleep(500_000)
        writer.closeFile()  // end of stream: every note is released, the sound rings out for a second
        let result = player.wait()
        let ended = clock.reading()
        XCTAssertEqual(result.exitCode, 0, result.standardError)
        let left = SignalAnalysis.channel(0, of: try TestDevices.readRaw(recordPath), channelCount: 2)
        // The notes follow each other every half second of the wall clock from the first sound on
        // (each note-off meets the next note-on, so the second and third attacks rise over the
        // tails before); in the recording's frames, half a second at the pace the server kept
        // (`ServerClock`: a host that steals its time slows it).
        let pace = ServerClock.pace(from: started, to: ended)
        let noteFrames = Int(Double(Self.rate) / 2 * min(1, pace))
        let first = try XCTUnwrap(Self.onsets(in: left).first, "nothing played")
        let pitches = (0..<3).map { note in
            let start = first + note * noteFrames + noteFrames / 5
            return Self.pitch(of: left[start..<min(left.count, start + noteFrames * 2 / 5)])
        }
        print("live MIDI stream: first note at \(Double(first) / Double(Self.rate)) s, pitches \(pitches.map { Int($0.rounded()) }) Hz; server pace \(String(format: "%.2f", pace))")
        for (pitch, expected) in zip(pitches, [261.63, 329.63, 392.0]) {
            XCTAssertEqual(pitch, expected, accuracy: expected * 0.03)
        }
        // Released at the end: the last 0.3 s is near silence.
        XCTAssertLessThan(SignalAnalysis.rms(left[(left.count - Self.rate * 3 / 10)...]), 0.01)
    }

    /// Key releases from the kitty keyboard protocol hold a note as long as the key is down; without
    /// them a note lasts the hold time. Same key press, two runs, fed through a pipe.
    func testKittyKeyReleasesHoldTheNoteUntilTheKeyComesUp() throws {
        var levels: [String: Double] = [:]
        for mode in ["kitty", "hold"] {
            let recordPath = TestDevices.temporaryFile("kitty-\(mode).raw")
            defer { unlink(recordPath) }
            // After the player has loaded (2 s), z pressed (CSI 122;1:1 u), released 1.5 s later
            // (CSI 122;1:3 u).
            let keys = "sleep 2; printf '\\033[122;1:1u'; sleep 1.5; printf '\\033[122;1:3u'; sleep 0.2"
            let result = try CommandRunner.shell("(\(keys)) | '\(CommandRunner.staccatoExecutable.path)' play --release \(mode) --hold 200 --device staccato_record:FILE=\(recordPath)", timeout: 30)
            XCTAssertEqual(result.exitCode, 0, result.standardError)
            let left = SignalAnalysis.channel(0, of: try TestDevices.readRaw(recordPath), channelCount: 2)
            let onset = try XCTUnwrap(Self.onsets(in: left).first, "\(mode): nothing played")
            // 0.6-0.8 s after the press: the key is still down.
            levels[mode] = Double(SignalAnalysis.rms(left[(onset + Self.rate * 6 / 10)..<(onset + Self.rate * 8 / 10)]))
        }
        let kitty = levels["kitty"]!, hold = levels["hold"]!
        print("key held 1.5 s: RMS 0.6-0.8 s after the press \(kitty) with kitty releases, \(hold) with a 200 ms hold")
        XCTAssertGreaterThan(kitty, hold * 4, "the kitty-mode note is still held when the hold-mode note has been released")
    }

    func testSequencerThatIsNotThereIsOneLineWithTheFix() throws {
        let result = try CommandRunner.staccato(["play", "--midi", "--device", "staccato_jack", "--seconds", "1"])
        XCTAssertEqual(result.exitCode, 1)
        XCTAssertEqual(result.standardError.split(separator: "\n").count, 1, result.standardError)
        XCTAssertTrue(result.standardError.contains("modprobe snd-seq"), result.standardError)
    }

    /// A terminal session: tmux runs `staccato play` in a pseudo-terminal, the test types three
    /// keys, reads the screen while each sounds and checks the recording's pitches.
    func testKeyboardPianoInATerminalPlaysAndShowsThreeNotes() throws {
        try XCTSkipIf((try? CommandRunner.shell("command -v tmux >/dev/null").exitCode) != 0, "tmux is not installed")
        let recordPath = TestDevices.temporaryFile("keys.raw")
        let session = "staccato-keys-\(getpid())"
        defer {
            _ = try? CommandRunner.shell("tmux kill-session -t \(session) 2>/dev/null")
            unlink(recordPath)
        }
        let environment = ["ALSA_CONFIG_PATH", "JACK_DEFAULT_SERVER", "JACK_NO_AUDIO_RESERVATION", "STACCATO_AUDIO_STATE"]
            .compactMap { name in ProcessInfo.processInfo.environment[name].map { "\(name)='\($0)'" } }.joined(separator: " ")
        let command = "env \(environment) '\(CommandRunner.staccatoExecutable.path)' play --device staccato_record:FILE=\(recordPath) --hold 400; sleep 1"
        let started = try CommandRunner.shell("tmux new-session -d -s \(session) -x 120 -y 30 \"\(command)\"")
        XCTAssertEqual(started.exitCode, 0, started.standardError)
        func screen() throws -> String { try CommandRunner.shell("tmux capture-pane -e -p -t \(session)").standardOutput }
        // Wait for the piano to be drawn.
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline, try !screen().contains("staccato play: Piano") { usleep(100_000) }
        let firstScreen = try screen()
        XCTAssertTrue(firstScreen.contains("key releases"), "the release mode is shown:\n\(firstScreen)")

        var screens: [String] = []
        for key in ["z", "c", "b"] {  // C3, E3, G3
            _ = try CommandRunner.shell("tmux send-keys -t \(session) \(key)")
            usleep(150_000)
            screens.append(try screen())
            usleep(600_000)
        }
        _ = try CommandRunner.shell("tmux send-keys -t \(session) Q")
        var waited = 0
        while waited < 50, (try? CommandRunner.shell("tmux has-session -t \(session) 2>/dev/null").exitCode) == 0 {
            usleep(100_000)
            waited += 1
        }
        for (screenText, name) in zip(screens, ["C3", "E3", "G3"]) {
            XCTAssertTrue(screenText.contains("sounding: \(name)"), "\(name) listed as sounding:\n\(screenText)")
            XCTAssertTrue(screenText.contains("\u{1B}[7m\(name)"), "\(name) highlighted on the keyboard:\n\(screenText)")
        }
        let left = SignalAnalysis.channel(0, of: try TestDevices.readRaw(recordPath), channelCount: 2)
        let onsets = Self.onsets(in: left)
        XCTAssertEqual(onsets.count, 3, "onsets at \(onsets)")
        guard onsets.count == 3 else { return }
        let pitches = onsets.map { Self.pitch(of: left[($0 + 2_400)..<($0 + 2_400 + 9_600)]) }
        print("keyboard piano through tmux: onsets \(onsets.map { Double($0) / Double(Self.rate) }) s, pitches \(pitches.map { Int($0.rounded()) }) Hz")
        for (pitch, expected) in zip(pitches, [130.81, 164.81, 196.0]) {
            XCTAssertEqual(pitch, expected, accuracy: expected * 0.03)
        }
    }
}
