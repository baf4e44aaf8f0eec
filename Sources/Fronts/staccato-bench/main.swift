import AudioIO
import Engine
import Foundation

let usage = """
usage: staccato-bench <benchmark> [options] [--json PATH]

benchmarks:
  ring [--items N] [--runs R]   SPSC ring throughput between two threads, beside JACK's jack_ringbuffer
                                in the same run (default 20000000 items, 5 runs)
  polyphony [--notes N] [--seconds S] [--runs R] [--soundfont F] [--program [B:]P] [--beside I] [--cpu-time] [--period F,...] [--ramp-runs R] [--no-ramp]
                                [--engines cubic,cubic-generic,linear,fluidsynth] [--threads 1,2]
                                voices per core in real time at 64-frame periods, cubic and linear,
                                beside FluidSynth in the same run (default 1000 notes = 2000 voices, 3 s, 3 runs);
                                cubic with both builds of the sampler kernels where the CPU runs AVX2+FMA;
                                --cpu-time: each engine is charged its render thread's CPU time, not wall
                                time, so time spent preempted by other work on a shared machine is left out;
                                then per period (16..1024 frames, or --period 64,128) the most voices whose
                                p99.9 block time stays within 80 % of the period, on a paced SCHED_FIFO thread
                                (median of R ramps, default 1: a ramp is paced in real time, about 4 minutes;
                                --no-ramp skips it; --engines measures only those named); --threads 1,2: cubic
                                also with the voices on 2 threads, voices per second of wall time and of the
                                process's CPU time, and a ramp of its own, beside the one-thread figures, and
                                as many one-thread renders at once, each charged its own thread's CPU time (what
                                the cores lose to each other with nothing shared); --beside I: cubic on another
                                instrument too (an SFZ, a sample set), run by run with the others, and its ratio
                                to the font; --program [B:]P: every channel plays program P of bank B (default
                                0:0), for a font whose other programs layer more voices a note, so the ramp can
                                hold more voices than the piano's distinct notes sound
  burst [--notes N,...] [--runs R] [--soundfont F] [--threads N]
                                N note-ons in one 64-frame block (default N = 512, 1024, 2048), 256-voice pool: worst
                                block time against the deadline, notes dropped, steals, hard cuts, beside
                                FluidSynth's same burst in the same run (default 5 runs; voices on N threads, default 1)
  drums [--seconds S] [--runs R] [--kit kit.json] [--threads 1,2]
                                rapid fire: drum hits per second sustained in real time with every pad ringing
                                (--threads: with the voices on each thread count, alternating run by run)
  throughput [--soundfont F.sf2] [--midi SONG.mid ...] [--runs R] [--threads 1,2]
                                offline render speed (multiple of real time) of whole MIDI files to WAV,
                                beside `fluidsynth -F` in the same run (default: the three piano fixtures, 3 runs);
                                --threads: Staccato with each thread count in turn, run by run, and the speed-ups
  latency --device DEV | --audio jack [--seconds S] [--rate HZ] [--voices N] [--mic] [--period F,...] [--periods N,...]
                                periods 16..1024 frames x 2 and 3 through a real ALSA device: render time
                                p50/p99/p99.9/max against the deadline, xruns, wake-up jitter, and the smallest
                                period without an xrun (default 5 s each, 48000 Hz, 0 voices; --mic: duplex;
                                --audio jack: a native JACK client at each period, set on the server, and with
                                --device, that ALSA PCM (the jack plugin) at the same period beside it;
                                --period 64 --periods 2 runs that one setting)
  roundtrip [--device DEV] [--audio jack] [--seconds S]
                                round trip through a loopback device (playback comes back on capture), found by
                                cross-correlation to a fraction of a frame, beside the buffer latency, at periods
                                64, 128, 256 x 2 and 3 (default staccato_loop, 3 s each); --audio jack adds a native
                                JACK client on the server's loopback ports at each period, beside the ALSA plugin
  soak [--device DEV] [--seconds S] [--period N] [--seed N]
                                random note storms, pedal, program changes, drum rolls and the mic chain, duplex:
                                xruns, refused commands, peak and stuck voices, VmRSS every 10 s (scripts/soak)

  compare SONG.mid... [--soundfont FONT ...]
                                how close Staccato plays each song to FluidSynth (-R 0 -C 0 -g 0.2), whole and
                                channel by channel (each channel's notes alone, every other event kept): level
                                of each engine, level difference less the whole mix's, log-mel spectrogram
                                correlation after alignment (a channel by the whole mix's lag), channels silent
                                in one engine only (default: the shipped font; several fonts are compared one
                                after the other)

  fonts [--soundfont FONT ...] [--song SONG.mid ...] [--runs R]
                                what each font costs a render: wall time, time to the first note and peak RSS of one note
                                and of each song, staccato render beside fluidsynth -F with and without its dynamic
                                sample loading (default: the system's FluidR3_GM.sf2, TimGM6mb.sf2 and
                                MuseScore_General_Full.sf3 that exist, one note, 3 runs)

  library [--gigabytes G]       an SFZ library of G GB of decoded audio (default 3), made on the spot in the temporary
                                folder and removed after: play's time to ready and peak memory on it, and a dense
                                passage rendered through the song's samples against the whole library decoded

  feedback [--ir IR.wav...]     the microphone chain's maximum stable gain in a simulated acoustic loop with its
                                feedback suppressor off and on, in the built-in rooms (three with strong modes, one
                                diffuse) or through each impulse response given, the voice's correlation with the
                                dry voice at the highest stable gain, and how many notches a 6 dB rise would need

  chart FILE.json [--svg OUT.svg]
                                draws the chart of a saved latency or polyphony report again

--json PATH writes the benchmark's figures there as JSON (see bench/results/README.md); for latency
(a render-time histogram per setting) and polyphony (voices against the period) an SVG chart goes
beside it, PATH with .svg for .json.
Benchmarks report medians measured side by side in one run; they never fail on a figure.
"""

