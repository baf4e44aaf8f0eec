import AudioIO
import CommandLineSpec
import DrumKitLoader
import Engine
import Live
import Foundation
import Glibc
import MIDI
import Render

extension Commands {
    static let play = Subcommand(
        program: program, name: "play",
        summary: "Plays a MIDI file, a live MIDI stream, the ALSA sequencer or the computer keyboard in real time.",
        description: "A MIDI file plays with a progress line; --midi-in reads a live MIDI byte stream, --midi the ALSA sequencer; with none of these, the computer keyboard is a piano drawn with note names. With --audio jack, the client's JACK MIDI port midi_in plays too, each event at its frame; with no other source and no terminal, it is the source. Every way out (quit, Ctrl-C, SIGTERM, SIGHUP, a source or device vanishing) releases every note.",
        positionals: [PositionalSpec(name: "SONG.mid", help: "a MIDI file to play", isRequired: false)],
        options: DeviceOptions.specs(device: DeviceOptions.defaultDevice) + [
            OptionSpec(name: "soundfont", valueName: "FONT.sf2", help: "SoundFont (SF2, SF3) or SFZ instrument to play", default: .shippedSoundFont),
            OptionSpec(name: "kit", valueName: "KIT.json", help: "drum kit for channel 10",
                       default: .described("with the keyboard, the shipped kit; else none")),
            OptionSpec(name: "program", valueName: "N", help: "a MIDI file: play every melodic channel with program N", range: 0...127),
            OptionSpec(name: "midi-in", valueName: "PATH", help: "read MIDI bytes from a raw MIDI device (hw:1,0,0), a file, a FIFO or - (stdin)"),
            OptionSpec(name: "midi", help: "play from the ALSA sequencer (a port named Staccato)"),
            OptionSpec(name: "midi-connect", valueName: "PORT", help: "with --midi: the sequencer source to subscribe to (CLIENT:PORT); with --audio jack: the JACK MIDI ports to connect to midi_in (PORT,PORT, or none)",
                       default: .described("every hardware input")),
            OptionSpec(name: "names", valueName: "STYLE", help: "keyboard: note names as letters (C D E) or solfege (Do Re Mi)", default: .value("letters")),
            OptionSpec(name: "release", valueName: "MODE", help: "keyboard: kitty (key-release events), hold (release after --hold) or auto", default: .value("auto")),
            OptionSpec(name: "hold", valueName: "MS", help: "keyboard without release events: how long a note sounds", default: .number(300), range: 50...5_000),
            OptionSpec(name: "volume", valueName: "V", help: "master volume", default: .number(1), range: 0...1),
            OptionSpec(name: "seconds", valueName: "S", help: "stop after S seconds", range: 0.01...86_400),
            OptionSpec(name: "sample-cache", valueName: "MB",
                       help: "sample memory a SoundFont may keep: every sample's first half second stays, the rest comes from the file as notes play it, the least recently played dropped first",
                       default: .number(Synth.defaultSampleCacheBytes >> 20), range: 16...1_048_576),
        ] + DeviceOptions.songSpecs + [DeviceOptions.liveThreads],
        exclusiveGroups: [["midi-in", "midi"]],
        playsLive: true
    ) { options in
        guard options.positionals.count <= 1 else {
            throw UsageError(description: "one MIDI file at a time, got \(options.positionals.count)")
        }
        let sources = [options.positionals.first != nil, options.values["midi-in"] != nil, options.has("midi")].filter { $0 }.count
        guard sources <= 1 else { throw UsageError(description: "play one source at a time: a MIDI file, --midi-in or --midi") }
        let (audio, configuration) = try DeviceOptions.audioTarget(options, alsaDevice: try options.string("device"))
        if options.values["midi-connect"] != nil && !options.has("midi") && audio.backend != .jack {
            throw UsageError(description: "--midi-connect needs --midi or --audio jack")
        }
        let rate = Double(configuration.sampleRate)
        let volume = try options.double("volume")
        let seconds = try options.values["seconds"].map { _ in try options.double("seconds") }
        let program = try options.values["program"].map { _ in UInt8(try options.integer("program")) }
        let names = try options.choice("names", of: NoteName.Style.self)
        let release = try options.choice("release", of: KeyboardPiano.ReleaseMode.self)
        let holdSeconds = Double(try options.integer("hold")) / 1_000

        let song = try options.positionals.first.map { try SongSetup.readSong(path: $0) }
        let midiInput = try options.values["midi-in"].map { try MIDIByteSource(path: $0) }
        let sequencer = options.has("midi") ? try SequencerInput(clientName: "Staccato", connectTo: options.values["midi-connect"]) : nil
        // With JACK, midi_in always plays; with nothing else to play and no terminal for the
        // keyboard, it is what plays.
        let jackMIDIOnly = audio.backend == .jack && song == nil && midiInput == nil && sequencer == nil && !Terminal.isInteractive
        let keyboard = song == nil && midiInput == nil && sequencer == nil && !jackMIDIOnly
        if keyboard && !Terminal.isInteractive && !Terminal.inputIsAStream {
            throw CommandFailure("nothing to play: no MIDI file, no --midi-in or --midi, and no keys for the keyboard (standard input is neither a terminal nor a pipe)")
        }

        // The device first, before anything is loaded: a missing device is said at once, and a
        // JACK client's ports exist before a sequencer starts sending to them.
        let engine = try DeviceOptions.engine(for: configuration, masterVolume: Float(volume), songOptions: options)
        let stream: PlaybackStream
        do {
            stream = try audio.stream(configuration: configuration, renderer: engine.renderer, midiInput: audio.backend == .jack)
        } catch let error as DeviceError where error.code == .notFound && song != nil {
            throw CommandFailure("\(error.description); --audio null plays without a sound card, and 'staccato render \(options.positionals[0]) --out FILE.wav' writes the song to a file")
        }
        defer { engine.releaseAllNotes() }
        let frameLimit = seconds.map { Int($0 * rate) } ?? Int.max
        // Live input plays from the moment the device runs (silence until the instrument is in):
        // a JACK client is active, and takes connections, before a large font's first heads are.
        if song == nil { try LivePlayback.start(stream, frameLimit: frameLimit) }
        // Keys pressed while the instrument loads wait in the terminal, unechoed, and play once it is in.
        if keyboard { KeyboardPiano.prepareTerminal(releaseMode: release) }

        // Then the instrument: what the first notes need is decoded before anything plays, the
        // rest in the background while it plays (a song: what it plays, in the order it plays it;
        // live: the whole instrument, the piano and the drum kit first).
        let kitGiven = options.values["kit"] != nil || keyboard
        let songSequencer = song.map { MIDISequencer($0, sampleRate: rate, program: program) }
        let first = songSequencer?.notesAtStart(seconds: Self.songStartSeconds, sampleRate: rate, kitPlaysPercussion: kitGiven)
            ?? PlayedNotes.startingPresets(kitPlaysPercussion: kitGiven, channels: 0..<1)
        // A live kit loads on another core: for MIDI input, while the instrument's heads decode
        // (both are needed before it plays); for the keyboard, after them (its piano comes first).
        let liveKitPath = song == nil ? options.values["kit"] ?? (keyboard ? shippedKitPath : nil) : nil
        let loadKitAside = { (path: String) in
            BackgroundResult { () throws -> DrumKit in try DrumKitLoader.load(manifest: path, sampleRate: rate) }
        }
        let liveKit = keyboard ? nil : liveKitPath.map(loadKitAside)
        // A song's samples are decoded once and kept (what it plays is known); a live player's
        // come and go within the cache.
        let opening = try openInstrument(path: try options.soundFontPath(), sampleRate: rate, first: first,
                                         rest: songSequencer?.playedNotes(kitPlaysPercussion: kitGiven),
                                         sampleCacheBytes: songSequencer == nil ? try options.integer("sample-cache") << 20 : nil)
        let bank = opening.bank
        defer { opening.decoding?.cancel() }
        engine.install(bank)
        if keyboard {
            // The piano plays as soon as its heads are in; the drums join when their kit does.
            return try KeyboardPiano(engine: engine, stream: stream, bankName: bank.name, kit: liveKitPath.map(loadKitAside),
                                     style: names, releaseMode: release,
                                     holdSeconds: holdSeconds).run(frameLimit: frameLimit)
        }
        let kit: DrumKit?
        if let songSequencer {
            kit = try SongSetup.drumKit(for: songSequencer, bank: bank, kitPath: options.values["kit"], sampleRate: rate)
        } else {
            kit = try liveKit?.value()
        }
        if let kit { engine.install(kit) }

        if let song {
            return try playSong(song, path: options.positionals[0], program: program, engine: engine, stream: stream, frameLimit: frameLimit)
        }
        if let midiInput {
            return try playLive(engine: engine, stream: stream, frameLimit: frameLimit, label: "MIDI from '\(midiInput.name)'") {
                let bytes = midiInput.readAvailable()
                return midiInput.isAtEnd && bytes.isEmpty ? nil : bytes
            }
        }
        if jackMIDIOnly {
            print("playing JACK MIDI from '\(stream.device):midi_in'")
            return try LivePlayback.play(engine, on: stream, frameLimit: frameLimit)
        }
        guard let sequencer else { preconditionFailure("every source is handled above") }
        return try playLive(engine: engine, stream: stream, frameLimit: frameLimit, label: "ALSA sequencer port \(sequencer.address)") {
            sequencer.readAvailable()
        }
    }

