import Engine
import Foundation
import Render
import Synchronization

/// What `render --out-dir` shows while it runs, and its summary at the end.
///
/// On a terminal, one live line (`StatusLine`), redrawn as songs start and finish:
/// `rendering into out: 3 of 7 done, 1 failed; at work: joplin.mid, bach.mid`. Elsewhere (a pipe,
/// a log) the live line is never drawn, and each song says how it ended in a line of its own as it
/// ends, so a log shows the batch's progress: `[3/7] bach.mid to out/bach.wav: 88.00 s of audio
/// in 1.17 s (75.0x real time)`, or `[4/7] bad.mid failed: byte 0: ...`.
///
/// - Thread: any. The batch's threads report to it; a lock keeps the tally and its lines in step.
final class BatchProgress: Sendable {
    private struct Tally {
        var finished = 0
        var failed = 0
        /// The songs being rendered now, in the order they started.
        var atWork: [String] = []
    }

    private let songCount: Int
    private let folder: String
    private let line: StatusLine
    /// The rate and the song gain the songs render with: what the limiter's line reports against.
    private let sampleRate: Double
    private let gainDecibels: Float
    private let tally = Mutex(Tally())

    init(songCount: Int, folder: String, sampleRate: Double, gainDecibels: Float, line: StatusLine = .standard) {
        self.songCount = songCount
        self.folder = folder
        self.sampleRate = sampleRate
        self.gainDecibels = gainDecibels
        self.line = line
    }

    /// `job` has begun rendering.
    func started(_ job: BatchRender.Job) {
        tally.withLock { tally in
            tally.atWork.append(job.song)
            line.update(liveText(tally))
        }
    }

    /// `job` has ended with `outcome` (or was refused before it began).
    func finished(_ job: BatchRender.Job, _ outcome: BatchOutcome) {
        tally.withLock { tally in
            tally.finished += 1
            if case .failed = outcome { tally.failed += 1 }
            if let index = tally.atWork.firstIndex(of: job.song) { tally.atWork.remove(at: index) }
            guard line.isTerminal else { return line.print("[\(tally.finished)/\(songCount)] " + outcomeText(job, outcome)) }
            line.update(liveText(tally))
        }
    }

    /// Takes the live line away, then prints the summary on stdout (songs rendered and failed,
    /// seconds of audio, the wall-clock seconds of the renders and the real-time factor, then with
    /// loading) and each failure, in command-line order, as one error line on stderr.
    func summarize(_ outcomes: [BatchOutcome], renderSeconds: Double, totalSeconds: Double, concurrency: Int) {
        line.clear()
        let failures = outcomes.compactMap { if case .failed(let failure) = $0 { failure } else { nil } }
        let audioSeconds = outcomes.reduce(0.0) { total, outcome in
            if case .rendered(let render) = outcome { total + render.summary.seconds } else { total }
        }
        let rendered = outcomes.count - failures.count
        let count = failures.isEmpty ? Self.files(rendered) : "\(rendered) of \(Self.files(outcomes.count))"
        line.print("rendered \(count) into \(folder)" + (failures.isEmpty ? "" : ", \(failures.count) failed") + ": "
                   + renderSpeedText(audioSeconds: audioSeconds, wallSeconds: renderSeconds,
                                     notes: ["\(concurrency) at a time", "\(String(format: "%.2f", totalSeconds)) s with loading"]))
        for failure in failures { line.printError(failure.line) }
    }

    /// `rendering into out: 3 of 7 done, 1 failed; at work: joplin.mid, bach.mid` (the names without
    /// their folders, which would crowd the line; `StatusLine` cuts it to the terminal's width).
    private func liveText(_ tally: Tally) -> String {
        "rendering into \(folder): \(tally.finished) of \(songCount) done" + (tally.failed > 0 ? ", \(tally.failed) failed" : "")
            + (tally.atWork.isEmpty ? "" : "; at work: " + tally.atWork.map { URL(fileURLWithPath: $0).lastPathComponent }.joined(separator: ", "))
    }

    /// `bach.mid to out/bach.wav: 88.00 s of audio in 1.17 s (75.0x real time)`, with the limiter's
    /// line when it engaged; `bad.mid failed: byte 0: ...`.
    private func outcomeText(_ job: BatchRender.Job, _ outcome: BatchOutcome) -> String {
        switch outcome {
        case .rendered(let render):
            "\(job.song) to \(job.output ?? "memory"): " + renderSpeedText(audioSeconds: render.summary.seconds, wallSeconds: render.renderSeconds)
                + (render.summary.statistics.limitedFrames > 0
                   ? "; " + limiterReport(render.summary.statistics, sampleRate: sampleRate, gainDecibels: gainDecibels) : "")
        case .failed(let failure):
            "\(job.song) failed: \(failure.reason)"
        }
    }

    private static func files(_ count: Int) -> String { count == 1 ? "1 MIDI file" : "\(count) MIDI files" }
}

extension BatchFailure {
    /// `staccato: a/A.mid: byte 14: ...`: the project's one-line error, on stderr.
    var line: String { "staccato: \(song): \(reason)" }
}
