/// Reads a Standard MIDI File's fields from a window of its bytes, throwing where a hostile or
/// damaged file would otherwise make us index past the data. Every read of input goes through
/// here, so the bounds reasoning lives in one place: `0 <= offset` and `end <= bytes.count` always
/// hold, and nothing is read at or beyond `end`.
///
/// - Thread: control.
struct ByteCursor {
    let bytes: [UInt8]
    /// The file name errors are reported against.
    let name: String
    /// The next byte to read, counted from the start of the file so errors carry file offsets.
    private(set) var offset: Int
    /// Reads stop here: the end of the chunk being read, or of the file.
    private(set) var end: Int
    /// What errors call the data that stops at `end`.
    private(set) var region: String

    init(bytes: [UInt8], name: String) {
        self.bytes = bytes
        self.name = name
        offset = 0
        end = bytes.count
        region = "file"
    }

    var remaining: Int { end - offset }
    var isAtEnd: Bool { offset >= end }

    /// Confines reads to `byteCount` bytes from here (fewer if the data stops first) and names the
    /// confined data for errors.
    mutating func limit(to byteCount: Int, region: String) {
        end = offset + min(max(byteCount, 0), remaining)
        self.region = region
    }

    /// Lifts a `limit(to:region:)`, back to the whole of the enclosing data.
    mutating func unlimit(to outerEnd: Int, region: String) {
        end = min(max(outerEnd, offset), bytes.count)
        self.region = region
    }

    /// Moves to `target`, which must lie between here and `end`: only ever forward over data
    /// already known to be there.
    mutating func seek(to target: Int) {
        offset = min(max(target, offset), end)
    }

    func error(at offset: Int, _ reason: String) -> MIDIFileError {
        MIDIFileError(file: name, offset: offset, reason: reason)
    }

    /// The error for needing more bytes than the window holds, placed at the first missing byte.
    func runsPastEnd(_ what: String) -> MIDIFileError {
        error(at: end, "\(what) runs past the end of the \(region)")
    }

    func peek() -> UInt8? {
        offset < end ? bytes[offset] : nil
    }

    mutating func byte(_ what: @autoclosure () -> String) throws(MIDIFileError) -> UInt8 {
        guard offset < end else { throw runsPastEnd(what()) }
        let value = bytes[offset]
        offset += 1
        return value
    }

    /// A big-endian unsigned field of 1 to 4 bytes.
    mutating func bigEndian(_ byteCount: Int, _ what: String) throws(MIDIFileError) -> Int {
        try fixedField(byteCount, what) { value, byte, _ in value << 8 | Int(byte) }
    }

    /// A little-endian unsigned field of 1 to 4 bytes (RIFF's sizes).
    mutating func littleEndian(_ byteCount: Int, _ what: String) throws(MIDIFileError) -> Int {
        try fixedField(byteCount, what) { value, byte, index in value | Int(byte) << (8 * index) }
    }

    private mutating func fixedField(_ byteCount: Int, _ what: String,
                                     _ combine: (Int, UInt8, Int) -> Int) throws(MIDIFileError) -> Int {
        precondition((1...4).contains(byteCount), "fields are at most 32 bits, so they fit any Int")
        guard byteCount <= remaining else { throw runsPastEnd(what) }
        var value = 0
        for index in 0..<byteCount {
            value = combine(value, bytes[offset + index], index)
        }
        offset += byteCount
        return value
    }

    /// A chunk type: four bytes, or as many as there are, so a short file can be reported by
    /// what it does hold.
    mutating func tag() -> [UInt8] {
        let taken = min(4, remaining)
        defer { offset += taken }
        return Array(bytes[offset ..< offset + taken])
    }

    mutating func skip(_ byteCount: Int, _ what: String) throws(MIDIFileError) {
        guard byteCount >= 0, byteCount <= remaining else { throw runsPastEnd(what) }
        offset += byteCount
    }

    /// A variable-length quantity: 7 bits a byte, most significant first, the top bit set on every
    /// byte but the last. The format caps it at four bytes (0x0FFFFFFF), which also keeps every
    /// tick sum far from overflow; a fifth byte means the data is not what we think it is.
    mutating func variableLengthQuantity(_ what: @autoclosure () -> String) throws(MIDIFileError) -> Int {
        let start = offset
        var value = 0
        for _ in 0..<4 {
            guard offset < end else { throw runsPastEnd(what()) }
            let byte = bytes[offset]
            offset += 1
            value = value << 7 | Int(byte & 0x7F)
            if byte < 0x80 { return value }
        }
        throw error(at: start, "\(what()) is a variable-length quantity longer than 4 bytes")
    }
}

extension [UInt8] {
    /// A chunk type as people write it ('MTrk'), escaping whatever is not printable ASCII.
    var chunkTypeDescription: String {
        if isEmpty { return "end of file" }
        let text = map { byte in
            (0x20...0x7E).contains(byte) && byte != 0x27 ? String(UnicodeScalar(byte)) : "\\x" + byte.hex
        }.joined()
        return "'\(text)'"
    }
}

extension UInt8 {
    /// Two upper-case hex digits, without Foundation's format strings.
    var hex: String {
        let digits = String(self, radix: 16, uppercase: true)
        return digits.count == 1 ? "0" + digits : digits
    }
}
