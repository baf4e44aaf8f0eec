import Lockfree
import Synchronization

/// Which thread renders which work item of a segment: the audio thread publishes a segment, and
/// each thread, the audio thread (0) and the voice workers (1...), claims items until none is left.
///
/// Guarantees:
/// - Every item of a published segment is claimed by exactly one thread, and a claim never
///   returns an item of another segment: a claim is a compare-and-exchange on the current word,
///   and what the item is (`order`, `work`) is read after it succeeds. A thread that read an old
///   segment's word fails the exchange, since the word carries the segment's generation; should
///   the generation have wrapped round to an equal word, the exchange claims an item of the
///   current segment, as a fresh load would have.
/// - Publishing is a store to each thread's word; claiming is a load and a compare-and-exchange:
///   no allocation, no lock, no system call, so the audio thread may do both.
/// - Which items a thread claims changes who renders what, never the output: see `VoiceWorkItems`.
///
/// Each thread has a share of the segment's items (`share(of:itemCount:)`) and a claim word for it,
/// on a line of its own: it claims its own items without taking a line from another core, and
/// takes from another's word (steals) only once its own large items are claimed. A claim word packs
/// a bit per item of the share claimed, the share's item count, how many of them are large, and the
/// generation. Bit `b` of a share names entry `share.lowerBound + b` of `order`: the share's large
/// items first, then its small ones (`VoiceWorkItems.isClaimedLast`). A thread claims its own share
/// from the lowest bit. Out of its own large items, it steals another share's highest large item
/// left, so owner and thief meet in the middle of that share's large items. Only once no large item
/// is left anywhere does it take its own lowest small item, then another share's highest. So every
/// thread's last items are small, whichever thread started late (the audio thread mixes the segment
/// before, first), and the threads finish within about a small item of each other.
///
/// The caller publishes a segment only once every item of the previous one is finished, so a
/// thread holding a claimed item always reads the segment it was claimed in.
struct ItemClaims {
    /// A claim word's layout: a bit per item of the share claimed (`VoiceWorkItems.maximumItemCount`
    /// at most), then the share's item count, then how many of them are large, each in a byte, then
    /// the generation.
    static var countShift: UInt64 {
        @_noAllocation @_noLocks get { 32 }
    }
    static var largeCountShift: UInt64 {
        @_noAllocation @_noLocks get { 40 }
    }
    static var generationShift: UInt64 {
        @_noAllocation @_noLocks get { 48 }
    }

    /// Each thread's claim word, a slot each (`CacheLine.slot(_:in:)`, `word(of:)`).
    let words: UnsafeMutableRawPointer
    /// The order in which each thread claims its share, written by `publish` before the words.
    let order: UnsafeMutablePointer<UInt8>
    /// How many of each thread's share are large (the first entries of its part of `order`),
    /// counted when `order` is written: the audio thread's alone, for the words it publishes.
    let largeCounts: UnsafeMutablePointer<UInt8>
    /// The threads that claim: the audio thread and the workers.
    var threadCount: Int
    /// The audio thread's count of segments published.
    var generation: UInt64 = 0
    /// What `order` was last written for (item counts and large items' size packed), on the audio
    /// thread's copy: the table is rewritten only when it changes, so the workers' copies of its
    /// line stay valid from one segment to the next.
    var orderKey = -1

    /// Words for `threadCount` threads, none with an item to claim.
    /// - Thread: control.
    init(threadCount: Int) {
        self.threadCount = threadCount
        words = CacheLine.allocateSlots(count: threadCount)
        for thread in 0..<threadCount {
            CacheLine.slot(thread, in: words).bindMemory(to: Atomic<UInt64>.self, capacity: 1).initialize(to: Atomic(0))
        }
        // On lines of its own: no cell another thread writes shares them.
        order = UnsafeMutableRawPointer.allocate(byteCount: max(VoiceWorkItems.maximumItemCount, CacheLine.separationByteCount),
                                                 alignment: CacheLine.separationByteCount)
            .initializeMemory(as: UInt8.self, repeating: 0, count: VoiceWorkItems.maximumItemCount)
        largeCounts = .allocate(capacity: threadCount)
        largeCounts.initialize(repeating: 0, count: threadCount)
    }

