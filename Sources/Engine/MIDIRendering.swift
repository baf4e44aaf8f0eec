import DSP
import MIDI
import Render

/// How `Engine.render(_:options:)` plays a MIDI file offline. Every field has a default.
public struct MIDIRenderOptions: Sendable {
    /// Plays every melodic channel with this program, ignoring the file's program changes.
    public var program: UInt8? = nil
    /// Frames per render call: the same blocks a device with this period would ask for.
    public var blockFrameCount = 64
    /// After the last event, render on until every voice has ended, but at most this long.
    public var maximumTailSeconds = 5.0

    public init(program: UInt8? = nil, blockFrameCount: Int = 64, maximumTailSeconds: Double = 5) {
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
}

extension Engine {
    /// Plays `file` through the renderer on the calling thread, faster than real time, handing each
    /// block (interleaved) to `consume`. Events are stamped with their exact frame, so timing is
    /// sample-accurate, exactly as in real-time playback.
    /// - Thread: stopped (no device stream may be running this engine's renderer).
    @discardableResult
    public func render(_ file: MIDIFile, options: MIDIRenderOptions = MIDIRenderOptions(),
                       _ consume: (UnsafeBufferPointer<Float>) throws -> Void) rethrows -> MIDIRenderSummary {
        var messages = file.timedMessages().map { (frame: FrameTime(max(0, ($0.seconds * sampleRate).rounded())), message: $0.message) }
        if let program = options.program {
            messages.removeAll { if case let .programChange(channel, _) = $0.message { channel != 9 } else { false } }
            let forced = (0..<16).filter { $0 != 9 }.map { (frame: FrameTime(0), message: MIDIMessage.programChange(channel: UInt8($0), program: program)) }
            messages = forced + messages
        }
        let start = renderedFrameTime
        let lastEventFrame = messages.last.map { $0.frame } ?? 0
        let tailLimit = lastEventFrame + FrameTime(options.maximumTailSeconds * sampleRate)
        let block = min(max(1, options.blockFrameCount), configuration.render.maxFrameCount)
        let channelCount = configuration.render.channelCount
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: block * channelCount)
        defer { scratch.deallocate() }

        var next = 0
        var rendered: FrameTime = 0
        while true {
            let blockEnd = rendered + FrameTime(block)
            // Queue what is due in this block; a full ring just means the rest waits a block (it is
            // checked first, so waiting is not counted as a refusal).
            var room = freeCommandSlots()
            while next < messages.count, messages[next].frame < blockEnd, room > 0 {
                send(midi: messages[next].message, at: start + messages[next].frame)
                next += 1
                room -= 1
            }
            renderer.render(into: scratch, frameCount: block)
            processEvents()
            try consume(UnsafeBufferPointer(start: scratch, count: block * channelCount))
            rendered = blockEnd
            if next >= messages.count && rendered > lastEventFrame
                && (renderer.statistics.activeVoices == 0 || rendered >= tailLimit) { break }
        }
        return MIDIRenderSummary(frameCount: Int(rendered), seconds: Double(rendered) / sampleRate,
                                 messageCount: messages.count, statistics: renderer.statistics,
                                 refusedCommands: refusedCommandCount)
    }
}
