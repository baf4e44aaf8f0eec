/// The unit of memory cores pass between their caches: what two threads' data must not share when
/// each writes its own.
///
/// A line one thread writes and another reads or writes moves between their cores at every write
/// (false sharing when the data are unrelated): tens to hundreds of nanoseconds each time, on
/// lines touched once per work item or per block.
/// - Thread: any.
public enum CacheLine {
    /// 64 bytes: the line of every x86-64 and of most ARM cores.
    /// - Thread: any.
    public static var byteCount: Int {
        @_noAllocation @_noLocks @inlinable get { 64 }
    }
    /// How far apart data written by different threads are kept: two lines, because x86-64 cores
    /// fetch lines in aligned pairs (the adjacent-line prefetcher), so neighbours in one pair
    /// still travel together.
    /// - Thread: any.
    public static var separationByteCount: Int {
        @_noAllocation @_noLocks @inlinable get { 128 }
    }

    /// Memory for `count` slots of `separationByteCount` bytes each, the first on such a boundary:
    /// a value in each (`slot(_:in:)`), which different threads may write without sharing a line.
    /// The caller initializes each slot's value and deallocates the memory.
    /// - Thread: control.
    public static func allocateSlots(count: Int) -> UnsafeMutableRawPointer {
        .allocate(byteCount: max(count, 1) * separationByteCount, alignment: separationByteCount)
    }

    /// Slot `index` of memory from `allocateSlots(count:)`.
    /// - Thread: any.
    @_noAllocation @_noLocks @inlinable
    public static func slot(_ index: Int, in slots: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer {
        slots + index * separationByteCount
    }
}
