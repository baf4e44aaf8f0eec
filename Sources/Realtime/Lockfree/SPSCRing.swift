import Synchronization

/// A single-producer, single-consumer ring of fixed-size, trivially-copyable elements.
///
/// Guarantees, in the order they matter on an audio thread:
/// - **Allocates once.** `SPSCRing.make(capacity:)` allocates the slots and the index lines; no later
///   call allocates, frees, locks or makes a system call.
/// - **Wait-free.** Every call on either half finishes in a bounded number of steps. Nothing blocks,
///   spins or retries.
/// - **Full = refused.** A push into a full ring writes nothing and returns `false`; the caller still
///   holds the item. Nothing is ever overwritten, so a reader never sees a torn or recycled slot.
/// - **One writer, one reader.** `Producer` and `Consumer` are non-copyable halves: each has exactly
///   one owner, which is the thread that may call it.
///
/// The write and read indices live on their own cache lines, and each half keeps a cached copy of the
/// other's index, so the shared lines move between cores only when the cache says the ring looks full
/// (producer) or empty (consumer). Publication uses release stores and acquire loads.
///
/// The methods are `@inlinable` generics: the real-time checker (`@_noAllocation`, `@_noLocks`) proves
/// them where they are specialised, inside the annotated render code that uses a concrete `Element`.
///
/// Batches: `Producer.reserve(upTo:)` / `commit(_:)` and `Consumer.readable(upTo:)` / `release(_:)`
/// hand out the free or filled slots as at most two contiguous regions (the second one exists when
/// the region wraps), so audio frames move with `memcpy`-like loops instead of one item at a time.
public enum SPSCRing<Element: BitwiseCopyable> {
    /// Creates a ring with room for `capacity` elements, rounded up to a power of two (at least 2).
    /// - Thread: control. Not real-time safe: allocates.
    public static func make(capacity: Int) -> Halves {
        let storage = RingStorage<Element>(minimumCapacity: capacity)
        return Halves(producer: Producer(storage: storage), consumer: Consumer(storage: storage))
    }

    /// A new ring's two halves; take each out (`let p = halves.producer`) and give it to its thread.
    @frozen
    public struct Halves: ~Copyable {
        /// - Thread: control.
        public var producer: Producer
        /// - Thread: control.
        public var consumer: Consumer
    }

    /// Two contiguous regions of slots, in ring order; `second` is empty unless the region wraps.
    public struct Regions {
        /// - Thread: audio | control.
        public let first: UnsafeMutableBufferPointer<Element>
        /// - Thread: audio | control.
        public let second: UnsafeMutableBufferPointer<Element>
        /// Total number of slots in both regions.
        /// - Thread: audio | control. The thread holding the regions: the producer or the consumer.
        @inlinable public var count: Int { @_noAllocation @_noLocks get { first.count + second.count } }

        /// Copies `count` items from `source` into the regions, first then second.
        /// - Thread: audio | control.
        @inlinable
        public func fill(from source: UnsafePointer<Element>) {
            copyElements(from: source, to: first.baseAddress!, count: first.count)
            if second.count > 0 { copyElements(from: source + first.count, to: second.baseAddress!, count: second.count) }
        }

        /// Copies the regions' `count` items, first then second, to `destination`.
        /// - Thread: audio | control.
        @inlinable
        public func drain(to destination: UnsafeMutablePointer<Element>) {
            copyElements(from: first.baseAddress!, to: destination, count: first.count)
            if second.count > 0 { copyElements(from: second.baseAddress!, to: destination + first.count, count: second.count) }
        }

        @inlinable init(first: UnsafeMutableBufferPointer<Element>, second: UnsafeMutableBufferPointer<Element>) {
            self.first = first
            self.second = second
        }
    }

    /// `count` slots from `index` on, split where the ring wraps. Static, on plain values: a method
    /// call on the shared storage object would make the optimiser retain it in some builds
    /// (ThreadSanitizer's), which the real-time checker rejects.
    @inlinable
    static func regions(slots: UnsafeMutablePointer<Element>, capacity: Int, startingAt index: Int, count: Int) -> Regions {
        let start = index & (capacity - 1)
        let firstCount = min(count, capacity - start)
        return Regions(first: .init(start: slots + start, count: firstCount),
                       second: .init(start: slots, count: count - firstCount))
    }

