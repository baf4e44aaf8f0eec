import Synchronization

/// How much of each of a bank's samples is in memory, for a bank that is installed before all its
/// samples are decoded, or whose samples' bodies come and go under a memory budget: per sample, a
/// frontier, the pool frame below which every frame of the sample (and the guard frames before
/// it) is written. 0: nothing yet; `Int.max`: all of it, guard frames after it included. Between
/// the two, the sample's head is in and its body is not (yet, or any more).
///
/// Guarantees:
/// - A frontier moves up as frames are written, and down to the head's end only while no voice
///   plays the sample (`dropBody`): frames a voice may read stay written while it plays.
/// - Each move is a release store made after the frames below it are written; the audio thread
///   reads it with an acquire load, at note-on and before each control block a voice of a sample
///   not wholly in reads: what it reads is written, by the thread that decoded it, so the audio
///   thread never waits, locks or faults a page in for a sample.
/// - A region whose sample has nothing in memory does not start, and a voice whose next block
///   would read past its sample's frontier ends there (`RenderStatistics.sampleUnderruns` counts
///   both): the audio thread never reads an unwritten frame.
///
/// The bank owns its residency and frees it with itself; the threads that decode into the bank
/// hold the bank, so neither goes while they write.
public final class SampleResidency: @unchecked Sendable {
    /// Samples in the bank's source (the loader's numbering, `SamplerRegion.sampleIndex`).
    public let sampleCount: Int
    /// Each sample's cells, `cellCount` a sample (`SampleBank.Layout.residentSamples`): its
    /// frontier, then how many voices play it, then the frame it was last started at, then the
    /// furthest pool frame a voice of it will read in its next block (its reach).
    public let cells: UnsafePointer<Atomic<Int>>
    /// Cells a sample: frontier, users, last use, reach (`SampleCells.count`).
    /// - Thread: any.
    public static var cellCount: Int { SampleCells.count }
    private let storage: UnsafeMutablePointer<Atomic<Int>>
    private let residentTotal = Atomic<Int>(0)
    /// Per sample, whether a note started on its head alone and wants the rest of it soon: the
    /// audio thread's requests to the decoding threads (`takeRequest`), one flag a sample so a
    /// request is one atomic store and never fails for want of room.
    public let requests: UnsafePointer<Atomic<Bool>>
    /// How many flags of `requests` are set, so the decoding threads look through them only then.
    public let pendingRequests: UnsafePointer<Atomic<Int>>
    private let requestStorage: UnsafeMutablePointer<Atomic<Bool>>
    private let pendingStorage: UnsafeMutablePointer<Atomic<Int>>

    /// `sampleCount` samples, none in memory yet.
    /// - Thread: control. Not real-time safe: allocates.
    public init(sampleCount: Int) {
        precondition(sampleCount >= 0)
        self.sampleCount = sampleCount
        let cellTotal = max(1, sampleCount) * Self.cellCount
        storage = .allocate(capacity: cellTotal)
        for index in 0..<cellTotal { (storage + index).initialize(to: Atomic(0)) }
        cells = UnsafePointer(storage)
        requestStorage = .allocate(capacity: max(1, sampleCount))
        for index in 0..<max(1, sampleCount) { (requestStorage + index).initialize(to: Atomic(false)) }
        requests = UnsafePointer(requestStorage)
        pendingStorage = .allocate(capacity: 1)
        pendingStorage.initialize(to: Atomic(0))
        pendingRequests = UnsafePointer(pendingStorage)
    }

    deinit {
        storage.deinitialize(count: max(1, sampleCount) * Self.cellCount)
        storage.deallocate()
        requestStorage.deinitialize(count: max(1, sampleCount))
        requestStorage.deallocate()
        pendingStorage.deinitialize(count: 1)
        pendingStorage.deallocate()
    }

    private func frontierCell(_ index: Int) -> UnsafeMutablePointer<Atomic<Int>> {
        precondition(index >= 0 && index < sampleCount, "sample index outside the bank")
        return storage + index * Self.cellCount
    }

    /// Says that sample `index`'s frames below pool frame `frame` are written (its head). Never
    /// moves a frontier down.
    /// - Thread: any. The thread that wrote the frames.
    public func markWritten(_ index: Int, below frame: Int) {
        let cell = frontierCell(index)
        var current = cell.pointee.load(ordering: .relaxed)
        while current < frame {
            let (exchanged, original) = cell.pointee.compareExchange(expected: current, desired: frame, ordering: .releasing)
            if exchanged { return }
            current = original
        }
    }

    /// Says that all of sample `index` is written.
    /// - Thread: any. The thread that wrote the frames.
    public func markResident(_ index: Int) {
        if frontierCell(index).pointee.exchange(.max, ordering: .sequentiallyConsistent) != .max { residentTotal.add(1, ordering: .relaxed) }
    }

