import CStackPrefault
import CThreadName
import Glibc
import Lockfree
import Synchronization

/// Threads that render the sampler's work items beside the audio thread.
///
/// Guarantees:
/// - The audio thread never waits for a worker that has not started an item: it claims items
///   itself, through the same claim words, until none is left, and then waits only for the items
///   workers already hold. A worker that is asleep or preempted costs time, never a deadline by
///   itself.
/// - On the audio thread: no allocation, no lock, no system call. It publishes a segment and
///   claims items through `ItemClaims`. Workers sleep on their own side (a short `nanosleep` once
///   no segment has come for `spinNanoseconds`, a longer one after `restAfterNanoseconds`); nobody
///   has to wake them.
/// - The output does not depend on who renders what: see `VoiceWorkItems`.
///
/// A segment is published only once every item of the previous one is finished, so an item a
/// worker holds always belongs to the segment `work` describes.
struct VoiceWorkers {
    /// Once no segment has come for this long a worker naps; within it, it spins on the claim
    /// word. Offline, segments come back to back and it never naps. Unpaced (a caller that renders
    /// blocks on a clock of its own), one segment or a few come a block: 200 µs covers their run,
    /// and the worker is back within `napNanoseconds` of the next block's first. Paced (live),
    /// `pacedSpinNanoseconds` and one sleep a period take its place.
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
    /// Once no segment has come for this long (silence: a pause in the song, an instrument left
    /// open), a worker rests `restNanoseconds` at a time instead: napping 50 µs at a time, an idle
    /// engine on two threads took 3.0 s of CPU time in 10 s on a virtual machine, where each nap
    /// costs about 12 µs of it. Longer than a period of 2,048 frames at 48 kHz, so a
    /// stream that plays never gets there; the first segments after a silence are the audio
    /// thread's alone for up to `restNanoseconds`, which it renders as it does on one thread.
    static var restAfterNanoseconds: Int {
        @_noAllocation @_noLocks get { 50_000_000 }
    }
    static var restNanoseconds: Int {
        @_noAllocation @_noLocks get { 1_000_000 }
    }
    /// Live and paced, how long a worker watches for the period's next segment after an item.
    static var pacedSpinNanoseconds: Int {
        @_noAllocation @_noLocks get { 50_000 }
    }
    /// Live, how long before the next period's work is due a paced worker wakes (`paced`): the
    /// device thread's wake-up and the audio thread's own work before its first segment move by
    /// tens of microseconds, so an eighth of the period, and 100 µs at least.
    @_noAllocation @_noLocks
    static func wakeMarginNanoseconds(period: Int) -> Int {
        max(100_000, period / 8)
    }
    /// Voice frames (voices × frames) below which a segment is rendered on the audio thread alone:
    /// 32 voices for a whole quantum, about 5 µs of work. Smaller segments cost more to hand out than
    /// a second thread saves.
    static var smallestSharedWork: Int {
        @_noAllocation @_noLocks get { 32 * RenderQuantum.frameCount }
    }
    /// The workers' thread name (15 bytes at most, as Linux keeps it).
    static let threadName = "staccato-voices"

