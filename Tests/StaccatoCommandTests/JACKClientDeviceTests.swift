import AudioFile
import Foundation
import TestSupport
import XCTest

/// `--audio jack`: Staccato as a native JACK client of the paced dummy server, with no ALSA jack
/// plugin in the path. jackd2's own example clients drive and record it: `jack_lsp` lists its
/// ports, `jack_midiseq` plays a sequence into `midi_in`, `jack_rec` records `out_1`/`out_2`.
final class JACKClientDeviceTests: XCTestCase {
    static let rate = 48_000

    override func setUpWithError() throws { try TestDevices.require() }

    /// A client name of this test's own (never the server's: see `JACKClient`).
    static func clientName(_ role: String) -> String { "stc_\(role)_\(getpid() % 10_000)" }

    /// The JACK implementation a test's clients use: jackd2's own library on the dummy server, or
    /// PipeWire's, through `pw-jack`, on the daemon `scripts/test-pipewire` runs.
    enum Server {
        case jackd
        case pipewire(runtime: String)

        /// A shell command, as this server's clients run it.
        func shell(_ command: String) -> String {
            switch self {
            case .jackd: command
            case let .pipewire(runtime): "XDG_RUNTIME_DIR='\(runtime)' pw-jack \(command)"
            }
        }

        /// Starts `executable` as this server's client.
        func start(_ executable: String, _ arguments: [String], timeout: Double) throws -> CommandRunner.Running {
            switch self {
            case .jackd: try CommandRunner.start(URL(fileURLWithPath: executable), arguments, timeout: timeout)
            case let .pipewire(runtime):
                try CommandRunner.start(URL(fileURLWithPath: "/usr/bin/pw-jack"), [executable] + arguments,
                                        environment: ["XDG_RUNTIME_DIR": runtime], timeout: timeout)
            }
        }

        func ports() throws -> [String] {
            try CommandRunner.shell(shell("jack_lsp") + " 2>/dev/null", timeout: 10).standardOutput.split(separator: "\n").map(String.init)
        }

        /// Waits until `port` exists (the client has loaded its font and activated), up to `seconds`.
        func waitForPort(_ port: String, seconds: Double = 20) throws {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if try ports().contains(port) { return }
                usleep(50_000)
            }
            XCTFail("port \(port) never appeared; ports: \(try ports())")
        }

