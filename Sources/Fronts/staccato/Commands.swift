import AudioFile
import AudioIO
import CommandLineSpec
import DSP
import Engine
import Live
import Foundation
import Render

enum Commands {
    /// The program every command is of: the first word of its usage line.
    static let program = "staccato"
    static let all: [Subcommand] = [devices, tone, play, mic, sessions, render, drums, demo, info]

    /// `staccato --help`: every command by its summary.
    static let staccato = CommandLineProgram(
        name: program, about: "Staccato: a real-time audio engine for Linux.", commands: all,
        closing: "'staccato <command> --help' shows a command's options; 'staccato --version' the version.")

    static let devices = Subcommand(
        program: program, name: "devices", summary: "Lists ALSA playback and capture PCMs, and JACK's ports when a JACK server runs.",
        options: []
    ) { _ in
        let cards = DeviceList.soundCardCount()
        print(cards == 0
              ? "No sound card found (no /dev/snd). Software PCMs below still work; 'jack' needs a running JACK server (see scripts/test-audio)."
              : "\(cards) sound card\(cards == 1 ? "" : "s") found.")
        let pcms = DeviceList.pcms()
        for (title, filter) in [("Playback", { (d: DeviceDescription) in d.canPlay }), ("Capture", { $0.canCapture })] {
            print("\n\(title) PCMs:")
            let matching = pcms.filter(filter)
            if matching.isEmpty { print("  (none)") }
            let width = matching.map(\.name.count).max() ?? 0
            for device in matching {
                print("  \(device.name)" + String(repeating: " ", count: width - device.name.count + 2) + device.summary)
            }
        }
        printJACKPorts()
        return 0
    }

    /// The JACK server's ports, for `--audio jack --connect`, or why there are none to list.
    static func printJACKPorts() {
        do {
            let client = try JACKClient(name: "staccato_device_list")
            defer { client.close() }
            let ports = client.allPorts().filter { !$0.name.hasPrefix("\(client.name):") }
            print("\nJACK server '\(client.serverName)' (\(client.sampleRate) Hz, \(client.bufferFrameCount)-frame periods), ports for --audio jack:")
            let width = ports.map(\.name.count).max() ?? 0
            for port in ports {
                let role = switch (port.isMIDI, port.isInput) {
                case (false, true): "takes audio: for --connect"
                case (false, false): "gives audio: for --connect-input"
                case (true, false): "gives MIDI: for --midi-connect"
                case (true, true): "takes MIDI"
                }
                print("  \(port.name)" + String(repeating: " ", count: width - port.name.count + 2) + role)
            }
            if ports.isEmpty { print("  (none)") }
        } catch {
            print("\nJACK: \(error.message) (--audio jack plays as a JACK client)")
        }
    }

    static let tone = Subcommand(
        program: program, name: "tone", summary: "Plays a sine tone in real time through an ALSA device or as a JACK client.",
        description: "The tone starts and stops without a click; then the command prints the granted configuration, the time it took and the xrun count.",
        options: DeviceOptions.specs(device: .described("needed with --audio alsa")) + [
            OptionSpec(name: "frequency", valueName: "HZ", help: "tone frequency, from 1 Hz up to half the rate", default: .required),
            OptionSpec(name: "seconds", valueName: "S", help: "how long to play", default: .required, range: 0.001...86_400),
            OptionSpec(name: "volume", valueName: "V", help: "output volume", default: .number(0.3), range: 0...1),
        ],
        playsLive: true
    ) { options in
        let (audio, configuration) = try DeviceOptions.audioTarget(options, alsaDevice: options.values["device"])
        let frequency = try options.double("frequency", in: 1...Double(configuration.sampleRate) / 2)
        let seconds = try options.double("seconds")
        let volume = try options.double("volume")

        let engine = try DeviceOptions.engine(for: configuration, masterVolume: Float(volume))
        let stream = try audio.stream(configuration: configuration, renderer: engine.renderer)
        let frameCount = Int((seconds * Double(configuration.sampleRate)).rounded())
        engine.send(.toneOn(slot: 0, frequency: Float(frequency), amplitude: 1), at: 0)
        let fadeFrameCount = Int((ClickFreeFade.seconds * Double(configuration.sampleRate)).rounded())
        engine.send(.toneOff(slot: 0), at: FrameTime(max(0, frameCount - fadeFrameCount)))
        return try LivePlayback.play(engine, on: stream, frameLimit: frameCount)
    }

    static let demo = Subcommand(
        program: program, name: "demo", summary: "Plays Mozart's Turkish March through an ALSA device or as a JACK client, on the system's General MIDI font or the shipped piano.",
        description: "When the default device cannot play (no sound card), it says so and renders the demo to a file instead; a device named with --device must play.",
        options: DeviceOptions.specs(device: DeviceOptions.defaultDevice, periodFrameCount: 256) + [
            OptionSpec(name: "out", valueName: "FILE", help: "where to render when the default device cannot play: .wav, .flac, .ogg or .mp3",
                       default: .value("demo.wav")),
        ]
    ) { options in
        let output = try options.soundFilePath("out")
        let (audio, configuration) = try DeviceOptions.audioTarget(options, alsaDevice: try options.string("device"))
        // Only the default may fall back to a file: a device the user named and that cannot play is an error.
        let deviceIsDefault = options.values["device"] == nil && audio.backend == .alsa
        let rate = Double(configuration.sampleRate)
        let (bank, song) = try Demo.load(sampleRate: rate)
        let engine = try DeviceOptions.engine(for: configuration, masterVolume: 0.8)
        engine.install(bank)
        do {
            let stream = try audio.stream(configuration: configuration, renderer: engine.renderer)
            let session = LiveSession(engine: engine, stream: stream)
            let sequencer = session.sequencer(for: song)
            let frameCount = Int(sequencer.startFrame + sequencer.endFrame) + Int(Demo.tailSeconds * rate)
            print("playing \(Demo.songPath) with \(bank.name)")
            return try LivePlayback.run(session, frameLimit: frameCount) { $0.play(sequencer) }
        } catch let error as DeviceError where deviceIsDefault
                    && (error.code == .notFound || error.code == .noDevice || DeviceList.soundCardCount() == 0) {
            print("No playback device (\(error)); rendering the demo to \(output) instead.")
            let summary = try engine.render(song, to: output, options: MIDIRenderOptions(maximumTailSeconds: Demo.tailSeconds))
            print("wrote \(output): \(String(format: "%.3f", summary.seconds)) s at \(configuration.sampleRate) Hz, \(summary.statistics.noteOns) notes")
            return 0
        }
    }
}
