import DSP
import MIDI
import Render

/// How `Engine.render(_:options:)` plays a MIDI file offline. Every field has a default.
public struct MIDIRenderOptions: Sendable {
    /// Plays every melodic channel with this program, ignoring the file's program changes.
    /// - Thread: any.
    public var program: UInt8? = nil
    /// Frames per render call: the same blocks a device with this period would ask for.
    /// - Thread: any.
    public var blockFrameCount = 64
    /// After the song's end (`MIDISequencer.endFrame`), render on until every voice (the drum
    /// kit's too) has ended and the effects' tails have died below `tailFloor`, but at most this
    /// long: long enough for a crash cymbal (8.5 s in the shipped kit), short enough that a note
    /// the file never releases does not run on for ever.
    /// - Thread: any.
    public var maximumTailSeconds = MIDIRenderOptions.defaultMaximumTailSeconds
    /// The default `maximumTailSeconds`.
    /// - Thread: any.
    public static let defaultMaximumTailSeconds = 30.0
    /// −80 dBFS: where a reverb tail is taken to have ended.
    /// - Thread: any.
    public static let tailFloor: Float = 1e-4

    /// - Thread: any.
    public init(program: UInt8? = nil, blockFrameCount: Int = 64, maximumTailSeconds: Double = MIDIRenderOptions.defaultMaximumTailSeconds) {
        self.program = program
        self.blockFrameCount = blockFrameCount
        self.maximumTailSeconds = maximumTailSeconds
    }
}

/// What an offline MIDI render did.
public struct MIDIRenderSummary: Sendable {
    /// - Thread: any.
    public var frameCount: Int
    /// - Thread: any.
    public var seconds: Double
    /// - Thread: any.
    public var messageCount: Int
    /// - Thread: any.
    public var statistics: RenderStatistics
    /// - Thread: any.
    public var refusedCommands: Int
    /// The largest absolute sample rendered: 0 means the render is silence.
    /// - Thread: any.
    public var peak: Float
}

extension Engine {
    /// Plays `file` through the renderer on the calling thread, faster than real time, handing each
    /// block (interleaved) to `consume`. Events are stamped with their exact frame, so timing is
    /// sample-accurate, exactly as in real-time playback.
    /// - Thread: stopped. No device stream may be running this engine's renderer.
    @discardableResult
    public func render(_ file: MIDIFile, options: MIDIRenderOptions = MIDIRenderOptions(),
                       _ consume: (UnsafeBufferPointer<Float>) throws -> Void) rethrows -> MIDIRenderSummary {
        let sequencer = MIDISequencer(file, sampleRate: sampleRate, program: options.program, startFrame: renderedFrameTime)
        let tailLimit = sequencer.endFrame + FrameTime(options.maximumTailSeconds * sampleRate)
        let block = min(max(1, options.blockFrameCount), configuration.render.maxFrameCount)
        let channelCount = configuration.render.channelCount
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: block * channelCount)
        defer { scratch.deallocate() }

        var rendered: FrameTime = 0
        var peak: Float = 0
        while true {
            rendered += FrameTime(block)
            sequencer.send(dueBefore: sequencer.startFrame + rendered, to: self)
            renderer.render(into: scratch, frameCount: block)
            processEvents()
            var blockPeak: Float = 0
            for index in 0 ..< block * channelCount { blockPeak = max(blockPeak, abs(scratch[index])) }
            peak = max(peak, blockPeak)
            try consume(UnsafeBufferPointer(start: scratch, count: block * channelCount))
            if sequencer.isFinished && rendered > sequencer.endFrame
                && (renderer.statistics.hasFallenSilent(outputPeak: blockPeak) || rendered >= tailLimit) { break }
        }
        return MIDIRenderSummary(frameCount: Int(rendered), seconds: Double(rendered) / sampleRate,
                                 messageCount: sequencer.messageCount, statistics: renderer.statistics,
                                 refusedCommands: refusedCommandCount, peak: peak)
    }
}

extension Engine {
    /// Renders `file` to a sound file at `path` (.wav float, .flac or .ogg), in batches of
    /// `BatchedFileWriter.batchFrameCount` frames.
    /// - Thread: stopped. Not real-time safe: file I/O.
    @discardableResult
    public func render(_ file: MIDIFile, to path: String, options: MIDIRenderOptions = MIDIRenderOptions()) throws -> MIDIRenderSummary {
        var writer = try BatchedFileWriter(path: path, sampleRate: Int(sampleRate), channelCount: configuration.render.channelCount)
        let summary = try render(file, options: options) { try writer.write($0) }
        try writer.close()
        return summary
    }
}

extension RenderStatistics {
    /// True once nothing sounds: no sampler voice and no drum voice is left, and the output, effects
    /// tails included, peaks below `MIDIRenderOptions.tailFloor`. Where a song that has ended is
    /// done, offline and live alike.
    /// - Thread: any.
    public func hasFallenSilent(outputPeak: Float) -> Bool {
        activeVoices == 0 && activeDrumVoices == 0 && outputPeak < MIDIRenderOptions.tailFloor
    }
}
