import AudioIO
import Foundation
import Glibc

/// Runs a measurement the way the device thread runs: on its own thread at SCHED_FIFO priority 70
/// (when allowed), woken once a period by an absolute-time sleep. Timed on a normal thread, a
/// p99.9 on a shared machine measures the neighbours' time slices, not the render.
final class RealtimeThread: @unchecked Sendable {
    private let body: (RealtimeThread) -> Void
    private let finished = DispatchSemaphore(value: 0)
    private var nextWakeup = timespec()
    private let periodNanoseconds: Int
    private(set) var scheduling = RealtimeScheduling.notRequested

    /// Runs `body` on the new thread and returns when it has: the caller's objects are the
    /// thread's alone meanwhile.
    static func run(periodNanoseconds: Int, _ body: @escaping (RealtimeThread) -> Void) -> RealtimeScheduling {
        let thread = RealtimeThread(periodNanoseconds: periodNanoseconds, body: body)
        Thread { thread.main() }.start()
        thread.finished.wait()
        return thread.scheduling
    }

    private init(periodNanoseconds: Int, body: @escaping (RealtimeThread) -> Void) {
        self.periodNanoseconds = periodNanoseconds
        self.body = body
    }

    private func main() {
        scheduling = RealtimeScheduling.promoteCurrentThread(priority: 70)
        clock_gettime(CLOCK_MONOTONIC, &nextWakeup)
        body(self)
        finished.signal()
    }

    /// Sleeps until the next period starts; after a period that overran, the next starts now
    /// rather than at once after it, as a device that skipped ahead would. Returns how late the
    /// thread woke (or, after an overrun, how late it already was), in nanoseconds.
    @discardableResult
    func waitForNextPeriod() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let nanoseconds = nextWakeup.tv_nsec + periodNanoseconds
        nextWakeup.tv_sec += nanoseconds / 1_000_000_000
        nextWakeup.tv_nsec = nanoseconds % 1_000_000_000
        if (now.tv_sec, now.tv_nsec) > (nextWakeup.tv_sec, nextWakeup.tv_nsec) {
            let late = now.nanoseconds - nextWakeup.nanoseconds
            nextWakeup = now
            return late
        }
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &nextWakeup, nil) == EINTR {}
        clock_gettime(CLOCK_MONOTONIC, &now)
        return now.nanoseconds - nextWakeup.nanoseconds
    }
}

extension timespec {
    /// The time as one count of nanoseconds.
    var nanoseconds: Int { tv_sec * 1_000_000_000 + tv_nsec }
}
