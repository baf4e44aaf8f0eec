import AudioIO

/// The options that choose an `AudioTarget`: `--audio`, and for JACK the client's name and the
/// ports it connects to. The CLI's live commands and staccato-bench's latency and round trip take
/// them; `ParsedOptions.audioTarget` reads them.
package enum AudioTargetOptions {
    package static let backendHelp = "alsa (a PCM: --device), jack (a native JACK client, also under pw-jack) or null (no device)"

    /// `--audio BACKEND`; `help` says what each backend means to the command, when that is more
    /// than where it plays.
    package static func audio(help: String = backendHelp) -> OptionSpec {
        OptionSpec(name: "audio", valueName: "BACKEND", help: help, default: .value("alsa"))
    }

    package static func jackName(default name: String) -> OptionSpec {
        OptionSpec(name: "jack-name", valueName: "NAME", help: "--audio jack: the client's name", default: .value(name))
    }

    package static func connect(default ports: String = "auto") -> OptionSpec {
        OptionSpec(name: "connect", valueName: "PORTS", help: "--audio jack: auto (the first physical playback ports), none, or PORT,PORT for out_1,out_2",
                   default: .value(ports))
    }

    package static func connectInput(default ports: String = "auto") -> OptionSpec {
        OptionSpec(name: "connect-input", valueName: "PORTS", help: "--audio jack: auto (the first physical capture ports), none, or PORT,PORT for in_1,in_2",
                   default: .value(ports))
    }

    /// The options every live command has; one that records or measures the microphone adds
    /// `connectInput`.
    package static func specs(clientName: String) -> [OptionSpec] {
        [audio(), jackName(default: clientName), connect()]
    }

    /// The options only a JACK client reads: a mistake with any other backend.
    static let jackOnly = ["jack-name", "connect", "connect-input"]
}

extension ParsedOptions {
    /// The target `--audio` chooses: the ALSA PCM `alsaDevice` (the command's `--device`, or
    /// nil when it has none to give: then `--audio alsa` needs one), a JACK client opened now
    /// (named by `--jack-name`, connected as `--connect`, `--connect-input` and `--midi-connect`
    /// say where the command has them, else as `connections` says), or the null device.
    /// - Throws: `UsageError` for a JACK option without `--audio jack` or ALSA without a device;
    ///   `DeviceError` when no JACK server runs or the client's name is taken.
    package func audioTarget(alsaDevice: String?, connections: AudioTarget.Connections = AudioTarget.Connections()) throws -> AudioTarget {
        let backend = try choice("audio", of: PlaybackStream.Backend.self)
        if backend != .jack {
            for option in AudioTargetOptions.jackOnly where values[option] != nil {
                throw UsageError(description: "--\(option) needs --audio jack")
            }
        }
        switch backend {
        case .alsa:
            guard let alsaDevice else { throw UsageError(description: "--audio alsa needs --device NAME ('staccato devices' lists them)") }
            return .alsa(device: alsaDevice)
        case .null:
            return .null()
        case .jack:
            let chosen = AudioTarget.Connections(outputs: connection("connect") ?? connections.outputs,
                                                 inputs: connection("connect-input") ?? connections.inputs,
                                                 midi: connection("midi-connect") ?? connections.midi)
            return try .jack(clientName: try string("jack-name"), connections: chosen)
        }
    }

    /// `--connect`'s kind of value: as given, else the spec's default; nil when the command has
    /// neither.
    private func connection(_ name: String) -> JACKClient.Connection? {
        (values[name] ?? specs.first { $0.name == name }?.defaultValue.text).map(JACKClient.Connection.init(parsing:))
    }
}
