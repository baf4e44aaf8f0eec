extension MIDIFile {
    /// Parses the bytes of a Standard MIDI File (or of a RIFF 'RMID' file wrapping one).
    ///
    /// Tolerates what real files get wrong: running status kept across meta and SysEx events,
    /// a track without an end-of-track event, bytes after end-of-track, unknown chunks between
    /// tracks, malformed payloads of meta events it does not need, and a last track chunk whose
    /// length overruns the file but whose end-of-track event is there.
    ///
    /// A file that ends early (a download cut short, half a file) is read up to its last whole
    /// event, and what was lost is in `problems`: the track cut off, where, how many bytes short,
    /// and the tracks that never came. The caller says so; it is never silent.
    /// - Parameter name: the file name to put in errors and problems.
    /// - Throws: `MIDIFileError` with the byte offset of the first thing that cannot be read: a bad
    ///   header, a truncated field or event inside a chunk the file holds whole, a data byte with
    ///   no running status, an undefined status byte, a variable-length quantity over 4 bytes, or
    ///   a damaged track chunk type.
    /// - Thread: control.
    public static func parse(_ bytes: [UInt8], name: String) throws(MIDIFileError) -> MIDIFile {
        var cursor = ByteCursor(bytes: bytes, name: name)
        try enterRIFFData(&cursor)
        let header = try readHeader(&cursor)
        let (tracks, problems) = try readTracks(&cursor, count: header.trackCount)
        return MIDIFile(format: header.format, division: header.division, tracks: tracks, problems: problems)
    }

    private static let headerType: [UInt8] = Array("MThd".utf8)
    private static let trackType: [UInt8] = Array("MTrk".utf8)

    /// Windows `cursor` onto the 'data' chunk of a RIFF MIDI file (Microsoft's RMID); plain files
    /// are left as they are.
    private static func enterRIFFData(_ cursor: inout ByteCursor) throws(MIDIFileError) {
        guard cursor.bytes.starts(with: "RIFF".utf8) else { return }
        cursor.seek(to: 4)
        // Writers get the RIFF size wrong more often than the chunks inside it: the file's end rules.
        try cursor.skip(4, "RIFF size")
        let formOffset = cursor.offset
        let form = cursor.tag()
        guard form == Array("RMID".utf8) else {
            throw cursor.error(at: formOffset, "RIFF form \(form.chunkTypeDescription) is not 'RMID'")
        }
        while !cursor.isAtEnd {
            let type = cursor.tag()
            let size = try cursor.littleEndian(4, "RIFF chunk size")
            if type == Array("data".utf8) {
                cursor.limit(to: size, region: "RIFF 'data' chunk")
                return
            }
            // RIFF pads chunks to even sizes; a missing pad byte at the very end does no harm.
            cursor.seek(to: cursor.offset + min(size + size % 2, cursor.remaining))
        }
        throw cursor.error(at: cursor.end, "RIFF 'RMID' file has no 'data' chunk")
    }

    private static func readHeader(_ cursor: inout ByteCursor) throws(MIDIFileError) -> (format: Int, trackCount: Int, division: Division) {
        let start = cursor.offset
        let type = cursor.tag()
        guard type == headerType else {
            throw cursor.error(at: start, "header chunk 'MThd' expected, found \(type.chunkTypeDescription)")
        }
        let length = try cursor.bigEndian(4, "header chunk length")
        guard length >= 6 else {
            throw cursor.error(at: start + 4, "header chunk length \(length) is less than 6")
        }
        guard length <= cursor.remaining else {
            throw cursor.error(at: start + 4, "header chunk length \(length) overruns the file (\(cursor.remaining) bytes left)")
        }
        let format = try cursor.bigEndian(2, "format")
        guard format <= 2 else {
            throw cursor.error(at: start + 8, "format \(format) is not 0, 1 or 2")
        }
        let trackCount = try cursor.bigEndian(2, "track count")
        guard trackCount > 0 else {
            throw cursor.error(at: start + 10, "the header declares no tracks")
        }
        let divisionField = try cursor.bigEndian(2, "division")
        let division = try division(divisionField, at: start + 12, cursor)
        // Longer headers are allowed: later versions of the format may add fields.
        try cursor.skip(length - 6, "header chunk")
        // Every track chunk has an 8-byte header, so a count the file cannot hold is a damaged
        // header, caught here before it sizes anything.
        guard trackCount * 8 <= cursor.remaining else {
            throw cursor.error(at: start + 10, "\(trackCount) tracks cannot fit in the \(cursor.remaining) bytes after the header")
        }
        return (format, trackCount, division)
    }

    private static func division(_ field: Int, at offset: Int, _ cursor: ByteCursor) throws(MIDIFileError) -> Division {
        guard field & 0x8000 != 0 else {
            guard field > 0 else { throw cursor.error(at: offset, "division is 0 ticks per quarter note") }
            return .ticksPerQuarter(field)
        }
        // The high byte is the negated frame rate in two's complement, the low byte ticks per frame.
        let framesPerSecond = -Int(Int8(truncatingIfNeeded: field >> 8))
        let ticksPerFrame = field & 0xFF
        guard [24, 25, 29, 30].contains(framesPerSecond) else {
            throw cursor.error(at: offset, "SMPTE division with \(framesPerSecond) frames per second (not 24, 25, 29 or 30)")
        }
        guard ticksPerFrame > 0 else { throw cursor.error(at: offset + 1, "SMPTE division with 0 ticks per frame") }
        return .smpte(framesPerSecond: framesPerSecond, ticksPerFrame: ticksPerFrame)
    }

    private static func readTracks(_ cursor: inout ByteCursor, count: Int) throws(MIDIFileError) -> ([[TrackEvent]], [MIDIFileProblem]) {
        var tracks: [[TrackEvent]] = []
        tracks.reserveCapacity(count)
        let outerEnd = cursor.end
        let outerRegion = cursor.region
        // Unknown chunks are skipped, but if the file then runs out of tracks the first of them was
        // most likely a track chunk with a damaged type: that is the error worth reporting.
        var firstUnknownChunk: (offset: Int, type: [UInt8])?
        func notATrack(_ chunk: (offset: Int, type: [UInt8])) -> MIDIFileError {
            cursor.error(at: chunk.offset, "track chunk 'MTrk' expected, found \(chunk.type.chunkTypeDescription)")
        }
        // The file ended before every track was whole: one problem says where and what was lost.
        func endsEarly(_ what: String, missingFrom first: Int) -> [MIDIFileProblem] {
            let missing = first > count ? "" : first == count ? "; track \(count) is missing" : "; tracks \(first)-\(count) are missing"
            return [MIDIFileProblem(file: cursor.name, offset: outerEnd, reason: what + missing)]
        }
        while tracks.count < count {
            let start = cursor.offset
            let type = cursor.tag()
            let ordinal = "track \(tracks.count + 1) of \(count)"
            guard type.count == 4, let length = try? cursor.bigEndian(4, "chunk length") else {
                if let unknown = firstUnknownChunk { throw notATrack(unknown) }
                let place = start < outerEnd ? "inside the header of \(ordinal)"
                    : tracks.isEmpty ? "after the header" : "after track \(tracks.count) of \(count)"
                return (tracks, endsEarly("the file ends at byte \(outerEnd), \(place)", missingFrom: tracks.count + 1))
            }
            guard type == trackType else {
                let unknown = firstUnknownChunk ?? (start, type)
                firstUnknownChunk = unknown
                guard length <= cursor.remaining else { throw notATrack(unknown) }
                try cursor.skip(length, "chunk")
                continue
            }
            let available = cursor.remaining
            cursor.limit(to: length, region: "track chunk")
            let chunkEnd = cursor.end
            // A chunk that claims more than the file holds: the file was cut short (or the writer
            // got the last length wrong). What arrived plays, up to the last whole event.
            let events = try readEvents(&cursor, cutShort: length > available)
            tracks.append(events)
            cursor.unlimit(to: outerEnd, region: outerRegion)
            cursor.seek(to: chunkEnd)
            if length > available && events.last?.kind != .endOfTrack {
                return (tracks, endsEarly("\(ordinal) ends at byte \(outerEnd), \(length - available) bytes short of its declared length",
                                          missingFrom: tracks.count + 1))
            }
        }
        return (tracks, [])
    }

    /// The events of one track chunk; `cursor` is limited to the chunk. `cutShort` says the file
    /// ended inside the chunk, so an event broken off at the file's end is dropped, not an error.
    private static func readEvents(_ cursor: inout ByteCursor, cutShort: Bool) throws(MIDIFileError) -> [TrackEvent] {
        var events: [TrackEvent] = []
        // Channel events take 2 to 4 bytes: a guess that usually saves every regrowth.
        events.reserveCapacity(cursor.remaining / 3)
        var tick = 0
        // The spec cancels running status at meta and SysEx events; we keep it, because real files
        // rely on it after meta events and no well-formed file can tell the difference.
        var runningStatus: UInt8 = 0
        while !cursor.isAtEnd {
            do throws(MIDIFileError) {
                // The cap of 4 bytes keeps each delta under 2^28 and a chunk holds under 2^32
                // events, so the sum stays far inside Int.
                tick += try cursor.variableLengthQuantity("delta time")
                let event = try readEvent(&cursor, runningStatus: &runningStatus)
                events.append(TrackEvent(tick: tick, kind: event))
                if event == .endOfTrack { break }
            } catch {
                guard cutShort, error.offset == cursor.end else { throw error }
                break
            }
        }
        return events
    }

    /// One event after its delta time.
    private static func readEvent(_ cursor: inout ByteCursor, runningStatus: inout UInt8) throws(MIDIFileError) -> TrackEvent.Kind {
        let statusOffset = cursor.offset
        var status = try cursor.byte("event")
        var firstData: UInt8?
        if status < 0x80 {
            guard runningStatus != 0 else {
                throw cursor.error(at: statusOffset, "data byte 0x\(status.hex) with no running status")
            }
            firstData = status
            status = runningStatus
        }
        switch status {
        case 0x80...0xEF:
            runningStatus = status
            return .channel(try readChannelMessage(&cursor, status: status, firstData: firstData))
        case 0xFF:
            let type = try cursor.byte("meta event type")
            let length = try cursor.variableLengthQuantity("meta event length")
            guard length <= cursor.remaining else { throw cursor.runsPastEnd("meta event") }
            let payloadEnd = cursor.offset + length
            let kind: TrackEvent.Kind
            switch type {
            case 0x2F:
                kind = .endOfTrack
            case 0x51 where length >= 3:
                kind = .tempo(microsecondsPerQuarter: try cursor.bigEndian(3, "tempo"))
            default:
                kind = .meta(type: type)
            }
            try cursor.skip(payloadEnd - cursor.offset, "meta event")
            return kind
        case 0xF0, 0xF7:
            let length = try cursor.variableLengthQuantity("SysEx length")
            let payloadStart = cursor.offset
            try cursor.skip(length, "SysEx event")
            // Only an F0 event holding a whole message (ending in F7) can be recognised: an F7
            // event is an escape or a continuation packet, raw bytes with no F0 of their own.
            guard status == 0xF0, length > 0, cursor.bytes[cursor.offset - 1] == 0xF7 else { return .sysEx(nil) }
            return .sysEx(SystemExclusive.recognise(cursor.bytes[payloadStart ..< cursor.offset - 1]))
        default:
            throw cursor.error(at: statusOffset, "status byte 0x\(status.hex) is not allowed in a MIDI file")
        }
    }

    private static func readChannelMessage(_ cursor: inout ByteCursor, status: UInt8, firstData: UInt8?) throws(MIDIFileError) -> MIDIMessage {
        let channel = status & 0x0F
        let kind = status >> 4
        func data() throws(MIDIFileError) -> UInt8 {
            let offset = cursor.offset
            let byte = try cursor.byte("channel message 0x\(status.hex)")
            // A status byte here means the event is shorter than its status says: the file is
            // out of step, and everything after would be misread.
            guard byte < 0x80 else {
                throw cursor.error(at: offset, "status byte 0x\(byte.hex) where channel message 0x\(status.hex) needs a data byte")
            }
            return byte
        }
        let first: UInt8
        if let firstData { first = firstData } else { first = try data() }
        switch kind {
        case 0x8:
            return .noteOff(channel: channel, key: first, velocity: try data())
        case 0x9:
            let velocity = try data()
            // A note-on at velocity 0 is a note-off; it carries no release velocity, so it gets 64,
            // what the MIDI spec has devices without release velocity send.
            return velocity == 0 ? .noteOff(channel: channel, key: first, velocity: 64)
                : .noteOn(channel: channel, key: first, velocity: velocity)
        case 0xA:
            return .polyPressure(channel: channel, key: first, pressure: try data())
        case 0xB:
            return .controlChange(channel: channel, controller: first, value: try data())
        case 0xC:
            return .programChange(channel: channel, program: first)
        case 0xD:
            return .channelPressure(channel: channel, pressure: first)
        default:
            return .pitchBend(channel: channel, value: UInt16(first) | UInt16(try data()) << 7)
        }
    }
}
