import AudioIO
import CommandLineSpec
import DrumKitLoader
import Engine
import Live
import Glibc
import Render

extension Commands {
    /// Computer keys for the pads, in the kit's order: the home row, then the row above.
    static let padKeys: [Character] = Array("asdfghjkl;qwertyuiop")
    /// The shipped kit: `drums` plays it, and `play` with the keyboard, unless --kit names another.
    static var shippedKitPath: String { InstrumentLoader.shippedKitPath }

    static let drums = Subcommand(
        program: program, name: "drums",
        summary: "Plays a drum kit from the computer keyboard, live through an ALSA device or as a JACK client.",
        description: "One key per pad, shown on screen (a, s, d, f ... in the kit's order; capital letter = accent; the row above the home row plays pads 11 to 20). Esc or Ctrl-C quits.",
        options: DeviceOptions.specs(device: DeviceOptions.defaultDevice) + [
            OptionSpec(name: "kit", valueName: "KIT.json", help: "kit manifest",
                       default: .described("the shipped kit", value: { shippedKitPath })),
            OptionSpec(name: "seconds", valueName: "S", help: "stop after S seconds",
                       default: .described("when Esc is pressed or input ends", value: { "86400" }), range: 0.01...86_400),
            DeviceOptions.liveThreads,
        ],
        playsLive: true
    ) { options in
        let (audio, configuration) = try DeviceOptions.audioTarget(options, alsaDevice: try options.string("device"))
        let device = audio.device
        let seconds = try options.double("seconds")
        let manifest = try options.string("kit")
        let kit = try DrumKitLoader.load(manifest: manifest, sampleRate: Double(configuration.sampleRate))
        // A kit played by hand is no dense mix: it plays at unity gain.
        let engine = try DeviceOptions.engine(for: configuration, masterVolume: 0.8, songGainDecibels: 0, threadOptions: options)
        engine.install(kit)
        // Played by hand, at the channel's full volume: General MIDI's default (100) is a song's
        // starting point, 4 dB down, which a song moves and a player at the keys cannot.
        engine.send(midi: .controlChange(channel: GeneralMIDI.percussionChannel, controller: MIDIController.volume.rawValue, value: 127))
        let stream = try audio.stream(configuration: configuration, renderer: engine.renderer)

        // One key per pad, in manifest order, playing the pad's own note.
        let keyed = (0..<min(kit.pads.count, padKeys.count)).map { (key: padKeys[$0], name: kit.padNames[$0], note: kit.padNotes[$0]) }
        var lit: [Int: Double] = [:]
        var quit = false
        // The piano's decoder: plain bytes and the kitty protocol alike, Ctrl-C and Ctrl-D as quit.
        var decoder = KeyDecoder()

        var columns = TerminalSize.fallbackColumns
        func draw() {
            guard Terminal.isInteractive else { return }
            let now = MonotonicClock.seconds()
            let pads = keyed.enumerated().map { index, pad in
                (pad: " \(pad.key)  \(pad.name) (\(pad.note)) ", lit: (lit[index] ?? 0) > now)
            }
            Terminal.write(KeyboardScreen.frame(drumsScreen(kit: kit.name, device: device, granted: "\(stream.granted)",
                                                            scheduling: "\(stream.realtimeScheduling)", pads: pads, columns: columns)))
        }

        Terminal.enterRawMode()
        defer { Terminal.restore() }
        TerminalSize.watchResizes()
        columns = TerminalSize.columns()
        draw()
        var lastDraw = 0.0
        let frameLimit = Int(seconds * Double(configuration.sampleRate))
        let code = try LivePlayback.play(engine, on: stream, frameLimit: frameLimit) { session in
            if quit { session.stop(); return }
            if TerminalSize.takeResize() {
                columns = TerminalSize.columns()
                draw()
            }
            if session.hasInputEnded { return }
            guard let bytes = Terminal.pendingBytes() else {
                session.inputEnded()
                return
            }
            var changed = false
            // A lone Esc (no sequence after it) quits; every letter, q too, is a pad.
            if bytes == [0x1B] { quit = true }
            for event in decoder.decode(bytes) {
                guard case let .press(character) = event else {
                    if event == .quit { quit = true }
                    continue
                }
                let lower = Character(character.lowercased())
                guard let index = keyed.firstIndex(where: { $0.key == lower }) else { continue }
                engine.send(midi: .noteOn(channel: GeneralMIDI.percussionChannel, key: keyed[index].note, velocity: character.isUppercase ? 127 : 100))
                lit[index] = MonotonicClock.seconds() + 0.15
                changed = true
            }
            let now = MonotonicClock.seconds()
            if changed || now - lastDraw > 0.05 {
                draw()
                lastDraw = now
            }
        }
        let stats = engine.renderer.statistics
        print("drum hits \(stats.drumHits), recycled \(stats.drumRecycles), choked \(stats.drumChokes)")
        return code
    }
}

extension Commands {
    /// The drums screen's lines for a terminal `columns` wide: the header wrapped, one line per
    /// pad (cut if a pad's name is too long for the terminal), a lit pad in reverse video.
    static func drumsScreen(kit: String, device: String, granted: String, scheduling: String,
                            pads: [(pad: String, lit: Bool)], columns: Int) -> [String] {
        var lines = TextFitting.wrapped("staccato drums: \(kit) on '\(device)' — press a key, Esc quits", columns: columns)
        lines += TextFitting.wrapped("\(granted); audio thread: \(scheduling)", columns: columns)
        lines.append("")
        for (pad, lit) in pads {
            let text = pad.truncated(to: columns)
            lines.append(lit ? "\u{1B}[7m\(text)\u{1B}[0m" : text)
        }
        return lines
    }
}
