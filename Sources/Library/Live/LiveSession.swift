import AudioIO
import Engine
import Glibc
import MIDI
import Render
import Synchronization

/// The stop signal received (SIGINT, SIGTERM or SIGHUP), 0 before one; set by the handlers
/// `LiveSession.installStopSignalHandlers` installs.
let receivedStopSignal = Atomic<Int32>(0)

/// One live run of an engine on a started device stream, from the first wake-up of the control
/// loop to its outcome: what every live command (`play`, `drums`, `mic`, `demo`) shares, so that
/// they stop, drain, join and report alike.
///
/// - The control loop wakes every `wakeMicroseconds`, runs the caller's work (sending what is due,
///   reading input), and drains the engine's events.
/// - A stop signal fades the output to silence before the stream stops (`SignalFade`), so what was
///   playing ends without a click and no voice is left sounding in the device's last frames.
/// - An input that ends (a pipe, a FIFO, a MIDI source) rings out for a second, then stops.
/// - A song plays a lookahead ahead on the renderer's grid and ends as an offline render does.
///
/// The session prints nothing: the caller reports `Outcome` and the stream's counters.
public final class LiveSession {
    /// How a session ended.
    public enum Outcome: Sendable, Equatable {
        /// The stream played its frame limit, or the song ended, and drained.
        case finished
        /// `stop()` ended it (a quit key, the end of an input), or a stop signal did (its number).
        case stopped(signal: Int32?)
        /// The device failed.
        case failed(DeviceError)

        /// The command's exit code: 0 played or quit, 1 device failure, 128 + the signal's number
        /// when a signal stopped it (130 SIGINT, 143 SIGTERM, 129 SIGHUP), as a shell reports a
        /// process the signal killed.
        /// - Thread: any.
        public var exitCode: Int32 {
            switch self {
            case .finished, .stopped(signal: nil): 0
            case let .stopped(signal: signalNumber?): 128 + signalNumber
            case .failed: 1
            }
        }
    }

    /// - Thread: control.
    public let engine: Engine
    /// - Thread: control.
    public let stream: PlaybackStream
    let wakeMicroseconds: UInt32
    private var fade = SignalFade()
    private var inputEndedAt: Double?

    /// How long what was played rings out after an input ends.
    /// - Thread: any.
    public static var ringOutSeconds: Double { 1 }

    /// - Parameter wakeMicroseconds: how often the control loop wakes: 10 ms by default; live
    ///   input wants 1 ms.
    /// - Thread: control.
    public init(engine: Engine, stream: PlaybackStream, wakeMicroseconds: UInt32 = 10_000) {
        self.engine = engine
        self.stream = stream
        self.wakeMicroseconds = wakeMicroseconds
    }

