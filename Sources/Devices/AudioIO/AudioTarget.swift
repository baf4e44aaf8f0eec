import Render

/// Where a live stream plays: an ALSA PCM, a native JACK client (JACK, or PipeWire's JACK library
/// under `pw-jack`), or the null device. The CLI's live commands and staccato-bench's latency and
/// round-trip measurements choose it alike and open their streams on it, so the three backends are
/// told apart in one place.
///
/// With JACK the client opens with the target: the server's rate and period are known, and the
/// client's name is held, before anything is loaded at them. A stream closes its client when it
/// ends, so the first stream runs on the client opened here and each later one (staccato-bench
/// opens one a setting) on a new client of the same name.
///
/// - Thread: control. For every member.
public final class AudioTarget {
    /// The ports a JACK client's ports are connected to when its stream starts.
    public struct Connections: Sendable, Equatable {
        /// Where `out_1`, `out_2`... go.
        public var outputs: JACKClient.Connection
        /// What `in_1`, `in_2`... take, for a stream with capture.
        public var inputs: JACKClient.Connection
        /// What plays into `midi_in`, for a stream with a MIDI input.
        public var midi: JACKClient.Connection

        /// - Thread: any.
        public init(outputs: JACKClient.Connection = .automatic, inputs: JACKClient.Connection = .automatic,
                    midi: JACKClient.Connection = .automatic) {
            self.outputs = outputs
            self.inputs = inputs
            self.midi = midi
        }
    }

    /// The JACK server a target's client joined, as it ran then.
    public struct JACKServer: Sendable, Equatable {
        public let name: String
        public let sampleRate: Int
        public let periodFrameCount: Int
    }

    public let backend: PlaybackStream.Backend
    /// ALSA: the playback PCM; JACK: the client's name, as the server granted it; null: `null`.
    public let device: String
    /// JACK: the server the client joined; nil for ALSA and null.
    public let jackServer: JACKServer?
    public let connections: Connections
    /// JACK: the client opened with the target, until a stream takes it.
    private var unclaimedClient: JACKClient?

    private init(backend: PlaybackStream.Backend, device: String, jackServer: JACKServer? = nil,
                 connections: Connections = Connections(), client: JACKClient? = nil) {
        self.backend = backend
        self.device = device
        self.jackServer = jackServer
        self.connections = connections
        unclaimedClient = client
    }

    /// An ALSA PCM (a card, `default`, a PipeWire or JACK plugin), opened by each stream.
    /// - Thread: control.
    public static func alsa(device: String) -> AudioTarget {
        AudioTarget(backend: .alsa, device: device)
    }

    /// No device: each stream keeps time on a clock of its own (`PlaybackStream.NullOptions`).
    /// - Thread: control.
    public static func null() -> AudioTarget {
        AudioTarget(backend: .null, device: "null")
    }

    /// A native client of the running JACK server, named `clientName`, opened now.
    /// - Throws: `DeviceError` in one line: no server running, the name taken, the server refusing.
    /// - Thread: control. Not real-time safe: allocates.
    public static func jack(clientName: String, connections: Connections = Connections()) throws(DeviceError) -> AudioTarget {
        let client = try JACKClient(name: clientName)
        let server = JACKServer(name: client.serverName, sampleRate: client.sampleRate, periodFrameCount: client.bufferFrameCount)
        return AudioTarget(backend: .jack, device: client.name, jackServer: server, connections: connections, client: client)
    }

    /// `requested` as a stream on this target runs it: on JACK at the server's rate and period (the
    /// server's clock is the stream's), else as asked.
    /// - Thread: control.
    public func configuration(for requested: StreamConfiguration) -> StreamConfiguration {
        guard let jackServer else { return requested }
        var granted = requested
        granted.sampleRate = jackServer.sampleRate
        granted.periodFrameCount = jackServer.periodFrameCount
        return granted
    }

    /// A stream on this target for `renderer`, at `configuration`. Capture: from `captureDevice` on
    /// ALSA; when `capture`, two input ports on JACK and two channels of silence on null. With
    /// `midiInput`, a JACK stream has a MIDI input port, `midi_in`.
    /// - Throws: `DeviceError` in one line naming the device, the server or the client.
    /// - Thread: control. Not real-time safe: allocates.
    public func stream(configuration: StreamConfiguration, renderer: Renderer, captureDevice: String? = nil,
                       capture: Bool = false, midiInput: Bool = false) throws(DeviceError) -> PlaybackStream {
        switch backend {
        case .alsa:
            return try PlaybackStream(device: device, configuration: configuration, renderer: renderer, captureDevice: captureDevice)
        case .null:
            return try PlaybackStream(null: PlaybackStream.NullOptions(inputChannelCount: capture ? 2 : 0),
                                      configuration: configuration, renderer: renderer)
        case .jack:
            let client: JACKClient
            if let unclaimedClient {
                client = unclaimedClient
                self.unclaimedClient = nil
            } else {
                client = try JACKClient(name: device)
            }
            return try PlaybackStream(jack: client, configuration: configuration, renderer: renderer,
                                      inputChannelCount: capture ? 2 : 0, midiInput: midiInput,
                                      connect: connections.outputs, connectInputs: connections.inputs, connectMIDI: connections.midi)
        }
    }
}