    /// Takes sample `index` back to its head (`headEnd`, a pool frame) so its body's pages can be
    /// handed back, unless a voice plays it: true when it was taken back, and no voice can read
    /// past `headEnd` from then on. The frontier goes down first and the users are read after it,
    /// each sequentially consistent, against a note-on that counts itself a user first and reads
    /// the frontier after: one of the two sees the other, so either the body stays or the voice
    /// watches the head's end.
    /// - Thread: any. The thread that decodes and drops bodies.
    public func dropBody(_ index: Int, headEnd: Int) -> Bool {
        let cell = frontierCell(index)
        // Users first as well: the frontier goes down only for a sample no voice played a moment
        // ago, so a voice playing the body is not cut by the moment's lowering either (unless it
        // started in between: then it reads the body's first block, which is still there, and at
        // worst ends a block early, counted). A body partly streamed in is dropped alike.
        let frontier = cell.pointee.load(ordering: .sequentiallyConsistent)
        guard frontier > headEnd, (cell + 1).pointee.load(ordering: .sequentiallyConsistent) == 0 else { return false }
        cell.pointee.store(headEnd, ordering: .sequentiallyConsistent)
        guard (cell + 1).pointee.load(ordering: .sequentiallyConsistent) == 0 else {
            cell.pointee.store(frontier, ordering: .sequentiallyConsistent)
            return false
        }
        (cell + 3).pointee.store(0, ordering: .relaxed)
        if frontier == .max { residentTotal.subtract(1, ordering: .relaxed) }
        return true
    }

    /// Whether all of sample `index` is in memory.
    /// - Thread: any.
    public func isResident(_ index: Int) -> Bool {
        index >= 0 && index < sampleCount && frontierCell(index).pointee.load(ordering: .acquiring) == .max
    }

    /// The pool frame below which sample `index` is written.
    /// - Thread: any.
    public func frontier(_ index: Int) -> Int { frontierCell(index).pointee.load(ordering: .acquiring) }

    /// Voices playing sample `index` now.
    /// - Thread: any.
    public func users(_ index: Int) -> Int { (frontierCell(index) + 1).pointee.load(ordering: .relaxed) }

    /// The frame a voice of sample `index` last started at (0: never).
    /// - Thread: any.
    public func lastUse(_ index: Int) -> Int { (frontierCell(index) + 2).pointee.load(ordering: .relaxed) }

    /// The furthest pool frame a voice of sample `index` reads in its next block, as voices
    /// reading a sample not wholly in memory say it (0: none has): what its body is streamed ahead of.
    /// - Thread: any.
    public func reach(_ index: Int) -> Int { (frontierCell(index) + 3).pointee.load(ordering: .relaxed) }

    /// How many samples are wholly in memory.
    /// - Thread: any.
    public var residentCount: Int { residentTotal.load(ordering: .relaxed) }

    /// A sample a note has asked for the rest of, not yet taken, clearing its request; nil when
    /// none waits.
    /// - Thread: any. The decoding threads.
    public func takeRequest() -> Int? {
        guard pendingStorage.pointee.load(ordering: .acquiring) > 0 else { return nil }
        for index in 0..<sampleCount where requestStorage[index].load(ordering: .relaxed)
            && requestStorage[index].exchange(false, ordering: .acquiring) {
            pendingStorage.pointee.subtract(1, ordering: .relaxed)
            return index
        }
        return nil
    }
}

/// A voice of sample `index` (its cells in `cells`, `SampleCells.count` a sample) starting
/// at pool frame `start`, at frame `now`: counts itself a user, then reads the frontier (the order
/// `SampleResidency.dropBody` relies on), asks for the rest of a sample not wholly in memory, and
/// returns whether it may start (its first frames are written; if not, it is no user) and its
/// sample's cells, which the voice keeps (nil for a region that names no sample or a bank without
/// residency) to watch the frontier before each block and to count itself out when it ends
/// (`sampleVoiceEnded`).
/// - Thread: audio. The sampler calls it at note-on.
@inline(__always) @_noAllocation @_noLocks
func startSampleVoice(_ index: Int32, start: Int, now: FrameTime, cells: UnsafePointer<Atomic<Int>>?,
                      requests: UnsafePointer<Atomic<Bool>>?, pending: UnsafePointer<Atomic<Int>>?)
    -> (playable: Bool, cells: UnsafePointer<Atomic<Int>>?) {
    guard let cells, index >= 0 else { return (true, nil) }
    let cell = cells + Int(index) * SampleCells.count
    (cell + 1).pointee.add(1, ordering: .sequentiallyConsistent)
    (cell + 2).pointee.store(Int(truncatingIfNeeded: now) | 1, ordering: .relaxed)
    let written = cell.pointee.load(ordering: .sequentiallyConsistent)
    if written == .max { return (true, cell) }
    if let requests, let pending, !requests[Int(index)].exchange(true, ordering: .releasing) {
        pending.pointee.add(1, ordering: .releasing)
    }
    guard written > start + 2 else {
        (cell + 1).pointee.subtract(1, ordering: .sequentiallyConsistent)
        return (false, nil)
    }
    return (true, cell)
}

/// A voice that held sample cells (`startSampleVoice`) has ended: one user fewer.
/// - Thread: audio.
@inline(__always) @_noAllocation @_noLocks
func sampleVoiceEnded(_ cells: UnsafePointer<Atomic<Int>>?) {
    cells?.advanced(by: 1).pointee.subtract(1, ordering: .sequentiallyConsistent)
}

/// The cells `SampleResidency` keeps for each sample, in this order: its frontier, its users, its
/// last use and its reach. A namespace the audio thread can read without touching the class.
public enum SampleCells {
    /// - Thread: any.
    public static var count: Int { @_noAllocation @_noLocks get { 4 } }
}
