import CSndFile
import Glibc

/// Writes interleaved float frames to a sound file through libsndfile.
///
/// - Thread: control. Or a dedicated writer thread. Not real-time safe: does file I/O.
public final class AudioFileWriter {
    /// - Thread: control.
    public let path: String
    /// - Thread: control.
    public let sampleRate: Int
    /// - Thread: control.
    public let channelCount: Int
    /// - Thread: control.
    public private(set) var frameCount = 0
    private var handle: OpaquePointer?

    /// Creates (or truncates) `path`.
    /// - Throws: `AudioFileError` naming the path when the format is unknown or the file can't be made.
    /// - Thread: control.
    public init(path: String, sampleRate: Int, channelCount: Int, format: AudioFileFormat? = nil) throws(AudioFileError) {
        guard let format = format ?? AudioFileFormat(path: path) else {
            throw AudioFileError(path: path, reason: "unknown file type (use \(AudioFileFormat.extensionList))")
        }
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channelCount)
        info.format = format.rawValue
        guard sf_format_check(&info) != 0 else {
            throw AudioFileError(path: path, reason: "libsndfile cannot write \(channelCount) channels at \(sampleRate) Hz in this format")
        }
        guard let handle = sf_open(path, Int32(SFM_WRITE), &info) else {
            throw AudioFileError(path: path, reason: "cannot create: \(String(cString: sf_strerror(nil)))")
        }
        self.path = path
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.handle = handle
        // Clip float input to the integer range rather than wrapping, for the integer formats.
        sf_command(handle, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
    }

    deinit { try? close() }

    /// Makes libsndfile rewrite the header after every write (`SFC_SET_UPDATE_HEADER_AUTO`), so a
    /// WAV stays readable up to the last write even if the process dies before `close`. Costs a
    /// seek per write: for recordings, not for offline renders.
    /// - Thread: control.
    public func updateHeaderAfterEveryWrite() {
        guard let handle else { return }
        sf_command(handle, Int32(SFC_SET_UPDATE_HEADER_AUTO), nil, Int32(SF_TRUE))
    }

    /// Appends `frameCount` interleaved frames.
    /// - Thread: control.
    public func write(_ samples: UnsafePointer<Float>, frameCount: Int) throws(AudioFileError) {
        guard let handle else { throw AudioFileError(path: path, reason: "already closed") }
        errno = 0
        let written = sf_writef_float(handle, samples, sf_count_t(frameCount))
        let systemError = errno
        self.frameCount += Int(written)
        guard written == frameCount else {
            throw AudioFileError(path: path, reason: "write failed: \(String(cString: sf_strerror(handle)))",
                                 systemErrorCode: systemError == 0 ? nil : systemError)
        }
    }

    /// Appends interleaved samples (a whole number of frames).
    /// - Thread: control.
    public func write(_ samples: [Float]) throws(AudioFileError) {
        precondition(samples.count % channelCount == 0, "samples must hold whole frames")
        try samples.withUnsafeBufferPointer { (buffer) throws(AudioFileError) in try write(buffer.baseAddress!, frameCount: buffer.count / channelCount) }
    }

    /// Finishes the header and closes the file. Safe to call twice.
    /// - Thread: control.
    public func close() throws(AudioFileError) {
        guard let handle else { return }
        self.handle = nil
        guard sf_close(handle) == 0 else {
            throw AudioFileError(path: path, reason: "close failed: \(String(cString: sf_strerror(nil)))")
        }
    }
}
