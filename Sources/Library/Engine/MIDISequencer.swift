import DSP
import MIDI
import Render

/// Feeds a MIDI file's messages to an engine, each stamped with its exact frame, a little ahead of
/// the audio thread: the same code drives offline renders (ahead by one block, to the end of the
/// quantum it reaches) and real-time playback (ahead by `liveLookahead`).
/// - Thread: control.
public final class MIDISequencer {
    let messages: [(frame: FrameTime, message: MIDIMessage)]
    private var next = 0
    /// The frame the song ends at, relative to the start: its last event of any kind, the
    /// end-of-track included, not just its last message. The Standard MIDI File spec has each track
    /// close with an end-of-track "so that an exact ending point may be specified", and a song may
    /// end in silence after its last note; FluidSynth's player, too, plays on to the last track's
    /// end. (It then adds two seconds, for reverb tails, after every voice has ended; a render here
    /// stops when the last voice ends.)
    /// - Thread: control
    public let endFrame: FrameTime
    /// Where on the engine's timeline the song starts.
    /// - Thread: control.
    public let startFrame: FrameTime

    /// - Parameters:
    ///   - program: plays every melodic channel with this program, ignoring the file's program changes.
    ///   - startFrame: the engine frame at which the song's time zero falls.
    /// - Thread: control.
    public init(_ file: MIDIFile, sampleRate: Double, program: UInt8? = nil, startFrame: FrameTime = 0) {
        var messages = file.timedMessages().map { (frame: FrameTime(max(0, ($0.seconds * sampleRate).rounded())), message: $0.message) }
        if let program {
            messages.removeAll { if case let .programChange(channel, _) = $0.message { channel != GeneralMIDI.percussionChannel } else { false } }
            let forced = (UInt8(0)..<UInt8(MIDILimits.channelCount)).filter { $0 != GeneralMIDI.percussionChannel }.map { (frame: FrameTime(0), message: MIDIMessage.programChange(channel: $0, program: program)) }
            messages = forced + messages
        }
        self.messages = messages
        let lastMessageFrame = messages.last?.frame ?? 0
        endFrame = max(lastMessageFrame, FrameTime(max(0, (file.duration * sampleRate).rounded())))
        self.startFrame = startFrame
    }

    /// Where a song played live starts, and how far ahead of the audio thread its messages are
    /// sent: a tenth of a second (wake-ups of the control thread keep up with that) plus the
    /// device's buffer, rounded up onto the renderer's grid (`RenderQuantum`), so that the song's
    /// quanta fall where an offline render's do and the two renders are the same, frame for frame.
    /// - Thread: any.
    public static func liveLookahead(sampleRate: Double, bufferFrameCount: Int) -> FrameTime {
        RenderQuantum.boundary(atOrAfter: FrameTime(0.1 * sampleRate) + FrameTime(bufferFrameCount))
    }

    /// The frame past which a song's tail is cut: `maximumTailSeconds` after its end, on the grid.
    /// - Thread: control.
    public func tailLimit(maximumTailSeconds: Double, sampleRate: Double) -> FrameTime {
        RenderQuantum.boundary(atOrAfter: startFrame + endFrame + FrameTime(maximumTailSeconds * sampleRate))
    }

    /// True once the song is over at `frame`, offline and live alike: every message sent, past the
    /// song's end, and either fallen silent (`RenderStatistics.hasFallenSilent`, asked only then)
    /// or at `tailLimit`.
    /// - Thread: control.
    public func isOver(at frame: FrameTime, tailLimit: FrameTime, fallenSilent: @autoclosure () -> Bool) -> Bool {
        isFinished && frame > startFrame + endFrame && (frame >= tailLimit || fallenSilent())
    }

    /// Messages in the song.
    /// - Thread: control.
    public var messageCount: Int { messages.count }
    /// True once every message has been sent.
    /// - Thread: control.
    public var isFinished: Bool { next >= messages.count }
    /// Every message for an engine frame before this has been sent (`FrameTime.max` once all have):
    /// what a render may declare queued (`Renderer.declareCommandsQueued(before:)`).
    /// - Thread: control.
    public var sentUntil: FrameTime { next < messages.count ? startFrame + messages[next].frame : .max }

    /// Sends every message due before `frame` (engine time) for which the command ring has room;
    /// the rest wait for the next call, so a full ring delays messages but never counts them as
    /// refused.
    /// - Thread: control.
    public func send(dueBefore frame: FrameTime, to engine: Engine) {
        var room = engine.freeCommandSlots()
        while next < messages.count, startFrame + messages[next].frame < frame, room > 0 {
            engine.send(midi: messages[next].message, at: startFrame + messages[next].frame)
            next += 1
            room -= 1
        }
    }
}
