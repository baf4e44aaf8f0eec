import Foundation

/// What a sample file tells samplers: the RIFF `smpl` chunk's unity note and first loop, found in a
/// WAV file's chunks or in a FLAC file's `riff` APPLICATION metadata block (where converters keep
/// the WAV's chunks). SFZ libraries rely on it: a region that names no loop points loops there, and
/// `pitch_keycenter=sample` is the unity note.
/// - Thread: any. A plain value.
public struct SamplerChunk: Sendable, Equatable {
    /// The key at which the sample sounds at its recorded pitch (0-127).
    public let unityNote: UInt8
    /// The first loop, when the chunk has one.
    public let loop: Loop?

    /// A loop, in the file's frames.
    public struct Loop: Sendable, Equatable {
        /// The loop's first frame.
        public let start: Int
        /// The loop's last frame (inclusive, as `smpl` and SFZ's `loop_end` count).
        public let end: Int
        /// - Thread: any.
        public init(start: Int, end: Int) {
            self.start = start
            self.end = end
        }
    }

    /// - Thread: any.
    public init(unityNote: UInt8, loop: Loop?) {
        self.unityNote = unityNote
        self.loop = loop
    }

    /// The chunk in the file at `path`, or nil when it has none, is neither WAV nor FLAC, or its
    /// chunks are damaged (the sample then plays as its region says; decoding reports real damage).
    /// The file is mapped, not read: only the pages of its chunk headers and metadata are touched.
    /// - Thread: control.
    public static func read(path: String) -> SamplerChunk? {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) else { return nil }
        return data.withUnsafeBytes { find(inFile: $0) }
    }

    /// The chunk in a whole file's bytes (`read(path:)`); nil as there.
    /// - Thread: any.
    public static func find(inFile bytes: UnsafeRawBufferPointer) -> SamplerChunk? {
        guard bytes.count >= 12 else { return nil }
        if matches(bytes, 0, "RIFF"), matches(bytes, 8, "WAVE") { return inRIFFChunks(bytes, from: 12) }
        if matches(bytes, 0, "fLaC") { return inFLACMetadata(bytes, from: 4) }
        return nil
    }

    /// The smpl chunk in a run of RIFF chunks (id, little-endian size, data, padded to even) from
    /// `offset` to the end of `bytes`.
    static func inRIFFChunks(_ bytes: UnsafeRawBufferPointer, from offset: Int, to end: Int? = nil) -> SamplerChunk? {
        let end = min(end ?? bytes.count, bytes.count)
        var offset = offset
        while offset + 8 <= end {
            let size = Int(littleEndian32(bytes, offset + 4))
            let body = offset + 8
            if matches(bytes, offset, "smpl") { return inSmpl(bytes, body, min(size, end - body)) }
            guard size <= end - body else { return nil }
            offset = body + size + (size & 1)
        }
        return nil
    }

    /// The smpl chunk among a FLAC stream's metadata blocks, the first at `offset`.
    static func inFLACMetadata(_ bytes: UnsafeRawBufferPointer, from offset: Int) -> SamplerChunk? {
        var offset = offset
        while offset + 4 <= bytes.count {
            let isLast = bytes[offset] & 0x80 != 0
            let type = bytes[offset] & 0x7F
            let length = Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let body = offset + 4
            guard length <= bytes.count - body else { return nil }
            // APPLICATION (2) blocks with the id "riff" hold RIFF chunks after the four-byte id.
            if type == 2, length > 4, matches(bytes, body, "riff"), let chunk = inRIFFChunks(bytes, from: body + 4, to: body + length) {
                return chunk
            }
            if isLast { return nil }
            offset = body + length
        }
        return nil
    }

    /// The smpl chunk whose data is `size` bytes at `offset`: 36 bytes of header (the unity note at
    /// 12, the loop count at 28), then 24 bytes a loop (start at 8, end at 12). A unity note past 127
    /// is no note; a loop that ends before it starts is no loop.
    static func inSmpl(_ bytes: UnsafeRawBufferPointer, _ offset: Int, _ size: Int) -> SamplerChunk? {
        guard size >= 36 else { return nil }
        let unity = littleEndian32(bytes, offset + 12)
        var loop: Loop? = nil
        if size >= 36 + 24, littleEndian32(bytes, offset + 28) >= 1 {
            let start = Int(littleEndian32(bytes, offset + 36 + 8)), end = Int(littleEndian32(bytes, offset + 36 + 12))
            if end > start { loop = Loop(start: start, end: end) }
        }
        return SamplerChunk(unityNote: unity <= 127 ? UInt8(unity) : 60, loop: loop)
    }

    static func matches(_ bytes: UnsafeRawBufferPointer, _ offset: Int, _ tag: StaticString) -> Bool {
        guard offset >= 0, offset + 4 <= bytes.count else { return false }
        return tag.withUTF8Buffer { tag in (0..<4).allSatisfy { bytes[offset + $0] == tag[$0] } }
    }

    static func littleEndian32(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
        guard offset >= 0, offset + 4 <= bytes.count else { return 0 }
        return UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
    }
}
