import Foundation
import Glibc
import Render
import Synchronization

/// What a loader gives `BackgroundDecoding` to write a bank's samples with: each sample (a
/// residency index, `SamplerRegion.sampleIndex`) decoded whole or its head alone, its body dropped
/// again, and what that costs. A SoundFont's decoder and an SFZ instrument's are such sources.
/// - Thread: any. Each sample is written by one thread at a time.
public protocol StreamedSamples: AnyObject, Sendable {
    /// Samples in the bank's numbering (`SampleResidency.sampleCount`).
    /// - Thread: any.
    var sampleCount: Int { get }
    /// Bytes a frame of the pool takes.
    /// - Thread: any.
    var bytesPerFrame: Int { get }
    /// Frames of sample `index` in the pool.
    /// - Thread: any.
    func frameCount(of index: Int) -> Int
    /// Frames of sample `index` kept as its head (`SampleStreaming.headSeconds` of it).
    /// - Thread: any.
    func headFrames(of index: Int) -> Int
    /// Writes sample `index` from what is written already up to its end, or up to its first
    /// `upTo` frames (a head, or a stretch of its body ahead of its voices; a source may write
    /// further, to the end, where a stretch costs as much as the whole), and moves its frontier
    /// (`SampleResidency`).
    /// - Throws: `StreamedSampleFailure` naming the file.
    /// - Thread: any.
    func decode(_ index: Int, upTo: Int?) throws(StreamedSampleFailure)
    /// The pool frame sample `index` starts at.
    /// - Thread: any.
    func slot(of index: Int) -> Int
    /// The bank's residency cells (nil: every sample written before the bank was made).
    /// - Thread: any.
    var residency: SampleResidency? { get }
    /// The bank's pool, where the samples are written.
    /// - Thread: any.
    var pool: SamplePool { get }
}

extension StreamedSamples {
    /// Frames of sample `index` written now, from its start.
    /// - Thread: any.
    public func writtenFrames(of index: Int) -> Int {
        guard let residency else { return frameCount(of: index) }
        let frontier = residency.frontier(index)
        return frontier == .max ? frameCount(of: index) : min(frameCount(of: index), max(0, frontier - slot(of: index)))
    }

    /// Bytes of sample memory written now: each of `samples`' frames below its frontier.
    /// - Thread: any.
    public func residentBytes(of samples: [Int]) -> Int {
        guard residency != nil else { return 0 }
        return samples.reduce(0) { $0 + writtenFrames(of: $1) } * bytesPerFrame
    }

    /// Hands back the pages of sample `index`'s body (whole pages after its head, before its
    /// end) unless a voice plays it (`SampleResidency.dropBody`); true when they were. The head's
    /// pages and the guard frames on either side are never touched.
    /// - Thread: any.
    public func dropBody(_ index: Int) -> Bool {
        guard let residency else { return false }
        let frameCount = frameCount(of: index), head = headFrames(of: index), slot = slot(of: index)
        guard head < frameCount, residency.dropBody(index, headEnd: slot + head) else { return false }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let first = Int(bitPattern: pool.storage) + (slot + head) * bytesPerFrame
        let last = Int(bitPattern: pool.storage) + (slot + frameCount) * bytesPerFrame
        let from = (first + page - 1) / page * page, to = last / page * page
        if to > from { _ = madvise(UnsafeMutableRawPointer(bitPattern: from), to - from, MADV_DONTNEED) }
        return true
    }
}

/// A sample that did not decode: the file it lives in, and the one line to say.
public struct StreamedSampleFailure: Error, Sendable, CustomStringConvertible {
    public let file: String
    public let description: String
    /// - Thread: any.
    public init(file: String, description: String) {
        self.file = file
        self.description = description
    }
}

/// Constants shared by the loaders that stream.
public enum SampleStreaming {
    /// Seconds of each sample a live player has in memory before its first note: the head a
    /// voice plays while the rest is decoded behind it. A requested body is decoded next
    /// (`SampleResidency.requests`), ahead of the rest, so half a second covers a voice at two
    /// octaves up too; a body still late when the head runs out is silence, counted as a sample
    /// underrun (`SlowDecodingDeviceTests`), never a wait.
    public static let headSeconds = 0.5

