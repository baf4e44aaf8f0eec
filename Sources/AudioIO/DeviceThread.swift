import Glibc

/// The device thread of a backend that drives its own clock (ALSA, null): a pthread running one
/// body, which holds what it runs on for as long as it runs.
/// - Thread: control.
enum DeviceThread {
    /// A thread's body and the object it keeps alive.
    private final class Context {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Starts a thread running `body`.
    /// - Throws: `DeviceError` naming `device` when the system cannot start a thread.
    /// - Thread: control.
    static func start(for device: String, _ body: @escaping () -> Void) throws(DeviceError) -> pthread_t {
        var thread = pthread_t()
        let context = Unmanaged.passRetained(Context(body)).toOpaque()
        let result = pthread_create(&thread, nil, { context in
            Unmanaged<Context>.fromOpaque(context!).takeRetainedValue().body()
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<Context>.fromOpaque(context).release()
            throw DeviceError(device: device, message: "cannot start the audio thread: \(String(cString: strerror(result)))")
        }
        return thread
    }
}
