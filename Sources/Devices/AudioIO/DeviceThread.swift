import DeviceCore
import Glibc
import Render
import Synchronization

/// The device thread of a backend that drives its own clock (ALSA, null): a pthread that asks for
/// real-time scheduling and runs the backend's loop. This is the real-time boundary of the device
/// layer: the thread starts here, each backend's `runDeviceThread` is its whole life, and between
/// its C calls it runs only `StreamCore` (DeviceCore, proved real-time). JACK's thread is the
/// server's; its process callback, `JACKCycle`, lives in DeviceCore itself.
///
/// The control thread reads here what it may know of the thread (its scheduling, whether it has
/// ended, when). What the loop writes before it returns (failure fields, records) is visible to
/// whoever has seen `isDone`.
/// - Thread: control. For every member; the loop runs on the thread.
final class DeviceThread: @unchecked Sendable {
    private let done = Atomic<Bool>(false)
    private let schedulingKnown = Atomic<Bool>(false)
    // Written by the thread before `done` is stored (release); read after it (acquire).
    private var scheduling = RealtimeScheduling.notRequested
    private var endTime = 0.0
    private var thread: pthread_t?

    /// A thread's body and the object it keeps alive.
    private final class Context {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Starts the thread: it tries for SCHED_FIFO at `priority` (0: not at all), then runs `loop`.
    /// Returns once the scheduling it got is known.
    /// - Throws: `DeviceError` naming `device` when the system cannot start a thread.
    /// - Thread: control. Once.
    func start(for device: String, priority: Int32, _ loop: @escaping () -> Void) throws(DeviceError) {
        precondition(thread == nil, "a stream starts once")
        let body = { [self] in
            scheduling = .promoteCurrentThread(priority: priority)
            schedulingKnown.store(true, ordering: .releasing)
            loop()
            endTime = MonotonicClock.seconds()
            done.store(true, ordering: .releasing)
        }
        var newThread = pthread_t()
        let context = Unmanaged.passRetained(Context(body)).toOpaque()
        let result = pthread_create(&newThread, nil, { context in
            Unmanaged<Context>.fromOpaque(context!).takeRetainedValue().body()
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<Context>.fromOpaque(context).release()
            throw DeviceError(device: device, message: "cannot start the audio thread: \(String(cString: strerror(result)))")
        }
        thread = newThread
        while !schedulingKnown.load(ordering: .acquiring) { usleep(200) }
    }

    /// The scheduling the thread got (`.notRequested` before it started).
    var realtimeScheduling: RealtimeScheduling { schedulingKnown.load(ordering: .acquiring) ? scheduling : .notRequested }
    /// True once the loop has returned.
    var isDone: Bool { done.load(ordering: .acquiring) }
    /// When the loop returned, on `MonotonicClock` (seconds); nil while it runs.
    var endSeconds: Double? { isDone ? endTime : nil }

    /// Waits for the thread to end (returns at once when it never started).
    func join() {
        if let thread {
            pthread_join(thread, nil)
            self.thread = nil
        }
    }
}