        func run(_ command: String) throws {
            let result = try CommandRunner.shell(shell(command), timeout: 10)
            XCTAssertEqual(result.exitCode, 0, "\(command): \(result.standardOutput) \(result.standardError)")
        }
    }

    static func ports() throws -> [String] { try Server.jackd.ports() }
    static func waitForPort(_ port: String, seconds: Double = 20) throws { try Server.jackd.waitForPort(port, seconds: seconds) }

    /// Onsets of notes separated by silence: where the left channel first rises past a third of
    /// the recording's peak, at least `gap` frames after it last did.
    static func onsets(_ samples: [Float], gap: Int = 8_000) -> [Int] {
        let threshold = (samples.map(abs).max() ?? 0) / 3
        var onsets: [Int] = []
        var last = -gap - 1
        for (index, value) in samples.enumerated() where abs(value) > threshold {
            if index - last > gap { onsets.append(index) }
            last = index
        }
        return onsets
    }

    func testMIDISequencePlaysAtItsPitchesAndFramesThroughTheNativeClient() throws {
        try playSequence(on: .jackd)
    }

    /// Debian's default font is 488 MB decoded: the client's ports come before any of it, the
    /// piano's heads follow at once, and notes a sequencer plays into it as soon as it can sound
    /// (bodies still decoding behind them) come out at their pitches with no sample underrun, in
    /// a bank that keeps to its sample cache.
    func testAClientOfALargeFontPlaysItsFirstNotesWhileTheRestDecodes() throws {
        let font = "/usr/share/sounds/sf3/MuseScore_General_Full.sf3"
        try XCTSkipUnless(FileManager.default.fileExists(atPath: font), "no \(font) (apt install musescore-general-soundfont)")
        let name = Self.clientName("large")
        let report = TestDevices.temporaryFile("large-font.json")
        defer { unlink(report) }
        let started = Date()
        let player = try Server.jackd.start(CommandRunner.staccatoExecutable.path,
                                            ["play", "--audio", "jack", "--jack-name", name, "--connect", "none", "--midi-connect", "none",
                                             "--soundfont", font, "--no-effects", "--volume", "1", "--seconds", "8", "--report", report],
                                            timeout: 60)
        try Server.jackd.waitForPort("\(name):midi_in")
        let portsAfter = Date().timeIntervalSince(started)
        // Every 0.25 s, a note of its own: C4, E4, G4, C5.
        let sequencer = "\(name)_seq"
        let sequence = try Server.jackd.start("/usr/bin/jack_midiseq",
                                              [sequencer, "48000", "0", "60", "10000", "12000", "64", "10000", "24000", "67", "10000",
                                               "36000", "72", "10000"], timeout: 30)
        defer { sequence.send(signal: SIGTERM); _ = sequence.wait() }
        try Server.jackd.waitForPort("\(sequencer):out")
        try Server.jackd.run("jack_connect \(sequencer):out \(name):midi_in")
        let recording = TestDevices.temporaryFile("large-font.wav")
        defer { unlink(recording) }
        try Server.jackd.run("jack_rec -f '\(recording)' -d 2 -b 32 -B 96000 \(name):out_1 \(name):out_2 >/dev/null")
        let result = player.wait()
        XCTAssertEqual(result.exitCode, 0, result.standardError)
        let left = try AudioFileReader.read(recording).channel(0)
        let onsets = Self.onsets(left, gap: 6_000)
        let pitches = onsets.map { PlayDeviceTests.pitch(of: left[($0 + 1_000)..<min(left.count, $0 + 6_000)]) }
        print("large font: ports after \(String(format: "%.3f", portsAfter)) s; onsets \(onsets), pitches \(pitches.map { Int($0.rounded()) }) Hz")
        // The notes overlap as a piano's do: the onsets found are the loudest, each at its pitch.
        XCTAssertFalse(onsets.isEmpty, "nothing sounded")
        let expected = [261.63, 329.63, 392.0, 523.25]
        for pitch in pitches {
            XCTAssertTrue(expected.contains { abs(pitch / $0 - 1) < 0.03 || abs(pitch / (2 * $0) - 1) < 0.03 }, "pitch \(pitch) Hz")
        }
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any])
        let statistics = try XCTUnwrap(object["statistics"] as? [String: Any])
        XCTAssertGreaterThanOrEqual(statistics["noteOns"] as? Int ?? 0, 8, "two loops of the sequence played")
        XCTAssertEqual(statistics["sampleUnderruns"] as? Int, 0, "every note found its sample")
    }

    /// The same binary under PipeWire's JACK library: `pw-jack staccato ...`.
    func testTheSameClientPlaysUnderPipeWire() throws {
        let script = "'\(CommandRunner.repositoryRoot.path)/scripts/test-pipewire'"
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/pw-jack"), FileManager.default.isExecutableFile(atPath: "/usr/bin/pipewire") else {
            let message = "PipeWire's JACK library is not installed (scripts/install-deps installs pipewire and pipewire-jack)"
            if ProcessInfo.processInfo.environment["STACCATO_REQUIRE_DEVICES"] == "1" { XCTFail(message) }
            throw XCTSkip(message)
        }
        let started = try CommandRunner.shell("\(script) start", timeout: 20)
        XCTAssertEqual(started.exitCode, 0, started.standardError)
        defer { _ = try? CommandRunner.shell("\(script) stop") }
        let runtime = try CommandRunner.shell("\(script) env").standardOutput
            .replacingOccurrences(of: "export XDG_RUNTIME_DIR=", with: "").trimmingCharacters(in: .whitespacesAndNewlines)
        try playSequence(on: .pipewire(runtime: runtime))
    }

    /// `jack_midiseq` into `midi_in`, `jack_rec` from `out_1`/`out_2`: the notes come out at their
    /// pitches, and two of them a number of frames apart that no 64-frame cycle divides, to the frame.
    func playSequence(on server: Server) throws {
        let name = Self.clientName("midi")
        let font = CommandRunner.repositoryRoot.appendingPathComponent("soundfonts/FluidR3_GM_piano_xylo.sf2").path
        let player = try server.start(CommandRunner.staccatoExecutable.path,
                                      ["play", "--audio", "jack", "--jack-name", name, "--connect", "none", "--midi-connect", "none",
                                       "--soundfont", font, "--no-effects", "--gain", "0", "--volume", "1", "--seconds", "30"], timeout: 60)
        defer { player.send(signal: SIGTERM); _ = player.wait() }
        try server.waitForPort("\(name):midi_in")
        let listed = try server.ports()
        for port in ["out_1", "out_2", "midi_in"] { XCTAssertTrue(listed.contains("\(name):\(port)"), "jack_lsp: \(listed)") }

        // A loop of 48000 frames: middle C at 0, G at 16000, middle C again at 32032, a frame
        // that is no multiple of the 64-frame cycle: played at the cycle's start, it would land
        // 32 frames off.
        let sequencer = "\(name)_seq"
        let sequence = try server.start("/usr/bin/jack_midiseq",
                                        [sequencer, "48000", "0", "60", "4000", "16000", "67", "4000", "32032", "60", "4000"], timeout: 30)
        defer { sequence.send(signal: SIGTERM); _ = sequence.wait() }
        try server.waitForPort("\(sequencer):out")
        try server.run("jack_connect \(sequencer):out \(name):midi_in")
        let recording = TestDevices.temporaryFile("jack-midi.wav")
        defer { unlink(recording) }
        // The recorder and the sequencer are clients too: on a host that steals time from the
        // server's clock, a cycle can miss the recording or the sequence (two notes then come out
        // a whole number of 64-frame cycles closer or further apart; CI runs read 15,712 and
        // 13,664 for 15,968), which says nothing of where the client put the notes within its
        // cycle. What a client that played each event at its cycle's start would get wrong is
        // the place within the cycle: 32032 and 15968 are both 32 frames off any cycle boundary.
        // So each C-to-C interval must be the sequence's to the frame (8 frames at most) modulo
        // whole cycles. A recording that does not (a PipeWire run on a host stealing time lost
        // 2,407 frames between two notes) is taken again, three in all; one must hold.
        let cycle = 64
        func offCycle(_ interval: Int) -> Int {
            let remainder = ((interval - (interval > 24_000 ? 32_032 : 15_968)) % cycle + cycle) % cycle
            return min(remainder, cycle - remainder)
        }
        var recordings: [String] = []
        var held = false
        for _ in 1...3 {
            try server.run("jack_rec -f '\(recording)' -d 2.5 -b 32 -B 96000 \(name):out_1 \(name):out_2 >/dev/null")
            let audio = try AudioFileReader.read(recording)
            let left = audio.channel(0)
            let onsets = Self.onsets(left)
            // The notes overlap as a piano's do: the onsets found are the loudest, each at its pitch.
        XCTAssertFalse(onsets.isEmpty, "nothing sounded")
            // Each note's pitch, from the 4000 frames after its onset.
            let pitches = onsets.map { onset in PlayDeviceTests.pitch(of: left[onset..<min(left.count, onset + 4_000)]) }
            let middleC = 261.63, g = 392.0
            let isC = pitches.map { abs($0 / middleC - 1) < 0.03 }, isG = pitches.map { abs($0 / g - 1) < 0.03 }
            for index in pitches.indices { XCTAssertTrue(isC[index] || isG[index], "pitch \(pitches[index]) Hz at frame \(onsets[index])") }
            // Between two Cs the interval is the sequence's: 32032 or 15968.
            var intervals: [Int] = []
            for index in onsets.indices.dropFirst() where isC[index] && isC[index - 1] { intervals.append(onsets[index] - onsets[index - 1]) }
            let cyclesOff = intervals.map { ($0 - ($0 > 24_000 ? 32_032 : 15_968)) / cycle }
            recordings.append("onsets \(onsets), pitches \(pitches.map { Int($0.rounded()) }) Hz, C-to-C intervals \(intervals) (whole cycles lost or gained: \(cyclesOff))")
            held = !intervals.isEmpty && intervals.allSatisfy { offCycle($0) <= 8 }
            if held { break }
        }
        print("\(server) jack_midiseq -> \(name):midi_in: \(recordings.joined(separator: "; taken again: ")) (sequence: 32032 and 15968)")
        XCTAssertTrue(held, "no recording held the C-to-C intervals to the frame (8 frames at most) modulo whole \(cycle)-frame cycles: \(recordings)")
    }

    func testMicThroughJACKPortsPassesTheCapturedSignal() throws {
        // The server's loopback ports are a cable: a tone client plays into them, the microphone
        // chain captures from them.
        let mic = Self.clientName("mic")
        let recording = TestDevices.temporaryFile("jack-mic.wav")
        let reportPath = TestDevices.temporaryFile("jack-mic.json")
        defer { unlink(recording); unlink(reportPath) }
        let chain = try CommandRunner.start(CommandRunner.staccatoExecutable,
                                            ["mic", "--audio", "jack", "--jack-name", mic, "--connect", "none",
                                             "--connect-input", "loopback:capture_1,loopback:capture_2",
                                             "--volume", "1", "--record", recording, "--seconds", "3", "--report", reportPath], timeout: 30)
        try Self.waitForPort("\(mic):in_1")
        let source = try CommandRunner.staccato(["tone", "--audio", "jack", "--jack-name", Self.clientName("src"),
                                                 "--connect", "loopback:playback_1,loopback:playback_2",
                                                 "--frequency", "1000", "--seconds", "1.5", "--volume", "0.3"], timeout: 20)
        XCTAssertEqual(source.exitCode, 0, source.standardError)
        let result = chain.wait()
        XCTAssertEqual(result.exitCode, 0, result.standardOutput + result.standardError)
        XCTAssertTrue(result.standardOutput.contains("\(mic):in_1 <-> loopback:capture_1"), result.standardOutput)
        let report = try XCTUnwrap(try TestDevices.Report.read(reportPath))
        XCTAssertEqual(report.outcome, "finished")
        // One server clock: nothing is resampled, and nothing is buffered by Staccato.
        XCTAssertEqual(report.fields["inputResamplingPPM"] as? Double, 0)
        XCTAssertEqual(report.integer("bufferedFrames"), 0)

        let left = try AudioFileReader.read(recording).channel(0)
        let windows = stride(from: 0, to: left.count - 4_800, by: 4_800).map { (start: $0, level: SignalAnalysis.rms(left[$0..<($0 + 4_800)])) }
        let loudest = windows.max { $0.level < $1.level } ?? (start: 0, level: 0)
        // The tone's pitch is the strongest frequency over the windows within 3 dB of the loudest.
        // Counting zero crossings read 1023.6 and 1030.3 Hz in CI runs whose host stole the
        // server's time: the tone's own client missed cycles, which shortens the tone but does
        // not move its spectral peak, and says nothing of the chain.
        let loud = windows.filter { $0.level >= loudest.level * 0.707 }
        let span = (loud.first?.start ?? 0)..<((loud.last?.start ?? 0) + 4_800)
        let frequency = SignalAnalysis.strongestFrequency(of: left[span], sampleRate: Double(Self.rate), in: 900...1_100)
        print("mic --audio jack: the tone through loopback -> in_1/in_2 -> chain: \(String(format: "%.2f", frequency)) Hz (strongest over \(span.count) frames) at RMS \(loudest.level); latency \(report.integer("latencyFrames") ?? -1) frames")
        XCTAssertEqual(frequency, 1_000, accuracy: 10)
        XCTAssertGreaterThan(loudest.level, 0.05, "the captured tone is in the output")
    }

    func testTheServersRateAndPeriodAreUsedAndABufferSizeChangeIsFollowed() throws {
        let name = Self.clientName("size")
        let reportPath = TestDevices.temporaryFile("jack-size.json")
        defer { unlink(reportPath); _ = try? CommandRunner.shell("jack_bufsize 64 >/dev/null") }
        let clock = try ServerClock()
        let started = clock.reading()
        let tone = try CommandRunner.start(CommandRunner.staccatoExecutable,
                                           ["tone", "--audio", "jack", "--jack-name", name, "--connect", "none", "--period", "128",
                                            "--frequency", "440", "--seconds", "2", "--report", reportPath], timeout: 20)
        try Self.waitForPort("\(name):out_1")
        usleep(500_000)
        let resized = try CommandRunner.shell("jack_bufsize 256", timeout: 10)
        XCTAssertEqual(resized.exitCode, 0, resized.standardError)
        let result = tone.wait()
        let ended = clock.reading()
        XCTAssertEqual(result.exitCode, 0, result.standardError)
        XCTAssertEqual(result.errorLines, ["staccato: note: JACK server '\(TestDevices.serverName)' runs at 48000 Hz with 64-frame periods; --period 128 does not apply"])
        let report = try XCTUnwrap(try TestDevices.Report.read(reportPath))
        XCTAssertEqual(report.outcome, "finished")
        XCTAssertEqual(report.framesPlayed, 96_000, "every frame of the 2 s, across the change")
        XCTAssertEqual(report.period, 256, "the period the server runs at now")
        // Two seconds at the pace the server kept (`ServerClock`).
        let pace = ServerClock.pace(from: started, to: ended)
        XCTAssertEqual(report.elapsedSeconds, 2 / pace, accuracy: 0.5, "server pace \(pace)")
    }

    func testDevicesListsTheServersPorts() throws {
        let result = try CommandRunner.staccato(["devices"])
        XCTAssertEqual(result.exitCode, 0)
        XCTAssertTrue(result.standardOutput.contains("JACK server '\(TestDevices.serverName)' (48000 Hz"), result.standardOutput)
        let lines = result.standardOutput.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        for line in ["system:playback_1 takes audio: for --connect", "loopback:capture_1 gives audio: for --connect-input"] {
            XCTAssertTrue(lines.contains(line), "'\(line)' in: \(result.standardOutput)")
        }
        let none = try CommandRunner.staccato(["devices"], environment: ["JACK_DEFAULT_SERVER": "staccato_nobody_home"])
        XCTAssertTrue(none.standardOutput.contains("JACK: no JACK server running"), none.standardOutput)
    }

    func testKillingTheServerEndsTheClientWithOneLine() throws {
        let (result, secondsAfterKill, report) = try TestDevices.runKillingTheServer(
            ["tone", "--audio", "jack", "--jack-name", Self.clientName("kill"), "--frequency", "440", "--seconds", "30"], after: 1)
        XCTAssertFalse(result.timedOut, "hung")
        XCTAssertEqual(result.exitCode, 1, result.standardError)
        XCTAssertEqual(result.errorLines.count, 1, "one line on stderr, got: \(result.standardError)")
        XCTAssertTrue(result.standardError.contains("JACK server '\(TestDevices.killableServer)'"), result.standardError)
        XCTAssertEqual(report?.outcome, "failed")
        XCTAssertEqual(report?.buffer, 128, "the playback latency of the ports connected to: the dummy driver's two 64-frame periods")
        print("killed JACK server: the native client stopped \(String(format: "%.3f", secondsAfterKill)) s after SIGKILL: \(result.standardError)")
        XCTAssertLessThan(secondsAfterKill, 5, "stops promptly after the server dies (0.02-0.03 s measured; the bound is for a loaded host)")
    }

    func testMissingServerAndTakenNameAreOneLineEach() throws {
        let missing = try CommandRunner.staccato(["tone", "--audio", "jack", "--frequency", "440", "--seconds", "1"],
                                                 environment: ["JACK_DEFAULT_SERVER": "staccato_nobody_home"], timeout: 10)
        XCTAssertEqual(missing.exitCode, 1)
        XCTAssertEqual(missing.errorLines, ["staccato: JACK server 'staccato_nobody_home': no JACK server running; start one, or use --audio alsa"])

        let name = Self.clientName("taken")
        let holder = try CommandRunner.start(CommandRunner.staccatoExecutable,
                                             ["tone", "--audio", "jack", "--jack-name", name, "--connect", "none", "--frequency", "440", "--seconds", "5"], timeout: 15)
        defer { holder.send(signal: SIGTERM); _ = holder.wait() }
        try Self.waitForPort("\(name):out_1")
        let second = try CommandRunner.staccato(["tone", "--audio", "jack", "--jack-name", name, "--frequency", "440", "--seconds", "1"], timeout: 10)
        XCTAssertEqual(second.exitCode, 1)
        XCTAssertEqual(second.errorLines.count, 1, second.standardError)
        XCTAssertTrue(second.standardError.contains("JACK client '\(name)'") && second.standardError.contains("taken"), second.standardError)

        let serverName = try CommandRunner.staccato(["tone", "--audio", "jack", "--jack-name", TestDevices.serverName,
                                                     "--frequency", "440", "--seconds", "1"], timeout: 10)
        XCTAssertEqual(serverName.exitCode, 1)
        XCTAssertTrue(serverName.standardError.contains("name of the server"), serverName.standardError)
        XCTAssertTrue(try Self.ports().contains("system:playback_1"), "the server is still reachable")
    }
}
