import FileChecks
import Foundation
import Synchronization

/// Many songs, each rendered to a file of its own named after it (or into memory), several at a
/// time, each on a thread of its own with an engine of its own, all through one `SongRenderer`
/// (one loaded instrument): `staccato render --out-dir`, the C ABI's and Python's batches. A song that cannot be
/// rendered (missing, not MIDI, damaged past playing, silent, unwritable) is a failure with its
/// reason; it never stops the others.
/// - Thread: control. `run` blocks the calling thread while the batch's own threads render.
public struct BatchRender: Sendable {
    /// One song of the batch and where its audio goes.
    /// - Thread: any. A plain value.
    public struct Job: Sendable {
        /// Where the song is among those given, from 0.
        public let index: Int
        /// The MIDI file, as given.
        public let song: String
        /// The file the song renders to; nil renders it into memory (`SongRender.samples`).
        public let output: String?

        /// - Thread: any.
        public init(index: Int, song: String, output: String?) {
            self.index = index
            self.song = song
            self.output = output
        }
    }

    /// Every song, in the order given.
    public let jobs: [Job]
    /// Jobs refused before anything renders, by index: their output is an earlier song's.
    public let refusals: [Int: BatchFailure]

    /// The jobs for `songs` into `folder`, in `format`. Two songs with the same name (`a/A.mid`,
    /// `b/A.mid`) would write the same file: the first given writes it, the later one is refused,
    /// named among the failures, rather than overwriting it.
    /// - Thread: any.
    public init(songs: [String], folder: String, format: RenderOutputFormat) {
        let separator = folder.hasSuffix("/") ? "" : "/"
        let outputs = songs.map { folder + separator + format.outputName(for: $0) }
        jobs = zip(songs, outputs).enumerated().map { Job(index: $0, song: $1.0, output: $1.1) }
        var writer: [String: String] = [:]
        var refusals: [Int: BatchFailure] = [:]
        for (index, (song, output)) in zip(songs, outputs).enumerated() {
            if let first = writer[output] {
                refusals[index] = BatchFailure(song: song, reason: "not rendered: \(first) writes \(output) (the same name)")
            } else {
                writer[output] = song
            }
        }
        self.refusals = refusals
    }

    /// The jobs for `songs`, each rendered into memory, about in the order given (see `run`):
    /// `finished` is handed each song's frames (`SongRender.samples`), and `run`'s outcomes keep
    /// none of them, so a batch holds no more audio than its caller keeps.
    /// - Thread: any.
    public init(songsIntoMemory songs: [String]) {
        jobs = songs.enumerated().map { Job(index: $0, song: $1, output: nil) }
        refusals = [:]
    }

    /// Makes `folder`, and the folders above it, where missing (`mkdir -p`).
    /// - Throws: `RenderFailure` naming the path at fault: a file where a folder must be, or one
    ///   that cannot be made (with the system's reason).
    /// - Thread: any.
    public static func makeFolder(_ folder: String) throws {
        switch FileKind(path: folder) {
        case .directory: return
        case .missing: break
        case let kind: throw RenderFailure("\(folder): is \(kind.noun), not a folder")
        }
        let parent = (folder as NSString).deletingLastPathComponent
        if !parent.isEmpty && parent != folder { try makeFolder(parent) }
        // EEXIST: another process made it since the check, which is as good.
        guard mkdir(folder, 0o777) == 0 || errno == EEXIST else {
            throw RenderFailure("\(folder): cannot make the folder: \(String(cString: strerror(errno)))")
        }
    }

    /// How many songs render at once with `threadCount` threads: no more than there are to render.
    /// - Thread: any.
    public func concurrency(threadCount: Int) -> Int { max(1, min(threadCount, jobs.count - refusals.count)) }

