import AudioFile

/// Collects rendered blocks and hands libsndfile a few thousand frames per call: with one 64-frame
/// block per call, the per-call overhead was a quarter of an offline render's time.
/// - Thread: control. Offline renders run the audio thread's part on it.
struct BatchedFileWriter {
    static var batchFrameCount: Int { 8_192 }
    private let writer: AudioFileWriter
    private var batch: [Float] = []

    init(path: String, sampleRate: Int, channelCount: Int) throws(AudioFileError) {
        writer = try AudioFileWriter(path: path, sampleRate: sampleRate, channelCount: channelCount)
        batch.reserveCapacity(2 * Self.batchFrameCount * channelCount)
    }

    mutating func write(_ block: UnsafeBufferPointer<Float>) throws(AudioFileError) {
        batch.append(contentsOf: block)
        if batch.count >= Self.batchFrameCount * writer.channelCount { try flush() }
    }

    /// Writes what is left and closes the file.
    mutating func close() throws(AudioFileError) {
        try flush()
        try writer.close()
    }

    private mutating func flush() throws(AudioFileError) {
        guard !batch.isEmpty else { return }
        try writer.write(batch)
        batch.removeAll(keepingCapacity: true)
    }
}
