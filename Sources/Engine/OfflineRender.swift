import AudioFile
import DSP
import Render

extension Engine {
    /// Runs the renderer on the calling thread for `frameCount` frames, in blocks of
    /// `blockFrameCount`, handing each block (interleaved) to `consume`. This is the same render
    /// path a device runs, with the calling thread playing the audio thread's part.
    /// - Thread: stopped: no device stream may be running this engine's renderer.
    public func renderOffline(frameCount: Int, blockFrameCount: Int = 64,
                              _ consume: (UnsafeBufferPointer<Float>) throws -> Void) rethrows {
        let block = min(max(1, blockFrameCount), configuration.render.maxFrameCount)
        let channelCount = configuration.render.channelCount
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: block * channelCount)
        defer { scratch.deallocate() }
        var remaining = frameCount
        while remaining > 0 {
            let count = min(block, remaining)
            renderer.render(into: scratch, frameCount: count)
            processEvents()
            try consume(UnsafeBufferPointer(start: scratch, count: count * channelCount))
            remaining -= count
        }
    }

    /// Renders `frameCount` frames into a new array of interleaved samples.
    /// - Thread: stopped. Not real-time safe: allocates.
    public func renderOffline(frameCount: Int, blockFrameCount: Int = 64) -> [Float] {
        var samples: [Float] = []
        samples.reserveCapacity(frameCount * configuration.render.channelCount)
        renderOffline(frameCount: frameCount, blockFrameCount: blockFrameCount) { samples.append(contentsOf: $0) }
        return samples
    }

    /// Renders `frameCount` frames to a sound file (format from the extension: .wav, .flac, .ogg).
    /// - Thread: stopped. Not real-time safe: file I/O.
    public func renderOffline(frameCount: Int, to path: String, blockFrameCount: Int = 64) throws {
        let writer = try AudioFileWriter(path: path, sampleRate: Int(sampleRate),
                                         channelCount: configuration.render.channelCount)
        try renderOffline(frameCount: frameCount, blockFrameCount: blockFrameCount) {
            try writer.write($0.baseAddress!, frameCount: $0.count / configuration.render.channelCount)
        }
        try writer.close()
    }
}
