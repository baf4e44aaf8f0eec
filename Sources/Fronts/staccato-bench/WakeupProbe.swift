import Foundation
import Synchronization

/// What the machine itself allows, measured beside the engine in the same run: a bare thread at the
/// device thread's priority (SCHED_FIFO 70), doing nothing but waking once a period on an absolute
/// timer, like `cyclictest`. A wake-up later than the buffer's slack would have been an xrun for any
/// program, so the engine's xruns read against these: on a virtual machine whose host takes the CPU
/// away for milliseconds (steal time), no engine can avoid them.
final class WakeupProbe: @unchecked Sendable {
    private let periodNanoseconds: Int
    private let slackNanoseconds: Int
    private let stopRequested = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private var latenesses: [Int] = []

    struct Figures {
        var wakeups: Int
        var p99Nanoseconds: Int
        var maxNanoseconds: Int
        /// Wake-ups later than the slack: each one would have been an xrun.
        var lateBeyondSlack: Int
        var slackNanoseconds: Int
    }

    /// Starts probing at `periodNanoseconds`, counting wake-ups later than `slackNanoseconds`.
    /// `capacity` periods are recorded at most (reserved up front).
    init(periodNanoseconds: Int, slackNanoseconds: Int, capacity: Int) {
        self.periodNanoseconds = periodNanoseconds
        self.slackNanoseconds = slackNanoseconds
        latenesses.reserveCapacity(capacity)
        Thread { [self] in
            _ = RealtimeThread.run(periodNanoseconds: periodNanoseconds) { thread in
                while !self.stopRequested.load(ordering: .relaxed) && self.latenesses.count < capacity {
                    self.latenesses.append(thread.waitForNextPeriod())
                }
            }
            finished.signal()
        }.start()
    }

    /// Stops the probe and returns what it saw.
    func stop() -> Figures {
        stopRequested.store(true, ordering: .relaxed)
        finished.wait()
        let sorted = latenesses.sorted()
        return Figures(wakeups: sorted.count, p99Nanoseconds: sorted.isEmpty ? 0 : sorted.sortedQuantile(0.99),
                       maxNanoseconds: sorted.last ?? 0, lateBeyondSlack: sorted.count { $0 > slackNanoseconds },
                       slackNanoseconds: slackNanoseconds)
    }

}

extension WakeupProbe.Figures {
    var json: [String: Any] {
        ["wakeups": wakeups, "lateness_p99_us": Double(p99Nanoseconds) / 1e3, "lateness_max_us": Double(maxNanoseconds) / 1e3,
         "slack_us": Double(slackNanoseconds) / 1e3, "wakeups_later_than_slack": lateBeyondSlack]
    }
}
