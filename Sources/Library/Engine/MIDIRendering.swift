import AudioFile
import DSP
import MIDI
import Render

/// How `Engine.render(_:options:)` plays a MIDI file offline. Every field has a default.
public struct MIDIRenderOptions: Sendable {
    /// Plays every melodic channel with this program, ignoring the file's program changes.
    public var program: UInt8? = nil
    /// Frames per render call, as a device with this period would ask for them. The output is the
    /// same whatever the value (`RenderQuantum`); it sets how much is handed over at a time, how
    /// many quanta the voices may be rendered for at once, and so handed to the voice threads
    /// together (`VoiceWorkItems.maximumQuantumCount`, 1,024 frames), and how often the calling
    /// thread hands a block over while the voice threads render the segment past it
    /// (`Renderer.advanceInstruments`). 4,096 is the most a default `RenderConfiguration` takes.
    public var blockFrameCount = 4_096
    /// After the song's end (`MIDISequencer.endFrame`), render on until every voice (the drum
    /// kit's too) has ended and the effects' tails have died below `tailFloor`, but at most this
    /// long: long enough for a crash cymbal (8.5 s in the shipped kit), short enough that a note
    /// the file never releases does not run on for ever.
    public var maximumTailSeconds = MIDIRenderOptions.defaultMaximumTailSeconds
    /// The default `maximumTailSeconds`.
    public static let defaultMaximumTailSeconds = 30.0
    /// −80 dBFS: where a reverb tail is taken to have ended.
    public static let tailFloor: Float = 1e-4

    /// - Thread: any.
    public init(program: UInt8? = nil, blockFrameCount: Int = 4_096, maximumTailSeconds: Double = MIDIRenderOptions.defaultMaximumTailSeconds) {
        self.program = program
        self.blockFrameCount = blockFrameCount
        self.maximumTailSeconds = maximumTailSeconds
    }
}

/// What an offline MIDI render did.
public struct MIDIRenderSummary: Sendable {
    public var frameCount: Int
    public var seconds: Double
    public var messageCount: Int
    public var statistics: RenderStatistics
    public var refusedCommands: Int
    /// The largest absolute sample rendered: 0 means the render is silence.
    public var peak: Float
}

extension Engine {
    /// Plays `file` through the renderer on the calling thread, faster than real time, handing the
    /// frames (interleaved) to `consume` as they are rendered. Events are stamped with their exact
    /// frame, so timing is sample-accurate, exactly as in real-time playback. The song starts on the
    /// renderer's grid (`RenderQuantum`), so the frames handed over, and how many, are the same
    /// whatever `options.blockFrameCount`: the render ends at the song's end or at the end of the
    /// last quantum after it that holds a sample at or above `MIDIRenderOptions.tailFloor`.
    /// - Thread: stopped. No device stream may be running this engine's renderer.
    @discardableResult
    public func render<Failure: Error>(_ file: MIDIFile, options: MIDIRenderOptions = MIDIRenderOptions(),
                                       _ consume: (UnsafeBufferPointer<Float>) throws(Failure) -> Void) throws(Failure) -> MIDIRenderSummary {
        let renderStart = renderedFrameTime
        let sequencer = MIDISequencer(file, sampleRate: sampleRate, program: options.program,
                                      startFrame: RenderQuantum.boundary(atOrAfter: renderStart))
        let songEnd = sequencer.startFrame + sequencer.endFrame
        let tailLimit = sequencer.tailLimit(maximumTailSeconds: options.maximumTailSeconds, sampleRate: sampleRate)
        let block = min(max(1, options.blockFrameCount), configuration.render.maxFrameCount)
        let channelCount = configuration.render.channelCount
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: block * channelCount)
        defer { scratch.deallocate() }

        var output = RenderEnd(start: renderStart, songEnd: RenderQuantum.boundary(atOrAfter: songEnd),
                               limit: tailLimit, channelCount: channelCount)
        var rendered = renderStart
        // The render ends at a block's end past the song's end, so the commands of the song's
        // frames, sent a block ahead, are all it will ever have there: the voices may be rendered
        // on past each block's end up to them, while the block is handed over
        // (`Renderer.declareCommandsQueued(before:)`). A render that stops early (its output
        // failed) takes the promise back and plays on, unheard, to where the voices reached, so
        // that a later render's first commands are on time.
        let songQuantumEnd = RenderQuantum.boundary(atOrAfter: songEnd)
        var ended = false
        defer {
            renderer.declareCommandsQueued(before: 0)
            if !ended {
                while renderer.framesRenderedAhead > 0 {
                    renderer.render(into: scratch, frameCount: min(block, renderer.framesRenderedAhead))
                }
                processEvents()
            }
        }
        while true {
            let blockStart = rendered
            rendered += FrameTime(block)
            // Everything the renderer reaches this block (it renders its instruments a quantum at
            // a time), and the next block's.
            sequencer.send(dueBefore: RenderQuantum.boundary(atOrAfter: rendered + FrameTime(block)), to: self)
            // A release kept back from a full ring (`send`) is sent, but not yet queued.
            renderer.declareCommandsQueued(before: pendingReleaseCount == 0 ? min(sequencer.sentUntil, songQuantumEnd) : 0)
            renderer.render(into: scratch, frameCount: block)
            processEvents()
            let blockPeak = peakMagnitude(scratch, count: block * channelCount)
            try output.take(UnsafeBufferPointer(start: scratch, count: block * channelCount), at: blockStart,
                            soundingUntil: renderer.lastSoundingFrame, consume)
            if rendered >= output.committed,
               sequencer.isOver(at: rendered, tailLimit: tailLimit, fallenSilent: renderer.statistics.hasFallenSilent(outputPeak: blockPeak)) { break }
        }
        ended = true
        return MIDIRenderSummary(frameCount: Int(output.end - renderStart), seconds: Double(output.end - renderStart) / sampleRate,
                                 messageCount: sequencer.messageCount, statistics: renderer.statistics,
                                 refusedCommands: refusedCommandCount, peak: output.peak)
    }
}

