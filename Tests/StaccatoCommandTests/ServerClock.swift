import CJack
import Foundation
import TestSupport
import XCTest

/// The pace of the devices' JACK server clock against the wall clock, read from a client of the
/// test's own (never activated: it only reads the server's frame time).
///
/// The dummy driver sleeps out each cycle from the moment it woke, so a host that steals its time
/// makes it fall behind the wall clock for good: a CI host ran it at 0.6-0.8 of real time. A test
/// that asserts real-time pacing compares what a command played with the frames the server
/// counted over the same wall time, not with the wall time alone.
final class ServerClock {
    private let client: OpaquePointer

    /// Opens a client on `server` (the devices' server by default); fails the test when it cannot.
    init(server: String = TestDevices.serverName) throws {
        staccato_jack_silence_messages()
        var status = jack_status_t(rawValue: 0)
        guard let client = staccato_jack_client_open("stc_clock_\(getpid() % 10_000)", JackNoStartServer, &status, server) else {
            XCTFail("no JACK client on server '\(server)' to read its clock (status \(status.rawValue))")
            throw XCTSkip("no server clock")
        }
        self.client = client
    }

    deinit { jack_client_close(client) }

    /// The server's frame count and the wall clock's seconds at one moment.
    struct Reading {
        var frame: UInt32
        var seconds: Double
    }

    func reading() -> Reading { Reading(frame: jack_frame_time(client), seconds: Date().timeIntervalSinceReferenceDate) }

    /// Frames the server counted from `start` to `end` per frame of wall time at its rate (1 for a
    /// server that kept real time).
    static func pace(from start: Reading, to end: Reading, rate: Int = 48_000) -> Double {
        Double(end.frame &- start.frame) / (Double(rate) * max(1e-6, end.seconds - start.seconds))
    }

    /// Runs `body` and returns its value with the server's pace over it.
    func measuringPace<T>(_ body: () throws -> T) rethrows -> (value: T, pace: Double) {
        let start = reading()
        let value = try body()
        return (value, Self.pace(from: start, to: reading()))
    }
}
