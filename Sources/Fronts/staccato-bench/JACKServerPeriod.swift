import AudioIO
import Glibc

/// The running JACK server's period, which latency and round trip set before each setting they
/// measure on it (`jack_set_buffer_size`) and put back at the end, through a client of their own
/// that plays nothing.
final class JACKServerPeriod {
    private let control: JACKClient
    private let original: Int

    /// - Throws: `DeviceError` when no JACK server runs.
    init() throws(DeviceError) {
        control = try JACKClient(name: "staccato_bench_control")
        original = control.bufferFrameCount
    }

    /// Sets the server's period for the next setting.
    func set(_ periodFrameCount: Int) throws(DeviceError) {
        guard control.bufferFrameCount != periodFrameCount else { return }
        try control.setBufferFrameCount(periodFrameCount)
        // The server announces the change to every client before it takes effect; give it a few cycles.
        usleep(100_000)
    }

    /// Puts the server's period back as it was, and leaves the server.
    func restore() {
        try? control.setBufferFrameCount(original)
        control.close()
    }
}
