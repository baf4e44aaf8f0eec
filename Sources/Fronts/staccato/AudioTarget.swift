import AudioIO
import Render

/// Where a live command's audio goes, as `--audio` says: an ALSA PCM (`--device`), a native JACK
/// client (`--jack-name`, `--connect`), or the null device. With JACK, the client is opened first,
/// so that the server's rate and buffer size set up the engine before anything is loaded.
struct AudioTarget {
    let backend: PlaybackStream.Backend
    /// The stream request: `--rate`, `--period`, `--periods`, or the JACK server's own.
    let configuration: StreamConfiguration
    /// ALSA: the playback PCM; JACK: the client's name; null: `null`.
    let device: String
    let jack: JACKClient?
    let connect: JACKClient.Connection
    let connectInputs: JACKClient.Connection
    let connectMIDI: JACKClient.Connection

    static let audio = OptionSpec(name: "audio", valueName: "BACKEND", help: "alsa (a PCM: --device), jack (a native JACK client, also under pw-jack) or null (no device)",
                                  default: .value("alsa"))
    static let jackName = OptionSpec(name: "jack-name", valueName: "NAME", help: "--audio jack: the client's name", default: .value("staccato"))
    static let connectOutputs = OptionSpec(name: "connect", valueName: "PORTS", help: "--audio jack: auto (the first physical playback ports), none, or PORT,PORT for out_1,out_2",
                                           default: .value("auto"))
    static let connectInput = OptionSpec(name: "connect-input", valueName: "PORTS", help: "--audio jack: auto (the first physical capture ports), none, or PORT,PORT for in_1,in_2",
                                         default: .value("auto"))
    /// The options every live command has; `mic` adds `connectInput`.
    static let specs = [audio, jackName, connectOutputs]

    /// Reads the options; opens the JACK client for `--audio jack`. `device` is the ALSA PCM the
    /// command names (nil when it has none to give: then `--audio alsa` needs `--device`).
    /// - Throws: `UsageError`, or `DeviceError` when no JACK server runs or the name is taken.
    init(_ options: ParsedOptions, alsaDevice device: String?) throws {
        let requested = try DeviceOptions.streamConfiguration(options)
        backend = try options.choice("audio", of: PlaybackStream.Backend.self)
        connect = JACKClient.Connection(parsing: options.values["connect"] ?? "auto")
        connectInputs = JACKClient.Connection(parsing: options.values["connect-input"] ?? "auto")
        connectMIDI = JACKClient.Connection(parsing: options.values["midi-connect"] ?? "auto")
        if backend != .jack {
            for jackOnly in ["jack-name", "connect", "connect-input"] where options.values[jackOnly] != nil {
                throw UsageError(description: "--\(jackOnly) needs --audio jack")
            }
        }
        switch backend {
        case .alsa:
            guard let device else { throw UsageError(description: "--audio alsa needs --device NAME ('staccato devices' lists them)") }
            self.device = device
            configuration = requested
            jack = nil
        case .null:
            self.device = "null"
            configuration = requested
            jack = nil
        case .jack:
            let client = try JACKClient(name: try options.string("jack-name"))
            var granted = requested
            granted.sampleRate = client.sampleRate
            granted.periodFrameCount = client.bufferFrameCount
            // The server's clock is the stream's: a rate or period asked for that it does not run
            // at is a note, not an error (change the server's with jack_bufsize, or restart it).
            var differing: [String] = []
            if options.values["rate"] != nil, requested.sampleRate != client.sampleRate { differing.append("--rate \(requested.sampleRate)") }
            if options.values["period"] != nil, requested.periodFrameCount != client.bufferFrameCount { differing.append("--period \(requested.periodFrameCount)") }
            if !differing.isEmpty {
                printError("staccato: note: JACK server '\(client.serverName)' runs at \(client.sampleRate) Hz with \(client.bufferFrameCount)-frame periods; \(differing.joined(separator: " and ")) \(differing.count == 1 ? "does" : "do") not apply")
            }
            self.device = client.name
            configuration = granted
            jack = client
        }
    }

    /// The stream on this target for `renderer`: with capture (`captureDevice` for ALSA; two
    /// input ports for JACK) and a MIDI input port (JACK) when asked.
    func stream(renderer: Renderer, captureDevice: String? = nil, capture: Bool = false, midiInput: Bool = false) throws -> PlaybackStream {
        switch backend {
        case .alsa:
            return try PlaybackStream(device: device, configuration: configuration, renderer: renderer, captureDevice: captureDevice)
        case .null:
            return try PlaybackStream(null: PlaybackStream.NullOptions(inputChannelCount: capture ? 2 : 0),
                                      configuration: configuration, renderer: renderer)
        case .jack:
            return try PlaybackStream(jack: jack!, configuration: configuration, renderer: renderer,
                                      inputChannelCount: capture ? 2 : 0, midiInput: midiInput,
                                      connect: connect, connectInputs: connectInputs, connectMIDI: connectMIDI)
        }
    }
}
