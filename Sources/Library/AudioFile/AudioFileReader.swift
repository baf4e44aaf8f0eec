import CSndFile
import FileChecks
import Glibc

/// A whole sound file decoded to interleaved float frames.
public struct DecodedAudio: Sendable {
    public var sampleRate: Int
    public var channelCount: Int
    /// Interleaved samples, `frameCount * channelCount` of them.
    public var samples: [Float]
    /// - Thread: any.
    public var frameCount: Int { channelCount == 0 ? 0 : samples.count / channelCount }

    /// - Thread: any.
    public init(sampleRate: Int, channelCount: Int, samples: [Float]) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.samples = samples
    }

    /// One channel's samples.
    /// - Thread: any.
    public func channel(_ index: Int) -> [Float] {
        stride(from: index, to: samples.count, by: channelCount).map { samples[$0] }
    }
}

/// A sound file's length, format and peak (`AudioFileReader.summary`).
public struct AudioFileSummary: Sendable, Equatable {
    /// Frames read: every frame the file holds.
    public var frameCount: Int
    public var sampleRate: Int
    public var channelCount: Int
    /// The largest absolute sample (1 is full scale).
    public var peak: Float
    /// - Thread: any.
    public var seconds: Double { Double(frameCount) / Double(sampleRate) }
}

/// Reads sound files (WAV, FLAC, Ogg, MP3: whatever libsndfile opens) into memory.
/// - Thread: control. Not real-time safe: allocates and does file I/O.
public enum AudioFileReader {
    /// Decodes the whole file at `path`.
    /// - Throws: `AudioFileError` naming the path for a missing, unreadable or malformed file.
    /// - Thread: control.
    public static func read(_ path: String) throws(AudioFileError) -> DecodedAudio {
        var info = SF_INFO()
        return try decode(path, info: &info, allowShortRead: false)
    }

    /// A sound file's header: its frames, rate and channels, nothing decoded (what a loader lays
    /// a pool out from before it decodes).
    /// - Throws: `AudioFileError` naming the path for a missing, unreadable or malformed file.
    /// - Thread: control.
    public static func header(_ path: String) throws(AudioFileError) -> (frameCount: Int, sampleRate: Int, channelCount: Int) {
        if let reason = FileKind.notRegularFileReason(path) { throw AudioFileError(path: path, reason: reason) }
        var info = SF_INFO()
        guard let handle = sf_open(path, Int32(SFM_READ), &info) else {
            throw AudioFileError(path: path, reason: String(cString: sf_strerror(nil)))
        }
        sf_close(handle)
        guard info.channels > 0, info.samplerate > 0 else {
            throw AudioFileError(path: path, reason: "no channels or no sample rate in the header")
        }
        return (Int(info.frames), Int(info.samplerate), Int(info.channels))
    }

    /// Decodes frames `frames` of the file at `path`: a stretch of a sample's body, without the
    /// rest. A file whose format seeks to the frame (WAV, AIFF, FLAC and other PCM) is read from
    /// there; a lossy one (Ogg, MP3) is decoded from its start and the frames before dropped, so
    /// the frames are those a whole decode gives either way.
    /// - Throws: `AudioFileError` naming the path for a missing, unreadable or malformed file.
    /// - Thread: control.
    public static func readRange(_ path: String, frames: Range<Int>) throws(AudioFileError) -> DecodedAudio {
        if let reason = FileKind.notRegularFileReason(path) { throw AudioFileError(path: path, reason: reason) }
        var info = SF_INFO()
        guard let handle = sf_open(path, Int32(SFM_READ), &info) else {
            throw AudioFileError(path: path, reason: String(cString: sf_strerror(nil)))
        }
        defer { sf_close(handle) }
        let major = info.format & Int32(SF_FORMAT_TYPEMASK)
        let seeksExactly = major != Int32(SF_FORMAT_OGG) && major != Int32(SF_FORMAT_MPEG)
        let first = seeksExactly ? frames.lowerBound : 0
        if first > 0, sf_seek(handle, sf_count_t(first), SEEK_SET) != sf_count_t(first) {
            throw AudioFileError(path: path, reason: "cannot seek to frame \(first)")
        }
        info.frames = sf_count_t(max(0, min(Int(info.frames), frames.upperBound) - first))
        var audio = try readFrames(handle, info: info, path: path, allowShortRead: false)
        if first < frames.lowerBound { audio.samples.removeFirst((frames.lowerBound - first) * audio.channelCount) }
        return audio
    }