    /// Renders every job not refused, `concurrency(threadCount:)` at a time, and returns each
    /// job's outcome in the order given (without the samples of a render into memory). `started` and `finished` are called as each job begins
    /// and ends (a refused job only ends), on the batch's threads: a front end shows its progress
    /// with them.
    /// - Thread: control. Blocks until the last song is done.
    public func run(with renderer: SongRenderer, threadCount: Int, started: @escaping @Sendable (Job) -> Void = { _ in },
                    finished: @escaping @Sendable (Job, BatchOutcome) -> Void = { _, _ in }) -> [BatchOutcome] {
        let board = OutcomeBoard(jobs: jobs)
        for (index, failure) in refusals.sorted(by: { $0.key < $1.key }) {
            board.record(.failed(failure), at: index)
            finished(jobs[index], .failed(failure))
        }
        // The largest first: with the long songs started early, the batch does not end on one
        // long song rendering alone while the other threads have nothing left to do. Into memory,
        // the largest first within each run of `memoryWindow` songs, the runs in the order given:
        // a caller that takes the songs in that order then holds no more than about a run's audio
        // waiting for an earlier song, where sorting the whole batch would make it hold nearly all
        // of it until the first song came; the batch still ends on the last run's smallest songs.
        let concurrency = concurrency(threadCount: threadCount)
        let window = jobs.first?.output == nil ? max(8, 4 * concurrency) : jobs.count
        let sizes = jobs.map { (try? FileManager.default.attributesOfItem(atPath: $0.song)[.size] as? Int) ?? 0 }
        let order = jobs.indices.filter { refusals[$0] == nil }.sorted { first, second in
            if first / window != second / window { return first < second }
            return sizes[first] != sizes[second] ? sizes[first] > sizes[second] : first < second
        }
        board.queue(order)
        runOnThreads(concurrency) {
            while let index = board.next() {
                let job = jobs[index]
                started(job)
                let outcome = Self.render(job, with: renderer)
                board.record(outcome.withoutSamples, at: index)
                finished(job, outcome)
            }
        }
        return board.outcomes
    }

    /// Reads and renders one song; whatever goes wrong is its failure.
    private static func render(_ job: Job, with renderer: SongRenderer) -> BatchOutcome {
        do {
            let song = try SongPreparation.readSong(path: job.song, warning: renderer.warning)
            let render = try job.output.map { try renderer.render(song, from: job.song, to: $0) } ?? renderer.render(song, from: job.song)
            if let silence = render.silence { return .failed(BatchFailure(song: job.song, error: silence)) }
            return .rendered(render)
        } catch {
            return .failed(BatchFailure(song: job.song, error: error))
        }
    }
}

/// How one song of a batch ended.
/// - Thread: any. A plain value.
public enum BatchOutcome: Sendable {
    case rendered(SongRender)
    case failed(BatchFailure)

    /// The outcome less a render's samples.
    var withoutSamples: BatchOutcome {
        guard case .rendered(var render) = self, !render.samples.isEmpty else { return self }
        render.samples = []
        return .rendered(render)
    }
}

/// Why one song of a batch was not rendered.
/// - Thread: any. A plain value.
public struct BatchFailure: Sendable {
    /// The MIDI file, as given.
    public let song: String
    /// One line, without the song's name.
    public let reason: String

    /// - Thread: any.
    public init(song: String, reason: String) {
        self.song = song
        self.reason = reason
    }

    /// The failure `error` describes. Errors name the file at fault first, a MIDI file by its
    /// name only (`A.mid: byte 14: ...`); that name is taken off, since the failure's line names
    /// the song as given (`a/A.mid`), which tells apart two songs of the same name.
    /// - Thread: any.
    public init(song: String, error: Error) {
        let text = "\(error)"
        let prefix = [song, URL(fileURLWithPath: song).lastPathComponent].map { $0 + ": " }.first { text.hasPrefix($0) }
        self.init(song: song, reason: prefix.map { String(text.dropFirst($0.count)) } ?? text)
    }
}

/// The batch's shared state: which job is next, and how each ended.
/// - Thread: any. A lock guards both.
private final class OutcomeBoard: Sendable {
    private struct State {
        var order: [Int] = []
        var taken = 0
        var outcomes: [BatchOutcome?]
    }

    private let state: Mutex<State>

    init(jobs: [BatchRender.Job]) {
        state = Mutex(State(outcomes: Array(repeating: nil, count: jobs.count)))
    }

    /// Sets the jobs, by index, in the order `next` hands them out.
    func queue(_ order: [Int]) { state.withLock { $0.order = order } }

    /// The index of the next job to render, or nil when every one is taken.
    func next() -> Int? {
        state.withLock { state in
            guard state.taken < state.order.count else { return nil }
            defer { state.taken += 1 }
            return state.order[state.taken]
        }
    }

    func record(_ outcome: BatchOutcome, at index: Int) { state.withLock { $0.outcomes[index] = outcome } }

    /// Every job's outcome, in job order; only once every job has one.
    var outcomes: [BatchOutcome] { state.withLock { $0.outcomes.map { $0! } } }
}

/// Runs `work` on `count` threads of its own at once, and returns when all have returned. Threads
/// of its own, not Dispatch's pool: the pool would run no more at once than there are cores, and
/// `--threads` asks for exactly so many.
private func runOnThreads(_ count: Int, _ work: @escaping @Sendable () -> Void) {
    let done = DispatchGroup()
    for _ in 0 ..< count {
        done.enter()
        Thread {
            work()
            done.leave()
        }.start()
    }
    done.wait()
}
