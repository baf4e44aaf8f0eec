import CStackPrefault
import CThreadName
import Glibc
import Synchronization

/// Threads that render the sampler's work items beside the audio thread.
///
/// Guarantees:
/// - The audio thread never waits for a worker that has not started an item: it claims items
///   itself, through the same claim word, until none is left, and then waits only for the items
///   workers already hold. A worker that is asleep or preempted costs time, never a deadline by
///   itself.
/// - On the audio thread: no allocation, no lock, no system call. It publishes a segment with one
///   atomic store and claims with compare-and-exchange. Workers sleep on their own side (a short
///   `nanosleep` once no segment has come for `spinNanoseconds`); nobody has to wake them.
/// - The output does not depend on who renders what: see `VoiceWorkItems`.
///
/// The claim word packs a generation, the segment's item count and a bit per item claimed, so a
/// worker that read an old segment's word cannot claim in a new one: its compare-and-exchange
/// fails. A segment is published only once every item of the previous one is finished, so an item
/// a worker holds always belongs to the segment `work` describes.
struct VoiceWorkers {
    /// Once no segment has come for this long a worker naps; within it, it spins on the claim
    /// word. Live, one segment or a few come per period: 200 µs covers their run, and the worker
    /// is back within `napNanoseconds` of the next period's first. Offline, segments come back to
    /// back and it never naps.
    static var spinNanoseconds: Int {
        @_noAllocation @_noLocks get { 200_000 }
    }
    /// Loads of the claim word (about 2 µs) between two yields of a spinning worker.
    static var watchCount: Int {
        @_noAllocation @_noLocks get { 2_000 }
    }
    /// 50 µs: 4 % of a 64-frame period at 48 kHz, and few enough wake-ups to cost little.
    static var napNanoseconds: Int {
        @_noAllocation @_noLocks get { 50_000 }
    }
    /// Voice frames (voices × frames) below which a segment is rendered on the audio thread alone:
    /// 32 voices for a whole quantum, about 5 µs of work. Smaller segments cost more to hand out than
    /// a second thread saves.
    static var smallestSharedWork: Int {
        @_noAllocation @_noLocks get { 32 * RenderQuantum.frameCount }
    }
    /// The claim word's layout: a bit per item claimed (`VoiceWorkItems.maximumItemCount` at
    /// most), then the item count, then the generation.
    static var countShift: UInt64 {
        @_noAllocation @_noLocks get { 32 }
    }
    static var generationShift: UInt64 {
        @_noAllocation @_noLocks get { 40 }
    }

    /// The workers' thread name (15 bytes at most, as Linux keeps it).
    static let threadName = "staccato-voices"

    let claimWord: UnsafeMutablePointer<Atomic<UInt64>>
    let finishedCount: UnsafeMutablePointer<Atomic<Int>>
    /// Items the workers have rendered, ever: what shows that they share the work.
    let workerItemCount: UnsafeMutablePointer<Atomic<Int>>
    let stopping: UnsafeMutablePointer<Atomic<Bool>>
    /// The SCHED_FIFO priority workers should run at (0: normal scheduling), which any thread may
    /// set (`Renderer.setVoiceWorkerPriority`); each worker applies it itself before its next claim.
    let requestedPriority: UnsafeMutablePointer<Atomic<Int32>>
    let work: UnsafeMutablePointer<VoiceWorkItems>
    let workspaces: UnsafeMutablePointer<VoiceLaneWorkspace>
    let threads: UnsafeMutablePointer<pthread_t>
    /// Threads started: 0 when the system refused one (the audio thread then renders alone).
    var workerCount: Int
    /// The audio thread's count of segments published.
    var generation: UInt64 = 0

    /// What a worker thread starts with.
    final class Start {
        let workers: VoiceWorkers
        let index: Int
        init(_ workers: VoiceWorkers, index: Int) {
            self.workers = workers
            self.index = index
        }
    }

    /// Starts `count` workers over `work`.
    /// - Thread: control.
    init(count: Int, work: UnsafeMutablePointer<VoiceWorkItems>) {
        claimWord = .allocate(capacity: 1)
        claimWord.initialize(to: Atomic(0))
        finishedCount = .allocate(capacity: 1)
        finishedCount.initialize(to: Atomic(0))
        workerItemCount = .allocate(capacity: 1)
        workerItemCount.initialize(to: Atomic(0))
        stopping = .allocate(capacity: 1)
        stopping.initialize(to: Atomic(false))
        requestedPriority = .allocate(capacity: 1)
        requestedPriority.initialize(to: Atomic(0))
        self.work = work
        workspaces = .allocate(capacity: max(count, 1))
        for index in 0..<count { (workspaces + index).initialize(to: VoiceLaneWorkspace()) }
        threads = .allocate(capacity: max(count, 1))
        var started = 0
        workerCount = count
        for index in 0..<count {
            let start = Unmanaged.passRetained(Start(self, index: index)).toOpaque()
            let result = pthread_create(threads + index, nil, { context in
                // Named for `top -H` and perf, and for the malloc-count test, which counts the
                // threads named `staccato-...`.
                _ = staccato_name_this_thread(VoiceWorkers.threadName)
                // Its stack mapped before the first item it renders (see `Renderer.render`).
                staccato_prefault_stack()
                let start = Unmanaged<VoiceWorkers.Start>.fromOpaque(context!).takeRetainedValue()
                VoiceWorkers.run(start.workers, index: start.index)
                return nil
            }, start)
            guard result == 0 else {
                Unmanaged<Start>.fromOpaque(start).release()
                break
            }
            started += 1
        }
        if started < count {
            // The system would not start them all: those it did are told to stop, and the audio
            // thread renders alone.
            stopping.pointee.store(true, ordering: .relaxed)
            for index in 0..<started { pthread_join(threads[index], nil) }
            for index in 0..<count { workspaces[index].deallocate() }
            stopping.pointee.store(false, ordering: .relaxed)
            workerCount = 0
        }
    }

