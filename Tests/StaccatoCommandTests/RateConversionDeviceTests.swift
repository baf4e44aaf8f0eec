import AudioFile
import Foundation
import TestSupport
import XCTest

/// Rates the JACK server (48000 Hz, period 64) does not run at: ALSA's plug converts them and
/// grants periods and buffers that are not multiples of each other (44100 Hz: 58 frames x 3 in a
/// 176-frame buffer), or refuses a period and buffer it accepted one at a time (44100 Hz, period
/// 256). Each must play in real time, or be refused in one line.
final class RateConversionDeviceTests: XCTestCase {
    static let root = CommandRunner.repositoryRoot

    override func setUpWithError() throws { try TestDevices.require() }

    /// One second of tone at `rate`: exit 0, every frame played, paced, no xrun. Pacing is the
    /// server's (`ServerClock`): the stream lasts one second at the pace the dummy clock kept over
    /// the run, which a host that steals its time slows. A run is taken again, three in all, for
    /// the dummy clock's own misses, which show as an xrun or as a run off that pace. Returns the
    /// last run's report.
    @discardableResult
    func assertOneSecondOfTonePlays(rate: Int, arguments: [String] = [], file: StaticString = #filePath, line: UInt = #line) throws -> TestDevices.Report {
        let clock = try ServerClock()
        var runs: [(xruns: Int, wallSeconds: Double, serverPace: Double)] = []
        func paced(_ run: (xruns: Int, wallSeconds: Double, serverPace: Double)) -> Bool { abs(run.wallSeconds - 1 / run.serverPace) <= 0.1 }
        var last: TestDevices.Report?
        var grantedLine = ""
        for _ in 0..<3 {
            let ((result, played), pace) = try clock.measuringPace {
                try TestDevices.staccatoReported(["tone", "--device", "staccato_jack", "--frequency", "440", "--seconds", "1",
                                                  "--rate", "\(rate)"] + arguments, timeout: 10)
            }
            XCTAssertFalse(result.timedOut, "\(rate) Hz \(arguments): hung; \(result.standardOutput)", file: file, line: line)
            XCTAssertEqual(result.exitCode, 0, "\(rate) Hz \(arguments): \(result.standardError)", file: file, line: line)
            grantedLine = result.standardOutput.split(separator: "\n").first.map(String.init) ?? ""
            XCTAssertEqual(played.sampleRate, rate, file: file, line: line)
            XCTAssertEqual(played.framesPlayed, rate, "\(rate) Hz \(arguments): every frame played", file: file, line: line)
            // The pace is the server's over the whole process, start-up included, so the process
            // may come out a little shorter than the tone at that pace.
            XCTAssertEqual(result.seconds - 1 / pace, 0.45, accuracy: 0.55, "\(rate) Hz \(arguments): the process finishes within 1 s of the tone", file: file, line: line)
            runs.append((played.xruns, played.elapsedSeconds, pace))
            last = played
            if played.xruns == 0 && paced(runs.last!) { break }
        }
        print("tone at \(rate) Hz \(arguments): \(grantedLine); runs (xruns, wall s, server pace) \(runs)")
        let report = try XCTUnwrap(last)
        XCTAssertEqual(report.xruns, 0, "\(rate) Hz \(arguments): runs \(runs)", file: file, line: line)
        XCTAssertTrue(runs.last.map(paced) ?? false, "\(rate) Hz \(arguments): paced by the server, 1 s at its pace ± 0.1 s; runs \(runs)", file: file, line: line)
        return report
    }

    func testToneAtEveryConvertedRatePlaysInRealTime() throws {
        for rate in [8_000, 32_000, 44_100, 96_000, 192_000] {
            try assertOneSecondOfTonePlays(rate: rate)
        }
    }

    /// 44101 Hz (no period converts exactly) grants a period of 58 frames in a buffer of 176: not
    /// a whole number of periods, so a start threshold of the whole buffer is never reached by
    /// whole-period writes.
    func testToneAtARateWithNoExactPeriodPlays() throws {
        let granted = try assertOneSecondOfTonePlays(rate: 44_101)
        XCTAssertNotEqual(granted.buffer % granted.period, 0, "this device grants a buffer that is not whole periods: \(granted)")
    }

