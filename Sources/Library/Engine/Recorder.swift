import AudioFile
import Foundation
import Render
import Synchronization

/// Records the engine's output to a sound file (WAV, FLAC or OGG by extension): the audio thread
/// copies each block into the `OutputTap`'s ring, and a writer thread here drains it to disk with
/// libsndfile, so the audio thread never touches the file system.
///
/// Frames the audio thread had to drop (ring full: the disk stalled for longer than the ring
/// holds) are counted, never waited for. `finish()` drains what is left and finalises the file;
/// WAV headers are also kept current after every write, so a WAV is readable up to the last write
/// even if the process is killed before it can finish.
///
/// - Thread: control. For every member; the writer thread is private.
public final class Recorder: @unchecked Sendable {
    /// - Thread: control.
    public let path: String
    private let tap: OutputTap
    private let writer: RecordingSink
    private let stopRequested = Atomic<Bool>(false)
    private let publishedWrittenFrames = Atomic<Int>(0)
    private let publishedFailure = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)
    private var thread: Thread?
    /// The first write error, which ends the writer thread (reported by `finish`).
    private var writeError: AudioFileError?

    /// Creates `path` now, so a bad path fails before anything plays.
    /// - Throws: `AudioFileError` naming the path.
    /// - Thread: control.
    public convenience init(path: String, tap: OutputTap, sampleRate: Int) throws(AudioFileError) {
        let file = try AudioFileWriter(path: path, sampleRate: sampleRate, channelCount: tap.channelCount)
        file.updateHeaderAfterEveryWrite()
        self.init(tap: tap, sink: file)
    }

    /// Records into `sink` (a file, or a test's stalling stand-in for one).
    /// - Thread: control.
    public init(tap: OutputTap, sink: RecordingSink) {
        precondition(tap.isEnabled, "record through an engine built with recordingBufferSeconds > 0")
        path = sink.path
        self.tap = tap
        writer = sink
    }

    /// Frames written to the file so far.
    /// - Thread: control.
    public var writtenFrameCount: Int { publishedWrittenFrames.load(ordering: .relaxed) }
    /// Frames the audio thread dropped because the ring was full (target: 0). Whole blocks are
    /// dropped, so the file has gaps but no torn frames: written + dropped = frames rendered.
    /// - Thread: control.
    public var droppedFrameCount: Int { tap.droppedFrameCount }

    /// True once a write has failed (a full disk, a vanished drive): the writer has stopped, and
    /// whoever records should stop too and call `finish`, which says why. A slow disk is not a
    /// failure: its frames are dropped and counted (`droppedFrameCount`).
    /// - Thread: control.
    public var hasFailed: Bool { publishedFailure.load(ordering: .acquiring) }

    /// Starts the writer thread.
    /// - Thread: control.
    public func start() {
        let thread = Thread { [self] in
            let chunk = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4_096 * tap.channelCount)
            defer { chunk.deallocate() }
            while true {
                let stopping = stopRequested.load(ordering: .acquiring)
                let moved = drain(into: chunk)
                if stopping && moved == 0 { break }
                if moved == 0 { usleep(5_000) }
                if writeError != nil { break }
            }
            done.signal()
        }
        thread.name = "staccato-recorder"
        self.thread = thread
        thread.start()
    }

    /// Writes everything waiting in the ring; returns the frames written.
    private func drain(into chunk: UnsafeMutableBufferPointer<Float>) -> Int {
        var total = 0
        while true {
            let frames = tap.read(into: chunk)
            if frames == 0 { return total }
            do {
                try writer.write(chunk.baseAddress!, frameCount: frames)
            } catch {
                writeError = error
                publishedFailure.store(true, ordering: .releasing)
                return total
            }
            total += frames
            publishedWrittenFrames.add(frames, ordering: .relaxed)
        }
    }

    /// Stops the writer after it has written everything the audio thread tapped, and closes the
    /// file. Call after the audio thread has stopped, so nothing is left behind.
    /// After a failed write the file is still finalised, holding every frame written before it.
    /// - Throws: the first write or close error, naming the file; a failed write says what failed
    ///   (a full disk by name) and how many frames the file keeps.
    /// - Thread: control.
    public func finish() throws(AudioFileError) {
        guard thread != nil else { return try writer.close() }
        stopRequested.store(true, ordering: .releasing)
        done.wait()
        self.thread = nil
        guard let writeError else { return try writer.close() }
        try? writer.close()
        let saved = writtenFrameCount
        let what = writeError.isDiskFull ? "the disk is full" : writeError.reason
        throw AudioFileError(path: path, reason: "\(what): recording stopped; the file is finalised with the \(saved) frames saved before it",
                             systemErrorCode: writeError.systemErrorCode)
    }
}