    /// The frames of a head (`headSeconds`) of a sample at `rate` frames a second, a kilobyte-frame at least.
    /// - Thread: any.
    public static func headFrames(rate: Double) -> Int { max(1_024, Int(headSeconds * rate)) }

    /// The order a streaming bank decodes its samples in: `urgent` first (what the first notes
    /// need), then the rest of `then`, each sample once.
    /// - Thread: any.
    public static func decodingOrder(urgent: [Int], then later: [Int]) -> [Int] {
        var seen = Set(urgent)
        return urgent + later.filter { seen.insert($0).inserted }
    }

    /// Why a sample cache of `cacheBytes` cannot stream a bank whose heads take `headBytes`, or
    /// nil if it can (or there is no cache limit): the heads always stay, so they must fit.
    /// - Thread: any.
    public static func refusal(headBytes: Int, cacheBytes: Int?) -> String? {
        guard let cacheBytes, headBytes > cacheBytes else { return nil }
        let megabyte = 1 << 20, needed = (headBytes + megabyte - 1) / megabyte
        return "a sample cache of \(cacheBytes / megabyte) MB cannot hold the samples' heads (\(needed) MB); give --sample-cache \(needed) or more"
    }
}

/// The samples of a bank that is already playing, decoded in the background in the order given
/// (`SoundFontLoader.open`, `SFZLoader.open`), each made playable as it lands (`SampleResidency`). It holds the bank,
/// so the pool outlives its writers.
///
/// The audio thread never waits for it: a note on a sample still to come plays without that
/// region, and a voice that reaches the end of its sample's head before the rest is in ends there;
/// both are counted (`RenderStatistics.sampleUnderruns`). A note that starts on a head asks for
/// the rest (`SampleResidency.requests`), which is decoded before the queue goes on. A sample that
/// fails to decode is one warning line naming it, and stays silent; the others decode on.
/// (Unchecked: its mutable state is atomics, the claim flags behind a pointer.)
public final class BackgroundDecoding: @unchecked Sendable {
    private let decoder: any StreamedSamples
    private let samples: [Int]
    private let bank: SampleBank
    private let warning: (@Sendable (String) -> Void)?
    private let next = Atomic<Int>(0)
    private let finishedThreads = Atomic<Int>(0)
    private let cancelled = Atomic<Bool>(false)
    private let failures = Atomic<Int>(0)
    private let threadCount: Int
    private let done = DispatchSemaphore(value: 0)
    private let claimed: UnsafeMutablePointer<Atomic<Bool>>
    private let claimedCount: Int
    /// Which samples are this decoding's (`samples`): only they have their guard frames written,
    /// so a request for another (a note of a preset a song never asked for, through JACK's
    /// midi_in) is not served, and that note's region stays silent.
    private let isQueued: [Bool]
    /// Bytes of sample memory the bank may keep (`--sample-cache`); nil:
    /// every sample decoded whole, once.
    private let budgetBytes: Int?
    private let droppedBodies = Atomic<Int>(0)
    /// A pause before each sample: a slow disk on purpose (`SoundFontLoader.Options.backgroundDelay`).
    private let delay: Duration?
    /// Samples whose decoding failed: a body that does not decode is not tried again, and the
    /// warning names a file once.
    private let failedSamples = Mutex<(samples: Set<Int>, files: Set<String>)>(([], []))

