import AudioIO
import Engine
import Foundation
import Glibc
import Live
import Render

/// Runs a live command's session on its stream and prints what the user sees: the granted
/// configuration, the audio thread's scheduling, what was played and any failure. The session
/// itself (`LiveSession`, module Live) drains events, honours stop signals and ends; this only
/// prints and turns its outcome into the exit code.
enum LivePlayback {
    /// `feed` runs once before the stream starts and then on every wake-up of the control loop
    /// (every `wakeMicroseconds`, 10 ms by default; live input wants 1 ms), to send what is due next.
    static func play(_ engine: Engine, on stream: PlaybackStream, frameLimit: Int, wakeMicroseconds: UInt32 = 10_000,
                     feed: (LiveSession) -> Void = { _ in }) throws -> Int32 {
        let session = LiveSession(engine: engine, stream: stream, wakeMicroseconds: wakeMicroseconds)
        feed(session)
        return try run(session, frameLimit: frameLimit) { $0.run(feed) }
    }

    /// What plays where, before the stream starts: the device (or JACK client) and what it granted.
    static func playingLine(_ stream: PlaybackStream) -> String {
        switch stream.backend {
        case .alsa: "playing on '\(stream.device)': \(stream.granted)"
        case .jack: "playing as JACK client '\(stream.device)': \(stream.granted)"
        case .null: "playing on the null device (no output): \(stream.granted)"
        }
    }

    /// Starts `stream` and says what plays where: what a command that loads while it plays calls
    /// first (a JACK client is then active, and its ports take connections, before the load).
    static func start(_ stream: PlaybackStream, frameLimit: Int) throws {
        StatusLine.standard.print(playingLine(stream))
        try stream.start(frameLimit: frameLimit)
        for line in stream.details { StatusLine.standard.print(line) }
        StatusLine.standard.print(DeviceOptions.schedulingLine(stream))
    }

    /// Starts the session's stream (unless `start` has), runs `body` (which runs the session) and reports.
    static func run(_ session: LiveSession, frameLimit: Int, _ body: (LiveSession) -> LiveSession.Outcome) throws -> Int32 {
        let stream = session.stream
        if !stream.isStarted { try start(stream, frameLimit: frameLimit) }
        let outcome = body(session)
        let played = Double(stream.framesWritten) / Double(stream.granted.sampleRate)
        let underruns = session.engine.renderer.statistics.sampleUnderruns
        StatusLine.standard.print("played \(stream.framesWritten) frames (\(String(format: "%.3f", played)) s of audio) in \(String(format: "%.3f", stream.elapsedSeconds)) s; xruns: \(stream.xrunCount)"
                                  + (underruns > 0 ? "; sample underruns: \(underruns) (notes came before their samples were decoded)" : ""))
        if case let .failed(error) = outcome { printError("staccato: \(error)") }
        LiveReport.write(session, outcome: outcome, exitCode: outcome.exitCode)
        return outcome.exitCode
    }
}