let benchmark = CommandLine.arguments.dropFirst().first
let rest = Array(CommandLine.arguments.dropFirst(2))
func parse(_ names: Set<String>, flags: Set<String> = []) -> BenchArguments {
    BenchArguments(rest, accepting: names.union(["json", "runs"]), flags: flags)
}

/// Runs one benchmark and writes its figures to `--json PATH` when asked; a failure to load its
/// inputs, or a PATH that cannot be written (checked before the run), is one line and exit 1.
func measure(_ name: String, _ options: BenchArguments, _ body: () throws -> [String: Any]) {
    let jsonPath = options.writableFile("json")
    do {
        let figures = try body()
        if let path = jsonPath {
            let written = JSONReport.write(figures, benchmark: name, to: path)
            if let chart = Charts.write(fromJSON: written, jsonPath: path) { print("chart: \(chart)") }
        }
    } catch {
        BenchArguments.fail("\(error)", status: 1)
    }
}

/// A device that cannot be opened is one line and exit 1 before anything runs: a benchmark whose
/// every setting fails on it would otherwise print a table of errors and exit 0.
/// `--audio alsa` (default; `--device`) or `--audio jack` (a native client of the running server).
func benchAudio(_ options: BenchArguments, defaultDevice: String?, capture: Bool) -> BenchAudio {
    switch options.string("audio") ?? "alsa" {
    case "alsa":
        guard let device = options.string("device") ?? defaultDevice else { BenchArguments.fail("--audio alsa needs --device DEV", status: 2) }
        requireDevice(device, capture: capture)
        return .alsa(device: device)
    case "jack":
        do { return try BenchAudio.openJACK() } catch { BenchArguments.fail("\(error)", status: 1) }
    case let other:
        BenchArguments.fail("--audio must be alsa or jack, got '\(other)'", status: 2)
    }
}

func requireDevice(_ device: String, capture: Bool) {
    do throws(DeviceError) {
        try DeviceList.requireOpenable(device, capture: capture)
    } catch {
        BenchArguments.fail("\(error)", status: 1)
    }
}

