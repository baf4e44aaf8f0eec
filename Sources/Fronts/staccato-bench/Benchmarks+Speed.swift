import CommandLineSpec
import Engine
import Render

/// How fast the engine runs: the ring between threads, voices in real time, bursts of note-ons,
/// drum hits, offline renders.
extension Benchmarks {
    static let ring = Subcommand(
        program: program, name: "ring", summary: "SPSC ring throughput between two threads, beside JACK's jack_ringbuffer in the same run.",
        options: [
            OptionSpec(name: "items", valueName: "N", help: "items passed through the ring each run", default: .number(20_000_000), range: 1...1e12),
            BenchOptions.runs(5),
            BenchOptions.json(),
        ]
    ) { options in
        let itemCount = try options.integer("items")
        let runs = try options.integer("runs")
        return try measure(options) { RingBenchmark.run(itemCount: itemCount, runs: runs) }
    }

    static let polyphony = Subcommand(
        program: program, name: "polyphony",
        summary: "Voices per core in real time at 64-frame periods, cubic and linear, beside FluidSynth in the same run.",
        description: "Cubic runs with the fastest build of the sampler kernels the CPU runs and the generic one (and the AVX2+FMA one where the fastest is AVX-512; STACCATO_SAMPLER_KERNELS=generic|avx2|avx512 caps the fastest). Then, for each period, the ramp: the most voices whose p99.9 block time stays within 80 % of the period, on a paced SCHED_FIFO thread (a ramp is paced in real time, about 4 minutes).",
        options: [
            OptionSpec(name: "notes", valueName: "N", help: "held notes, two voices each (the font's stereo pairs)", default: .number(1_000), range: 1...100_000),
            BenchOptions.seconds(3, help: "audio rendered each run"),
            BenchOptions.runs(3),
            BenchOptions.soundFont,
            OptionSpec(name: "program", valueName: "B:P",
                       help: "every channel plays program P of bank B (P alone: bank 0), for a font whose other programs layer more voices a note, so the ramp can hold more voices than the piano's distinct notes sound",
                       default: .value("0:0")),
            OptionSpec(name: "beside", valueName: "INSTRUMENT",
                       help: "cubic on another instrument too (an SFZ, a sample set), run by run with the others, and its ratio to the font"),
            OptionSpec(name: "cpu-time",
                       help: "charge each engine its render thread's CPU time, not wall time, so that time spent preempted by other work on a shared machine is left out"),
            OptionSpec(name: "period", valueName: "FRAMES,...", help: "the periods the ramp measures",
                       default: .numbers(PolyphonyRamp.periodFrameCounts)),
            OptionSpec(name: "ramp-runs", valueName: "R", help: "ramps, of which the median is reported", default: .number(1), range: 1...100),
            OptionSpec(name: "no-ramp", help: "skip the ramp"),
            OptionSpec(name: "engines", valueName: "ENGINE,...", help: "measure only these",
                       default: .value(PolyphonyBenchmark.Contender.allCases.map(\.rawValue).joined(separator: ","))),
            BenchOptions.threadCounts(help: "cubic also with the voices on each count of threads: voices per second of wall time and of the process's CPU time, and a ramp of its own, beside the one-thread figures; and as many one-thread renders at once, each charged its own thread's CPU time (what the cores lose to each other with nothing shared)"),
            BenchOptions.json(chart: true),
        ]
    ) { options in
        let program = try options.program("program")
        let notes = try options.integer("notes")
        let seconds = Double(try options.integer("seconds"))
        let runs = try options.integer("runs")
        let rampPeriods = try options.integerList("period", from: PolyphonyRamp.periodFrameCounts)
        let rampRuns = try options.has("no-ramp") ? 0 : options.integer("ramp-runs")
        let contenders = try options.choiceSet("engines", of: PolyphonyBenchmark.Contender.self)
        let threadCounts = try options.integerList("threads")
        let font = try options.existingFile("soundfont")
        let beside = try options.values["beside"].map { _ in try options.existingFile("beside") }
        return try measure(options) {
            try PolyphonyBenchmark.run(font: font, notes: notes, seconds: seconds, runs: runs, clock: options.has("cpu-time") ? .threadCPU : .wall,
                                       rampPeriods: rampPeriods, rampRuns: rampRuns, contenders: contenders, threadCounts: threadCounts,
                                       beside: beside, program: program)
        }
    }