    /// The writing half. Exactly one thread owns it.
    public struct Producer: ~Copyable, @unchecked Sendable {
        @usableFromInline let storage: RingStorage<Element>
        /// Our own index: only this half writes it, so a plain copy is always current.
        @usableFromInline var writeIndex: Int = 0
        /// Last read index we saw; stale values only under-estimate the free space.
        @usableFromInline var cachedReadIndex: Int = 0

        init(storage: RingStorage<Element>) { self.storage = storage }

        /// Slots in the ring (a power of two).
        /// - Thread: any.
        public var capacity: Int { storage.capacity }

        /// Free slots right now, refreshing the cached read index.
        /// - Thread: audio | control. The producer's: one thread at a time.
        @inlinable
        public mutating func freeCount() -> Int {
            cachedReadIndex = storage.readIndex.pointee.load(ordering: .acquiring)
            return storage.capacity - (writeIndex - cachedReadIndex)
        }

        /// Appends one item, or returns `false` and writes nothing when the ring is full.
        /// - Thread: audio | control. The producer's: one thread at a time.
        @inlinable
        public mutating func tryPush(_ item: Element) -> Bool {
            if writeIndex - cachedReadIndex == storage.capacity {
                cachedReadIndex = storage.readIndex.pointee.load(ordering: .acquiring)
                if writeIndex - cachedReadIndex == storage.capacity { return false }
            }
            (storage.slots + (writeIndex & storage.mask)).initialize(to: item)
            writeIndex &+= 1
            storage.writeIndex.pointee.store(writeIndex, ordering: .releasing)
            return true
        }

        /// Free slots (at most `maximumCount`) as up to two writable regions. Nothing is visible to the
        /// consumer until `commit(_:)`.
        /// - Thread: audio | control. The producer's: one thread at a time.
        @inlinable
        public mutating func reserve(upTo maximumCount: Int) -> Regions {
            var free = storage.capacity - (writeIndex - cachedReadIndex)
            if free < maximumCount { free = freeCount() }
            return SPSCRing.regions(slots: storage.slots, capacity: storage.capacity, startingAt: writeIndex,
                                    count: min(free, max(0, maximumCount)))
        }

        /// Publishes the first `count` slots of the last reservation.
        /// - Precondition: `count` is no more than was reserved.
        /// - Thread: audio | control. The producer's: one thread at a time.
        @inlinable
        public mutating func commit(_ count: Int) {
            writeIndex &+= count
            storage.writeIndex.pointee.store(writeIndex, ordering: .releasing)
        }

        /// Copies as many of `items` as fit and returns how many were written (a prefix).
        /// - Thread: audio | control. The producer's: one thread at a time.
        @inlinable
        public mutating func push(contentsOf items: UnsafeBufferPointer<Element>) -> Int {
            let regions = reserve(upTo: items.count)
            guard let source = items.baseAddress, regions.count > 0 else { return 0 }
            regions.fill(from: source)
            commit(regions.count)
            return regions.count
        }
    }

    /// The reading half. Exactly one thread owns it.
    public struct Consumer: ~Copyable, @unchecked Sendable {
        @usableFromInline let storage: RingStorage<Element>
        @usableFromInline var readIndex: Int = 0
        /// Last write index we saw; stale values only under-estimate what is readable.
        @usableFromInline var cachedWriteIndex: Int = 0

        init(storage: RingStorage<Element>) { self.storage = storage }

        /// Slots in the ring (a power of two).
        /// - Thread: any.
        public var capacity: Int { storage.capacity }

        /// Items waiting right now, refreshing the cached write index.
        /// - Thread: audio | control. The consumer's: one thread at a time.
        @inlinable
        public mutating func readableCount() -> Int {
            cachedWriteIndex = storage.writeIndex.pointee.load(ordering: .acquiring)
            return cachedWriteIndex - readIndex
        }

