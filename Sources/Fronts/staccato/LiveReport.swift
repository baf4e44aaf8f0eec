import AudioIO
import CommandLineSpec
import Foundation
import Live
import Render

/// `--report FILE`: what a live command did, as JSON, for scripts and the tests to read instead of
/// the lines printed for people. Written when the command ends, whatever the outcome.
struct LiveReport {
    /// Set while the options are read (`DeviceOptions.streamConfiguration`): one command a process.
    nonisolated(unsafe) static var path: String?
    nonisolated(unsafe) static var command = ""
    /// Facts a command adds before it ends (a song's start frame, the microphone's counters).
    nonisolated(unsafe) static var extra: [String: Any] = [:]

    /// Checks now, before anything plays, that `path` can be written: a bad path is one line.
    static func prepare(_ path: String?, command: String) throws {
        self.path = path
        self.command = command
        guard let path else { return }
        guard FileManager.default.createFile(atPath: path, contents: Data()) else {
            throw CommandFailure("\(path): cannot write the report there")
        }
    }

    /// Writes the report of `session`'s end with `outcome` and `exitCode`, when one was asked for.
    static func write(_ session: LiveSession, outcome: LiveSession.Outcome, exitCode: Int32) {
        guard let path else { return }
        let stream = session.stream, granted = stream.granted
        let statistics = session.engine.renderer.statistics
        var report: [String: Any] = [
            "command": command,
            "device": stream.device,
            "granted": ["format": granted.format.description, "sampleRate": granted.sampleRate,
                        "channelCount": granted.channelCount, "periodFrameCount": granted.periodFrameCount,
                        "periodCount": granted.periodCount, "bufferFrameCount": granted.bufferFrameCount],
            "framesPlayed": stream.framesWritten,
            "elapsedSeconds": stream.elapsedSeconds,
            "xruns": stream.xrunCount,
            "exitCode": exitCode,
            "statistics": ["noteOns": statistics.noteOns, "peakVoices": statistics.peakVoices,
                           "stolenVoices": statistics.stolenVoices, "drumHits": statistics.drumHits,
                           "limitedFrames": statistics.limitedFrames, "sampleUnderruns": statistics.sampleUnderruns,
                           "voiceThreads": session.engine.renderer.voiceThreadCount,
                           "voiceItemsByWorkers": session.engine.renderer.voiceItemsRenderedByWorkers],
        ]
        switch outcome {
        case .finished: report["outcome"] = "finished"
        case let .stopped(signal): report["outcome"] = "stopped"; report["signal"] = signal.map { Int($0) } ?? NSNull()
        case let .failed(error): report["outcome"] = "failed"; report["error"] = error.description
        }
        report.merge(extra) { _, added in added }
        guard let data = try? JSONSerialization.data(withJSONObject: report, options: [.prettyPrinted, .sortedKeys]),
              FileManager.default.createFile(atPath: path, contents: data) else {
            printError("staccato: \(path): cannot write the report")
            return
        }
    }
}
