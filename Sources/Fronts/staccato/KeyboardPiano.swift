import AudioIO
import Engine
import Live
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
    /// How a note ends; the raw values are the spellings `--release` takes.
    enum ReleaseMode: String, CaseIterable {
        /// Whatever the terminal offers: release events where it speaks the kitty protocol, else hold.
        case auto
        /// Key-release events (the kitty keyboard protocol): a note lasts as long as its key is held.
        case kitty
        /// A note is released `holdSeconds` after its last press or autorepeat.
        case hold
    }

    enum Instrument: CaseIterable {
        case piano, xylophone, drums
        var name: String {
            switch self {
            case .piano: "Piano"
            case .xylophone: "Xylophone"
            case .drums: "Drums"
            }
        }
        var channel: UInt8 { self == .drums ? GeneralMIDI.percussionChannel : 0 }
        /// The GM program a melodic instrument selects on its channel; drums select a kit, not a program.
        var program: UInt8? {
            switch self {
            case .piano: GeneralMIDI.acousticGrandPianoProgram
            case .xylophone: GeneralMIDI.xylophoneProgram
            case .drums: nil
            }
        }
    }

    private let engine: Engine
    private let stream: PlaybackStream
    private let bankName: String
    /// The drum kit while it loads on another thread; nil once it is in (or if there is none).
    private var pendingKit: BackgroundResult<DrumKit>?
    private var drumPads: DrumPadLabels?
    private let instruments: [Instrument]
    /// Why the kit failed to load: the session stops and the command fails with it.
    private var kitFailure: (any Error)?
    private let releaseMode: ReleaseMode
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
    private var needsDrawing = true
    private var lastDraw = 0.0
    private var columns = TerminalSize.fallbackColumns

    /// `kit`: the drum kit for channel 10, loading on another thread, which adds the drums to the
    /// instruments Tab goes through. The piano plays before it is in; once it is, it is installed
    /// (until then the drum screen says it is loading).
    init(engine: Engine, stream: PlaybackStream, bankName: String, kit: BackgroundResult<DrumKit>?, style: NoteName.Style,
         releaseMode: ReleaseMode, holdSeconds: Double) {
        self.engine = engine
        self.stream = stream
        self.bankName = bankName
        pendingKit = kit
        instruments = kit != nil ? Instrument.allCases : [.piano, .xylophone]
        self.releaseMode = releaseMode
        self.holdSeconds = holdSeconds
        drawing = PianoDrawing(style: style)
    }

    /// Readies the terminal before the instrument loads: raw mode, so keys pressed meanwhile wait
    /// in the input (unechoed) and play once it is in, and, for `.auto`, the question whose answer
    /// `run` reads then.
    static func prepareTerminal(releaseMode: ReleaseMode) {
        Terminal.enterRawMode()
        if releaseMode == .auto && Terminal.isInteractive { Terminal.askKittyKeyboard() }
    }

    /// - Precondition: `prepareTerminal(releaseMode:)` was called.
    func run(frameLimit: Int) throws -> Int32 {
        defer { Terminal.restore() }
        var typedMeanwhile: [UInt8] = []
        switch releaseMode {
        case .kitty: usesReleaseEvents = true
        case .hold: usesReleaseEvents = false
        case .auto:
            if Terminal.isInteractive {
                let answer = Terminal.kittyKeyboardAnswer()
                usesReleaseEvents = answer.supported
                typedMeanwhile = answer.typed
            }
        }
        if usesReleaseEvents { Terminal.enableKittyKeyReleases() }
        TerminalSize.watchResizes()
        columns = TerminalSize.columns()
        engine.send(midi: .programChange(channel: Instrument.piano.channel, program: GeneralMIDI.acousticGrandPianoProgram))
        // Keys typed while the instrument loaded play now; they came before release events were
        // on, so each is held as in hold mode.
        let start = MonotonicClock.seconds()
        for event in decoder.decode(typedMeanwhile) { handle(event, at: start) }
        for key in sounding.keys { sounding[key] = start + holdSeconds }
        // No redraw after the stream ends: the summary and any error are printed below the screen.
        let code = try LivePlayback.play(engine, on: stream, frameLimit: frameLimit, wakeMicroseconds: 1_000) { tick($0) }
        releaseEverything()
        if let kitFailure { throw kitFailure }
        return code
    }

    /// Installs the drum kit once it has loaded.
    private func takeKitIfLoaded() {
        guard let kit = pendingKit, kit.isReady else { return }
        pendingKit = nil
        do {
            let loaded = try kit.value()
            engine.install(loaded)
            drumPads = DrumPadLabels(padNames: loaded.padNames, padForNote: Array(loaded.padForNote))
            needsDrawing = true
        } catch {
            kitFailure = error
            quit = true
        }
    }

    private func tick(_ session: LiveSession) {
        let now = MonotonicClock.seconds()
        takeKitIfLoaded()
        if quit { session.stop(); return }
        if TerminalSize.takeResize() {
            columns = TerminalSize.columns()
            needsDrawing = true
        }
        if session.hasInputEnded {
            // End of piped input: what was played rings out.
        } else if let bytes = Terminal.pendingBytes() {
            for event in decoder.decode(bytes) { handle(event, at: now) }
        } else {
            session.inputEnded()
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
            engine.send(midi: .controlChange(channel: instrument.channel, controller: MIDIController.sustainPedal.rawValue, value: sustain ? 127 : 0))
            needsDrawing = true
        case .tab:
            releaseEverything()
            instrument = instruments[(instruments.firstIndex(of: instrument)! + 1) % instruments.count]
            if let program = instrument.program { engine.send(midi: .programChange(channel: instrument.channel, program: program)) }
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
    static let drumBaseKey = 36

    /// The key the lowest computer key plays now.
    private var playedBaseKey: Int { instrument == .drums ? Self.drumBaseKey : baseKey }

    private func midiKey(for character: Character) -> Int? {
        guard let semitone = PianoLayout.semitones[Character(character.lowercased())] else { return nil }
        let key = playedBaseKey + semitone
        return (0...127).contains(key) ? key : nil
    }

    private func shiftOctave(by semitones: Int) {
        let shifted = baseKey + semitones
        guard shifted >= 0, shifted + PianoLayout.semitoneSpan <= 128 else { return }
        baseKey = shifted
        needsDrawing = true
    }

    private func noteOn(_ key: Int) {
        engine.send(midi: .noteOn(channel: instrument.channel, key: UInt8(key), velocity: velocity))
        needsDrawing = true
    }

    private func noteOff(_ key: Int) {
        sounding[key] = nil
        engine.send(midi: .noteOff(channel: instrument.channel, key: UInt8(key), velocity: 64))
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
        let screen = KeyboardScreen(
            instrumentName: instrument.name, bankName: bankName, device: stream.device,
            baseKey: playedBaseKey, velocity: velocity, sustain: sustain,
            usesReleaseEvents: usesReleaseEvents, holdSeconds: holdSeconds, sounding: Set(sounding.keys), drawing: drawing,
            drumPads: instrument == .drums ? drumPads : nil, drumKitLoading: instrument == .drums && pendingKit != nil)
        Terminal.write(KeyboardScreen.frame(screen.lines(columns: columns)))
    }
}

/// What the keyboard piano shows, laid out for a terminal's width. Pure: the tests draw it.
struct KeyboardScreen {
    var instrumentName: String
    var bankName: String
    var device: String
    /// The MIDI key of the drawing's first (lowest) key.
    var baseKey: Int
    var velocity: UInt8
    var sustain: Bool
    var usesReleaseEvents: Bool
    var holdSeconds: Double
    var sounding: Set<Int>
    var drawing: PianoDrawing
    /// In drum mode, the kit's pads: the keys are listed by pad name instead of drawn as a piano.
    var drumPads: DrumPadLabels?
    /// In drum mode, before the kit is in: a line says so instead of the pads.
    var drumKitLoading = false

    static let help = "lower row z..m plays the first octave, q..u the second; left/right arrows: octave, up/down: velocity, "
        + "space: sustain, Tab: instrument, `: black-key names, Backspace: all notes off, Q or Ctrl-C: quit"

    /// The screen's lines, none wider than `columns`; below `PianoDrawing.minimumColumns`, one
    /// line that says the terminal is too narrow (the keys still play).
    func lines(columns: Int) -> [String] {
        guard columns >= PianoDrawing.minimumColumns, let whiteWidth = PianoDrawing.whiteWidth(fitting: columns) else {
            return ["terminal too narrow: \(columns) columns, the piano needs \(PianoDrawing.minimumColumns)".truncated(to: max(1, columns))]
        }
        let release = usesReleaseEvents ? "key releases (kitty keyboard protocol)"
            : "no key releases from this terminal: notes last \(Int(holdSeconds * 1_000)) ms after the last press"
        let octave = drumPads == nil && !drumKitLoading ? "octave \(baseKey / 12 - 1), " : ""
        var lines = TextFitting.wrapped("staccato play: \(instrumentName) (\(bankName)) on '\(device)'", columns: columns)
        lines += TextFitting.wrapped("\(octave)velocity \(velocity), sustain \(sustain ? "on" : "off"); \(release)", columns: columns)
        lines.append("")
        let names: [String]
        if drumKitLoading {
            lines.append("loading the drum kit...")
            names = []
        } else if let drumPads {
            lines += TextFitting.lines(drumPads.entries(baseKey: baseKey, sounding: sounding), separator: "   ", columns: columns)
            var seen = Set<String>()
            names = sounding.sorted().map { drumPads.padName(forNote: $0) ?? NoteName.name(of: UInt8($0), style: drawing.style) }
                .filter { seen.insert($0).inserted }
        } else {
            lines += drawing.draw(baseKey: baseKey, sounding: sounding, whiteWidth: whiteWidth)
            names = sounding.sorted().map { NoteName.name(of: UInt8($0), style: drawing.style) }
        }
        lines.append("")
        lines += TextFitting.wrapped("sounding: \(names.isEmpty ? "-" : names.joined(separator: " "))", columns: columns)
        lines.append("")
        lines += TextFitting.wrapped(Self.help, columns: columns)
        return lines
    }

    /// The bytes that draw `lines` over the previous screen: from the top-left, each line cleared
    /// to its end, everything below cleared (no full-screen clear, so no flicker), the cursor left
    /// on the line below, where anything printed next appears.
    static func frame(_ lines: [String]) -> String {
        "\u{1B}[H" + lines.map { $0 + "\u{1B}[K" }.joined(separator: "\r\n") + "\r\n\u{1B}[J"
    }
}