    /// The memory of the atomic cells below, a slot each (`CacheLine.allocateSlots(count:)`).
    let cells: UnsafeMutableRawPointer
    static var cellCount: Int {
        @_noAllocation @_noLocks get { 7 }
    }
    /// Which thread renders which item (0 the audio thread, then the workers); its generation
    /// counts on the audio thread's copy alone.
    var claims: ItemClaims
    let finishedCount: UnsafeMutablePointer<Atomic<Int>>
    /// Items the workers have rendered, ever: what shows that they share the work.
    let workerItemCount: UnsafeMutablePointer<Atomic<Int>>
    let stopping: UnsafeMutablePointer<Atomic<Bool>>
    /// The SCHED_FIFO priority workers should run at (0: normal scheduling), which any thread may
    /// set (`Renderer.setVoiceWorkerPriority`); each worker applies it itself before its next claim.
    let requestedPriority: UnsafeMutablePointer<Atomic<Int32>>
    /// Live, `render` is called once a period of the device's clock (`Renderer.setVoiceWorkersPaced`);
    /// offline, back to back. A period's segments come in a burst: between bursts a paced worker
    /// sleeps once, to just before the next is due, instead of napping 50 µs at a time (each nap
    /// costs about 12 µs of CPU time on a virtual machine).
    let paced: UnsafeMutablePointer<Atomic<Bool>>
    /// The frames of the block `render` was last called for, which the audio thread stores when
    /// it changes (a JACK server's period may): a paced worker's period.
    let blockFrameCount: UnsafeMutablePointer<Atomic<Int>>
    /// Blocks `render` has begun, ever: a paced worker sleeps a period only while they come one a
    /// period, not while a stream catches up with blocks back to back.
    let blockSequence: UnsafeMutablePointer<Atomic<Int>>
    /// Nanoseconds a frame lasts at the render's sample rate.
    let frameNanoseconds: Double
    let work: UnsafeMutablePointer<VoiceWorkItems>
    let workspaces: UnsafeMutablePointer<VoiceLaneWorkspace>
    let threads: UnsafeMutablePointer<pthread_t>
    /// Threads started: 0 when the system refused one (the audio thread then renders alone).
    var workerCount: Int { claims.threadCount - 1 }

    /// What a worker thread starts with.
    final class Start {
        let workers: VoiceWorkers
        let index: Int
        init(_ workers: VoiceWorkers, index: Int) {
            self.workers = workers
            self.index = index
        }
    }

    /// Starts `count` workers over `work`, for a render at `sampleRate`.
    /// - Thread: control.
    init(count: Int, work: UnsafeMutablePointer<VoiceWorkItems>, sampleRate: Double) {
        // Each cell on lines of its own: a cell one thread writes beside one another reads would
        // drag it from core to core each time.
        let block = CacheLine.allocateSlots(count: Self.cellCount)
        func cell<Value: ~Copyable>(_ index: Int, _ value: consuming Value) -> UnsafeMutablePointer<Value> {
            let pointer = CacheLine.slot(index, in: block).bindMemory(to: Value.self, capacity: 1)
            pointer.initialize(to: value)
            return pointer
        }
        cells = block
        finishedCount = cell(0, Atomic<Int>(0))
        workerItemCount = cell(1, Atomic<Int>(0))
        stopping = cell(2, Atomic<Bool>(false))
        requestedPriority = cell(3, Atomic<Int32>(0))
        paced = cell(4, Atomic<Bool>(false))
        blockFrameCount = cell(5, Atomic<Int>(0))
        blockSequence = cell(6, Atomic<Int>(0))
        claims = ItemClaims(threadCount: count + 1)
        frameNanoseconds = 1e9 / sampleRate
        self.work = work
        workspaces = .allocate(capacity: max(count, 1))
        for index in 0..<count { (workspaces + index).initialize(to: VoiceLaneWorkspace()) }
        threads = .allocate(capacity: max(count, 1))
        var started = 0
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
            claims.threadCount = 1
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
        cells.deallocate()
        claims.deallocate()
    }

    // MARK: The audio thread

