import AudioFile

/// Where a `Recorder`'s writer thread puts the frames it drains: a sound file in use, and in tests a
/// sink that can stall like a slow disk.
///
/// - Thread: control. The recorder's writer thread calls `write`; `close` comes from the control thread after
///   the writer has ended.
public protocol RecordingSink: AnyObject {
    /// Where the frames go, for messages.
    var path: String { get }
    /// Appends `frameCount` interleaved frames. May block (a slow disk); the audio thread never waits on it.
    /// - Throws: an `AudioFileError` naming the destination.
    func write(_ samples: UnsafePointer<Float>, frameCount: Int) throws(AudioFileError)
    /// Finalises the destination (for a file: its header holds the frame count).
    func close() throws(AudioFileError)
}

extension AudioFileWriter: RecordingSink {}
