import AudioIO
import Engine
import Foundation
import Glibc
import Synchronization

/// Set by SIGINT/SIGTERM/SIGHUP; the control loop turns it into a clean stop.
let stopSignalReceived = Atomic<Int32>(0)

/// Runs a started stream from the control thread: drains engine events, honours Ctrl-C, and
/// reports the outcome. Returns the exit code (0 played, 1 device failure, 130 interrupted).
enum LivePlayback {
    static func installSignalHandlers() {
        _ = stopSignalReceived.load(ordering: .relaxed)  // initialise the global before any signal
        for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
            signal(signalNumber) { received in stopSignalReceived.store(received, ordering: .relaxed) }
        }
    }

    /// `feed` runs on every wake-up of the control loop (every `wakeMicroseconds`, 10 ms by
    /// default; live input wants 1 ms), to send what is due next.
    static func play(_ engine: Engine, on stream: PlaybackStream, frameLimit: Int, wakeMicroseconds: UInt32 = 10_000,
                     feed: () -> Void = {}) throws -> Int32 {
        installSignalHandlers()
        print("playing on '\(stream.device)': \(stream.granted)")
        feed()
        try stream.start(frameLimit: frameLimit)
        print("audio thread: \(stream.realtimeScheduling)")
        while !stream.isDone {
            if stopSignalReceived.load(ordering: .relaxed) != 0 { stream.stop() }
            feed()
            engine.processEvents()
            usleep(wakeMicroseconds)
        }
        let outcome = stream.join()
        engine.processEvents()
        let rate = Double(stream.granted.sampleRate)
        let played = Double(stream.framesWritten) / rate
        print("played \(stream.framesWritten) frames (\(String(format: "%.3f", played)) s of audio) in \(String(format: "%.3f", stream.elapsedSeconds)) s; xruns: \(stream.xrunCount)")
        switch outcome {
        case .finished: return 0
        case .stopped: return stopSignalReceived.load(ordering: .relaxed) != 0 ? 130 : 0
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
