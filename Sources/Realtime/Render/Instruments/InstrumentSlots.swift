/// Where a player keeps the instruments it plays (the sampler's banks, the drum player's kits):
/// a fixed number of slots, each holding one instrument's retain, one of them current and the
/// others ringing out. One mechanism for every kind of instrument: an install takes a free slot
/// and becomes current, or finds none (the player then fades the old instruments' voices and the
/// install is retried next quantum); an instrument that is neither current nor sounding leaves its
/// slot, and its retain goes back to the control thread to be released there. What a slot's
/// instrument holds for the audio thread (its tables, its voices) the player keeps beside, at the
/// same index.
///
/// Allocated on the control thread; every other call is the audio thread's.
struct InstrumentSlots {
    let count: Int
    private let handles: UnsafeMutablePointer<RetainedObject?>
    /// The slot of the instrument that plays new notes; -1 before the first install.
    private(set) var current = -1

    /// - Thread: control. Not real-time safe: allocates.
    init(count: Int) {
        self.count = count
        handles = .allocate(capacity: count)
        handles.initialize(repeating: nil, count: count)
    }

    /// Hands every retain still held to `release` and frees the slots.
    /// - Thread: stopped.
    func deallocate(releasing release: (RetainedObject) -> Void) {
        for index in 0..<count { if let handle = handles[index] { release(handle) } }
        handles.deinitialize(count: count)
        handles.deallocate()
    }

    /// True when a slot holds an instrument.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    func isOccupied(_ index: Int) -> Bool {
        if case .none = handles[index] { false } else { true }
    }

    /// The first empty slot, or -1 when every slot is still ringing out.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    func firstFree() -> Int {
        for index in 0..<count where !isOccupied(index) { return index }
        return -1
    }

    /// Puts `handle`'s instrument in the empty slot `index` and makes it current. The slot keeps the
    /// retain, which keeps everything the player reads of the instrument alive.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    mutating func occupy(_ index: Int, with handle: RetainedObject) {
        handles[index] = handle
        current = index
    }

    /// True for a slot whose instrument rings out: occupied and not current.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    func isRingingOut(_ index: Int) -> Bool {
        index != current && isOccupied(index)
    }

    /// Empties a slot that is ringing out and returns its retain, for the control thread.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    mutating func vacate(_ index: Int) -> RetainedObject? {
        let handle = handles[index]
        handles[index] = nil
        return handle
    }
}
