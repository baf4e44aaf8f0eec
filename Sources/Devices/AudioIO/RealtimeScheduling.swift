import Glibc

/// Whether the calling thread got real-time scheduling, and why not when it didn't.
public enum RealtimeScheduling: Sendable, Equatable, CustomStringConvertible {
    case fifo(priority: Int32)
    case refused(errno: Int32)
    case notRequested
    /// A JACK client's process thread is the server's: this server runs it without real-time.
    case serverNotRealtime

    /// Asks for SCHED_FIFO at `priority` for the calling thread (`pthread_setschedparam`).
    /// - Thread: audio. The thread to promote: call it first thing on the device thread.
    public static func promoteCurrentThread(priority: Int32) -> RealtimeScheduling {
        guard priority > 0 else { return .notRequested }
        var parameters = sched_param()
        parameters.sched_priority = priority
        let result = pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters)
        return result == 0 ? .fifo(priority: priority) : .refused(errno: result)
    }

    /// - Thread: any.
    public var description: String {
        switch self {
        case let .fifo(priority): "SCHED_FIFO priority \(priority)"
        case let .refused(code):
            "normal scheduling (SCHED_FIFO refused: \(String(cString: strerror(code)))"
                + (code == EPERM ? "; run as root or raise 'ulimit -r')" : ")")
        case .notRequested: "normal scheduling (real-time not requested)"
        case .serverNotRealtime: "normal scheduling (the JACK server runs without real-time: start it with -R)"
        }
    }
}