    /// Seconds of a song, from its first note, whose samples are decoded before it starts; the
    /// rest decode while it plays, far faster than it plays them.
    static let songStartSeconds = 2.0

    /// A MIDI file in real time, stamped with the same frames as `render`, a lookahead ahead
    /// (`LiveSession.play`), with a progress line.
    static func playSong(_ song: MIDIFile, path: String, program: UInt8?, engine: Engine, stream: PlaybackStream, frameLimit: Int) throws -> Int32 {
        let session = LiveSession(engine: engine, stream: stream)
        let sequencer = session.sequencer(for: song, program: program)
        print("playing \(path): \(formatTime(Double(sequencer.endFrame) / engine.sampleRate)), \(sequencer.messageCount) messages; the song starts at frame \(sequencer.startFrame)")
        LiveReport.extra["songStartFrame"] = sequencer.startFrame
        let code = try LivePlayback.run(session, frameLimit: frameLimit) { session in
            session.play(sequencer) { progress in
                StatusLine.standard.update("\(formatTime(progress.position)) / \(formatTime(progress.length))  voices \(progress.voices)  xruns \(stream.xrunCount)")
            }
        }
        StatusLine.standard.clear()
        print(limiterReport(engine.renderer.statistics, sampleRate: engine.sampleRate, gainDecibels: engine.configuration.render.songGainDecibels))
        return code
    }