    /// Installs the stop-signal handlers: called before a live command parses or loads anything,
    /// so a signal that comes during start-up is held until the stream runs and then stops it
    /// cleanly too.
    /// - Thread: control.
    public static func installStopSignalHandlers() {
        _ = receivedStopSignal.load(ordering: .relaxed)  // initialise the global before any signal
        for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
            signal(signalNumber) { received in receivedStopSignal.store(received, ordering: .relaxed) }
        }
    }

    /// The stop signal received so far, if any.
    /// - Thread: any.
    public static var stopSignal: Int32? {
        let signalNumber = receivedStopSignal.load(ordering: .relaxed)
        return signalNumber != 0 ? signalNumber : nil
    }

    /// Ends the session at the control loop's next wake-up, without a fade (the caller has released
    /// or faded what it wants to).
    /// - Thread: control.
    public func stop() { stream.stop() }

    /// Notes that the session's input has ended: what was played rings out for `ringOutSeconds`,
    /// then the session stops. Later calls change nothing.
    /// - Thread: control.
    public func inputEnded() {
        if inputEndedAt == nil { inputEndedAt = MonotonicClock.seconds() }
    }

    /// True once `inputEnded()` has been called.
    /// - Thread: control.
    public var hasInputEnded: Bool { inputEndedAt != nil }

    /// Runs the control loop until the stream ends: each wake-up runs `wake` (unless a stop signal
    /// is fading the output out), drains the engine's events, and sleeps. Then joins the stream.
    /// The stream must have been started.
    /// - Thread: control.
    public func run(_ wake: (LiveSession) -> Void = { _ in }) -> Outcome {
        while !stream.isDone {
            if fade.stopsOnSignal(engine, stream) { usleep(1_000); continue }
            if let inputEndedAt, MonotonicClock.seconds() > inputEndedAt + Self.ringOutSeconds { stream.stop() }
            wake(self)
            engine.processEvents()
            usleep(wakeMicroseconds)
        }
        let outcome = stream.join()
        engine.processEvents()
        switch outcome {
        case .finished: return .finished
        case .stopped: return .stopped(signal: Self.stopSignal)
        case let .failed(error): return .failed(error)
        }
    }

    /// Where a song stands, for a progress line.
    public struct SongProgress: Sendable {
        /// Seconds of the song played, and its length.
        public var position: Double, length: Double
        /// Sampler and drum voices sounding.
        public var voices: Int
    }

    /// When a song played live has ended, past its last message.
    public enum SongEnd: Sendable {
        /// Every voice has ended and the output, effects tails included, has fallen below the
        /// tail floor (`RenderStatistics.hasFallenSilent`), as an offline render ends.
        case silence
        /// Every voice has ended: for a session whose output also carries a live microphone,
        /// which never falls silent (the effects' tails ring on under it).
        case voices
    }

    /// Plays `song` in real time, stamped with the same frames as an offline render and
    /// `MIDISequencer.liveLookahead` ahead, so the recording is the render's, frame for frame. The
    /// session ends as a render does: every message sent, past the song's end, and `ending` met
    /// (by default every voice ended and the effects' tails died away), or at the tail's limit.
    /// `progress` is called about five times a second, `alongside` at every wake-up, for what else
    /// the front end does while the song plays (a microphone's controls and meters).
    /// `sequencer` comes from `sequencer(for:program:)`, and the stream must have been started.
    /// - Thread: control.
    public func play(_ sequencer: MIDISequencer, ending: SongEnd = .silence, progress: (SongProgress) -> Void = { _ in },
                     alongside: (LiveSession) -> Void = { _ in }) -> Outcome {
        let engine = self.engine
        let rate = engine.sampleRate
        let tailLimit = sequencer.tailLimit(maximumTailSeconds: MIDIRenderOptions().maximumTailSeconds, sampleRate: rate)
        let length = Double(sequencer.endFrame) / rate
        var lastProgress = 0.0
        return run { session in
            let now = engine.renderedFrameTime
            session.cue(sequencer)
            let statistics = engine.renderer.statistics
            // Asked only past the song's end: reading the peaks resets them, which a front end's
            // meter (`ending: .voices`) reads instead.
            let fallenSilent = {
                switch ending {
                case .silence: statistics.hasFallenSilent(outputPeak: engine.renderer.takePeaks().output)
                case .voices: statistics.activeVoices == 0 && statistics.activeDrumVoices == 0
                }
            }
            if sequencer.isOver(at: now, tailLimit: tailLimit, fallenSilent: fallenSilent()) {
                session.stop()
            }
            let clock = MonotonicClock.seconds()
            if clock - lastProgress > 0.2 {
                lastProgress = clock
                let position = max(0, Double(now) - Double(sequencer.startFrame)) / rate
                progress(SongProgress(position: min(position, length), length: length,
                                      voices: statistics.activeVoices + statistics.activeDrumVoices))
            }
            alongside(session)
        }
    }

    /// How far ahead of the audio thread a song's messages are sent: `MIDISequencer.liveLookahead`
    /// for this stream's buffer.
    /// - Thread: control.
    public var lookahead: FrameTime {
        MIDISequencer.liveLookahead(sampleRate: engine.sampleRate, bufferFrameCount: stream.granted.bufferFrameCount)
    }

    /// Sends what `sequencer` plays up to a lookahead past the frame the engine has rendered to:
    /// what `play` does at every wake-up, and what a front end does once before the stream starts,
    /// so that a song's first notes are queued however late the first wake-up comes.
    /// - Thread: control.
    public func cue(_ sequencer: MIDISequencer) {
        sequencer.send(dueBefore: engine.renderedFrameTime + lookahead, to: engine)
    }

    /// A sequencer for `song` that starts a lookahead after the frame the engine has rendered to,
    /// on the renderer's grid: where `play` expects it.
    /// - Thread: control.
    public func sequencer(for song: MIDIFile, program: UInt8? = nil) -> MIDISequencer {
        MIDISequencer(song, sampleRate: engine.sampleRate, program: program,
                      startFrame: RenderQuantum.boundary(atOrAfter: engine.renderedFrameTime) + lookahead)
    }
}

/// A stop signal ends the stream after fading to silence: the master volume goes to 0 (a
/// parameter cell, so the 5 ms ramp starts with the next block, ahead of any command still queued
/// for a later frame: a song runs a lookahead ahead, a tone has its end queued), every note is
/// released, and the stream stops once the audio thread has rendered past the ramp plus two
/// periods of silence, or after a quarter of a second if it has stopped rendering.
struct SignalFade {
    private var fadeEndFrame: FrameTime?
    private var fadeStartedAt = 0.0

    /// True once a stop signal has come (the caller's loop then only waits for the stream's end).
    mutating func stopsOnSignal(_ engine: Engine, _ stream: PlaybackStream) -> Bool {
        guard LiveSession.stopSignal != nil else { return false }
        if let fadeEndFrame {
            if engine.renderedFrameTime >= fadeEndFrame || MonotonicClock.seconds() - fadeStartedAt > 0.25 { stream.stop() }
            engine.processEvents()
            return true
        }
        engine.masterVolume.set(0)
        engine.releaseAllNotes()
        // The block being rendered may have read the volume already: the next one ramps.
        let period = FrameTime(stream.granted.periodFrameCount)
        fadeEndFrame = engine.renderedFrameTime + period + FrameTime(ClickFreeFade.seconds * engine.sampleRate) + 2 * period
        fadeStartedAt = MonotonicClock.seconds()
        return true
    }
}
