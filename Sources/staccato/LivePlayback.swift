import AudioIO
import Engine
import Foundation
import Glibc
import Render
import Synchronization

/// Set by SIGINT/SIGTERM/SIGHUP; the control loop turns it into a clean stop.
let stopSignalReceived = Atomic<Int32>(0)

/// Runs a started stream from the control thread: drains engine events, honours Ctrl-C, and
/// reports the outcome. Returns the exit code (0 played, 1 device failure, 128 + the signal's
/// number when a stop signal ended it: 130 SIGINT, 143 SIGTERM, 129 SIGHUP, as a shell reports a
/// process the signal killed).
enum LivePlayback {
    /// Installed by `main` before a live command parses or loads anything, so a signal that comes
    /// during start-up is held until the stream runs and then stops it cleanly too.
    static func installSignalHandlers() {
        _ = stopSignalReceived.load(ordering: .relaxed)  // initialise the global before any signal
        for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
            signal(signalNumber) { received in stopSignalReceived.store(received, ordering: .relaxed) }
        }
    }

    /// The exit code for a stream that `stop()` ended: a signal's, or 0 for a quit.
    static var stoppedExitCode: Int32 {
        let signalNumber = stopSignalReceived.load(ordering: .relaxed)
        return signalNumber != 0 ? 128 + signalNumber : 0
    }

    /// `feed` runs on every wake-up of the control loop (every `wakeMicroseconds`, 10 ms by
    /// default; live input wants 1 ms), to send what is due next.
    static func play(_ engine: Engine, on stream: PlaybackStream, frameLimit: Int, wakeMicroseconds: UInt32 = 10_000,
                     feed: () -> Void = {}) throws -> Int32 {
        installSignalHandlers()
        StatusLine.standard.print("playing on '\(stream.device)': \(stream.granted)")
        feed()
        try stream.start(frameLimit: frameLimit)
        StatusLine.standard.print("audio thread: \(stream.realtimeScheduling)")
        var signalStop = SignalStop()
        while !stream.isDone {
            if signalStop.stopsOnSignal(engine, stream) { usleep(1_000); continue }
            feed()
            engine.processEvents()
            usleep(wakeMicroseconds)
        }
        let outcome = stream.join()
        engine.processEvents()
        let rate = Double(stream.granted.sampleRate)
        let played = Double(stream.framesWritten) / rate
        StatusLine.standard.print("played \(stream.framesWritten) frames (\(String(format: "%.3f", played)) s of audio) in \(String(format: "%.3f", stream.elapsedSeconds)) s; xruns: \(stream.xrunCount)")
        switch outcome {
        case .finished: return 0
        case .stopped: return stoppedExitCode
        case let .failed(error):
            printError("staccato: \(error)")
            return 1
        }
    }
}

/// The end of a live input (a pipe, a FIFO, a MIDI source): what was played rings out for a
/// second, then the stream stops.
struct InputEnd {
    static var ringOutSeconds: Double { 1 }
    private var endedAt: Double?

    /// Notes the end (the first time only).
    mutating func mark() {
        if endedAt == nil { endedAt = MonotonicClock.seconds() }
    }

    /// True once the input has ended; stops `stream` when the ring-out is over.
    func stopsAfterRingOut(_ stream: PlaybackStream) -> Bool {
        guard let endedAt else { return false }
        if MonotonicClock.seconds() > endedAt + Self.ringOutSeconds { stream.stop() }
        return true
    }
}

/// A stop signal ends the stream after fading to silence, so what was playing does not end in a
/// click and no voice is left sounding in the last frames the device got: the master volume goes
/// to 0 (a parameter cell, so the 5 ms ramp starts with the next block, ahead of any command
/// still queued for a later frame: a song runs a lookahead ahead, a tone has its end queued),
/// every note is released, and the stream stops once the audio thread has rendered past the ramp
/// plus two periods of silence, or after a quarter of a second if it has stopped rendering.
struct SignalStop {
    private var fadeEndFrame: FrameTime?
    private var fadeStartedAt = 0.0

    /// True once a stop signal has come (the caller's loop then only waits for the stream's end).
    mutating func stopsOnSignal(_ engine: Engine, _ stream: PlaybackStream) -> Bool {
        guard stopSignalReceived.load(ordering: .relaxed) != 0 else { return false }
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
