/// The one bounds-checked view of a SoundFont's bytes. Every read of input-derived data goes
/// through here, so a bad size or index becomes a `SoundFontError` naming the chunk and the byte,
/// never an out-of-bounds trap.
///
/// A reader is a window `[start, start + count)` of `bytes`, which hold the part of the file that
/// begins at byte `origin` (the whole file, or a list read on its own), labelled with the chunk path
/// used in errors. Offsets passed to the accessors are relative to the window; errors report
/// offsets in the file.
struct ByteReader {
    let bytes: [UInt8]
    let file: String
    let chunk: String
    /// Where in the file `bytes` begin.
    let origin: Int
    /// Index in `bytes` of the window's first byte.
    let start: Int
    /// Bytes in the window. Invariant: `0 <= start`, `start + count <= bytes.count`.
    let count: Int

    /// A reader over `bytes`, which are the file's from byte `origin` on, reported as `chunk`.
    init(file: String, bytes: [UInt8], origin: Int = 0, chunk: String = "RIFF") {
        self.init(bytes: bytes, file: file, chunk: chunk, origin: origin, start: 0, count: bytes.count)
    }

    private init(bytes: [UInt8], file: String, chunk: String, origin: Int, start: Int, count: Int) {
        self.bytes = bytes
        self.file = file
        self.chunk = chunk
        self.origin = origin
        self.start = start
        self.count = count
    }

    /// Offset in the file of byte `offset` of this window.
    func fileOffset(_ offset: Int) -> Int { origin + start + offset }

    /// An error at `offset` (relative to this window) in this window's chunk.
    func error(at offset: Int, _ reason: String) -> SoundFontError {
        SoundFontError(file: file, chunk: chunk, offset: fileOffset(offset), reason: reason)
    }

    /// Throws unless `length` bytes at `offset` lie inside the window. Overflow-free: both values
    /// may come straight from the file.
    func require(_ offset: Int, _ length: Int, _ what: @autoclosure () -> String) throws(SoundFontError) {
        guard offset >= 0, length >= 0, offset <= count, length <= count - offset else {
            throw error(at: max(0, min(offset, count)),
                        "\(what()) needs \(length) bytes at offset \(offset), but the chunk holds \(count)")
        }
    }

    /// A sub-window, checked against this one, reported under `chunk`.
    func window(_ offset: Int, _ length: Int, chunk: String) throws(SoundFontError) -> ByteReader {
        try require(offset, length, "'\(chunk)'")
        return ByteReader(bytes: bytes, file: file, chunk: chunk, origin: origin, start: start + offset, count: length)
    }

    func u8(_ offset: Int) throws(SoundFontError) -> UInt8 {
        try require(offset, 1, "a byte")
        return bytes[start + offset]
    }

    func u16(_ offset: Int) throws(SoundFontError) -> UInt16 {
        try require(offset, 2, "a 16-bit word")
        return UInt16(bytes[start + offset]) | UInt16(bytes[start + offset + 1]) << 8
    }

    func i16(_ offset: Int) throws(SoundFontError) -> Int16 {
        Int16(bitPattern: try u16(offset))
    }

    func u32(_ offset: Int) throws(SoundFontError) -> UInt32 {
        try require(offset, 4, "a 32-bit word")
        let base = start + offset
        return UInt32(bytes[base]) | UInt32(bytes[base + 1]) << 8 | UInt32(bytes[base + 2]) << 16
            | UInt32(bytes[base + 3]) << 24
    }

    /// A four-character code, non-printable bytes shown as `?` so it can go into a message.
    func fourCC(_ offset: Int) throws(SoundFontError) -> String {
        try require(offset, 4, "a chunk ID")
        return String(bytes[(start + offset)..<(start + offset + 4)].map { (32...126).contains($0) ? Character(Unicode.Scalar($0)) : "?" })
    }

    /// A fixed-size text field, cut at the first NUL. SoundFont text is ASCII; other bytes are
    /// read as Latin-1 so any name survives as some string.
    func string(_ offset: Int, length: Int) throws(SoundFontError) -> String {
        try require(offset, length, "a text field")
        let field = bytes[(start + offset)..<(start + offset + length)]
        return String(field.prefix { $0 != 0 }.map { Character(Unicode.Scalar($0)) })
    }
}

/// One RIFF chunk: its ID, the absolute offset of its 8-byte header, and a reader over its data.
struct RIFFChunk {
    let id: String
    let headerOffset: Int
    let data: ByteReader
}

/// Where one RIFF chunk is: its ID, and absolute offsets of its 8-byte header and of its data.
struct RIFFChunkHeader {
    let id: String
    let path: String
    let headerOffset: Int
    let dataOffset: Int
    let size: Int
}

/// Splits the `count` bytes at absolute offset `start` (chunk `parent`) into consecutive RIFF
/// chunks (ID, little-endian size, data, pad byte to an even length), reading each header through
/// `header` (ID and size at an absolute offset). Sub-chunks are named `<prefix>/<id>` in errors
/// (just `<id>` when the prefix is empty). A size that runs past the window, or stray bytes too
/// short for a header, is an error: RIFF's redundant sizes are how truncation and corruption are
/// caught (SF2 §3.3). One walk, whether the bytes are in memory or still in the file.
func riffChunkHeaders(file: String, parent: String, prefix: String, start: Int, count: Int,
                      header: (Int) throws(SoundFontError) -> (id: String, size: Int)) throws(SoundFontError) -> [RIFFChunkHeader] {
    var result: [RIFFChunkHeader] = []
    var position = 0
    while position < count {
        guard count - position >= 8 else {
            throw SoundFontError(file: file, chunk: parent, offset: start + position,
                                 reason: "\(count - position) stray bytes where an 8-byte chunk header was expected")
        }
        let (id, size) = try header(start + position)
        let path = prefix.isEmpty ? id : "\(prefix)/\(id)"
        guard size <= count - position - 8 else {
            throw SoundFontError(file: file, chunk: path, offset: start + position,
                                 reason: "size \(size) runs past the end of '\(parent)' (\(count - position - 8) bytes left)")
        }
        result.append(RIFFChunkHeader(id: id, path: path, headerOffset: start + position, dataOffset: start + position + 8, size: size))
        // The pad byte after an odd-sized chunk may be missing at the very end of the parent.
        position = min(count, position + 8 + size + (size & 1))
    }
    return result
}

extension ByteReader {
    /// Splits this window into consecutive RIFF chunks (`riffChunkHeaders`).
    func chunks(prefix: String) throws(SoundFontError) -> [RIFFChunk] {
        let headers = try riffChunkHeaders(file: file, parent: chunk, prefix: prefix, start: fileOffset(0), count: count) {
            (absolute) throws(SoundFontError) in
            let offset = absolute - fileOffset(0)
            return (try fourCC(offset), Int(try u32(offset + 4)))
        }
        var result: [RIFFChunk] = []
        for header in headers {
            result.append(RIFFChunk(id: header.id, headerOffset: header.headerOffset,
                                    data: try window(header.dataOffset - fileOffset(0), header.size, chunk: header.path)))
        }
        return result
    }
}
