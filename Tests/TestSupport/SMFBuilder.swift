import MIDI

/// Builds Standard MIDI Files byte by byte, so tests can say exactly what a file holds and where
/// each byte lands.
public enum SMF {
    /// The offset of the first track chunk's first event byte in a file built by `file`:
    /// 14 header bytes, then 8 bytes of track chunk header.
    public static let firstEventOffset = 22

    /// The writer's own encodings (`MIDIFile`), so that a test file and a written one agree.
    public static func vlq(_ value: Int) -> [UInt8] { MIDIFile.variableLengthQuantity(value) }

    public static func bigEndian(_ value: Int, byteCount: Int) -> [UInt8] { MIDIFile.bigEndian(value, byteCount: byteCount) }

    public static func header(format: Int = 1, trackCount: Int, division: Int = 480) -> [UInt8] {
        Array("MThd".utf8) + bigEndian(6, byteCount: 4) + bigEndian(format, byteCount: 2)
            + bigEndian(trackCount, byteCount: 2) + bigEndian(division, byteCount: 2)
    }

    /// A chunk whose length field says `length`, or the body's true length.
    public static func chunk(_ type: String, _ body: [UInt8], length: Int? = nil) -> [UInt8] {
        Array(type.utf8) + bigEndian(length ?? body.count, byteCount: 4) + body
    }

    public static func file(format: Int = 1, division: Int = 480, tracks: [[UInt8]]) -> [UInt8] {
        header(format: format, trackCount: tracks.count, division: division) + tracks.flatMap { chunk("MTrk", $0) }
    }

    public static let endOfTrack: [UInt8] = [0x00, 0xFF, 0x2F, 0x00]

    public static func tempo(delta: Int = 0, _ microsecondsPerQuarter: Int) -> [UInt8] {
        vlq(delta) + [0xFF, 0x51, 0x03] + bigEndian(microsecondsPerQuarter, byteCount: 3)
    }

    public static func noteOn(delta: Int = 0, channel: UInt8 = 0, key: UInt8 = 60, velocity: UInt8 = 100) -> [UInt8] {
        vlq(delta) + [0x90 | channel, key, velocity]
    }

    /// Wraps a Standard MIDI File in a RIFF 'RMID' container, after an 'INFO' list to skip.
    public static func riff(_ smf: [UInt8]) -> [UInt8] {
        func littleEndian(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        let info = Array("LIST".utf8) + littleEndian(5) + Array("INFOx".utf8) + [0] // odd size: padded
        let data = Array("data".utf8) + littleEndian(smf.count) + smf
        let body = Array("RMID".utf8) + info + data
        return Array("RIFF".utf8) + littleEndian(body.count) + body
    }
}

extension SMF {
    /// Whole SysEx messages, F0 to F7, as files and cables carry them.
    public static let gmSystemOn: [UInt8] = [0xF0, 0x7E, 0x7F, 0x09, 0x01, 0xF7]
    public static let gsReset: [UInt8] = [0xF0, 0x41, 0x10, 0x42, 0x12, 0x40, 0x00, 0x7F, 0x00, 0x41, 0xF7]
    /// GS "use for rhythm part": part 0x1A is channel 11 (index 10), drum map 1, checksum 0x10.
    public static let gsRhythmOnChannel11: [UInt8] = [0xF0, 0x41, 0x10, 0x42, 0x12, 0x40, 0x1A, 0x15, 0x01, 0x10, 0xF7]

    /// `message` (F0 ... F7) as a file's SysEx event: F0, the length, the rest.
    public static func sysEx(delta: Int = 0, _ message: [UInt8]) -> [UInt8] {
        vlq(delta) + [0xF0] + vlq(message.count - 1) + message.dropFirst()
    }
}
