import AudioIO
import Engine
import Render

/// One `staccato` subcommand: its arguments, its help text and what it does. The usage line, the
/// options table and the markdown reference are all generated from `positionals` and `options`.
struct Subcommand: Sendable {
    let name: String
    /// One sentence: the command's line in `staccato --help`.
    let summary: String
    /// The rest of the story, for the command's own `--help`.
    var description: String = ""
    var positionals: [PositionalSpec] = []
    let options: [OptionSpec]
    /// Options of which at most one may be given: `[--soundfont FONT.sf2 | --samples DIR]`.
    var exclusiveGroups: [[String]] = []
    /// Options of which exactly one must be given: `(--out FILE | --out-dir DIR)`. Each member is
    /// optional on its own (its table row says what it does, not "required").
    var requiredGroups: [[String]] = []
    /// Plays in real time: SIGINT, SIGTERM and SIGHUP stop it cleanly, from the moment it starts.
    var playsLive = false
    /// Runs with parsed options and returns the process exit code.
    let run: @Sendable (ParsedOptions) throws -> Int32

    /// `staccato render SONG.mid... (--out FILE | --out-dir DIR) [--soundfont FONT.sf2 | --samples DIR] [--rate 48000]`:
    /// positionals, then required options and groups, then the optional ones (a group where its
    /// first member is).
    var usageLine: String {
        func alternatives(_ group: [String]) -> String {
            group.map { member in options.first { $0.name == member }!.usage(bare: true) }.joined(separator: " | ")
        }
        var words = ["staccato", name] + positionals.map(\.usage) + options.filter(\.isRequired).map { $0.usage() }
            + requiredGroups.map { "(" + alternatives($0) + ")" }
        var grouped = Set(requiredGroups.joined())
        for option in options where !option.isRequired && !grouped.contains(option.name) {
            if let group = exclusiveGroups.first(where: { $0.contains(option.name) }) {
                grouped.formUnion(group)
                words.append("[" + alternatives(group) + "]")
            } else {
                words.append(option.usage())
            }
        }
        return words.joined(separator: " ")
    }

    /// "required: this or --out-dir" for a member of a required group: what its table says in
    /// place of a default (a member has none, since one of the group is always given).
    private func requiredGroupNote(_ option: OptionSpec) -> String? {
        guard let group = requiredGroups.first(where: { $0.contains(option.name) }) else { return nil }
        return "required: this or " + alternativesText(group.filter { $0 != option.name }.map { "--\($0)" })
    }

    /// The summary and the description, one paragraph.
    private var about: String { description.isEmpty ? summary : summary + " " + description }

    /// `text` broken between words into lines of at most `width` characters.
    static func wrap(_ text: String, width: Int = 100) -> String {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty && line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        return (lines + [line]).joined(separator: "\n")
    }

    var help: String {
        let rows = positionals.map { ($0.synopsis, $0.help) }
            + options.map { option in (option.synopsis, requiredGroupNote(option).map { "\(option.help) (\($0))" } ?? option.tableText) }
            + [("--help", "show this help")]
        let width = rows.map(\.0.count).max() ?? 0
        var text = "usage: \(usageLine)\n\n\(Subcommand.wrap(about))\n\n" + (positionals.isEmpty ? "options:\n" : "arguments and options:\n")
        for (left, help) in rows {
            text += "  " + left + String(repeating: " ", count: width - left.count + 2) + help + "\n"
        }
        return text
    }

    /// The command's section of the CLI reference, in markdown (for the README).
    var markdown: String {
        var text = "### `staccato \(name)`\n\n\(about)\n\n```\n\(usageLine)\n```\n"
        guard !(positionals.isEmpty && options.isEmpty) else { return text }
        text += "\n| argument | default | values | meaning |\n|---|---|---|---|\n"
        for positional in positionals {
            text += "| `\(positional.synopsis)` | \(positional.isRequired ? "required" : "") | | \(positional.help) |\n"
        }
        for option in options {
            text += "| `\(option.synopsis)` | \(requiredGroupNote(option) ?? option.markdownDefault) | \(option.rangeText ?? "") | \(option.help) |\n"
        }
        return text
    }
}