    /// - Thread: control. Starts the threads.
    public init(decoder: any StreamedSamples, samples: [Int], holding bank: SampleBank, budgetBytes: Int? = nil, delay: Duration? = nil,
         warning: (@Sendable (String) -> Void)?) {
        self.delay = delay
        self.decoder = decoder
        self.samples = samples
        self.bank = bank
        self.warning = warning
        self.budgetBytes = budgetBytes
        var isQueued = [Bool](repeating: false, count: decoder.sampleCount)
        for sample in samples { isQueued[sample] = true }
        self.isQueued = isQueued
        claimedCount = max(1, decoder.sampleCount)
        claimed = .allocate(capacity: claimedCount)
        for index in 0..<claimedCount { (claimed + index).initialize(to: Atomic(false)) }
        // One core is left to the audio thread, which is playing while this runs. Under a budget
        // one thread does everything, a sample's body perhaps many times as it comes and goes.
        threadCount = budgetBytes != nil ? 1
            : samples.isEmpty ? 0 : min(samples.count, max(1, ProcessInfo.processInfo.activeProcessorCount - 1))
        for number in 0..<threadCount {
            let thread = Thread { [self] in run() }
            thread.name = "staccato-decode-\(number)"
            thread.qualityOfService = .utility
            thread.start()
        }
    }

    private func run() {
        if let budgetBytes { runWithin(budgetBytes) } else { runQueue() }
        if finishedThreads.add(1, ordering: .acquiringAndReleasing).newValue == threadCount { done.signal() }
    }

    /// Under a budget: a sample a note asks for joins the samples being streamed, which come
    /// before everything else, the one whose voices are nearest the end of what is written first,
    /// a stretch at a time (`streamStretchSeconds` past the furthest its voices read, at least),
    /// until it is two stretches ahead of them;
    /// a sample no voice plays any more stops being streamed. Meanwhile the heads of every sample in
    /// the queue (any note can then start), then the queue's bodies while they fit. After each
    /// stretch, the least recently started bodies no voice plays are dropped until the bank fits
    /// its budget again. The audio thread cannot wake this thread (that would be a system call),
    /// so it looks for requests every 2 ms when it has nothing else to do.
    private func runWithin(_ budget: Int) {
        guard let residency = bank.residency else { return }
        var heads = 0, bodies = 0
        var streaming: [Int] = []
        while !cancelled.load(ordering: .relaxed) {
            while let requested = residency.takeRequest() {
                if isQueued[requested], !streaming.contains(requested) { streaming.append(requested) }
            }
            // Done with: wholly in, failed, or played by no voice (what is written stays until dropped).
            let failed = failedSamples.withLock { $0.samples }
            streaming.removeAll { residency.isResident($0) || residency.users($0) == 0 || failed.contains($0) }
            // Only those not yet two stretches ahead of their voices: the rest wait, unread.
            if let sample = streaming.min(by: { slack(of: $0, in: residency) < slack(of: $1, in: residency) }),
               slack(of: sample, in: residency) < 2 * streamStretchFrames(of: sample) {
                // A stretch past what is written, or past the furthest its voices read, whichever is further.
                let stretch = streamStretchFrames(of: sample)
                let ahead = max(0, residency.reach(sample) - decoder.slot(of: sample)) + stretch
                let target = max(decoder.writtenFrames(of: sample) + stretch, ahead)
                decode(sample, upTo: min(decoder.frameCount(of: sample), target))
                fit(budget)
            } else if heads < samples.count {
                decode(samples[heads], upTo: decoder.headFrames(of: samples[heads]))
                heads += 1
            } else if bodies < samples.count {
                let sample = samples[bodies]
                bodies += 1
                if decoder.residentBytes(of: samples) + decoder.frameCount(of: sample) * decoder.bytesPerFrame <= budget {
                    decode(sample, upTo: nil)
                }
            } else {
                usleep(2_000)
            }
        }
    }

    /// Seconds of a sample streamed at a time, and ahead of its voices: a stretch costs a few
    /// milliseconds to read, and its voices take a second or more to play it.
    static let streamStretchSeconds = 1.0

    private func streamStretchFrames(of sample: Int) -> Int {
        max(1, Int(Double(decoder.headFrames(of: sample)) / SampleStreaming.headSeconds * Self.streamStretchSeconds))
    }

    /// How far ahead of its furthest voice sample `sample` is written, in frames.
    private func slack(of sample: Int, in residency: SampleResidency) -> Int {
        let reach = residency.reach(sample)
        return reach == 0 ? decoder.writtenFrames(of: sample) : residency.frontier(sample) - reach
    }

