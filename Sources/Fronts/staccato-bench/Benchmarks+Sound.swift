import CommandLineSpec
import Engine
import Foundation

/// How Staccato sounds beside FluidSynth and what its instruments cost: fidelity song by song and
/// channel by channel, fonts' load time and memory, a large SFZ library, the microphone chain's
/// gain before feedback.
extension Benchmarks {
    static let compare = Subcommand(
        program: program, name: "compare",
        summary: "How close Staccato plays each song to FluidSynth (-R 0 -C 0 -g 0.2), whole and channel by channel.",
        description: "A channel is its notes alone, every other event kept. For each: the level of each engine, the level difference less the whole mix's, the log-mel spectrogram correlation after alignment (a channel by the whole mix's lag), and channels silent in one engine only. Several fonts are compared one after the other.",
        positionals: [PositionalSpec(name: "SONG.mid", help: "the songs to compare", isRequired: true, isRepeatable: true)],
        options: [
            OptionSpec(name: "soundfont", valueName: "FONT", help: "the fonts both engines play, one after the other",
                       default: .described("$STACCATO_SOUNDFONT, else the shipped piano/xylophone font", value: { InstrumentLoader.defaultSoundFontPath }),
                       repeatable: true),
            BenchOptions.json(),
        ]
    ) { options in
        guard !options.positionals.isEmpty else { throw UsageError(description: "compare needs the songs to compare, before its options: compare SONG.mid... --soundfont FONT") }
        let songs = options.positionals
        try songs.forEach(requireExistingFile)
        let fonts = try options.existingFiles("soundfont")
        return try measure(options) { try CompareBenchmark.run(songs: songs, fonts: fonts) }
    }

    static let fonts = Subcommand(
        program: program, name: "fonts",
        summary: "What each font costs a render: wall time, time to the first note and peak RSS of one note and of each song, staccato render beside fluidsynth -F with and without its dynamic sample loading.",
        options: [
            OptionSpec(name: "soundfont", valueName: "FONT", help: "the fonts measured",
                       default: .described("those of \(FontsBenchmark.systemFonts.map { URL(fileURLWithPath: $0).lastPathComponent }.joined(separator: ", ")) that the system has"),
                       repeatable: true),
            OptionSpec(name: "song", valueName: "SONG.mid", help: "songs rendered besides the one note", repeatable: true),
            BenchOptions.runs(3),
            BenchOptions.json(),
        ]
    ) { options in
        let runs = try options.integer("runs")
        let songs = try options.existingFiles("song")
        let given = try options.existingFiles("soundfont")
        let fonts = given.isEmpty ? FontsBenchmark.systemFonts.filter { FileManager.default.fileExists(atPath: $0) } : given
        if fonts.isEmpty { throw CommandFailure("fonts: none of \(FontsBenchmark.systemFonts.joined(separator: ", ")) exists; give --soundfont FONT") }
        return try measure(options) { try FontsBenchmark.run(fonts: fonts, songs: songs, runs: runs) }
    }

    static let library = Subcommand(
        program: program, name: "library",
        summary: "An SFZ library of G GB of decoded audio, made on the spot in the temporary folder and removed after: play's time to ready and peak memory on it, and a dense passage rendered through the song's samples against the whole library decoded.",
        options: [
            OptionSpec(name: "gigabytes", valueName: "G", help: "the library's decoded audio, in GB", default: .number(3), range: 0.01...64),
            BenchOptions.json(),
        ]
    ) { options in
        let gigabytes = try options.double("gigabytes")
        return try measure(options) { try LibraryBenchmark.run(gigabytes: gigabytes) }
    }

    static let feedback = Subcommand(
        program: program, name: "feedback",
        summary: "The microphone chain's maximum stable gain in a simulated acoustic loop, with its feedback suppressor off and on.",
        description: "In the built-in rooms (three with strong modes, one diffuse, three PA rooms with strong speaker resonances) or through each impulse response given, at its level: the highest stable boost, absolute and against the room's peak gain, the voice's correlation with the dry voice there, and how many notches a 6 dB rise would need.",
        options: [
            OptionSpec(name: "ir", valueName: "IR.wav", help: "room impulse responses to close the loop through", default: .described("the built-in rooms"),
                       repeatable: true),
            BenchOptions.json(),
        ]
    ) { options in
        let irPaths = try options.existingFiles("ir")
        return try measure(options) { try FeedbackBenchmark.run(irPaths: irPaths) }
    }
}