    /// ALSA's rate plug-in converts a period into a period: the tone is in tune and on time only
    /// when the two periods are in the rates' ratio. `--period 64` at 44100 Hz (which the plug
    /// would map to 58 frames over JACK's 64, 24 cents flat and 1.4 % long), 32000 and 22050 Hz,
    /// played into JACK's loopback and recorded from it at the server's 48000 Hz by `jack_rec`.
    func testConvertedRatesPlayInTuneAndOnTime() throws {
        for rate in [44_100, 32_000, 22_050] {
            // A take through the dummy server can catch a gap when the host holds up the player
            // or the recorder, a period or two (1.1 % once in CI, the tone in tune): up to three
            // takes, each printed. A period that does not convert is off in every take.
            var takes: [(line: String, hertz: Double, seconds: Double)] = []
            repeat {
                let (line, recorded) = try recordTone(rate: rate, arguments: ["--period", "64"])
                let (hertz, seconds) = Self.frequencyAndDuration(recorded, sampleRate: 48_000)
                print("tone at \(rate) Hz, --period 64: \(String(format: "%.2f", hertz)) Hz for \(String(format: "%.4f", seconds)) s; \(line)")
                takes.append((line, hertz, seconds))
            } while takes.count < 3 && abs(takes[takes.count - 1].seconds - 1) > 0.01
            let take = takes[takes.count - 1], durations = takes.map(\.seconds)
            XCTAssertEqual(take.hertz, 440, accuracy: 1, "\(rate) Hz: \(take.line)")
            XCTAssertEqual(take.seconds, 1, accuracy: 0.01, "\(rate) Hz, takes of \(durations) s: \(take.line)")
            XCTAssertTrue(take.line.contains("converts exactly"), "the period's choice is explained: \(take.line)")
        }
    }

    /// Where no period converts exactly, the line that says what plays says how far off it is.
    func testARateWithNoExactPeriodSaysHowFarOffItPlays() throws {
        let (line, recorded) = try recordTone(rate: 44_101, arguments: ["--period", "64"])
        let (hertz, _) = Self.frequencyAndDuration(recorded, sampleRate: 48_000)
        print("tone at 44101 Hz: \(String(format: "%.2f", hertz)) Hz; \(line)")
        XCTAssertTrue(line.contains("which the device's 48000 Hz converts 24 cents flat: it takes no period that converts exactly"), line)
        XCTAssertEqual(1_200 * log2(hertz / 440), -24, accuracy: 2, "as flat as it says")
    }

    /// One second of a 440 Hz tone at `rate` through `staccato_loop`, recorded from JACK's
    /// loopback: the line that says what plays, and the left channel at 48000 Hz.
    func recordTone(rate: Int, arguments: [String]) throws -> (line: String, recorded: [Float]) {
        let recording = TestDevices.temporaryFile("converted-\(rate).wav")
        defer { unlink(recording) }
        let recorder = try CommandRunner.start(URL(fileURLWithPath: "/usr/bin/jack_rec"),
                                               ["-f", recording, "-d", "3", "loopback:capture_1"], timeout: 20)
        usleep(500_000)
        let result = try CommandRunner.staccato(["tone", "--device", "staccato_loop", "--frequency", "440", "--seconds", "1",
                                                 "--rate", "\(rate)"] + arguments, timeout: 10)
        XCTAssertEqual(result.exitCode, 0, result.standardError)
        let recorded = recorder.wait()
        XCTAssertEqual(recorded.exitCode, 0, recorded.standardError)
        let line = result.standardOutput.split(separator: "\n").first.map(String.init) ?? ""
        return (line, try AudioFileReader.read(recording).channel(0))
    }

