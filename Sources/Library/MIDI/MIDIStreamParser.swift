/// Turns a live MIDI byte stream (a raw MIDI device, a FIFO, stdin) into channel messages, one
/// byte at a time.
///
/// Guarantees: never traps, whatever bytes arrive; constant memory (a few bytes of state, no
/// allocation), so it can sit in a read loop forever; and every complete channel message is
/// returned, in the order its last byte arrived. Follows MIDI 1.0: running status; real-time bytes
/// (0xF8–0xFF) anywhere, even inside a message, without disturbing it; the SysEx messages
/// `SystemExclusive` recognises returned as `.system` when their F7 arrives, every other SysEx
/// skipped (the first few bytes are kept to recognise it by, in a fixed buffer); system common
/// messages cancel running status; data bytes with no status to belong to are dropped until the
/// next status byte brings the stream back in step.
///
/// - Thread: control. The thread reading the MIDI source. A plain value, one per source.
public struct MIDIStreamParser: Sendable {
    /// The status data bytes currently belong to, 0x80–0xEF, or 0 for none (at the start, after
    /// system common, or after `reset()`), in which case data bytes are dropped.
    private var runningStatus: UInt8 = 0
    /// The first data byte of a two-byte message, held until the second arrives.
    private var firstData: UInt8 = 0
    private var hasFirstData = false
    /// Bytes of the message being assembled (its status byte if it was sent, and its data), so a
    /// message cut short can be counted as discarded.
    private var partialByteCount = 0
    /// Inside a SysEx: its bytes are not ours to read, however much they look like channel data.
    private var inSysEx = false
    /// The SysEx being received, after its F0: as much of it as the longest recognised message
    /// needs. A longer one overflows, and is not recognised.
    private var sysExBytes = SysExBuffer()

    /// Bytes that could not be used (stray data bytes with no status, bytes cut short by a new
    /// status, SysEx messages not recognised), for diagnostics.
    ///
    /// Counts every byte fed that is neither part of a returned message nor a real-time byte
    /// (system common messages included: they carry nothing a synthesiser plays). Not cleared by
    /// `reset()`: it describes the whole life of the source.
    /// - Thread: control.
    public private(set) var discardedByteCount = 0

    /// A parser with no running status, waiting for a status byte.
    /// - Thread: control.
    public init() {}

    /// Feeds one byte; returns the channel message it completes, if any.
    /// - Thread: control.
    public mutating func feed(_ byte: UInt8) -> MIDIMessage? {
        switch byte {
        case 0xF8...0xFF:
            // Clock, start/stop, active sensing, reset: timing and liveness, not notes. The spec lets
            // them interleave with anything, so they must leave every other piece of state alone.
            return nil
        case 0x80...0xF7:
            return beginStatus(byte)
        default:
            return data(byte)
        }
    }

    /// Feeds bytes, calling `handle` for each completed message in order.
    /// - Thread: control.
    public mutating func feed<Bytes: Sequence>(_ bytes: Bytes, _ handle: (MIDIMessage) -> Void) where Bytes.Element == UInt8 {
        for byte in bytes {
            if let message = feed(byte) { handle(message) }
        }
    }

    /// Forgets running status and any partial message (e.g. after a source reconnects).
    ///
    /// A reconnected source may resume mid-message or under a different running status, so
    /// nothing from before can be trusted to combine with what comes next.
    /// - Thread: control.
    public mutating func reset() {
        discardPartialMessage()
        runningStatus = 0
        if inSysEx { discardedByteCount += 1 + sysExBytes.count }
        inSysEx = false
        sysExBytes.removeAll()
    }

    private mutating func discardPartialMessage() {
        discardedByteCount += partialByteCount
        partialByteCount = 0
        hasFirstData = false
    }

    /// Returns the SysEx message an F7 completes, if it is one `SystemExclusive` recognises.
    private mutating func beginStatus(_ status: UInt8) -> MIDIMessage? {
        // A status byte where data was due means bytes were lost: what was assembled cannot be
        // completed, and guessing its missing bytes would play wrong notes.
        discardPartialMessage()
        if inSysEx {
            inSysEx = false
            if status == 0xF7 {
                if !sysExBytes.overflowed, let recognised = SystemExclusive.recognise(sysExBytes) { return .system(recognised) }
                discardedByteCount += 2 + sysExBytes.count  // F0, the bytes kept, F7 (the rest were counted as they came)
                return nil
            }
            // A SysEx cut off by another status byte ends there (the spec's rule for a missing
            // EOX), and that status byte is read as itself. Cut short, it is not recognised.
            discardedByteCount += 1 + sysExBytes.count
        }
        switch status {
        case 0x80...0xEF:
            runningStatus = status
            partialByteCount = 1
        default:
            // System common, SysEx included, cancels running status: data after it is not for
            // the last channel status.
            runningStatus = 0
            inSysEx = status == 0xF0
            sysExBytes.removeAll()
            // F0 is counted when its message ends, recognised or not.
            if !inSysEx { discardedByteCount += 1 }
        }
        return nil
    }

    private mutating func data(_ byte: UInt8) -> MIDIMessage? {
        if inSysEx {
            if !sysExBytes.append(byte) { discardedByteCount += 1 }
            return nil
        }
        guard runningStatus != 0 else {
            // Without a status we cannot know which message this byte belongs to, or where the
            // next one starts: drop bytes until a status byte tells us.
            discardedByteCount += 1
            return nil
        }
        if MIDIMessage.dataByteCount(status: runningStatus) == 2, !hasFirstData {
            firstData = byte
            hasFirstData = true
            partialByteCount += 1
            return nil
        }
        // Complete. Running status stays, so the next data byte starts the next message.
        partialByteCount = 0
        let twoBytes = hasFirstData
        hasFirstData = false
        return twoBytes ? MIDIMessage.channelMessage(status: runningStatus, first: firstData, second: byte)
            : MIDIMessage.channelMessage(status: runningStatus, first: byte, second: 0)
    }
}

/// The first bytes of a SysEx after its F0, in fixed storage: the longest message
/// `SystemExclusive` recognises has 9 bytes there. Bytes past `capacity` are not kept and mark the
/// message as overflowed (too long to be one of them).
struct SysExBuffer: RandomAccessCollection {
    static let capacity = 16
    private var storage = SIMD16<UInt8>()
    private(set) var count = 0
    private(set) var overflowed = false

    var startIndex: Int { 0 }
    var endIndex: Int { count }
    subscript(position: Int) -> UInt8 { storage[position] }

    /// Keeps `byte`; false when the buffer is full, and the byte is dropped.
    mutating func append(_ byte: UInt8) -> Bool {
        guard count < Self.capacity else {
            overflowed = true
            return false
        }
        storage[count] = byte
        count += 1
        return true
    }

    mutating func removeAll() {
        count = 0
        overflowed = false
    }
}
