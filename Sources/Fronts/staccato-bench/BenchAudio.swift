import AudioIO
import Glibc
import Render

/// Where a latency or round-trip measurement plays: an ALSA PCM, or a native JACK client of the
/// running server, whose period the benchmark sets on the server before each setting
/// (`jack_set_buffer_size`) and puts back at the end.
enum BenchAudio {
    case alsa(device: String)
    case jack(control: JACKClient, originalBufferFrameCount: Int)

    /// The server's loopback ports: the virtual cable the round trip goes through (`scripts/test-audio`).
    static let loopbackPlayback = ["loopback:playback_1", "loopback:playback_2"]
    static let loopbackCapture = ["loopback:capture_1", "loopback:capture_2"]

    static func openJACK() throws -> BenchAudio {
        let control = try JACKClient(name: "staccato_bench_control")
        return .jack(control: control, originalBufferFrameCount: control.bufferFrameCount)
    }

    var name: String {
        switch self {
        case let .alsa(device): device
        case let .jack(control, _): "JACK native client on server '\(control.serverName)'"
        }
    }

    var isJACK: Bool { if case .jack = self { true } else { false } }

    /// Sets the server's period for the next setting (JACK); nothing for ALSA, whose stream asks.
    func prepare(periodFrameCount: Int) throws {
        guard case let .jack(control, _) = self, control.bufferFrameCount != periodFrameCount else { return }
        try control.setBufferFrameCount(periodFrameCount)
        // The server announces the change to every client before it takes effect; give it a few cycles.
        usleep(100_000)
    }

    /// Puts the server's period back as it was.
    func finish() {
        guard case let .jack(control, original) = self else { return }
        try? control.setBufferFrameCount(original)
        control.close()
    }

    /// A stream for `renderer`: duplex when `duplex`, through the loopback ports for JACK when
    /// `loopback` (else the physical ports).
    func stream(_ configuration: StreamConfiguration, renderer: Renderer, duplex: Bool, loopback: Bool) throws -> PlaybackStream {
        switch self {
        case let .alsa(device):
            return try PlaybackStream(device: device, configuration: configuration, renderer: renderer, captureDevice: duplex ? device : nil)
        case .jack:
            let client = try JACKClient(name: "staccato_bench")
            return try PlaybackStream(jack: client, configuration: configuration, renderer: renderer,
                                      inputChannelCount: duplex ? 2 : 0,
                                      connect: loopback ? .ports(Self.loopbackPlayback) : .automatic,
                                      connectInputs: loopback ? .ports(Self.loopbackCapture) : .automatic)
        }
    }
}
