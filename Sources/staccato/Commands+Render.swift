import AudioFile
import DrumKitLoader
import Engine
import Foundation
import MIDI
import Render

extension Commands {
    static let render = Subcommand(
        name: "render",
        summary: "Renders a MIDI file offline, faster than real time, through a SoundFont or a sample set.\nChannels use the file's program changes; channel 10 plays the font's bank-128 kit if it has one.",
        usage: "SONG.mid [--soundfont FONT.sf2 | --samples DIR] [--kit KIT.json] [--program N] --out OUT.wav [--rate 48000]",
        options: [
            OptionSpec(name: "soundfont", valueName: "FONT.sf2", help: "SoundFont to play (default: the shipped piano/xylophone font)"),
            OptionSpec(name: "samples", valueName: "DIR", help: "a folder of recordings to play instead of a SoundFont"),
            OptionSpec(name: "kit", valueName: "KIT.json", help: "a drum kit manifest: channel 10 plays it (e.g. samples/drums/kit.json)"),
            OptionSpec(name: "program", valueName: "N", help: "play every melodic channel with program N (0-127), ignoring the file's"),
            OptionSpec(name: "out", valueName: "FILE", help: "output file: .wav (32-bit float), .flac or .ogg"),
            OptionSpec(name: "rate", valueName: "HZ", help: "sample rate (default: 48000)"),
            OptionSpec(name: "voices", valueName: "N", help: "voice pool size, 1-4096 (default: 256)"),
            OptionSpec(name: "interpolation", valueName: "KIND", help: "cubic (default) or linear"),
        ],
        allowsPositionals: true
    ) { options in
        guard options.positionals.count == 1 else {
            throw UsageError(description: options.positionals.isEmpty ? "which MIDI file? (staccato render SONG.mid --out OUT.wav)"
                                                                      : "one MIDI file at a time, got \(options.positionals.count)")
        }
        let songPath = options.positionals[0]
        let output = try options.string("out")
        guard AudioFileFormat(path: output) != nil else {
            throw UsageError(description: "--out must end in .wav, .flac or .ogg, got '\(output)'")
        }
        let rate = try options.integer("rate", default: 48_000, in: 8_000...384_000)
        let voices = try options.integer("voices", default: 256, in: 1...4_096)
        let program = try options.values["program"].map { _ in UInt8(try options.integer("program", in: 0...127)) }
        let interpolation = try options.string("interpolation", default: "cubic")
        guard interpolation == "cubic" || interpolation == "linear" else {
            throw UsageError(description: "--interpolation must be cubic or linear, got '\(interpolation)'")
        }
        if options.values["soundfont"] != nil && options.values["samples"] != nil {
            throw UsageError(description: "--soundfont and --samples exclude each other")
        }
        let instrumentPath = try options.string("samples", default: try options.string("soundfont", default: InstrumentLoader.defaultSoundFontPath))

        let started = Date()
        let song = try SongSetup.readSong(path: songPath)
        let bank = try InstrumentLoader.load(path: instrumentPath, sampleRate: Double(rate))
        let kit = try SongSetup.drumKit(for: MIDISequencer(song, sampleRate: Double(rate), program: program), bank: bank,
                                        kitPath: options.values["kit"], sampleRate: Double(rate))
        let engine = Engine(configuration: EngineConfiguration(render: RenderConfiguration(
            sampleRate: Double(rate), voiceCount: voices, cubicInterpolation: interpolation == "cubic")))
        engine.install(bank)
        if let kit { engine.install(kit) }
        let renderStarted = Date()
        let summary = try engine.render(song, to: output, options: MIDIRenderOptions(program: program))
        let renderSeconds = Date().timeIntervalSince(renderStarted)
        let stats = summary.statistics
        print("rendered \(songPath) with \(bank.name) to \(output): \(String(format: "%.2f", summary.seconds)) s of audio in "
              + "\(String(format: "%.2f", renderSeconds)) s (\(String(format: "%.1f", summary.seconds / max(renderSeconds, 1e-9)))x real time; "
              + "\(String(format: "%.2f", Date().timeIntervalSince(started))) s with loading)")
        print("notes \(stats.noteOns), peak voices \(stats.peakVoices), stolen \(stats.stolenVoices), unplayable notes \(stats.unmappedNotes)"
              + (kit == nil ? "" : "; drum hits \(stats.drumHits), recycled \(stats.drumRecycles), choked \(stats.drumChokes), notes no pad plays \(stats.unmappedHits)"))
        // Checked on what was rendered, so any cause of silence is caught, foreseen or not.
        if summary.peak == 0 && song.noteOnCount > 0 {
            let causes = (stats.unmappedNotes > 0 ? ["\(stats.unmappedNotes) found no preset or no key range in \(bank.name)"] : [])
                + (stats.unmappedHits > 0 ? ["\(stats.unmappedHits) hit no pad of the kit"] : [])
            throw CommandFailure("\(songPath): \(song.noteOnCount) notes, but nothing sounded in \(output)"
                                 + (causes.isEmpty ? "" : " (" + causes.joined(separator: ", ") + ")"))
        }
        return 0
    }
}
