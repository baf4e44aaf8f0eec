import CSndFile
import FileChecks

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

    private static func decode(_ path: String, info: inout SF_INFO, allowShortRead: Bool) throws -> DecodedAudio {
        if let reason = FileKind.notRegularFileReason(path) { throw AudioFileError(path: path, reason: reason) }
        guard let handle = sf_open(path, Int32(SFM_READ), &info) else {
            throw AudioFileError(path: path, reason: String(cString: sf_strerror(nil)))
        }
        defer { sf_close(handle) }
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
