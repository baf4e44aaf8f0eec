import AudioFile
import CommandLineSpec
import Engine
import Foundation
import MIDI
import Render

extension Commands {
    static let render = Subcommand(
        program: program, name: "render",
        summary: "Renders MIDI files offline, faster than real time, through a SoundFont or a sample set.",
        description: "--out FILE renders one MIDI file. --out-dir DIR renders any number, each to DIR/NAME.FORMAT (NAME: the MIDI file's "
            + "name less its extension), --threads at once, through the instrument loaded once; each file's audio is the same, sample for "
            + "sample, as --out writes for it. Of two MIDI files with the same NAME, the later on the command line is not rendered: it "
            + "fails rather than overwrite the first. A file that fails does not stop the others; the summary names each failure with its "
            + "reason, and the exit code is 1. "
            + "Channels use the file's program changes; channel 10 plays the font's bank-128 kit if it has one.",
        positionals: [PositionalSpec(name: "SONG.mid", help: "the MIDI files to render", isRequired: true, isRepeatable: true)],
        options: [
            OptionSpec(name: "out", valueName: "FILE", help: "the output file, for one MIDI file: .wav (32-bit float), .flac, .ogg or .mp3"),
            OptionSpec(name: "out-dir", valueName: "DIR", help: "the folder each MIDI file renders into, as NAME.FORMAT (made when missing)"),
            OptionSpec(name: "format", valueName: "FORMAT", help: "what --out-dir writes: \(alternativesText(RenderOutputFormat.allCases.map(\.rawValue)))",
                       default: .value(RenderOutputFormat.wav.rawValue)),
            OptionSpec(name: "threads", valueName: "N", help: "--out-dir: files rendered at once, a thread each; --out: threads rendering the file",
                       default: .described("every core", value: { String(RenderConfiguration.everyCoreThreadCount) }),
                       range: 1...Double(RenderConfiguration.maximumThreadCount)),
            OptionSpec(name: "soundfont", valueName: "FONT.sf2", help: "SoundFont (SF2, SF3) or SFZ instrument to play", default: .shippedSoundFont),
            OptionSpec(name: "samples", valueName: "DIR", help: "a folder of recordings, or an SFZ file, to play instead of a SoundFont"),
            OptionSpec(name: "kit", valueName: "KIT.json", help: "a drum kit manifest: channel 10 plays it (e.g. samples/drums/kit.json)"),
            OptionSpec(name: "program", valueName: "N", help: "play every melodic channel with program N, ignoring the file's", range: 0...127),
            DeviceOptions.rate,
            OptionSpec(name: "voices", valueName: "N", help: "voice pool size", default: .number(RenderConfiguration().voiceCount), range: 1...Double(RenderConfiguration.maximumVoiceCount)),
            OptionSpec(name: "interpolation", valueName: "KIND", help: "cubic or linear", default: .value("cubic")),
            OptionSpec(name: "block-frames", valueName: "N", help: "frames per render call (the output is the same for every N)",
                       default: .number(MIDIRenderOptions().blockFrameCount), range: 1...Double(RenderConfiguration().maxFrameCount)),
        ] + DeviceOptions.songSpecs,
        exclusiveGroups: [["soundfont", "samples"]],
        requiredGroups: [["out", "out-dir"]]
    ) { options in
        let destination = try RenderDestination(options)
        let threadCount = try options.integer("threads")
        let rate = try options.integer("rate")
        let voices = try options.integer("voices")
        let program = try options.values["program"].map { _ in UInt8(try options.integer("program")) }
        let interpolation = try options.choice("interpolation", of: SampleInterpolation.self)
        let blockFrameCount = try options.integer("block-frames")
        var renderConfiguration = RenderConfiguration(sampleRate: Double(rate), voiceCount: voices,
                                                      cubicInterpolation: interpolation == .cubic)
        try DeviceOptions.readSongOptions(options, into: &renderConfiguration)
        let renderOptions = MIDIRenderOptions(program: program, blockFrameCount: blockFrameCount)
        let instrumentPath = options.values["samples"] == nil ? try options.soundFontPath() : try options.string("samples")
        let kitPath = options.values["kit"]
        let kits = DrumKitShelf(sampleRate: Double(rate))

        let started = Date()
        switch destination {
        case .file(let output):
            let songPath = options.positionals[0]
            // The song first: a damaged file is reported before a large font's seconds of loading.
            let song = try SongSetup.readSong(path: songPath)
            // Only the samples the song plays are decoded: the rest of a large font never leaves the disk.
            let notes = MIDISequencer(song, sampleRate: Double(rate), program: program).playedNotes(kitPlaysPercussion: kitPath != nil)
            let bank = try loadInstrument(path: instrumentPath, sampleRate: Double(rate), notes: notes)
            renderConfiguration.threadCount = threadCount
            let renderer = SongRenderer(configuration: renderConfiguration, options: renderOptions, bank: bank, kitPath: kitPath, kits: kits,
                                        warning: printWarning)
            let render = try renderer.render(song, from: songPath, to: output)
            let stats = render.summary.statistics
            print("rendered \(songPath) with \(bank.name) to \(output): "
                  + renderSpeedText(audioSeconds: render.summary.seconds, wallSeconds: render.renderSeconds,
                                    notes: ["\(String(format: "%.2f", Date().timeIntervalSince(started))) s with loading"]))
            print("notes \(stats.noteOns), peak voices \(stats.peakVoices), stolen \(stats.stolenVoices), unplayable notes \(stats.unmappedNotes)"
                  + (stats.sampleUnderruns > 0 ? ", sample underruns \(stats.sampleUnderruns)" : "")
                  + (render.playsKit ? "; drum hits \(stats.drumHits), recycled \(stats.drumRecycles), choked \(stats.drumChokes), notes no pad plays \(stats.unmappedHits)" : ""))
            print(limiterReport(stats, sampleRate: renderConfiguration.sampleRate, gainDecibels: renderConfiguration.songGainDecibels))
            if let silence = render.silence { throw silence }
            return 0

        case .folder(let folder, let format):
            let batch = BatchRender(songs: options.positionals, folder: folder, format: format)
            try BatchRender.makeFolder(folder)
            // A bad --kit fails the whole batch here, once, rather than every song in turn, and
            // before the font's seconds of loading.
            if let kitPath { _ = try kits.kit(at: kitPath) }
            // What every song plays, and nothing more, is decoded; a song that cannot be read
            // adds nothing here and fails in its turn.
            var notes = PlayedNotes()
            for path in options.positionals {
                guard let song = try? MIDIFile.read(path: path) else { continue }
                notes.formUnion(MIDISequencer(song, sampleRate: Double(rate), program: program).playedNotes(kitPlaysPercussion: kitPath != nil))
            }
            let bank = try loadInstrument(path: instrumentPath, sampleRate: Double(rate), notes: notes)
            // The files render side by side, each on one thread: that spreads the work over the
            // cores with nothing shared between threads while they render.
            renderConfiguration.threadCount = 1
            let renderer = SongRenderer(configuration: renderConfiguration, options: renderOptions, bank: bank, kitPath: kitPath, kits: kits,
                                        namesSongInWarnings: true, warning: printWarning)
            let progress = BatchProgress(songCount: batch.jobs.count, folder: folder, sampleRate: renderConfiguration.sampleRate,
                                         gainDecibels: renderConfiguration.songGainDecibels)
            let renderStarted = Date()
            let outcomes = batch.run(with: renderer, threadCount: threadCount, started: progress.started, finished: progress.finished)
            progress.summarize(outcomes, renderSeconds: Date().timeIntervalSince(renderStarted),
                               totalSeconds: Date().timeIntervalSince(started), concurrency: batch.concurrency(threadCount: threadCount))
            return outcomes.contains { if case .failed = $0 { true } else { false } } ? 1 : 0
        }
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

/// "88.00 s of audio in 1.17 s (75.0x real time; `notes`...)": how fast audio was rendered, as
/// every line that reports a render (one song's, a batch's) says it.
func renderSpeedText(audioSeconds: Double, wallSeconds: Double, notes: [String] = []) -> String {
    let factor = String(format: "%.1f", audioSeconds / max(wallSeconds, 1e-9)) + "x real time"
    return "\(String(format: "%.2f", audioSeconds)) s of audio in \(String(format: "%.2f", wallSeconds)) s ("
        + ([factor] + notes).joined(separator: "; ") + ")"
}
