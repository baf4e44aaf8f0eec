extension MIDIFile {
    /// The channels that have at least one note-on, ascending (0-based).
    /// - Thread: control.
    public var channelsWithNotes: [UInt8] {
        var found = Set<UInt8>()
        for events in tracks {
            for event in events {
                if case let .channel(.noteOn(channel, _, _)) = event.kind { found.insert(channel) }
            }
        }
        return found.sorted()
    }

    /// The song with only `channel`'s notes: every other channel's note-ons and note-offs are taken
    /// out and everything else stays where it was (tempo, program changes, controllers and pitch
    /// bend of every channel), so the channel plays exactly as it does in the whole song.
    /// - Thread: control.
    public func keepingNotes(ofChannel channel: UInt8) -> MIDIFile {
        let kept = tracks.map { events in
            events.filter { event in
                switch event.kind {
                case let .channel(.noteOn(other, _, _)), let .channel(.noteOff(other, _, _)): other == channel
                default: true
                }
            }
        }
        return MIDIFile(format: format, division: division, tracks: kept, problems: problems)
    }

    /// Events `standardMIDIFileBytes()` cannot write back: SysEx messages Staccato does not
    /// recognise and meta events other than tempo and end-of-track, whose payloads the reader does
    /// not keep.
    /// - Thread: control.
    public var unwritableEventCount: Int {
        tracks.reduce(0) { count, events in
            count + events.reduce(0) { count, event in
                switch event.kind {
                case .sysEx(nil), .meta: count + 1
                default: count
                }
            }
        }
    }

    /// The file as Standard MIDI File bytes, the same format, division and tracks: every channel
    /// message (each with its status byte, no running status), tempo changes, and an end-of-track
    /// closing every track (added at the track's last tick where the file had none). The events in
    /// `unwritableEventCount` are left out; the SysEx messages Staccato recognises (resets, GS
    /// rhythm parts, Master Volume) are written in their canonical form, so both engines hear them.
    /// - Thread: control.
    public func standardMIDIFileBytes() -> [UInt8] {
        var bytes = Array("MThd".utf8) + Self.bigEndian(6, byteCount: 4) + Self.bigEndian(format, byteCount: 2)
            + Self.bigEndian(tracks.count, byteCount: 2)
        switch division {
        case let .ticksPerQuarter(ticks):
            bytes += Self.bigEndian(ticks, byteCount: 2)
        case let .smpte(framesPerSecond, ticksPerFrame):
            bytes += [UInt8(bitPattern: Int8(-framesPerSecond)), UInt8(ticksPerFrame)]
        }
        for events in tracks {
            var body: [UInt8] = []
            var tick = 0
            func append(_ event: TrackEvent, _ payload: [UInt8]) {
                body += Self.variableLengthQuantity(max(0, event.tick - tick)) + payload
                tick = max(tick, event.tick)
            }
            for event in events {
                switch event.kind {
                case let .channel(message):
                    append(event, Self.bytes(of: message))
                case let .tempo(microsecondsPerQuarter):
                    append(event, [0xFF, 0x51, 0x03] + Self.bigEndian(microsecondsPerQuarter, byteCount: 3))
                case .endOfTrack:
                    append(event, [0xFF, 0x2F, 0x00])
                case let .sysEx(message?):
                    append(event, Self.sysExEvent(message))
                case .meta, .sysEx(nil):
                    continue
                }
            }
            if events.last?.kind != .endOfTrack {
                append(TrackEvent(tick: events.last?.tick ?? 0, kind: .endOfTrack), [0xFF, 0x2F, 0x00])
            }
            bytes += Array("MTrk".utf8) + Self.bigEndian(body.count, byteCount: 4) + body
        }
        return bytes
    }

    private static func bytes(of message: MIDIMessage) -> [UInt8] {
        switch message {
        case let .noteOff(channel, key, velocity): [0x80 | channel, key, velocity]
        case let .noteOn(channel, key, velocity): [0x90 | channel, key, velocity]
        case let .polyPressure(channel, key, pressure): [0xA0 | channel, key, pressure]
        case let .controlChange(channel, controller, value): [0xB0 | channel, controller, value]
        case let .programChange(channel, program): [0xC0 | channel, program]
        case let .channelPressure(channel, pressure): [0xD0 | channel, pressure]
        case let .pitchBend(channel, value): [0xE0 | channel, UInt8(value & 0x7F), UInt8(value >> 7 & 0x7F)]
        case let .system(message): sysExEvent(message)
        }
    }

    /// An SMF SysEx event: F0, the length of what follows, the message's body and its F7.
    private static func sysExEvent(_ message: SystemExclusive) -> [UInt8] {
        let body = message.bodyBytes + [0xF7]
        return [0xF0] + variableLengthQuantity(body.count) + body
    }

    /// `value`'s low `byteCount` bytes, most significant first, as a Standard MIDI File's header
    /// and chunk lengths and its tempo are written.
    /// - Thread: any.
    public static func bigEndian(_ value: Int, byteCount: Int) -> [UInt8] {
        (0 ..< byteCount).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    /// A Standard MIDI File's variable-length quantity (delta times, meta and SysEx lengths): 7 bits
    /// a byte, most significant first, the top bit set on all but the last.
    /// - Thread: any.
    public static func variableLengthQuantity(_ value: Int) -> [UInt8] {
        var bytes = [UInt8(value & 0x7F)]
        var rest = value >> 7
        while rest > 0 {
            bytes.insert(UInt8(rest & 0x7F) | 0x80, at: 0)
            rest >>= 7
        }
        return bytes
    }
}