    /// The tone's frequency from its rising zero crossings (interpolated, in the middle 80 %): the
    /// median of the cycles' lengths, which a dropped period in the recording path does not move.
    /// Its length: from the first to the last sample above a tenth of the peak.
    static func frequencyAndDuration(_ samples: [Float], sampleRate: Double) -> (hertz: Double, seconds: Double) {
        let peak = samples.map(abs).max() ?? 0
        guard peak > 0, let first = samples.firstIndex(where: { abs($0) > peak / 10 }),
              let last = samples.lastIndex(where: { abs($0) > peak / 10 }) else { return (0, 0) }
        let margin = (last - first) / 10
        var crossings: [Double] = []
        for index in (first + margin)..<(last - margin) where samples[index] <= 0 && samples[index + 1] > 0 {
            crossings.append(Double(index) + Double(-samples[index] / (samples[index + 1] - samples[index])))
        }
        let cycles = zip(crossings.dropFirst(), crossings).map { $0 - $1 }.sorted()
        guard !cycles.isEmpty else { return (0, Double(last - first) / sampleRate) }
        return (sampleRate / cycles[cycles.count / 2], Double(last - first) / sampleRate)
    }

    /// Period 256 at 44100 Hz maps to 235 frames, and the plug refuses 3 x 235: the negotiation
    /// must find a buffer it can do.
    func testToneAt44100WithPeriod256IsNegotiated() throws {
        try assertOneSecondOfTonePlays(rate: 44_100, arguments: ["--period", "256"])
        try assertOneSecondOfTonePlays(rate: 44_100, arguments: ["--period", "128"])
    }

    /// Drums at 44100 Hz play until the keys end plus the second of ring-out, not 174 frames.
    func testDrumsAt44100PlayTheirWholeLength() throws {
        let path = TestDevices.temporaryFile("drums-44100.raw")
        defer { unlink(path) }
        let staccato = CommandRunner.staccatoExecutable.path
        let reportPath = TestDevices.temporaryFile("drums-44100.json")
        defer { unlink(reportPath) }
        let (result, pace) = try ServerClock().measuringPace {
            try CommandRunner.shell(
                "(sleep 2; printf a; sleep 0.4; printf s; sleep 0.4; printf f; sleep 0.2) | '\(staccato)' drums --rate 44100 --device 'staccato_record:FILE=\(path)' --report '\(reportPath)'",
                timeout: 30)
        }
        XCTAssertEqual(result.exitCode, 0, result.standardError)
        let played = try XCTUnwrap(try TestDevices.Report.read(reportPath), result.standardOutput)
        XCTAssertEqual(played.drumHits, 3)
        let recordedFrames = try TestDevices.readRaw(path).count / 2
        print("drums at 44100 Hz: played \(played.framesPlayed) frames in \(played.elapsedSeconds) s, recorded \(recordedFrames); xruns \(played.xruns); server pace \(pace)")
        XCTAssertEqual(recordedFrames, played.framesPlayed, "the device got every frame played")
        // Loading takes part of the 2 s before the first key; the keys and the ring-out take 2 s.
        // (A server that fell behind the wall clock counts fewer of those seconds: its pace.)
        XCTAssertGreaterThan(Double(played.framesPlayed) / 44_100, 2.0 * min(1, pace), "plays through the keys and the ring-out")
        XCTAssertEqual(Double(played.framesPlayed) / 44_100 / pace, played.elapsedSeconds, accuracy: 0.2, "paced by the server")
    }

    /// A song played at 44100 Hz records, bit for bit, the offline render, though the granted
    /// period (58 frames) is no multiple of the render's quantum and the frame limit ends the
    /// stream in a short block.
    func testSongAt44100RecordsTheOfflineRenderExactly() throws {
        let song = Self.root.appendingPathComponent("Tests/Fixtures/midi/mozart_turkish_march.mid").path
        let live = try PlayDeviceTests.playRecorded(song, rate: 44_100, arguments: ["--seconds", "6"], timeout: 30)
        let (offline, _) = try PlayDeviceTests.renderOffline(song, rate: 44_100)
        let (largest, count) = PlayDeviceTests.largestDifference(offline, live.played, start: live.start)
        print("play at 44100 Hz (period \(live.granted.period), buffer \(live.granted.buffer)) vs offline render: largest sample difference \(largest) over \(count) frames")
        XCTAssertGreaterThan(count, 44_100 * 5, "most of the 6 s played: \(live.result.standardOutput)")
        XCTAssertEqual(largest, 0, "the live recording is the offline render, bit for bit")
    }
}