    /// Stops and joins the workers and frees what they used.
    /// - Thread: stopped.
    func deallocate() {
        stopping.pointee.store(true, ordering: .releasing)
        for index in 0..<workerCount { pthread_join(threads[index], nil) }
        for index in 0..<workerCount { workspaces[index].deallocate() }
        workspaces.deallocate()
        threads.deallocate()
        claimWord.deallocate()
        finishedCount.deallocate()
        workerItemCount.deallocate()
        stopping.deallocate()
        requestedPriority.deallocate()
    }

    // MARK: The audio thread

    /// Hands the segment `work` describes to the workers: from now on they claim its items. The
    /// audio thread may do work of its own before it joins them (`finish`); `work` must not change
    /// until then.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    mutating func publish() {
        let itemCount = work.pointee.itemCount
        generation = (generation + 1) & 0xFF_FFFF
        finishedCount.pointee.store(0, ordering: .relaxed)
        claimWord.pointee.store(generation << Self.generationShift | UInt64(itemCount) << Self.countShift, ordering: .releasing)
    }

    /// Finishes the segment `publish` handed out: claims and renders items with `workspace` until
    /// none is left, then waits for the items workers hold.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    func finish(with workspace: inout VoiceLaneWorkspace) {
        let itemCount = work.pointee.itemCount
        var rendered = 0
        while let item = claim(as: 0) {
            work.pointee.render(item: item, with: &workspace)
            rendered += 1
        }
        if rendered < itemCount {
            while finishedCount.pointee.load(ordering: .acquiring) < itemCount - rendered {}
        }
    }

    /// The next item of the segment published last for thread `thread` (0 the audio thread, 1...
    /// the workers), or nil when every one is claimed. Each thread has a share of the items, the
    /// same share segment after segment, and takes its own first: a voice keeps its place in the
    /// list from one segment to the next, so each thread mostly renders the voices it rendered
    /// last, whose state its cache still holds (a voice moved to another core costs more than
    /// rendering it for a quantum). Then it takes what is left of the others' shares, from the
    /// end, where their owners come last.
    /// - Thread: any.
    @_noAllocation @_noLocks
    func claim(as thread: Int) -> Int? {
        var word = claimWord.pointee.load(ordering: .acquiring)
        let threads = workerCount + 1
        while true {
            let count = Int((word >> Self.countShift) & 0xFF)
            let unclaimed = ~word & ((1 << UInt64(count)) - 1)
            guard unclaimed != 0 else { return nil }
            let ownStart = thread * count / threads, ownEnd = (thread + 1) * count / threads
            let own = unclaimed & ((1 << UInt64(ownEnd)) - 1) & ~((1 << UInt64(ownStart)) - 1)
            let item = own != 0 ? own.trailingZeroBitCount : 63 - unclaimed.leadingZeroBitCount
            let (exchanged, original) = claimWord.pointee.compareExchange(expected: word, desired: word | 1 << UInt64(item),
                                                                         successOrdering: .acquiringAndReleasing,
                                                                         failureOrdering: .acquiring)
            if exchanged { return item }
            word = original
        }
    }

    // MARK: A worker

    /// A worker's loop: claim and render while items are left; spin a while after the last one,
    /// then nap. Proved allocation- and lock-free as the audio thread's code is; only the waiting
    /// between segments makes system calls (each in an `_unsafePerformance` funnel).
    @_noAllocation @_noLocks
    static func run(_ workers: VoiceWorkers, index: Int) {
        var priority: Int32 = 0
        var lastWork = monotonicNanoseconds()
        var nap = timespec(tv_sec: 0, tv_nsec: napNanoseconds)
        while !workers.stopping.pointee.load(ordering: .acquiring) {
            let wanted = workers.requestedPriority.pointee.load(ordering: .relaxed)
            if wanted != priority {
                priority = wanted
                var parameters = sched_param()
                parameters.sched_priority = wanted
                _ = _unsafePerformance { pthread_setschedparam(pthread_self(), wanted > 0 ? SCHED_FIFO : SCHED_OTHER, &parameters) }
            }
            if let item = workers.claim(as: index + 1) {
                workers.work.pointee.render(item: item, with: &workers.workspaces[index])
                workers.finishedCount.pointee.wrappingAdd(1, ordering: .releasing)
                workers.workerItemCount.pointee.wrappingAdd(1, ordering: .relaxed)
                lastWork = monotonicNanoseconds()
                continue
            }
            if monotonicNanoseconds() - lastWork < spinNanoseconds {
                // Watch the claim word for a while (a load from its own cache until the audio
                // thread writes it), then give the core up once: sharing one with the audio thread
                // (the scheduler's choice, or more threads than cores), a spinning worker would take
                // its time.
                var watched = 0
                let word = workers.claimWord.pointee.load(ordering: .relaxed)
                while watched < Self.watchCount && workers.claimWord.pointee.load(ordering: .relaxed) == word { watched += 1 }
                if watched == Self.watchCount { _ = _unsafePerformance { sched_yield() } }
                continue
            }
            _ = _unsafePerformance { nanosleep(&nap, nil) }
        }
    }

    @_noAllocation @_noLocks
    static func monotonicNanoseconds() -> Int {
        var now = timespec()
        _ = _unsafePerformance { clock_gettime(CLOCK_MONOTONIC, &now) }
        return now.tv_sec * 1_000_000_000 + now.tv_nsec
    }
}