    /// What a sound file holds, read through in chunks (a long recording is never held whole):
    /// its length, rate, channels and the largest absolute sample.
    /// - Throws: `AudioFileError` naming the path for a missing, unreadable or malformed file.
    /// - Thread: control.
    public static func summary(_ path: String) throws(AudioFileError) -> AudioFileSummary {
        if let reason = FileKind.notRegularFileReason(path) { throw AudioFileError(path: path, reason: reason) }
        var info = SF_INFO()
        guard let handle = sf_open(path, Int32(SFM_READ), &info) else {
            throw AudioFileError(path: path, reason: String(cString: sf_strerror(nil)))
        }
        defer { sf_close(handle) }
        guard info.channels > 0, info.samplerate > 0 else {
            throw AudioFileError(path: path, reason: "no channels or no sample rate in the header")
        }
        let chunkFrames = 65_536, channelCount = Int(info.channels)
        var chunk = [Float](repeating: 0, count: chunkFrames * channelCount)
        var frames = 0
        var peak: Float = 0
        while true {
            let read = chunk.withUnsafeMutableBufferPointer { Int(sf_readf_float(handle, $0.baseAddress, sf_count_t(chunkFrames))) }
            if read <= 0 { break }
            for sample in chunk[0 ..< read * channelCount] { peak = max(peak, abs(sample)) }
            frames += read
        }
        return AudioFileSummary(frameCount: frames, sampleRate: Int(info.samplerate), channelCount: channelCount, peak: peak)
    }

