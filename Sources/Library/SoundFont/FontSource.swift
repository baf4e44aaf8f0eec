import FileChecks
import Glibc

/// Where a SoundFont's bytes come from: a file, read with `pread` as the loader needs each part,
/// or bytes already in memory. The file is never read whole: its tables are small, and its
/// samples (nearly all of it) go straight into the bank's pool, so a font is not held twice.
/// Reading, not mapping: a mapped file that shrinks while loading would kill the process with
/// SIGBUS, where a short read is an error naming the file.
/// - Thread: control.
final class FontSource {
    /// Stands for the file in errors.
    let name: String
    /// Bytes in the file.
    let count: Int
    private let descriptor: Int32
    private let memory: [UInt8]

    /// Opens the file at `path`.
    init(path: String, name: String) throws(SoundFontError) {
        func failure(_ action: String) -> SoundFontError {
            SoundFontError(file: path, reason: "cannot \(action): \(String(cString: strerror(errno)))")
        }
        if let reason = FileKind.notRegularFileReason(path) { throw SoundFontError(file: path, reason: reason) }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure("open") }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let error = failure("stat")
            close(descriptor)
            throw error
        }
        // The kernel reads ahead further when told the file is read front to back, as the
        // samples are.
        _ = posix_fadvise(descriptor, 0, 0, POSIX_FADV_SEQUENTIAL)
        self.name = name
        self.descriptor = descriptor
        count = Int(status.st_size)
        memory = []
    }

    /// Bytes in memory.
    init(bytes: [UInt8], name: String) {
        self.name = name
        descriptor = -1
        count = bytes.count
        memory = bytes
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// Copies `length` bytes at `offset` into `target`. The caller has checked that they lie in
    /// the file as it was measured; a file that has shrunk since is an error, as is a failed read.
    func read(_ offset: Int, _ length: Int, into target: UnsafeMutableRawPointer, chunk: String) throws(SoundFontError) {
        precondition(offset >= 0 && length >= 0 && offset <= count - length, "read outside the file")
        guard descriptor >= 0 else {
            memory.withUnsafeBytes { target.copyMemory(from: $0.baseAddress! + offset, byteCount: length) }
            return
        }
        var done = 0
        while done < length {
            let got = pread(descriptor, target + done, length - done, off_t(offset + done))
            if got < 0, errno == EINTR { continue }
            guard got > 0 else {
                let reason = got < 0 ? "cannot read: \(String(cString: strerror(errno)))"
                                     : "the file has shrunk while loading (it had \(count) bytes): byte \(offset + done) is gone"
                throw SoundFontError(file: name, chunk: chunk, offset: offset + done, reason: reason)
            }
            done += got
        }
    }

    /// `length` bytes at `offset`, as `read`.
    func bytes(_ offset: Int, _ length: Int, chunk: String) throws(SoundFontError) -> [UInt8] {
        guard length > 0 else { return [] }
        var failure: SoundFontError?
        let bytes = [UInt8](unsafeUninitializedCapacity: length) { buffer, initialized in
            do throws(SoundFontError) {
                try read(offset, length, into: buffer.baseAddress!, chunk: chunk)
                initialized = length
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return bytes
    }
}

/// A chunk of sample data (smpl, sm24) left in the file until it is decoded into a bank's pool.
struct SampleChunk {
    let source: FontSource
    let chunk: String
    /// Absolute offset of the chunk's first data byte.
    let start: Int
    /// Bytes in the chunk.
    let count: Int

    /// An error at `offset` (relative to the chunk).
    func error(at offset: Int, _ reason: String) -> SoundFontError {
        SoundFontError(file: source.name, chunk: chunk, offset: start + offset, reason: reason)
    }

    /// Throws unless `length` bytes at `offset` lie inside the chunk (overflow-free: both may come
    /// straight from the file).
    func require(_ offset: Int, _ length: Int) throws(SoundFontError) {
        guard offset >= 0, length >= 0, offset <= count, length <= count - offset else {
            throw error(at: max(0, min(offset, count)), "sample data needs \(length) bytes at offset \(offset), but the chunk holds \(count)")
        }
    }

    /// Copies `length` bytes at `offset` (relative to the chunk) into `target`.
    func read(_ offset: Int, _ length: Int, into target: UnsafeMutableRawPointer) throws(SoundFontError) {
        try require(offset, length)
        try source.read(start + offset, length, into: target, chunk: chunk)
    }

    /// `length` bytes at `offset`, as `read`.
    func bytes(_ offset: Int, _ length: Int) throws(SoundFontError) -> [UInt8] {
        try require(offset, length)
        return try source.bytes(start + offset, length, chunk: chunk)
    }
}