    static let burst = Subcommand(
        program: program, name: "burst",
        summary: "N note-ons in one 64-frame block into a 256-voice pool: the worst block time against the deadline, notes dropped, steals and hard cuts, beside FluidSynth's same burst in the same run.",
        options: [
            OptionSpec(name: "notes", valueName: "N,...", help: "note-ons in the burst, each count measured in turn",
                       default: .numbers(BurstBenchmark.noteCounts), range: 1...16_384),
            BenchOptions.runs(5),
            BenchOptions.soundFont,
            OptionSpec(name: "threads", valueName: "N", help: "threads rendering the voices", default: .number(1),
                       range: 1...Double(RenderConfiguration.maximumThreadCount)),
            BenchOptions.json(),
        ]
    ) { options in
        let noteCounts = try options.integerList("notes")
        let runs = try options.integer("runs")
        let threads = try options.integer("threads")
        let font = try options.existingFile("soundfont")
        return try measure(options) { try BurstBenchmark.run(font: font, noteCounts: noteCounts, runs: runs, threads: threads) }
    }

    static let drums = Subcommand(
        program: program, name: "drums", summary: "Rapid fire: drum hits per second sustained in real time with every pad ringing.",
        options: [
            BenchOptions.seconds(2, help: "audio rendered each run"),
            BenchOptions.runs(3),
            OptionSpec(name: "kit", valueName: "KIT.json", help: "the drum kit",
                       default: .described("the shipped kit", value: { InstrumentLoader.shippedKitPath })),
            BenchOptions.threadCounts(help: "with the voices on each count of threads, alternating run by run"),
            BenchOptions.json(),
        ]
    ) { options in
        let seconds = Double(try options.integer("seconds"))
        let runs = try options.integer("runs")
        let threadCounts = try options.integerList("threads")
        let manifest = try options.existingFile("kit")
        return try measure(options) { try DrumBenchmark.run(manifest: manifest, seconds: seconds, runs: runs, threadCounts: threadCounts) }
    }

    static let throughput = Subcommand(
        program: program, name: "throughput",
        summary: "Offline render speed (a multiple of real time) of whole MIDI files to WAV, beside fluidsynth -F in the same run.",
        options: [
            BenchOptions.soundFont,
            OptionSpec(name: "midi", valueName: "SONG.mid", help: "the songs to render", default: .described("the three piano fixtures"), repeatable: true),
            BenchOptions.runs(3),
            BenchOptions.threadCounts(help: "Staccato with each count of threads in turn, run by run, and the speed-ups"),
            BenchOptions.json(),
        ]
    ) { options in
        let runs = try options.integer("runs")
        let threadCounts = try options.integerList("threads")
        let font = try options.existingFile("soundfont")
        let given = try options.strings("midi")
        let songs = given.isEmpty ? ThroughputBenchmark.defaultSongs : given
        try songs.forEach(requireExistingFile)
        return try measure(options) { try ThroughputBenchmark.run(font: font, songs: songs, runs: runs, threadCounts: threadCounts) }
    }

    static let profile = Subcommand(
        program: program, name: "profile",
        summary: "Where a song's render spends its time, stage by stage (read, control, filter and mix, sends, sum), timed inside the engine.",
        positionals: [PositionalSpec(name: "SONG.mid", help: "the song to render", isRequired: true)],
        options: [
            BenchOptions.soundFont,
            BenchOptions.runs(5),
            OptionSpec(name: "threads", valueName: "N", help: "threads that render the voices", default: .number(1),
                       range: 1...Double(RenderConfiguration.maximumThreadCount)),
            OptionSpec(name: "no-effects", help: "render dry: no reverb or chorus sends"),
            BenchOptions.json(),
        ]
    ) { options in
        guard options.positionals.count == 1 else { throw UsageError(description: "profile takes one song: profile SONG.mid --soundfont FONT") }
        let song = options.positionals[0]
        try requireExistingFile(song)
        let runs = try options.integer("runs")
        let threads = try options.integer("threads")
        let font = try options.existingFile("soundfont")
        let effects = !options.has("no-effects")
        return try measure(options) { try ProfileReport.run(song: song, font: font, runs: runs, threads: threads, effects: effects) }
    }
}