switch benchmark {
case "ring":
    let options = parse(["items"])
    measure("ring", options) { RingBenchmark.run(itemCount: options.integer("items", default: 20_000_000), runs: options.integer("runs", default: 5)) }
case "polyphony":
    let options = parse(["notes", "seconds", "soundfont", "program", "beside", "period", "ramp-runs", "engines", "threads"], flags: ["cpu-time", "no-ramp"])
    let font = options.existingFile("soundfont", default: InstrumentLoader.defaultSoundFontPath)
    let beside = options.string("beside").map { options.existingFile("beside", default: $0) }
    let program = options.program("program")
    measure("polyphony", options) {
        try PolyphonyBenchmark.run(font: font, notes: options.integer("notes", default: 1_000),
                                   seconds: Double(options.integer("seconds", default: 3)), runs: options.integer("runs", default: 3),
                                   clock: options.flag("cpu-time") ? .threadCPU : .wall,
                                   rampPeriods: options.integers("period", from: PolyphonyRamp.periodFrameCounts),
                                   rampRuns: options.flag("no-ramp") ? 0 : options.integer("ramp-runs", default: 1),
                                   contenders: options.choices("engines", from: PolyphonyBenchmark.Contender.self),
                                   threadCounts: options.integers("threads", default: [1], in: 1...64), beside: beside,
                                   program: program)
    }
case "burst":
    let options = parse(["notes", "soundfont", "threads"])
    let font = options.existingFile("soundfont", default: InstrumentLoader.defaultSoundFontPath)
    measure("burst", options) {
        try BurstBenchmark.run(font: font, noteCounts: options.integers("notes", default: BurstBenchmark.noteCounts, in: 1...16_384),
                               runs: options.integer("runs", default: 5), threads: options.integer("threads", default: 1))
    }
case "chart":
    guard let path = rest.first, !path.hasPrefix("--") else { BenchArguments.fail("chart needs a --json file of latency or polyphony", status: 2) }
    let options = BenchArguments(Array(rest.dropFirst()), accepting: ["svg"])
    Charts.redraw(json: path, to: options.writableFile("svg"))
case "drums":
    let options = parse(["seconds", "kit", "threads"])
    let manifest = options.existingFile("kit", default: InstrumentLoader.shippedFile("samples/drums/kit.json"))
    measure("drums", options) {
        try DrumBenchmark.run(manifest: manifest, seconds: Double(options.integer("seconds", default: 2)), runs: options.integer("runs", default: 3),
                              threadCounts: options.integers("threads", default: [1], in: 1...64))
    }
case "throughput":
    let options = parse(["soundfont", "midi", "threads"])
    let font = options.existingFile("soundfont", default: InstrumentLoader.defaultSoundFontPath)
    let songs = options.strings("midi").isEmpty ? ThroughputBenchmark.defaultSongs : options.strings("midi")
    songs.forEach(BenchArguments.requireFile)
    let threads = options.integers("threads", default: [1], in: 1...64)
    measure("throughput", options) {
        try ThroughputBenchmark.run(font: font, songs: songs, runs: options.integer("runs", default: 3), threadCounts: threads)
    }
case "latency":
    let options = parse(["device", "seconds", "rate", "voices", "period", "periods", "audio"], flags: ["mic"])
    let audio = benchAudio(options, defaultDevice: nil, capture: options.flag("mic"))
    measure("latency", options) {
        try LatencyBenchmark.run(audio: audio, besideDevice: audio.isJACK ? options.string("device") : nil, seconds: Double(options.integer("seconds", default: 5)),
                                 rate: options.integer("rate", default: 48_000), voices: options.integer("voices", default: 0),
                                 mic: options.flag("mic"),
                                 periodFrameCounts: options.integers("period", from: LatencyBenchmark.periodFrameCounts),
                                 periodCounts: options.integers("periods", from: LatencyBenchmark.periodCounts))
    }
case "roundtrip":
    let options = parse(["device", "seconds", "audio"])
    let device = options.string("device") ?? "staccato_loop"
    requireDevice(device, capture: true)
    // --audio jack measures the native client beside the ALSA device, in the same run.
    let jack = options.string("audio") == "jack" ? benchAudio(options, defaultDevice: device, capture: true) : nil
    measure("roundtrip", options) {
        try RoundTripBenchmark.run(device: device, jack: jack, seconds: Double(options.integer("seconds", default: 3)))
    }
case "soak":
    let options = parse(["device", "seconds", "period", "seed"])
    let device = options.string("device") ?? "staccato_jack"
    requireDevice(device, capture: true)
    measure("soak", options) {
        try Soak.run(device: device, seconds: Double(options.integer("seconds", default: 600)),
                     period: options.integer("period", default: 64), seed: UInt64(options.integer("seed", default: 8)))
    }
case "compare":
    // The songs come first, as positional words; the options follow them.
    let songs = Array(rest.prefix { !$0.hasPrefix("-") })
    let options = BenchArguments(Array(rest.dropFirst(songs.count)), accepting: ["soundfont", "json"])
    guard !songs.isEmpty else { BenchArguments.fail("compare needs MIDI files first (compare SONG.mid... --soundfont FONT)", status: 2) }
    let fonts = options.strings("soundfont").isEmpty ? [InstrumentLoader.defaultSoundFontPath] : options.strings("soundfont")
    (songs + fonts).forEach(BenchArguments.requireFile)
    measure("compare", options) { try CompareBenchmark.run(songs: songs, fonts: fonts) }
case "fonts":
    let options = parse(["soundfont", "song"])
    let songs = options.strings("song")
    songs.forEach(BenchArguments.requireFile)
    let fonts = options.strings("soundfont").isEmpty
        ? FontsBenchmark.systemFonts.filter { FileManager.default.fileExists(atPath: $0) } : options.strings("soundfont")
    fonts.forEach(BenchArguments.requireFile)
    if fonts.isEmpty { BenchArguments.fail("fonts: none of \(FontsBenchmark.systemFonts.joined(separator: ", ")) exists; give --soundfont FONT", status: 1) }
    measure("fonts", options) { try FontsBenchmark.run(fonts: fonts, songs: songs, runs: options.integer("runs", default: 3)) }
case "library":
    let options = parse(["gigabytes"])
    guard let gigabytes = Double(options.string("gigabytes") ?? "3"), gigabytes > 0, gigabytes <= 64 else {
        BenchArguments.fail("library: --gigabytes must be a number of gigabytes, 0-64", status: 2)
    }
    measure("library", options) { try LibraryBenchmark.run(gigabytes: gigabytes) }
case "feedback":
    let options = parse(["ir"])
    options.strings("ir").forEach(BenchArguments.requireFile)
    measure("feedback", options) { try FeedbackBenchmark.run(irPaths: options.strings("ir")) }
case "--help", "-h", "help":
    print(usage)
case let other:
    BenchArguments.fail("\(other.map { "unknown benchmark '\($0)'" } ?? "which benchmark?") (see --help)", status: 2)
}
