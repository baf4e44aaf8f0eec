import CSndFile
import FileChecks
import Glibc

/// A whole sound file decoded to interleaved float frames.
public struct DecodedAudio: Sendable {
    public var sampleRate: Int
    public var channelCount: Int
    /// Interleaved samples, `frameCount * channelCount` of them.
    public var samples: [Float]
    public var frameCount: Int { channelCount == 0 ? 0 : samples.count / channelCount }

    public init(sampleRate: Int, channelCount: Int, samples: [Float]) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.samples = samples
    }

    /// One channel's samples.
    public func channel(_ index: Int) -> [Float] {
        stride(from: index, to: samples.count, by: channelCount).map { samples[$0] }
    }
}

/// Reads sound files (WAV, FLAC, Ogg, MP3: whatever libsndfile opens) into memory.
/// - Thread: control. Not real-time safe: allocates and does file I/O.
public enum AudioFileReader {
    /// Decodes the whole file at `path`.
    /// - Throws: `AudioFileError` naming the path for a missing, unreadable or malformed file.
    public static func read(_ path: String) throws -> DecodedAudio {
        var info = SF_INFO()
        return try decode(path, info: &info, allowShortRead: false)
    }

    /// Reads headerless 32-bit little-endian float frames, as ALSA's `file` plugin records them.
    /// A trailing partial frame is ignored.
    public static func readRawFloat(_ path: String, sampleRate: Int, channelCount: Int) throws -> DecodedAudio {
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channelCount)
        info.format = Int32(SF_FORMAT_RAW | SF_FORMAT_FLOAT | SF_ENDIAN_LITTLE)
        return try decode(path, info: &info, allowShortRead: true)
    }

    /// Decodes a whole sound file held in memory (an Ogg Vorbis stream inside a SoundFont 3, say),
    /// through libsndfile's virtual I/O over `bytes`: nothing is copied or written to disk.
    /// Samples are clamped to -1...1, because a lossy decoder's float output can overshoot full
    /// scale and the file's integer original never did.
    /// - Parameters:
    ///   - name: stands for the data in errors.
    ///   - maximumFrameCount: the most frames the caller accepts: a damaged header can claim any
    ///     length, and the decoder would otherwise allocate for it before reading a byte.
    /// - Throws: `AudioFileError` naming `name` when libsndfile cannot open or fully decode the
    ///   data, or its length is past `maximumFrameCount`.
    /// - Thread: control. Not real-time safe: allocates.
    public static func decode(bytes: UnsafeRawBufferPointer, name: String, maximumFrameCount: Int) throws -> DecodedAudio {
        var source = MemorySource(bytes: bytes)
        var io = SF_VIRTUAL_IO(
            get_filelen: { user in sf_count_t(user!.assumingMemoryBound(to: MemorySource.self).pointee.bytes.count) },
            seek: { offset, whence, user in user!.assumingMemoryBound(to: MemorySource.self).pointee.seek(Int(offset), whence: whence) },
            read: { target, count, user in user!.assumingMemoryBound(to: MemorySource.self).pointee.read(into: target, count: Int(count)) },
            write: { _, _, _ in 0 },
            tell: { user in sf_count_t(user!.assumingMemoryBound(to: MemorySource.self).pointee.position) })
        var info = SF_INFO()
        return try withUnsafeMutablePointer(to: &source) { sourcePointer in
            guard let handle = sf_open_virtual(&io, Int32(SFM_READ), &info, sourcePointer) else {
                throw AudioFileError(path: name, reason: String(cString: sf_strerror(nil)))
            }
            defer { sf_close(handle) }
            guard info.frames >= 0, info.frames <= maximumFrameCount else {
                throw AudioFileError(path: name, reason: "claims \(info.frames) frames, more than the \(maximumFrameCount) its size allows")
            }
            var audio = try readFrames(handle, info: info, path: name, allowShortRead: false)
            for index in audio.samples.indices { audio.samples[index] = min(1, max(-1, audio.samples[index])) }
            return audio
        }
    }

    /// The read position over an in-memory file, for libsndfile's virtual I/O callbacks.
    private struct MemorySource {
        let bytes: UnsafeRawBufferPointer
        var position = 0

        mutating func seek(_ offset: Int, whence: Int32) -> sf_count_t {
            let base = switch whence {
            case SEEK_CUR: position
            case SEEK_END: bytes.count
            default: 0
            }
            let target = base + offset
            guard target >= 0, target <= bytes.count else { return -1 }
            position = target
            return sf_count_t(position)
        }

        mutating func read(into target: UnsafeMutableRawPointer?, count: Int) -> sf_count_t {
            let available = max(0, min(count, bytes.count - position))
            guard available > 0, let target, let base = bytes.baseAddress else { return 0 }
            target.copyMemory(from: base + position, byteCount: available)
            position += available
            return sf_count_t(available)
        }
    }

    private static func decode(_ path: String, info: inout SF_INFO, allowShortRead: Bool) throws -> DecodedAudio {
        if let reason = FileKind.notRegularFileReason(path) { throw AudioFileError(path: path, reason: reason) }
        guard let handle = sf_open(path, Int32(SFM_READ), &info) else {
            throw AudioFileError(path: path, reason: String(cString: sf_strerror(nil)))
        }
        defer { sf_close(handle) }
        return try readFrames(handle, info: info, path: path, allowShortRead: allowShortRead)
    }

    /// Every frame of an open file.
    private static func readFrames(_ handle: OpaquePointer, info: SF_INFO, path: String, allowShortRead: Bool) throws -> DecodedAudio {
        guard info.channels > 0, info.samplerate > 0 else {
            throw AudioFileError(path: path, reason: "no channels or no sample rate in the header")
        }
        let channelCount = Int(info.channels)
        let frameCount = Int(info.frames)
        var samples = [Float](repeating: 0, count: frameCount * channelCount)
        let read = samples.withUnsafeMutableBufferPointer {
            Int(sf_readf_float(handle, $0.baseAddress, sf_count_t(frameCount)))
        }
        if read < frameCount {
            guard allowShortRead else {
                throw AudioFileError(path: path, reason: "truncated: read \(read) of \(frameCount) frames")
            }
            samples.removeLast((frameCount - read) * channelCount)
        }
        return DecodedAudio(sampleRate: Int(info.samplerate), channelCount: channelCount, samples: samples)
    }
}