    /// A live MIDI byte stream: every complete message plays at once. At the end of the stream
    /// every note is released and the sound rings out for a second.
    static func playLive(engine: Engine, stream: PlaybackStream, frameLimit: Int, label: String,
                         read: @escaping () -> [UInt8]?) throws -> Int32 {
        var parser = MIDIStreamParser()
        print("playing \(label)")
        return try LivePlayback.play(engine, on: stream, frameLimit: frameLimit, wakeMicroseconds: 1_000) { session in
            if session.hasInputEnded { return }
            guard let bytes = read() else {
                engine.releaseAllNotes()
                session.inputEnded()
                return
            }
            parser.feed(bytes) { engine.send(midi: $0) }
        }
    }

    static func formatTime(_ seconds: Double) -> String {
        let tenths = Int((seconds * 10).rounded())
        let minutes = tenths / 600, rest = tenths % 600
        return "\(minutes):" + (rest < 100 ? "0" : "") + "\(rest / 10).\(rest % 10)"
    }
}

/// A value made on another thread while this one does something else: `value()` waits for it
/// and returns it, or throws what making it threw.
/// - Thread: control.
final class BackgroundResult<Value: Sendable>: @unchecked Sendable {
    private var result: Result<Value, any Error>?
    private let done = DispatchSemaphore(value: 0)

    init(_ make: @escaping @Sendable () throws -> Value) {
        DispatchQueue.global().async { [self] in
            result = Result { try make() }
            done.signal()
        }
    }

    func value() throws -> Value {
        done.wait()
        done.signal()
        return try result!.get()
    }

    /// Whether `value()` would return at once.
    var isReady: Bool {
        guard done.wait(timeout: .now()) == .success else { return false }
        done.signal()
        return true
    }
}
