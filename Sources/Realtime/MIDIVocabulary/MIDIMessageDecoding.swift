extension MIDIMessage {
    /// The channel voice message a status byte (0x80-0xEF) and its data bytes make; `second` is
    /// ignored for the one-data-byte messages (program change, channel pressure). A note-on of
    /// velocity 0 is a note-off of release velocity 64, as the MIDI spec says to read it. The one
    /// place status and data become a message: the byte-stream parser and `decoding(_:)` both end
    /// here.
    /// - Thread: any. Allocation-free.
    @_noAllocation @_noLocks
    public static func channelMessage(status: UInt8, first: UInt8, second: UInt8) -> MIDIMessage {
        let channel = status & 0x0F
        switch status >> 4 {
        case 0x8: return .noteOff(channel: channel, key: first, velocity: second)
        case 0x9:
            return second == 0 ? .noteOff(channel: channel, key: first, velocity: 64)
                : .noteOn(channel: channel, key: first, velocity: second)
        case 0xA: return .polyPressure(channel: channel, key: first, pressure: second)
        case 0xB: return .controlChange(channel: channel, controller: first, value: second)
        case 0xC: return .programChange(channel: channel, program: first)
        case 0xD: return .channelPressure(channel: channel, pressure: first)
        default: return .pitchBend(channel: channel, value: UInt16(first) | UInt16(second) << 7)
        }
    }

    /// How many data bytes follow a channel status byte (0x80-0xEF): one for program change and
    /// channel pressure, two for the rest.
    /// - Thread: any.
    @_noAllocation @_noLocks
    public static func dataByteCount(status: UInt8) -> Int {
        let kind = status >> 4
        return kind == 0xC || kind == 0xD ? 1 : 2
    }

    /// The message one whole event's bytes hold, as a JACK MIDI port delivers them (a status byte
    /// and its data, no running status; a SysEx from F0 to F7), or nil for anything else: a
    /// real-time or system common message, a SysEx `SystemExclusive` does not recognise, a data
    /// byte of 0x80 or more, or an event too short for its status.
    /// - Thread: any. Allocation-free: the JACK process callback calls it.
    @_noAllocation @_noLocks
    public static func decoding(_ bytes: UnsafeBufferPointer<UInt8>) -> MIDIMessage? {
        guard let status = bytes.first else { return nil }
        switch status {
        case 0x80...0xEF:
            let needed = dataByteCount(status: status)
            guard bytes.count > needed else { return nil }
            for index in 1...needed where bytes[index] >= 0x80 { return nil }
            return channelMessage(status: status, first: bytes[1], second: needed == 2 ? bytes[2] : 0)
        case 0xF0:
            guard bytes.count >= 2, bytes[bytes.count - 1] == 0xF7 else { return nil }
            let body = UnsafeBufferPointer(rebasing: bytes[1..<(bytes.count - 1)])
            return SystemExclusive.recognise(body).map { .system($0) }
        default:
            return nil
        }
    }
}