    /// Reads headerless 32-bit little-endian float frames, as ALSA's `file` plugin records them.
    /// A trailing partial frame is ignored.
    /// - Thread: control.
    public static func readRawFloat(_ path: String, sampleRate: Int, channelCount: Int) throws(AudioFileError) -> DecodedAudio {
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channelCount)
        info.format = Int32(SF_FORMAT_RAW | SF_FORMAT_FLOAT | SF_ENDIAN_LITTLE)
        return try decode(path, info: &info, allowShortRead: true)
    }

    /// Decodes a mono sound file held in memory (an Ogg Vorbis stream inside a SoundFont 3, say)
    /// straight into `target`, through libsndfile's virtual I/O over `bytes`: nothing is copied
    /// whole or written to disk. Exactly `frameCount` frames are written: the file must hold that
    /// many (a SoundFont 3 loader learns it from `oggFrameCount` before it allocates), and a file
    /// whose header or data says otherwise is an error. Samples are clamped to full scale, because
    /// a lossy decoder's output can overshoot it and the file's integer original never did; a
    /// decoder's integer conversion would wrap such a peak round to the opposite sign instead.
    /// - Parameters:
    ///   - wordsNotFloats: how `target` stores frames: 16-bit words (full scale 32767, as
    ///     libsndfile scales them when it writes and FluidSynth when it reads), else Floats (full
    ///     scale 1).
    ///   - name: stands for the data in errors.
    /// - Throws: `AudioFileError` naming `name` when libsndfile cannot open or fully decode the
    ///   data, or it is not mono, or its length is not `frameCount`.
    /// - Thread: control. Not real-time safe: allocates the decoder.
    ///   - frames: the frames to write, `target` holding the first of them (a sample's head, or
    ///     its body after the head); nil: all of them. The stream is decoded from its start and
    ///     the frames before the range dropped, so a body's first frame is exactly what a whole
    ///     decode gives there.
    public static func decodeMono(bytes: UnsafeRawBufferPointer, name: String, into target: UnsafeMutableRawPointer,
                                  wordsNotFloats: Bool, frameCount: Int, frames: Range<Int>? = nil) throws(AudioFileError) {
        let wanted = frames ?? 0..<frameCount
        precondition(wanted.lowerBound >= 0 && wanted.upperBound <= frameCount, "frames outside the stream")
        var source = MemorySource(bytes: bytes)
        var io = SF_VIRTUAL_IO(
            get_filelen: { user in sf_count_t(user!.assumingMemoryBound(to: MemorySource.self).pointee.bytes.count) },
            seek: { offset, whence, user in user!.assumingMemoryBound(to: MemorySource.self).pointee.seek(Int(offset), whence: whence) },
            read: { target, count, user in user!.assumingMemoryBound(to: MemorySource.self).pointee.read(into: target, count: Int(count)) },
            write: { _, _, _ in 0 },
            tell: { user in sf_count_t(user!.assumingMemoryBound(to: MemorySource.self).pointee.position) })
        var info = SF_INFO()
        try withUnsafeMutablePointer(to: &source) { (sourcePointer) throws(AudioFileError) in
            guard let handle = sf_open_virtual(&io, Int32(SFM_READ), &info, sourcePointer) else {
                throw AudioFileError(path: name, reason: String(cString: sf_strerror(nil)))
            }
            defer { sf_close(handle) }
            guard info.channels == 1 else {
                throw AudioFileError(path: name, reason: "has \(info.channels) channels, not 1")
            }
            guard info.frames == frameCount else {
                throw AudioFileError(path: name, reason: "its header says \(info.frames) frames, its last page \(frameCount)")
            }
            // Decoded a block at a time through a small buffer, so the decoder's Floats are never
            // held whole beside the target.
            let blockFrames = 4_096
            let block = UnsafeMutablePointer<Float>.allocate(capacity: blockFrames)
            defer { block.deallocate() }
            var done = 0
            while done < wanted.upperBound {
                let read = Int(sf_readf_float(handle, block, sf_count_t(min(blockFrames, wanted.upperBound - done))))
                guard read > 0 else {
                    throw AudioFileError(path: name, reason: "truncated: decoded \(done) of \(frameCount) frames")
                }
                // The part of this block inside the range, and where it goes.
                let first = max(done, wanted.lowerBound), last = done + read
                if first < last {
                    let source = block + (first - done), count = last - first, offset = first - wanted.lowerBound
                    if wordsNotFloats {
                        let words = target.assumingMemoryBound(to: Int16.self) + offset
                        // Rounded to nearest, ties to even, as lrintf rounds: adding and taking away
                        // 1.5 × 2^23 leaves a value under 2^22 at its nearest integer. Plain arithmetic,
                        // which the compiler vectorises; rounded() would call the C library per sample.
                        let roundingOffset: Float = 12_582_912
                        for index in 0..<count {
                            let scaled = max(-32_768, min(32_767, source[index] * 32_767))
                            words[index] = Int16(truncatingIfNeeded: Int32((scaled + roundingOffset) - roundingOffset))
                        }
                    } else {
                        let floats = target.assumingMemoryBound(to: Float.self) + offset
                        for index in 0..<count { floats[index] = min(1, max(-1, source[index])) }
                    }
                }
                done = last
            }
        }
    }

    /// The frame count an Ogg stream declares without decoding it: the granule position of its
    /// last page, which for Vorbis is the number of PCM frames up to that page's end. Nil when
    /// `bytes` do not end with a whole Ogg page (a damaged or truncated stream), or it declares
    /// no position or a negative one.
    /// - Thread: any.
    public static func oggFrameCount(_ bytes: UnsafeRawBufferPointer) -> Int? {
        // A page: "OggS", version 0, flags, granule position (Int64 LE), serial, sequence, CRC,
        // the segment count and table, then the segments. At most 27 + 255 + 255 × 255 bytes.
        let headerBytes = 27, largestPage = 27 + 255 + 255 * 255
        guard bytes.count >= headerBytes else { return nil }
        var start = bytes.count - headerBytes
        let lowest = max(0, bytes.count - largestPage)
        while start >= lowest {
            defer { start -= 1 }
            guard bytes[start] == 0x4F, bytes[start + 1] == 0x67, bytes[start + 2] == 0x67, bytes[start + 3] == 0x53,
                  bytes[start + 4] == 0 else { continue }
            let segmentCount = Int(bytes[start + 26])
            guard start + headerBytes + segmentCount <= bytes.count else { continue }
            var pageBytes = headerBytes + segmentCount
            for segment in 0..<segmentCount { pageBytes += Int(bytes[start + headerBytes + segment]) }
            guard start + pageBytes == bytes.count else { continue }
            var granule: UInt64 = 0
            for byte in (0..<8).reversed() { granule = granule << 8 | UInt64(bytes[start + 6 + byte]) }
            let frames = Int64(bitPattern: granule)
            return frames >= 0 ? Int(frames) : nil
        }
        return nil
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

    private static func decode(_ path: String, info: inout SF_INFO, allowShortRead: Bool) throws(AudioFileError) -> DecodedAudio {
        if let reason = FileKind.notRegularFileReason(path) { throw AudioFileError(path: path, reason: reason) }
        guard let handle = sf_open(path, Int32(SFM_READ), &info) else {
            throw AudioFileError(path: path, reason: String(cString: sf_strerror(nil)))
        }
        defer { sf_close(handle) }
        return try readFrames(handle, info: info, path: path, allowShortRead: allowShortRead)
    }

    /// Every frame of an open file.
    private static func readFrames(_ handle: OpaquePointer, info: SF_INFO, path: String, allowShortRead: Bool) throws(AudioFileError) -> DecodedAudio {
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