/// The options every playing subcommand shares. The defaults are `StreamConfiguration`'s, except
/// where a command asks for another (the demo's larger period).
enum DeviceOptions {
    static let defaults = StreamConfiguration()
    /// The PCM a command plays through when no `--device` is given.
    static let defaultDevice = OptionDefault.value("default")

    static func specs(device: OptionDefault, periodFrameCount: Int = defaults.periodFrameCount) -> [OptionSpec] {
        [
            OptionSpec(name: "device", valueName: "NAME", help: "ALSA playback PCM; see 'staccato devices'", default: device),
        ] + AudioTarget.specs + streamSpecs(periodFrameCount: periodFrameCount)
    }

    /// `--rate`, `--period`, `--periods` and `--report`, which `streamConfiguration` reads.
    static func streamSpecs(periodFrameCount: Int = defaults.periodFrameCount) -> [OptionSpec] {
        [
            rate,
            OptionSpec(name: "period", valueName: "FRAMES", help: "frames per period", default: .number(periodFrameCount), range: 16...8_192),
            OptionSpec(name: "periods", valueName: "N", help: "periods in the device buffer", default: .number(defaults.periodCount), range: 2...16),
            OptionSpec(name: "report", valueName: "FILE", help: "write what was played (granted configuration, frames, xruns, outcome) to FILE as JSON"),
        ]
    }

    static let rate = OptionSpec(name: "rate", valueName: "HZ", help: "sample rate", default: .number(defaults.sampleRate), range: Synth.sampleRateRange)

    /// How a song plays, for every command that plays MIDI: `readSongOptions` reads them.
    static let songSpecs = [minimumNoteLength, songGain, noEffects]
    static let minimumNoteLength = OptionSpec(
        name: "min-note-length", valueName: "MS", help: "a note-off sooner than this after its note-on waits until then (0: off)",
        default: .number(RenderConfiguration.defaultMinimumNoteSeconds * 1_000), range: 0...1_000)
    static let songGain = OptionSpec(
        name: "gain", valueName: "DB", help: "the song's gain (the default keeps dense General MIDI mixes clear of the limiter)",
        default: .number(Double(RenderConfiguration.defaultSongGainDecibels)),
        range: Double(RenderConfiguration.songGainRange.lowerBound)...Double(RenderConfiguration.songGainRange.upperBound))
    static let noEffects = OptionSpec(name: "no-effects", help: "play dry: no reverb or chorus (CC91/CC93 sends, on by default as in FluidSynth)")

    /// Live play renders the voices on the device thread alone unless asked: on the 2-core machines
    /// measured (bench/results/README.md, "Voices on every core"), a second thread at 64-frame
    /// periods held fewer voices to the deadline than one, since a period's voices are too little
    /// work to share across cores; offline rendering, where the work comes back to back, gains.
    static let liveThreadCount = 1
    /// `--threads` for the commands that play a song live (`readThreads`).
    static let liveThreads = OptionSpec(
        name: "threads", valueName: "N", help: "threads rendering the voices: the device thread and N-1 workers at its priority",
        default: .number(liveThreadCount), range: 1...Double(RenderConfiguration.maximumThreadCount))
}

extension OptionDefault {
    /// `--soundfont`'s default in every command that plays one: `InstrumentLoader.chooseSoundFont`,
    /// which the command announces with `announceDefaultSoundFont`.
    static let shippedSoundFont = OptionDefault.described(
        "$STACCATO_SOUNDFONT, else the system's General MIDI font, else the shipped piano/xylophone font",
        value: { InstrumentLoader.chooseSoundFont().path })
}

extension ParsedOptions {
    /// `--soundfont` as given, else the default font, announced (`announceDefaultSoundFont`).
    func soundFontPath() throws -> String {
        values["soundfont"] == nil ? announceDefaultSoundFont() : try string("soundfont")
    }
}

/// When `--soundfont` was not given: says on stdout which font plays (and on stderr which system
/// files were passed over), and returns its path.
func announceDefaultSoundFont() -> String {
    let choice = InstrumentLoader.chooseSoundFont()
    for note in choice.skipped { printError(note) }
    print(choice.line)
    return choice.path
}