        /// The oldest item without removing it, or `nil` when the ring is empty.
        /// - Thread: audio | control. The consumer's: one thread at a time.
        @inlinable
        public mutating func peek() -> Element? {
            if readIndex == cachedWriteIndex, readableCount() == 0 { return nil }
            return storage.slots[readIndex & storage.mask]
        }

        /// Removes and returns the oldest item, or `nil` when the ring is empty.
        /// - Thread: audio | control. The consumer's: one thread at a time.
        @inlinable
        public mutating func tryPop() -> Element? {
            guard let item = peek() else { return nil }
            readIndex &+= 1
            storage.readIndex.pointee.store(readIndex, ordering: .releasing)
            return item
        }

        /// Waiting items (at most `maximumCount`) as up to two readable regions. They stay in the ring
        /// until `release(_:)`.
        /// - Thread: audio | control. The consumer's: one thread at a time.
        @inlinable
        public mutating func readable(upTo maximumCount: Int) -> Regions {
            var available = cachedWriteIndex - readIndex
            if available < maximumCount { available = readableCount() }
            return SPSCRing.regions(slots: storage.slots, capacity: storage.capacity, startingAt: readIndex,
                                    count: min(available, max(0, maximumCount)))
        }

        /// Hands the first `count` slots of the last `readable(upTo:)` back to the producer.
        /// - Precondition: `count` is no more than was readable.
        /// - Thread: audio | control. The consumer's: one thread at a time.
        @inlinable
        public mutating func release(_ count: Int) {
            readIndex &+= count
            storage.readIndex.pointee.store(readIndex, ordering: .releasing)
        }

        /// Moves up to `destination.count` items out of the ring and returns how many were moved.
        /// - Thread: audio | control. The consumer's: one thread at a time.
        @inlinable
        public mutating func pop(into destination: UnsafeMutableBufferPointer<Element>) -> Int {
            let regions = readable(upTo: destination.count)
            guard let target = destination.baseAddress, regions.count > 0 else { return 0 }
            regions.drain(to: target)
            release(regions.count)
            return regions.count
        }
    }
}

/// Shared state of one ring: the slots and the two published indices, each on its own cache line.
@usableFromInline
final class RingStorage<Element: BitwiseCopyable>: @unchecked Sendable {
    @usableFromInline let slots: UnsafeMutablePointer<Element>
    @usableFromInline let capacity: Int
    @usableFromInline let mask: Int
    @usableFromInline let indexLines: UnsafeMutableRawPointer
    @usableFromInline let writeIndex: UnsafeMutablePointer<Atomic<Int>>
    @usableFromInline let readIndex: UnsafeMutablePointer<Atomic<Int>>

    init(minimumCapacity: Int) {
        var capacity = 2
        while capacity < minimumCapacity { capacity <<= 1 }
        self.capacity = capacity
        mask = capacity - 1
        slots = .allocate(capacity: capacity)
        // Zeroed now, so that the producer's first write to a slot never faults its page in: the
        // audio thread produces into some rings.
        UnsafeMutableRawPointer(slots).initializeMemory(as: UInt8.self, repeating: 0, count: capacity * MemoryLayout<Element>.stride)
        indexLines = CacheLine.allocateSlots(count: 2)
        writeIndex = CacheLine.slot(0, in: indexLines).bindMemory(to: Atomic<Int>.self, capacity: 1)
        readIndex = CacheLine.slot(1, in: indexLines).bindMemory(to: Atomic<Int>.self, capacity: 1)
        writeIndex.initialize(to: Atomic(0))
        readIndex.initialize(to: Atomic(0))
    }

    deinit {
        writeIndex.deinitialize(count: 1)
        readIndex.deinitialize(count: 1)
        indexLines.deallocate()
        slots.deallocate()
    }
}

/// A bitwise copy of `count` elements: elements are `BitwiseCopyable`, so this is a plain memory copy,
/// which the real-time checker accepts where `update(from:count:)` is an opaque library call.
@inlinable
func copyElements<Element: BitwiseCopyable>(from source: UnsafePointer<Element>, to destination: UnsafeMutablePointer<Element>, count: Int) {
    UnsafeMutableRawPointer(destination).copyMemory(from: source, byteCount: count * MemoryLayout<Element>.stride)
}
