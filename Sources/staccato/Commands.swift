import AudioFile
import AudioIO
import DSP
import Engine
import Foundation
import Render

enum Commands {
    static let all: [Subcommand] = [devices, tone, play, mic, render, drums, demo]

    static let devices = Subcommand(
        name: "devices", summary: "Lists ALSA playback and capture PCMs, and says when there is no sound card.",
        usage: "", options: []
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
        return 0
    }

    static let tone = Subcommand(
        name: "tone", summary: "Plays a sine tone in real time, with a click-free start and stop, then prints the granted\nconfiguration, the time it took and the xrun count.",
        usage: "--device NAME --frequency HZ --seconds S [--rate 48000] [--period 64] [--periods 3] [--volume 0.3]",
        options: DeviceOptions.specs(defaultDevice: "required") + [
            OptionSpec(name: "frequency", valueName: "HZ", help: "tone frequency, 1 Hz up to half the rate"),
            OptionSpec(name: "seconds", valueName: "S", help: "how long to play, up to 86400"),
            OptionSpec(name: "volume", valueName: "V", help: "output volume 0-1 (default: 0.3)"),
        ],
        playsLive: true
    ) { options in
        let device = try options.string("device")
        let configuration = try DeviceOptions.streamConfiguration(options)
        let frequency = try options.double("frequency", in: 1...Double(configuration.sampleRate) / 2)
        let seconds = try options.double("seconds", in: 0.001...86_400)
        let volume = try options.double("volume", default: 0.3, in: 0...1)

        let engine = DeviceOptions.engine(for: configuration, masterVolume: Float(volume))
        let stream = try PlaybackStream(device: device, configuration: configuration, renderer: engine.renderer)
        let frameCount = Int((seconds * Double(configuration.sampleRate)).rounded())
        engine.send(.toneOn(slot: 0, frequency: Float(frequency), amplitude: 1), at: 0)
        let fadeFrameCount = Int((Renderer.toneFadeSeconds * Double(configuration.sampleRate)).rounded())
        engine.send(.toneOff(slot: 0), at: FrameTime(max(0, frameCount - fadeFrameCount)))
        return try LivePlayback.play(engine, on: stream, frameLimit: frameCount)
    }

    static let demo = Subcommand(
        name: "demo", summary: "Plays Mozart's Turkish March on the shipped piano through an ALSA device. When there is no\nplayback device it says so and renders the demo to a file instead.",
        usage: "[--device default] [--out demo.wav]",
        options: DeviceOptions.specs(defaultDevice: "default") + [
            OptionSpec(name: "out", valueName: "FILE", help: "where to render when no device plays (default: demo.wav)"),
        ]
    ) { options in
        let device = try options.string("device", default: "default")
        var configuration = try DeviceOptions.streamConfiguration(options)
        if options.values["period"] == nil { configuration.periodFrameCount = 256 }
        let output = try options.string("out", default: "demo.wav")
        let rate = Double(configuration.sampleRate)
        let (bank, song) = try Demo.load(sampleRate: rate)
        let engine = DeviceOptions.engine(for: configuration, masterVolume: 0.8)
        engine.install(bank)
        do {
            let stream = try PlaybackStream(device: device, configuration: configuration, renderer: engine.renderer)
            // Stay a tenth of a second (plus the device buffer) ahead of the audio thread.
            let lookahead = FrameTime(0.1 * rate) + FrameTime(stream.granted.bufferFrameCount)
            let sequencer = MIDISequencer(song, sampleRate: rate, startFrame: lookahead)
            let frameCount = Int(lookahead + sequencer.lastEventFrame) + Int(Demo.tailSeconds * rate)
            print("playing \(Demo.songPath) on the shipped piano")
            return try LivePlayback.play(engine, on: stream, frameLimit: frameCount) {
                sequencer.send(dueBefore: engine.renderedFrameTime + lookahead, to: engine)
            }
        } catch let error as DeviceError where error.code == .notFound || error.code == .noDevice || DeviceList.soundCardCount() == 0 {
            print("No playback device (\(error)); rendering the demo to \(output) instead.")
            let summary = try engine.render(song, to: output, options: MIDIRenderOptions(blockFrameCount: 256, maximumTailSeconds: Demo.tailSeconds))
            print("wrote \(output): \(String(format: "%.3f", summary.seconds)) s at \(configuration.sampleRate) Hz, \(summary.statistics.noteOns) notes")
            return 0
        }
    }
}