    /// Hands the segment `work` describes to the workers: from now on they claim its items. The
    /// audio thread may do work of its own before it joins them (`finish`); `work` must not change
    /// until then.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    mutating func publish() {
        finishedCount.pointee.store(0, ordering: .relaxed)
        claims.publish(work)
    }

    /// Finishes the segment `publish` handed out: claims and renders items with `workspace` until
    /// none is left, then waits for the items workers hold.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    func finish(with workspace: inout VoiceLaneWorkspace) {
        let itemCount = work.pointee.itemCount
        var rendered = 0
        while let item = claims.claim(as: 0, in: work) {
            work.pointee.render(item: item, with: &workspace)
            rendered += 1
        }
        if rendered < itemCount {
            while finishedCount.pointee.load(ordering: .acquiring) < itemCount - rendered {}
        }
    }

    // MARK: A worker

    /// Now on the monotonic clock in nanoseconds, signed: the worker's waits subtract them.
    @inline(__always) @_noAllocation @_noLocks
    static func now() -> Int { Int(truncatingIfNeeded: MonotonicClock.nanoseconds()) }

    /// A worker's loop: claim and render while items are left; spin a while after the last one,
    /// then nap, or, paced, sleep to just before the next period's work and watch for it. Proved
    /// allocation- and lock-free as the audio thread's code is; only the waiting between segments
    /// makes system calls (each in an `_unsafePerformance` funnel).
    @_noAllocation @_noLocks
    static func run(_ workers: VoiceWorkers, index: Int) {
        var priority: Int32 = 0
        var lastWork = Self.now()
        // Watch its claim word until then: after an item, or after a paced sleep.
        var watchUntil = lastWork + spinNanoseconds
        // When this worker found the first item after a sleep: a period's work begins there; and
        // the block the audio thread was on then.
        var burstStart = 0
        var burstBlock = 0
        var sleptSinceWork = false
        while !workers.stopping.pointee.load(ordering: .acquiring) {
            let wanted = workers.requestedPriority.pointee.load(ordering: .relaxed)
            if wanted != priority {
                priority = wanted
                var parameters = sched_param()
                parameters.sched_priority = wanted
                _ = _unsafePerformance { pthread_setschedparam(pthread_self(), wanted > 0 ? SCHED_FIFO : SCHED_OTHER, &parameters) }
            }
            if let item = workers.claims.claim(as: index + 1, in: workers.work) {
                if sleptSinceWork {
                    burstStart = Self.now()
                    burstBlock = workers.blockSequence.pointee.load(ordering: .relaxed)
                    sleptSinceWork = false
                }
                workers.work.pointee.render(item: item, with: &workers.workspaces[index])
                workers.finishedCount.pointee.wrappingAdd(1, ordering: .releasing)
                workers.workerItemCount.pointee.wrappingAdd(1, ordering: .relaxed)
                lastWork = Self.now()
                // Paced, a period's segments follow each other within tens of microseconds; a
                // later one (a burst of note-ons between them) comes from the next nap.
                watchUntil = lastWork + (workers.isOnSchedule(since: burstBlock) ? pacedSpinNanoseconds : spinNanoseconds)
                continue
            }
            let now = Self.now()
            if now < watchUntil {
                // Watch its claim word for a while (a load from its own cache until the audio
                // thread writes it), then give the core up once: sharing one with the audio thread
                // (the scheduler's choice, or more threads than cores), a spinning worker would take
                // its time.
                var watched = 0
                let own = workers.claims.word(of: index + 1)
                let word = own.pointee.load(ordering: .relaxed)
                while watched < Self.watchCount && own.pointee.load(ordering: .relaxed) == word { watched += 1 }
                if watched == Self.watchCount { _ = _unsafePerformance { sched_yield() } }
                continue
            }
            let idle = now - lastWork
            sleptSinceWork = true
            let period = workers.isOnSchedule(since: burstBlock)
                ? Int(Double(workers.blockFrameCount.pointee.load(ordering: .relaxed)) * workers.frameNanoseconds) : 0
            if period > 0, idle < restAfterNanoseconds {
                // The next period's work is due a whole number of periods after the last burst
                // this worker saw (periods whose voices were too few to share have none).
                let margin = wakeMarginNanoseconds(period: period)
                var due = burstStart + period
                if due - margin <= now { due += ((now - (due - margin)) / period + 1) * period }
                let untilDue = due - margin - now
                if untilDue > napNanoseconds {
                    var rest = timespec(tv_sec: untilDue / 1_000_000_000, tv_nsec: untilDue % 1_000_000_000)
                    _ = _unsafePerformance { nanosleep(&rest, nil) }
                    // Then watch for the period's first segment as after an item; when the
                    // guess was wrong, naps follow until a segment comes.
                    watchUntil = Self.now() + 2 * margin
                    continue
                }
            }
            var nap = timespec(tv_sec: 0, tv_nsec: idle < restAfterNanoseconds ? napNanoseconds : restNanoseconds)
            _ = _unsafePerformance { nanosleep(&nap, nil) }
        }
    }

    /// Whether the workers are paced and the audio thread has begun no more than one block since
    /// block `burstBlock`: blocks come a period apart, and the next is a period away.
    @_noAllocation @_noLocks
    func isOnSchedule(since burstBlock: Int) -> Bool {
        guard paced.pointee.load(ordering: .relaxed) else { return false }
        return blockSequence.pointee.load(ordering: .relaxed) &- burstBlock <= 1
    }
}
