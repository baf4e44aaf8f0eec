import Synchronization

/// How much of each of a bank's samples is in memory, for a bank that is installed before all its
/// samples are decoded: per sample, a frontier, the pool frame below which every frame of the
/// sample (and the guard frames before it) is written. 0: nothing yet; `Int.max`: all of it,
/// guard frames after it included. Between the two, the sample's head is in and its body is
/// still being decoded.
///
/// Guarantees:
/// - A frontier only moves up (0, then a head's end, then `Int.max`), so frames a voice could read
///   once stay written for the bank's life.
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
    /// - Thread: any.
    public let sampleCount: Int
    /// The frontiers, as the audio thread reads them (`SampleBank.Layout.residentSamples`).
    /// - Thread: any.
    public let frontiers: UnsafePointer<Atomic<Int>>
    private let storage: UnsafeMutablePointer<Atomic<Int>>
    private let residentTotal = Atomic<Int>(0)
    /// Per sample, whether a note started on its head alone and wants the rest of it soon: the
    /// audio thread's requests to the decoding threads (`requestRest`, `takeRequest`), one flag a
    /// sample so a request is one atomic store and never fails for want of room.
    /// - Thread: any.
    public let requests: UnsafePointer<Atomic<Bool>>
    /// How many flags of `requests` are set, so the decoding threads look through them only then.
    /// - Thread: any.
    public let pendingRequests: UnsafePointer<Atomic<Int>>
    private let requestStorage: UnsafeMutablePointer<Atomic<Bool>>
    private let pendingStorage: UnsafeMutablePointer<Atomic<Int>>

    /// `sampleCount` samples, none in memory yet.
    /// - Thread: control. Not real-time safe: allocates.
    public init(sampleCount: Int) {
        precondition(sampleCount >= 0)
        self.sampleCount = sampleCount
        storage = .allocate(capacity: max(1, sampleCount))
        for index in 0..<max(1, sampleCount) { (storage + index).initialize(to: Atomic(0)) }
        frontiers = UnsafePointer(storage)
        requestStorage = .allocate(capacity: max(1, sampleCount))
        for index in 0..<max(1, sampleCount) { (requestStorage + index).initialize(to: Atomic(false)) }
        requests = UnsafePointer(requestStorage)
        pendingStorage = .allocate(capacity: 1)
        pendingStorage.initialize(to: Atomic(0))
        pendingRequests = UnsafePointer(pendingStorage)
    }

    deinit {
        storage.deinitialize(count: max(1, sampleCount))
        storage.deallocate()
        requestStorage.deinitialize(count: max(1, sampleCount))
        requestStorage.deallocate()
        pendingStorage.deinitialize(count: 1)
        pendingStorage.deallocate()
    }

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

    /// Says that sample `index`'s frames below pool frame `frame` are written (its head). Never
    /// moves a frontier down.
    /// - Thread: any. The thread that wrote the frames.
    public func markWritten(_ index: Int, below frame: Int) {
        precondition(index >= 0 && index < sampleCount, "sample index outside the bank")
        var current = storage[index].load(ordering: .relaxed)
        while current < frame {
            let (exchanged, original) = storage[index].compareExchange(expected: current, desired: frame, ordering: .releasing)
            if exchanged { return }
            current = original
        }
    }

    /// Says that all of sample `index` is written.
    /// - Thread: any. The thread that wrote the frames.
    public func markResident(_ index: Int) {
        precondition(index >= 0 && index < sampleCount, "sample index outside the bank")
        if storage[index].exchange(.max, ordering: .releasing) != .max { residentTotal.add(1, ordering: .relaxed) }
    }

    /// Whether all of sample `index` is in memory.
    /// - Thread: any.
    public func isResident(_ index: Int) -> Bool {
        index >= 0 && index < sampleCount && storage[index].load(ordering: .acquiring) == .max
    }

    /// The pool frame below which sample `index` is written.
    /// - Thread: any.
    public func frontier(_ index: Int) -> Int { storage[index].load(ordering: .acquiring) }

    /// How many samples are wholly in memory.
    /// - Thread: any.
    public var residentCount: Int { residentTotal.load(ordering: .relaxed) }
}

/// Whether a region of sample `index` starting at pool frame `start` may start (`playable`: its
/// first frames are written), and the frontier its voice must test before each block (`watch`;
/// nil when it need not: a region that names no sample, a bank without residency, or a sample
/// wholly in memory).
/// - Thread: audio. The sampler calls it at note-on.
@inline(__always) @_noAllocation @_noLocks
func sampleFrontier(_ index: Int32, start: Int, frontiers: UnsafePointer<Atomic<Int>>?) -> (playable: Bool, watch: UnsafePointer<Atomic<Int>>?) {
    guard let frontiers, index >= 0 else { return (true, nil) }
    let frontier = frontiers + Int(index)
    let written = frontier.pointee.load(ordering: .acquiring)
    if written == .max { return (true, nil) }
    return (written > start + 2, frontier)
}

/// Asks the decoding threads for the rest of sample `index` (a voice started on its head): one
/// flag set and a count raised, never a wait. A sample asked for again before it is taken counts once.
/// - Thread: audio. The sampler calls it at note-on.
@inline(__always) @_noAllocation @_noLocks
func requestRestOfSample(_ index: Int32, requests: UnsafePointer<Atomic<Bool>>?, pending: UnsafePointer<Atomic<Int>>?) {
    guard let requests, let pending, index >= 0 else { return }
    if !requests[Int(index)].exchange(true, ordering: .releasing) { pending.pointee.add(1, ordering: .releasing) }
}
