import AudioIO
import DrumKitLoader
import Engine
import Glibc
import Render

extension Commands {
    /// Computer keys for the pads, in the kit's order: the home row, then the row above.
    static let padKeys: [Character] = Array("asdfghjkl;qwertyuiop")
    /// The shipped kit: `drums` plays it, and `play` with the keyboard, unless --kit names another.
    static var shippedKitPath: String { InstrumentLoader.shippedFile("samples/drums/kit.json") }

    static let drums = Subcommand(
        name: "drums",
        summary: "Plays a drum kit from the computer keyboard, live through an ALSA device.",
        description: "One key per pad, shown on screen (a, s, d, f ... in the kit's order; capital letter = accent). q quits.",
        options: DeviceOptions.specs(device: DeviceOptions.defaultDevice) + [
            OptionSpec(name: "kit", valueName: "KIT.json", help: "kit manifest",
                       default: .described("the shipped kit", value: { shippedKitPath })),
            OptionSpec(name: "seconds", valueName: "S", help: "stop after S seconds",
                       default: .described("when q is pressed or input ends", value: { "86400" }), range: 0.01...86_400),
        ],
        playsLive: true
    ) { options in
        let device = try options.string("device")
        let configuration = try DeviceOptions.streamConfiguration(options)
        let seconds = try options.double("seconds")
        let manifest = try options.string("kit")
        let kit = try DrumKitLoader.load(manifest: manifest, sampleRate: Double(configuration.sampleRate))
        let engine = DeviceOptions.engine(for: configuration, masterVolume: 0.8)
        engine.install(kit)
        let stream = try PlaybackStream(device: device, configuration: configuration, renderer: engine.renderer)

        // One key per pad, in manifest order, playing the pad's own note.
        let keyed = (0..<min(kit.pads.count, padKeys.count)).map { (key: padKeys[$0], name: kit.padNames[$0], note: kit.padNotes[$0]) }
        var lit: [Int: Double] = [:]
        var inputEnd = InputEnd()
        var quit = false

        func draw() {
            let now = MonotonicClock.seconds()
            var screen = Terminal.isInteractive ? "\u{1B}[H\u{1B}[2J" : ""
            screen += "staccato drums: \(kit.name) on '\(device)' — press a key, q quits\n"
            screen += "\(stream.granted); audio thread: \(stream.realtimeScheduling)\n\n"
            for (index, pad) in keyed.enumerated() {
                let on = (lit[index] ?? 0) > now
                screen += (on ? "\u{1B}[7m" : "") + " \(pad.key)  \(pad.name) (\(pad.note)) " + (on ? "\u{1B}[0m" : "") + "\n"
            }
            if Terminal.isInteractive { Terminal.write(screen) }
        }

        Terminal.enterRawMode()
        defer { Terminal.restore() }
        draw()
        var lastDraw = 0.0
        let frameLimit = Int(seconds * Double(configuration.sampleRate))
        let code = try LivePlayback.play(engine, on: stream, frameLimit: frameLimit) {
            if quit { stream.stop(); return }
            if inputEnd.stopsAfterRingOut(stream) { return }
            guard let bytes = Terminal.pendingBytes() else {
                inputEnd.mark()
                return
            }
            var changed = false
            for byte in bytes {
                let character = Character(UnicodeScalar(byte))
                if character == "q" || byte == 27 || byte == 3 { quit = true; continue }
                let lower = Character(character.lowercased())
                guard let index = keyed.firstIndex(where: { $0.key == lower }) else { continue }
                engine.send(.noteOn(channel: 9, key: keyed[index].note, velocity: character.isUppercase ? 127 : 100))
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
