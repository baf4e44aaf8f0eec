import AudioIO
import Engine
import Glibc
import MIDI
import Render

/// `staccato play` with no MIDI source: the computer keyboard as a piano in the terminal.
///
/// Terminals report key presses only. Where the terminal speaks the kitty keyboard protocol (we
/// ask it: `CSI ? u`), presses, repeats and releases arrive as events and a note lasts as long as
/// its key is held. Elsewhere a note is released `holdSeconds` after its last press or autorepeat
/// (a held key autorepeats, which keeps its note sounding). The mode in use is shown on screen.
final class KeyboardPiano {
    enum Instrument: CaseIterable {
        case piano, xylophone, drums
        var name: String {
            switch self {
            case .piano: "Piano"
            case .xylophone: "Xylophone"
            case .drums: "Drums"
            }
        }
        var channel: UInt8 { self == .drums ? 9 : 0 }
    }

    private let engine: Engine
    private let stream: PlaybackStream
    private let bankName: String
    private let instruments: [Instrument]
    private let releaseMode: String
    private let holdSeconds: Double
    private var drawing: PianoDrawing
    private var baseKey = 48  // C3: the two rows span C3 to G5
    private var velocity: UInt8 = 100
    private var sustain = false
    private var instrument = Instrument.piano
    private var usesReleaseEvents = false
    /// Sounding notes: MIDI key → when to release it (hold mode), or infinity (release events).
    private var sounding: [Int: Double] = [:]
    private var decoder = KeyDecoder()
    private var quit = false
    private var inputEnd = InputEnd()
    private var needsDrawing = true
    private var lastDraw = 0.0

    init(engine: Engine, stream: PlaybackStream, bankName: String, hasKit: Bool, style: NoteNames.NoteNameStyle,
         releaseMode: String, holdSeconds: Double) {
        self.engine = engine
        self.stream = stream
        self.bankName = bankName
        instruments = hasKit ? Instrument.allCases : [.piano, .xylophone]
        self.releaseMode = releaseMode
        self.holdSeconds = holdSeconds
        drawing = PianoDrawing(style: style)
    }

    func run(frameLimit: Int) throws -> Int32 {
        Terminal.enterRawMode()
        defer { Terminal.restore() }
        usesReleaseEvents = releaseMode == "kitty" || (releaseMode == "auto" && Terminal.isInteractive && Terminal.supportsKittyKeyboard())
        if usesReleaseEvents { Terminal.enableKittyKeyReleases() }
        engine.send(.programChange(channel: 0, program: 0))
        let code = try LivePlayback.play(engine, on: stream, frameLimit: frameLimit, wakeMicroseconds: 1_000) { tick() }
        releaseEverything()
        draw()
        return code
    }

    private func tick() {
        let now = MonotonicClock.seconds()
        if quit { stream.stop(); return }
        if inputEnd.stopsAfterRingOut(stream) {
            // End of piped input: what was played rings out.
        } else if let bytes = Terminal.pendingBytes() {
            for event in decoder.decode(bytes) { handle(event, at: now) }
        } else {
            inputEnd.mark()
        }
        for (key, deadline) in sounding where deadline <= now { noteOff(key) }
        if needsDrawing || now - lastDraw > 0.25 { draw() }
    }

    private func handle(_ event: KeyEvent, at now: Double) {
        switch event {
        case let .press(character), let .repeated(character):
            if character == "Q" {
                quit = true
            } else if let key = midiKey(for: character) {
                if sounding[key] == nil || !isRepeat(event) { noteOn(key) }
                sounding[key] = usesReleaseEvents ? .infinity : now + holdSeconds
            }
        case let .release(character):
            if let key = midiKey(for: character) { noteOff(key) }
        case .arrowLeft: shiftOctave(by: -12)
        case .arrowRight: shiftOctave(by: 12)
        case .arrowUp: velocity = UInt8(min(127, Int(velocity) + 10)); needsDrawing = true
        case .arrowDown: velocity = UInt8(max(10, Int(velocity) - 10)); needsDrawing = true
        case .space:
            sustain.toggle()
            engine.send(.controlChange(channel: instrument.channel, controller: MIDIController.sustainPedal.rawValue, value: sustain ? 127 : 0))
            needsDrawing = true
        case .tab:
            releaseEverything()
            instrument = instruments[(instruments.firstIndex(of: instrument)! + 1) % instruments.count]
            if instrument != .drums { engine.send(.programChange(channel: 0, program: instrument == .xylophone ? 13 : 0)) }
            needsDrawing = true
        case .backtick:
            drawing.showBlackNames.toggle()
            needsDrawing = true
        case .backspace:
            releaseEverything()  // the panic key
        case .quit:
            quit = true
        }
    }

    private func isRepeat(_ event: KeyEvent) -> Bool {
        if case .repeated = event { return true }
        return !usesReleaseEvents  // without release events, a press of a sounding key is autorepeat
    }

    /// Drums play the General MIDI map from its kick (C2, 36) up, whatever the octave.
    private func midiKey(for character: Character) -> Int? {
        guard let semitone = PianoLayout.semitones[Character(character.lowercased())] else { return nil }
        let key = (instrument == .drums ? 36 : baseKey) + semitone
        return (0...127).contains(key) ? key : nil
    }

    private func shiftOctave(by semitones: Int) {
        let shifted = baseKey + semitones
        guard shifted >= 0, shifted + PianoLayout.semitoneSpan <= 128 else { return }
        baseKey = shifted
        needsDrawing = true
    }

    private func noteOn(_ key: Int) {
        engine.send(.noteOn(channel: instrument.channel, key: UInt8(key), velocity: velocity))
        needsDrawing = true
    }

    private func noteOff(_ key: Int) {
        sounding[key] = nil
        engine.send(.noteOff(channel: instrument.channel, key: UInt8(key)))
        needsDrawing = true
    }

    private func releaseEverything() {
        sounding.removeAll()
        sustain = false
        engine.releaseAllNotes()
        needsDrawing = true
    }

    private func draw() {
        needsDrawing = false
        lastDraw = MonotonicClock.seconds()
        guard Terminal.isInteractive else { return }
        let release = usesReleaseEvents ? "key releases (kitty keyboard protocol)"
            : "no key releases from this terminal: notes last \(Int(holdSeconds * 1_000)) ms after the last press"
        let names = sounding.keys.sorted().map { NoteNames.name(of: UInt8($0), style: drawing.style) }
        let displayBase = instrument == .drums ? 36 : baseKey
        var screen = "\u{1B}[H\u{1B}[2J"
        screen += "staccato play: \(instrument.name) (\(bankName)) on '\(stream.device)'\r\n"
        screen += "octave \(displayBase / 12 - 1), velocity \(velocity), sustain \(sustain ? "on" : "off"); \(release)\r\n\r\n"
        screen += drawing.draw(baseKey: displayBase, sounding: Set(sounding.keys)).replacingOccurrences(of: "\n", with: "\r\n")
        screen += "\r\n\r\nsounding: \(names.isEmpty ? "-" : names.joined(separator: " "))\r\n\r\n"
        screen += "lower row z..m plays the first octave, q..u the second; left/right arrows: octave, up/down: velocity,\r\n"
        screen += "space: sustain, Tab: instrument, `: black-key names, Backspace: all notes off, Q or Ctrl-C: quit\r\n"
        Terminal.write(screen)
    }
}
