import AudioFile
import Foundation
import XCTest

/// The virtual devices from scripts/test-audio. `make test` starts them and sets
/// STACCATO_REQUIRE_DEVICES=1, so there a missing device fails the run instead of skipping.
public enum TestDevices {
    public static var configurationLoaded: Bool {
        (ProcessInfo.processInfo.environment["ALSA_CONFIG_PATH"] ?? "").contains("staccato.conf")
    }

    /// The server the devices ride on: the one `scripts/test-audio env NAME` pointed clients at.
    public static var serverName: String { ProcessInfo.processInfo.environment["JACK_DEFAULT_SERVER"] ?? "staccato_devices" }

    public static var serverRunning: Bool {
        (try? CommandRunner.shell("'\(CommandRunner.repositoryRoot.path)/scripts/test-audio' status '\(serverName)' >/dev/null").exitCode) == 0
    }

    /// Skips (or, under `make test`, fails) when the virtual devices are not up.
    public static func require() throws {
        guard configurationLoaded, serverRunning else {
            let message = "virtual audio devices are not running: eval \"$(scripts/test-audio env)\" && scripts/test-audio start"
            if ProcessInfo.processInfo.environment["STACCATO_REQUIRE_DEVICES"] == "1" {
                XCTFail(message)
                throw XCTSkip(message)
            }
            throw XCTSkip(message)
        }
        guard FileManager.default.isExecutableFile(atPath: CommandRunner.staccatoExecutable.path) else {
            XCTFail("build the staccato executable first (swift build): \(CommandRunner.staccatoExecutable.path)")
            throw XCTSkip("no staccato executable")
        }
    }

    /// What a live command's `--report FILE` says (the JSON it writes when it ends).
    public struct Report {
        public var framesPlayed: Int
        public var elapsedSeconds: Double
        public var xruns: Int
        public var exitCode: Int
        public var outcome: String
        public var period: Int
        public var buffer: Int
        public var sampleRate: Int
        /// `play SONG`: the frame the song starts at (the lookahead lead-in).
        public var songStartFrame: Int?
        /// Drum hits the renderer played.
        public var drumHits: Int
        /// The whole report, for what a command adds of its own (`mic`'s input counters).
        public var fields: [String: Any]
        /// A whole number the command added; nil when it is absent or null.
        public func integer(_ key: String) -> Int? { fields[key] as? Int }

        /// Reads the report at `path`; nil when there is none.
        public static func read(_ path: String) throws -> Report? {
            guard let data = FileManager.default.contents(atPath: path), !data.isEmpty else { return nil }
            let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any], "\(path) holds no JSON object")
            let granted = try XCTUnwrap(json["granted"] as? [String: Any], "no granted configuration in \(path)")
            func number(_ object: [String: Any], _ key: String) throws -> Int { try XCTUnwrap(object[key] as? Int, "no \(key) in \(path)") }
            return Report(framesPlayed: try number(json, "framesPlayed"),
                          elapsedSeconds: try XCTUnwrap(json["elapsedSeconds"] as? Double, "no elapsedSeconds in \(path)"),
                          xruns: try number(json, "xruns"), exitCode: try number(json, "exitCode"),
                          outcome: try XCTUnwrap(json["outcome"] as? String), period: try number(granted, "periodFrameCount"),
                          buffer: try number(granted, "bufferFrameCount"), sampleRate: try number(granted, "sampleRate"),
                          songStartFrame: json["songStartFrame"] as? Int,
                          drumHits: try number(try XCTUnwrap(json["statistics"] as? [String: Any]), "drumHits"), fields: json)
        }
    }

    /// Runs `staccato` with `arguments` plus `--report`, and returns what it printed and its report.
    public static func staccatoReported(_ arguments: [String], timeout: Double) throws -> (result: CommandRunner.Result, report: Report) {
        let path = temporaryFile("report-\(UUID().uuidString).json")
        defer { unlink(path) }
        let result = try CommandRunner.staccato(arguments + ["--report", path], timeout: timeout)
        let report = try XCTUnwrap(try Report.read(path), "no report: \(result.standardOutput) \(result.standardError)")
        return (result, report)
    }

    /// A fresh path for a recording.
    public static func temporaryFile(_ name: String) -> String {
        let path = NSTemporaryDirectory() + "staccato-\(getpid())-\(name)"
        unlink(path)
        return path
    }

    /// The name of the JACK server the fault tests kill. Always the same for one devices' server: a
    /// killed server's slot in JACK's registry is reclaimed by the next server of that name (JACK
    /// has room for eight, and a killed one never frees its entry itself). Derived from that
    /// server's name, so test runs on two separately named servers never kill each other's.
    public static var killableServer: String { serverName == "staccato_devices" ? "staccato_kill" : "\(serverName)_kill" }

    /// Starts the killable server; the returned closure stops whatever is left of it.
    public static func startKillableServer() throws -> () -> Void {
        let script = "'\(CommandRunner.repositoryRoot.path)/scripts/test-audio'"
        let started = try CommandRunner.shell("\(script) start \(killableServer)")
        XCTAssertEqual(started.exitCode, 0, started.standardError)
        return { _ = try? CommandRunner.shell("\(script) stop \(killableServer)") }
    }

    /// SIGKILLs the killable server and returns when it was killed.
    public static func killServer() throws -> Date {
        let state = ProcessInfo.processInfo.environment["STACCATO_AUDIO_STATE"] ?? "/tmp/staccato-audio"
        let killed = try CommandRunner.shell("kill -9 $(cat '\(state)/jackd-\(killableServer).pid')")
        XCTAssertEqual(killed.exitCode, 0, killed.standardError)
        return Date()
    }

    /// Runs `staccato arguments` on a killable server of its own, SIGKILLs the server `seconds`
    /// in, and returns how the process ended and how long after the kill.
    public static func runKillingTheServer(_ arguments: [String], after seconds: Double) throws
        -> (result: CommandRunner.Result, secondsAfterKill: Double, report: Report?) {
        let stopServer = try startKillableServer()
        defer { stopServer() }
        let reportPath = temporaryFile("killed-\(UUID().uuidString).json")
        defer { unlink(reportPath) }
        let process = try CommandRunner.start(CommandRunner.staccatoExecutable, arguments + ["--report", reportPath],
                                              environment: ["JACK_DEFAULT_SERVER": killableServer], timeout: 20)
        usleep(UInt32(seconds * 1_000_000))
        let killedAt = try killServer()
        let result = process.wait()
        return (result, Date().timeIntervalSince(killedAt), try Report.read(reportPath))
    }

    /// The interleaved stereo frames a `staccato_record:FILE` device wrote (raw FLOAT_LE).
    public static func readRaw(_ path: String) throws -> [Float] {
        try AudioFileReader.readRawFloat(path, sampleRate: 48_000, channelCount: 2).samples
    }
}