/// Where an offline render ends, found from what it plays: at the song's end, or at the end of the
/// last quantum after it in which a voice played or that holds a sample at or above
/// `MIDIRenderOptions.tailFloor`, but not past the tail's limit. Frames past the song's end are held
/// back until a later one is known to be the render's, so its length is the same whatever its
/// block size.
struct RenderEnd {
    /// The render's first frame; frames before `end` have been handed over.
    let start: FrameTime
    let limit: FrameTime
    let channelCount: Int
    /// The first frame not yet handed over; everything before it is the render's.
    private(set) var end: FrameTime
    /// The frames the render has played from `end` on, interleaved, not yet known to be heard.
    private var held: [Float] = []
    /// The largest absolute sample handed over.
    private(set) var peak: Float = 0

    init(start: FrameTime, songEnd: FrameTime, limit: FrameTime, channelCount: Int) {
        self.start = start
        self.limit = limit
        self.channelCount = channelCount
        end = start
        committed = min(songEnd, limit)
    }

    /// Frames before this are the render's, heard or not.
    private(set) var committed: FrameTime

    /// Takes a block of `samples` (interleaved) that begins at frame `blockStart`, rendered while
    /// voices played until `soundingUntil` (`Renderer.lastSoundingFrame`), and hands over what is
    /// now known to belong to the render.
    mutating func take<Failure: Error>(_ samples: UnsafeBufferPointer<Float>, at blockStart: FrameTime, soundingUntil: FrameTime,
                                       _ consume: (UnsafeBufferPointer<Float>) throws(Failure) -> Void) throws(Failure) {
        committed = min(max(committed, soundingUntil), limit)
        let frameCount = samples.count / channelCount
        // The last frame at or above the floor, past what is already the render's.
        var lastHeard: FrameTime? = nil
        let firstUncommitted = committed > blockStart ? Int(min(committed - blockStart, FrameTime(frameCount))) : 0
        for frame in stride(from: frameCount - 1, through: firstUncommitted, by: -1) {
            let base = frame * channelCount
            if (0..<channelCount).contains(where: { abs(samples[base + $0]) >= MIDIRenderOptions.tailFloor }) {
                lastHeard = blockStart + FrameTime(frame)
                break
            }
        }
        if let lastHeard { committed = min(max(committed, RenderQuantum.boundary(atOrAfter: lastHeard + 1)), limit) }
        // What may be handed over now: everything up to `committed`; the rest waits in `held`.
        if held.isEmpty && blockStart == end {
            let count = Int(min(max(committed, blockStart), blockStart + FrameTime(frameCount)) - blockStart)
            try hand(UnsafeBufferPointer(rebasing: samples[0 ..< count * channelCount]), consume)
            held.append(contentsOf: samples[(count * channelCount)...])
        } else {
            held.append(contentsOf: samples)
        }
        let ready = Int(min(committed, end + FrameTime(held.count / channelCount)) - end)
        if ready > 0 {
            try held.withUnsafeBufferPointer { (buffer) throws(Failure) in
                try hand(UnsafeBufferPointer(rebasing: buffer[0 ..< ready * channelCount]), consume)
            }
            held.removeFirst(ready * channelCount)
        }
    }

    private mutating func hand<Failure: Error>(_ samples: UnsafeBufferPointer<Float>,
                                               _ consume: (UnsafeBufferPointer<Float>) throws(Failure) -> Void) throws(Failure) {
        guard let start = samples.baseAddress, !samples.isEmpty else { return }
        peak = max(peak, peakMagnitude(start, count: samples.count))
        try consume(samples)
        end += FrameTime(samples.count / channelCount)
    }
}

extension Engine {
    /// Renders `file` to a sound file at `path` (.wav float, .flac, .ogg or .mp3), in batches of
    /// `BatchedFileWriter.batchFrameCount` frames.
    /// - Thread: stopped. Not real-time safe: file I/O.
    @discardableResult
    public func render(_ file: MIDIFile, to path: String, options: MIDIRenderOptions = MIDIRenderOptions()) throws(AudioFileError) -> MIDIRenderSummary {
        var writer = try BatchedFileWriter(path: path, sampleRate: Int(sampleRate), channelCount: configuration.render.channelCount)
        let summary = try render(file, options: options) { (block) throws(AudioFileError) in try writer.write(block) }
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