    /// - Thread: stopped.
    func deallocate() {
        words.deallocate()
        order.deallocate()
        largeCounts.deallocate()
    }

    /// Hands out the items of the segment `work` describes: from now on each thread claims them.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    mutating func publish(_ work: UnsafeMutablePointer<VoiceWorkItems>) {
        let itemCount = work.pointee.itemCount
        let samplerItemCount = work.pointee.samplerItemCount, groupsPerLargeItem = work.pointee.groupsPerLargeItem
        generation = (generation + 1) & 0xFFFF
        let key = itemCount | samplerItemCount << 8 | groupsPerLargeItem << 16
        if key != orderKey {
            orderKey = key
            for thread in 0..<threadCount {
                let share = self.share(of: thread, itemCount: itemCount)
                var entry = share.lowerBound
                for pass in 0..<2 {
                    for item in share where VoiceWorkItems.isClaimedLast(item, samplerItemCount: samplerItemCount,
                                                                         groupsPerLargeItem: groupsPerLargeItem) == (pass == 1) {
                        order[entry] = UInt8(item)
                        entry += 1
                    }
                    if pass == 0 { largeCounts[thread] = UInt8(entry - share.lowerBound) }
                }
            }
        }
        for thread in 0..<threadCount {
            let count = share(of: thread, itemCount: itemCount).count
            word(of: thread).pointee.store(generation << Self.generationShift | UInt64(largeCounts[thread]) << Self.largeCountShift
                                           | UInt64(count) << Self.countShift, ordering: .releasing)
        }
    }

    /// The next item of the segment published last for thread `thread`, or nil when every one is
    /// claimed: the first large item left of its own share in `order`; else the last large item
    /// left of another's share (the next thread's first); only once no large item is left
    /// anywhere, its own first small one, else another's last. `work` is the segment's
    /// description, read once the claim has succeeded.
    /// - Thread: any.
    @_noAllocation @_noLocks
    func claim(as thread: Int, in work: UnsafeMutablePointer<VoiceWorkItems>) -> Int? {
        for pass in 0..<2 {
            for step in 0..<threadCount {
                let owner = (thread + step) % threadCount
                let word = word(of: owner)
                var value = word.pointee.load(ordering: .acquiring)
                while true {
                    let count = Int((value >> Self.countShift) & 0xFF)
                    let largeCount = Int((value >> Self.largeCountShift) & 0xFF)
                    let unclaimed = ~value & ((1 << UInt64(pass == 0 ? largeCount : count)) - 1)
                    guard unclaimed != 0 else { break }
                    let bit = step == 0 ? unclaimed.trailingZeroBitCount : 63 - unclaimed.leadingZeroBitCount
                    let (exchanged, original) = word.pointee.compareExchange(expected: value, desired: value | 1 << UInt64(bit),
                                                                            successOrdering: .acquiringAndReleasing,
                                                                            failureOrdering: .acquiring)
                    // Claimed: the word was this segment's (its generation), so `work` and `order` are too.
                    if exchanged { return Int(order[share(of: owner, itemCount: work.pointee.itemCount).lowerBound + bit]) }
                    value = original
                }
            }
        }
        return nil
    }

    /// Thread `thread`'s claim word.
    @_noAllocation @_noLocks
    func word(of thread: Int) -> UnsafeMutablePointer<Atomic<UInt64>> {
        CacheLine.slot(thread, in: words).assumingMemoryBound(to: Atomic<UInt64>.self)
    }

    /// Thread `thread`'s share of a segment of `itemCount` items: a voice keeps its place in the
    /// list from one segment to the next, so each thread mostly renders the voices it rendered
    /// last, whose state its cache still holds (a voice moved to another core costs more than
    /// rendering it for a quantum).
    @_noAllocation @_noLocks
    func share(of thread: Int, itemCount: Int) -> Range<Int> {
        (thread * itemCount / threadCount)..<((thread + 1) * itemCount / threadCount)
    }
}
