import AudioFile
import DrumKitLoader
import Engine
import Foundation
import MIDI
import Render

extension Commands {
    static let render = Subcommand(
        name: "render",
        summary: "Renders a MIDI file offline, faster than real time, through a SoundFont or a sample set.",
        description: "Channels use the file's program changes; channel 10 plays the font's bank-128 kit if it has one.",
        positionals: [PositionalSpec(name: "SONG.mid", help: "the MIDI file to render", isRequired: true)],
        options: [
            OptionSpec(name: "soundfont", valueName: "FONT.sf2", help: "SoundFont to play", default: .shippedSoundFont),
            OptionSpec(name: "samples", valueName: "DIR", help: "a folder of recordings to play instead of a SoundFont"),
            OptionSpec(name: "kit", valueName: "KIT.json", help: "a drum kit manifest: channel 10 plays it (e.g. samples/drums/kit.json)"),
            OptionSpec(name: "program", valueName: "N", help: "play every melodic channel with program N, ignoring the file's", range: 0...127),
            OptionSpec(name: "out", valueName: "FILE", help: "output file: .wav (32-bit float), .flac, .ogg or .mp3", default: .required),
            DeviceOptions.rate,
            OptionSpec(name: "voices", valueName: "N", help: "voice pool size", default: .number(RenderConfiguration().voiceCount), range: 1...4_096),
            OptionSpec(name: "interpolation", valueName: "KIND", help: "cubic or linear", default: .value("cubic")),
            OptionSpec(name: "block-frames", valueName: "N", help: "frames per render call (the output is the same for every N)",
                       default: .number(MIDIRenderOptions().blockFrameCount), range: 1...Double(RenderConfiguration().maxFrameCount)),
        ] + DeviceOptions.songSpecs,
        exclusiveGroups: [["soundfont", "samples"]]
    ) { options in
        guard options.positionals.count == 1 else {
            throw UsageError(description: options.positionals.isEmpty ? "which MIDI file? (staccato render SONG.mid --out OUT.wav)"
                                                                      : "one MIDI file at a time, got \(options.positionals.count)")
        }
        let songPath = options.positionals[0]
        let output = try options.soundFilePath("out")
        let rate = try options.integer("rate")
        let voices = try options.integer("voices")
        let program = try options.values["program"].map { _ in UInt8(try options.integer("program")) }
        let interpolation = try options.choice("interpolation", of: SampleInterpolation.self)
        let blockFrameCount = try options.integer("block-frames")
        var renderConfiguration = RenderConfiguration(sampleRate: Double(rate), voiceCount: voices,
                                                      cubicInterpolation: interpolation == .cubic)
        try DeviceOptions.readSongOptions(options, into: &renderConfiguration)
        let instrumentPath = options.values["samples"] == nil ? try options.soundFontPath() : try options.string("samples")

        let started = Date()
        let song = try SongSetup.readSong(path: songPath)
        let bank = try loadInstrument(path: instrumentPath, sampleRate: Double(rate))
        let kit = try SongSetup.drumKit(for: MIDISequencer(song, sampleRate: Double(rate), program: program), bank: bank,
                                        kitPath: options.values["kit"], sampleRate: Double(rate))
        let engine = Engine(configuration: EngineConfiguration(render: renderConfiguration))
        engine.install(bank)
        if let kit { engine.install(kit) }
        let renderStarted = Date()
        let summary = try engine.render(song, to: output, options: MIDIRenderOptions(program: program, blockFrameCount: blockFrameCount))
        let renderSeconds = Date().timeIntervalSince(renderStarted)
        let stats = summary.statistics
        print("rendered \(songPath) with \(bank.name) to \(output): \(String(format: "%.2f", summary.seconds)) s of audio in "
              + "\(String(format: "%.2f", renderSeconds)) s (\(String(format: "%.1f", summary.seconds / max(renderSeconds, 1e-9)))x real time; "
              + "\(String(format: "%.2f", Date().timeIntervalSince(started))) s with loading)")
        print("notes \(stats.noteOns), peak voices \(stats.peakVoices), stolen \(stats.stolenVoices), unplayable notes \(stats.unmappedNotes)"
              + (kit == nil ? "" : "; drum hits \(stats.drumHits), recycled \(stats.drumRecycles), choked \(stats.drumChokes), notes no pad plays \(stats.unmappedHits)"))
        print(limiterReport(stats, sampleRate: Double(rate), gainDecibels: renderConfiguration.songGainDecibels))
        // Checked on what was rendered, so any cause of silence is caught, foreseen or not.
        if summary.peak == 0 && song.noteOnCount > 0 {
            let causes = (stats.unmappedNotes > 0 ? ["\(stats.unmappedNotes) found no preset or no key range in \(bank.name)"] : [])
                + (stats.unmappedHits > 0 ? ["\(stats.unmappedHits) hit no pad of the kit"] : [])
            let notes = song.noteOnCount == 1 ? "1 note" : "\(song.noteOnCount) notes"
            throw CommandFailure("\(songPath): \(notes), but nothing sounded in \(output)"
                                 + (causes.isEmpty ? "" : " (" + causes.joined(separator: ", ") + ")"))
        }
        return 0
    }
}

/// How `render --interpolation` reads between a sample's frames; the raw values are its spellings.
enum SampleInterpolation: String, CaseIterable {
    /// Four-point cubic, the default.
    case cubic
    /// Two-point linear, to save time.
    case linear
}

/// One line on what the output's safety limiter did: nothing, or how much of the render it turned
/// down and by how much, with what to do about it.
func limiterReport(_ statistics: RenderStatistics, sampleRate: Double, gainDecibels: Float) -> String {
    guard statistics.limitedFrames > 0 else { return "limiter: never engaged" }
    let seconds = Double(statistics.limitedFrames) / sampleRate
    let suggestion = Double(gainDecibels - statistics.deepestLimiterDecibels - 1).rounded(.down)
    return "limiter: turned \(String(format: "%.2f", seconds)) s down, by up to \(String(format: "%.1f", statistics.deepestLimiterDecibels)) dB"
        + " (--gain \(suggestion.plainText) would keep the song clear of it)"
}
