import Foundation

/// Runs the project's executables and scripts from tests, with a time limit, capturing output.
public enum CommandRunner {
    public struct Result {
        public var exitCode: Int32
        public var standardOutput: String
        public var standardError: String
        public var seconds: Double
        public var timedOut: Bool
        /// Non-empty lines of standard error.
        public var errorLines: [String] { standardError.split(separator: "\n").map(String.init) }
    }

    /// The repository root (this file is Tests/TestSupport/CommandRunner.swift).
    public static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The built `staccato` executable beside the test bundle.
    public static var staccatoExecutable: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("staccato")
    }

    /// The built `staccato-bench` executable beside the test bundle.
    public static var benchExecutable: URL {
        staccatoExecutable.deletingLastPathComponent().appendingPathComponent("staccato-bench")
    }

    /// A process started but not yet waited for. Output goes to temporary files, so a chatty
    /// child never blocks on a pipe and a grandchild that keeps a descriptor cannot stall us.
    public final class Running: @unchecked Sendable {
        let pid: pid_t
        let outputPath: String
        let errorPath: String
        let start: Date
        let timeout: Double

        init(pid: pid_t, outputPath: String, errorPath: String, timeout: Double) {
            self.pid = pid
            self.outputPath = outputPath
            self.errorPath = errorPath
            self.timeout = timeout
            start = Date()
        }

        /// Sends `signalNumber` to the process (which may have ended already: then nothing happens).
        public func send(signal signalNumber: Int32) { kill(pid, signalNumber) }

        /// Waits for the end (SIGINT, then SIGKILL, at the time limit) and collects the output.
        public func wait() -> Result {
            var status: Int32 = 0
            var timedOut = false
            var signalled = false
            while true {
                let reaped = waitpid(pid, &status, WNOHANG)
                if reaped == pid || (reaped < 0 && errno != EINTR) { break }
                if Date().timeIntervalSince(start) > timeout {
                    timedOut = true
                    kill(pid, signalled ? SIGKILL : SIGINT)
                    signalled = true
                }
                usleep(2_000)
            }
            let seconds = Date().timeIntervalSince(start)
            defer { unlink(outputPath); unlink(errorPath) }
            let exited = (status & 0x7f) == 0
            return Result(exitCode: exited ? (status >> 8) & 0xff : 128 + (status & 0x7f),
                          standardOutput: (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "",
                          standardError: (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "",
                          seconds: seconds, timedOut: timedOut)
        }
    }

    /// Starts `executable` with `arguments`; `environment` entries are added to this process's.
    /// Without `--soundfont`, the commands play the machine's General MIDI font when one is
    /// installed: `STACCATO_SOUNDFONT` pins them to the shipped font unless `environment` (or the
    /// test run's own environment) says otherwise. `mic` records every session into the user's
    /// music folder by default: `XDG_MUSIC_DIR` points it at `sessionsFolder` instead, unless
    /// `environment` names another.
    public static func start(_ executable: URL, _ arguments: [String], environment: [String: String] = [:],
                             timeout: Double = 30) throws -> Running {
        let stem = NSTemporaryDirectory() + "staccato-run-\(getpid())-\(UInt64.random(in: 0 ... .max))"
        let outputPath = stem + ".out", errorPath = stem + ".err"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let variables = ["STACCATO_SOUNDFONT": shippedSoundFont].merging(ProcessInfo.processInfo.environment) { $1 }
            .merging(["XDG_MUSIC_DIR": sessionsFolder]) { $1 }
            .merging(environment) { $1 }.map { "\($0)=\($1)" }
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp = variables.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid = pid_t()
        let result = posix_spawn(&pid, executable.path, &actions, nil, argv, envp)
        guard result == 0 else {
            throw NSError(domain: "CommandRunner", code: Int(result),
                          userInfo: [NSLocalizedDescriptionKey: "cannot start \(executable.path): \(String(cString: strerror(result)))"])
        }
        return Running(pid: pid, outputPath: outputPath, errorPath: errorPath, timeout: timeout)
    }

    /// The music folder every command the tests start sees (`mic` keeps its sessions in
    /// `Staccato` inside it), in the temporary directory, so no test writes into the user's home.
    public static let sessionsFolder = NSTemporaryDirectory() + "staccato-test-music-\(getpid())"

    /// The font the tests' expectations (note counts, presets) were made with.
    public static let shippedSoundFont = repositoryRoot.appendingPathComponent("soundfonts/FluidR3_GM_piano_xylo.sf2").path

    /// Runs `staccato` with `arguments` and waits for it.
    public static func staccato(_ arguments: [String], environment: [String: String] = [:], timeout: Double = 30) throws -> Result {
        try start(staccatoExecutable, arguments, environment: environment, timeout: timeout).wait()
    }

    /// Runs `staccato-bench` with `arguments` and waits for it.
    public static func bench(_ arguments: [String], timeout: Double = 60) throws -> Result {
        try start(benchExecutable, arguments, timeout: timeout).wait()
    }

    /// Runs a shell command line (for the repository's scripts) and waits for it.
    public static func shell(_ command: String, timeout: Double = 60) throws -> Result {
        try start(URL(fileURLWithPath: "/bin/bash"), ["-c", command], timeout: timeout).wait()
    }
}

