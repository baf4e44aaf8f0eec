/// The commands the renderer has taken out of the command ring and not applied yet, kept in the
/// order they take effect: by frame, and commands due at the same frame in the order they were
/// sent. The ring is first in, first out; this store is what lets a command meant for now overtake
/// one sent earlier for a later frame.
///
/// A binary min-heap in one allocation made at construction, so that inserting and removing cost
/// O(log n) steps and never allocate: a burst of thousands of commands sent in reverse order is
/// sorted within a block's deadline, where a sorted array would move every entry for each insert.
/// A heap does not keep the order of equal keys by itself, so each entry carries a sequence number
/// taken as it enters (the ring's order, which is the order sent).
///
/// - Thread: audio. The renderer's, once built on the control thread.
struct PendingCommands {
    /// A command with its place in the order: the frame it is due at, then the sequence number.
    struct Entry {
        var command: RenderCommand
        var sequence: UInt64

        @_noAllocation @_noLocks
        func precedes(_ other: Entry) -> Bool {
            command.frameTime != other.command.frameTime ? command.frameTime < other.command.frameTime : sequence < other.sequence
        }
    }

    let capacity: Int
    private(set) var count = 0
    private let entries: UnsafeMutablePointer<Entry>
    private var nextSequence: UInt64 = 0

    /// - Thread: control. Not real-time safe: allocates.
    init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
        entries = .allocate(capacity: capacity)
        // Written now, so that no page of the store is first touched (faulted in) on the audio thread.
        UnsafeMutableRawPointer(entries).initializeMemory(as: UInt8.self, repeating: 0, count: capacity * MemoryLayout<Entry>.stride)
    }

    /// Frees the storage, handing every command still waiting to `discard` first.
    /// - Thread: stopped. Not real-time safe: frees.
    func deallocate(discarding discard: (RenderCommand) -> Void) {
        for index in 0..<count { discard(entries[index].command) }
        entries.deallocate()
    }

    var isFull: Bool {
        @_noAllocation @_noLocks get { count == capacity }
    }

    /// The command that takes effect first, or nil when none waits.
    var first: RenderCommand? {
        @_noAllocation @_noLocks get { count > 0 ? entries[0].command : nil }
    }

    /// Adds `command` after every command already here that is due at the same frame or earlier.
    /// A command whose frame is before `earliestFrame` (the frame being rendered as it arrives) is
    /// due at `earliestFrame`: it cannot take effect in the past, and arriving late must not move it
    /// ahead of commands sent before it (a note-off sent "now" must follow the note-on sent "now"
    /// a moment earlier, whatever their stamps say). Returns false, and keeps nothing, when full.
    @_noAllocation @_noLocks
    mutating func insert(_ command: RenderCommand, dueNoEarlierThan earliestFrame: FrameTime) -> Bool {
        guard count < capacity else { return false }
        var entry = Entry(command: command, sequence: nextSequence)
        entry.command.frameTime = max(command.frameTime, earliestFrame)
        nextSequence &+= 1
        // Sift up: move parents that come after the new entry down a level.
        var index = count
        while index > 0 {
            let parent = (index - 1) / 2
            guard entry.precedes(entries[parent]) else { break }
            entries[index] = entries[parent]
            index = parent
        }
        entries[index] = entry
        count += 1
        return true
    }

    /// Removes the command `first` returned.
    @_noAllocation @_noLocks
    mutating func removeFirst() {
        guard count > 0 else { return }
        count -= 1
        guard count > 0 else { return }
        // Sift the last entry down from the root: move the earlier child up a level.
        let entry = entries[count]
        var index = 0
        while true {
            let left = 2 * index + 1
            guard left < count else { break }
            let right = left + 1
            // Written out: `&&` takes its right side as a closure.
            var earlierChild = left
            if right < count, entries[right].precedes(entries[left]) { earlierChild = right }
            guard entries[earlierChild].precedes(entry) else { break }
            entries[index] = entries[earlierChild]
            index = earlierChild
        }
        entries[index] = entry
    }
}
