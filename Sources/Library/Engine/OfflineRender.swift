import AudioFile
import DSP
import Render

extension Engine {
    /// Runs the renderer on the calling thread for `frameCount` frames, in blocks of
    /// `blockFrameCount`, handing each block (interleaved) to `consume`. This is the same render
    /// path a device runs, with the calling thread playing the audio thread's part.
    ///
    /// With `input`, those interleaved frames of `inputChannelCount` channels play the microphone's
    /// part, block by block, exactly as a capture device would feed them (silence after their end).
    /// With `song`, its messages are sent as the renderer reaches them, as `render(_:options:_:)`
    /// sends a file's (a sequencer made with `startFrame` 0 plays from the first frame rendered, on
    /// the renderer's grid).
    /// - Thread: stopped. No device stream may be running this engine's renderer.
    public func renderOffline<Failure: Error>(frameCount: Int, blockFrameCount: Int = 64,
                              input: UnsafeBufferPointer<Float>? = nil, inputChannelCount: Int = 1,
                              song: MIDISequencer? = nil,
                              _ consume: (UnsafeBufferPointer<Float>) throws(Failure) -> Void) throws(Failure) {
        let block = min(max(1, blockFrameCount), configuration.render.maxFrameCount)
        let channelCount = configuration.render.channelCount
        let inputChannels = max(1, inputChannelCount)
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: block * channelCount)
        let inputScratch = UnsafeMutablePointer<Float>.allocate(capacity: block * inputChannels)
        defer {
            scratch.deallocate()
            inputScratch.deallocate()
        }
        let inputFrameCount = (input?.count ?? 0) / inputChannels
        var rendered = 0
        while rendered < frameCount {
            let count = min(block, frameCount - rendered)
            song?.send(dueBefore: RenderQuantum.boundary(atOrAfter: renderedFrameTime + FrameTime(count)), to: self)
            if let source = input?.baseAddress {
                let available = max(0, min(count, inputFrameCount - rendered))
                inputScratch.update(from: source + rendered * inputChannels, count: available * inputChannels)
                (inputScratch + available * inputChannels).update(repeating: 0, count: (count - available) * inputChannels)
                renderer.render(input: inputScratch, inputChannelCount: inputChannels, into: scratch, frameCount: count)
            } else {
                renderer.render(into: scratch, frameCount: count)
            }
            processEvents()
            try consume(UnsafeBufferPointer(start: scratch, count: count * channelCount))
            rendered += count
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

    /// Runs `input` (interleaved, `inputChannelCount` channels) through the graph as the
    /// microphone, for as many frames as it holds, and returns the output.
    /// - Thread: stopped. Not real-time safe: allocates.
    public func processOffline(input: [Float], inputChannelCount: Int, blockFrameCount: Int = 64) -> [Float] {
        let frameCount = input.count / max(1, inputChannelCount)
        var samples: [Float] = []
        samples.reserveCapacity(frameCount * configuration.render.channelCount)
        input.withUnsafeBufferPointer { source in
            renderOffline(frameCount: frameCount, blockFrameCount: blockFrameCount, input: source,
                          inputChannelCount: inputChannelCount) { samples.append(contentsOf: $0) }
        }
        return samples
    }

    /// Runs `microphone` through the graph as the microphone, offline and faster than real time,
    /// with `song` (a sequencer made with `startFrame` 0) playing from its first frame, and writes
    /// the output to `path` and, with `stemPath`, the processed microphone alone, before the song
    /// joins it (the engine needs `microphoneRecordingBufferSeconds` for that). Both files are as
    /// long as `microphone`. Formats from the extensions: .wav, .flac, .ogg, .mp3.
    /// - Throws: `AudioFileError` naming the file that could not be made or written.
    /// - Thread: stopped. Not real-time safe: file I/O.
    public func processOffline(_ microphone: DecodedAudio, song: MIDISequencer? = nil, to path: String,
                               microphoneTo stemPath: String? = nil, blockFrameCount: Int = 64) throws(AudioFileError) {
        precondition(stemPath == nil || microphoneTap != nil, "a stem needs an engine built with microphoneRecordingBufferSeconds > 0")
        var writer = try BatchedFileWriter(path: path, sampleRate: Int(sampleRate), channelCount: configuration.render.channelCount)
        var stemWriter = try stemPath.map { (stemPath) throws(AudioFileError) in
            try BatchedFileWriter(path: stemPath, sampleRate: Int(sampleRate), channelCount: 2)
        }
        let drain = UnsafeMutableBufferPointer<Float>.allocate(capacity: 2 * configuration.render.maxFrameCount)
        defer { drain.deallocate() }
        try microphone.samples.withUnsafeBufferPointer { (input) throws(AudioFileError) in
            try renderOffline(frameCount: microphone.frameCount, blockFrameCount: blockFrameCount, input: input,
                              inputChannelCount: microphone.channelCount, song: song) { (block) throws(AudioFileError) in
                try writer.write(block)
                guard stemWriter != nil, let tap = microphoneTap else { return }
                while case let frames = tap.read(into: drain), frames > 0 {
                    try stemWriter!.write(UnsafeBufferPointer(rebasing: drain[0 ..< 2 * frames]))
                }
            }
        }
        try writer.close()
        try stemWriter?.close()
    }

    /// Renders `frameCount` frames to a sound file (format from the extension: .wav, .flac, .ogg, .mp3).
    /// - Thread: stopped. Not real-time safe: file I/O.
    public func renderOffline(frameCount: Int, to path: String, blockFrameCount: Int = 64) throws(AudioFileError) {
        var writer = try BatchedFileWriter(path: path, sampleRate: Int(sampleRate), channelCount: configuration.render.channelCount)
        try renderOffline(frameCount: frameCount, blockFrameCount: blockFrameCount) { (block) throws(AudioFileError) in try writer.write(block) }
        try writer.close()
    }
}