    private func decode(_ sample: Int, upTo: Int?) {
        guard !failedSamples.withLock({ $0.samples.contains(sample) }) else { return }
        if let delay { Thread.sleep(forTimeInterval: Double(delay.components.seconds) + Double(delay.components.attoseconds) * 1e-18) }
        do throws(StreamedSampleFailure) {
            try decoder.decode(sample, upTo: upTo)
        } catch {
            failed(sample, error)
        }
    }

    /// Counts a sample that did not decode and says so, a line for the first of each file: a
    /// font truncated or replaced while it plays fails every sample still to come, and one line
    /// naming it says what matters. The sample stays as it is (its head, or nothing): its notes
    /// end there, counted as underruns, and everything else plays on.
    private func failed(_ sample: Int, _ error: StreamedSampleFailure) {
        failures.add(1, ordering: .relaxed)
        let first = failedSamples.withLock { failed in
            failed.samples.insert(sample)
            return failed.files.insert(error.file).inserted
        }
        if first { warning?("\(error.description); its notes stay silent, and so may others of the file") }
    }

    /// Drops bodies no voice plays, least recently started first, until the bank's written
    /// samples fit `budget` or none is left to drop (the bodies playing voices need stay: the
    /// budget bounds what is kept, not what is played).
    private func fit(_ budget: Int) {
        guard let residency = bank.residency else { return }
        while decoder.residentBytes(of: samples) > budget {
            var oldest = -1, oldestUse = Int.max
            for sample in samples where decoder.writtenFrames(of: sample) > decoder.headFrames(of: sample) && residency.users(sample) == 0
                && decoder.headFrames(of: sample) < decoder.frameCount(of: sample) {
                let use = residency.lastUse(sample)
                if use < oldestUse { (oldest, oldestUse) = (sample, use) }
            }
            guard oldest >= 0, decoder.dropBody(oldest) else { return }
            droppedBodies.add(1, ordering: .relaxed)
        }
    }

    private func runQueue() {
        while !cancelled.load(ordering: .relaxed) {
            // A note waiting on a sample's head comes before the queue's order.
            let sample: Int
            if let requested = bank.residency?.takeRequest() {
                guard isQueued[requested] else { continue }
                sample = requested
            } else {
                let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard index < samples.count else { break }
                sample = samples[index]
            }
            guard claim(sample) else { continue }
            decode(sample, upTo: nil)
        }
    }

    /// Takes sample `index` for the calling thread: true once, so no sample is written by two
    /// threads (one from the queue, one from a request).
    private func claim(_ index: Int) -> Bool {
        !claimed[index].exchange(true, ordering: .relaxed)
    }

    /// The bank being filled.
    /// - Thread: any.
    public var target: SampleBank { bank }

    /// Samples not yet taken from the queue (a requested one may have been decoded already).
    /// - Thread: any.
    public var remainingCount: Int { max(0, samples.count - min(samples.count, next.load(ordering: .relaxed))) }

    /// Samples that did not decode.
    /// - Thread: any.
    public var failedCount: Int { failures.load(ordering: .relaxed) }

    /// Bodies dropped to keep the bank within its budget.
    /// - Thread: any.
    public var droppedBodyCount: Int { droppedBodies.load(ordering: .relaxed) }

    /// Bytes of sample memory the bank holds written now.
    /// - Thread: any.
    public var residentBytes: Int { decoder.residentBytes(of: samples) }

    deinit {
        claimed.deinitialize(count: claimedCount)
        claimed.deallocate()
    }

    /// Stops taking samples; those begun are finished.
    /// - Thread: any.
    public func cancel() { cancelled.store(true, ordering: .relaxed) }

    /// Returns once every sample is decoded (or `cancel` has stopped the threads). Under a budget
    /// the thread serves notes until cancelled: cancel first.
    /// - Thread: control. Blocks.
    public func wait() {
        guard threadCount > 0 else { return }
        done.wait()
        done.signal()  // a later wait returns at once
    }
}
