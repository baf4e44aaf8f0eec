import AudioIO
import CommandLineSpec
import Engine
import Render

/// What a real device does with the engine: the smallest period it keeps up with, the round trip
/// through a loopback, a long soak. A device that cannot be opened is one line and exit 1 before
/// anything runs: a benchmark whose every setting fails on it would print a table of errors and
/// exit 0.
extension Benchmarks {
    /// The JACK client a benchmark plays through, unless `--jack-name` names another.
    static let jackClientName = "staccato_bench"

    static let latency = Subcommand(
        program: program, name: "latency",
        summary: "How small a period the device thread keeps up with: render time against the deadline, xruns and wake-up jitter at each period, through a real device.",
        description: "Periods of 16 to 1024 frames, 2 and 3 periods each, a few seconds a setting: render time p50/p99/p99.9/max against the deadline, xruns, wake-up jitter, and the smallest period without an xrun. --period 64 --periods 2 runs that one setting.",
        options: [
            OptionSpec(name: "device", valueName: "DEV",
                       help: "the ALSA PCM; with --audio jack, measured beside the native client (through the jack plugin) at each server period",
                       default: .described("needed with --audio alsa")),
            AudioTargetOptions.audio(help: "alsa (--device), jack (a native JACK client at each period, set on the server) or null (no device: the render times alone)"),
            AudioTargetOptions.jackName(default: jackClientName),
            AudioTargetOptions.connect(),
            BenchOptions.seconds(5, help: "how long each setting plays"),
            OptionSpec(name: "rate", valueName: "HZ", help: "sample rate", default: .number(48_000), range: Synth.sampleRateRange),
            OptionSpec(name: "voices", valueName: "N", help: "held sampler voices", default: .number(0),
                       range: 0...Double(RenderConfiguration.maximumVoiceCount - 64)),
            OptionSpec(name: "mic", help: "duplex: capture from the same device, through the microphone chain (bass +3, treble +2, boost +6 dB, reverb 20 %)"),
            OptionSpec(name: "period", valueName: "FRAMES,...", help: "the periods measured", default: .numbers(LatencyBenchmark.periodFrameCounts)),
            OptionSpec(name: "periods", valueName: "N,...", help: "periods in the device buffer, each measured at every period (ALSA; a JACK server keeps its own)",
                       default: .numbers(LatencyBenchmark.periodCounts)),
            BenchOptions.json(chart: true),
        ]
    ) { options in
        let mic = options.has("mic")
        let seconds = Double(try options.integer("seconds"))
        let rate = try options.integer("rate")
        let voices = try options.integer("voices")
        let periodFrameCounts = try options.integerList("period", from: LatencyBenchmark.periodFrameCounts)
        let periodCounts = try options.integerList("periods", from: LatencyBenchmark.periodCounts)
        let audio = try options.audioTarget(alsaDevice: options.values["device"])
        if audio.backend == .alsa { try DeviceList.requireOpenable(audio.device, capture: mic) }
        let serverPeriod = audio.backend == .jack ? try JACKServerPeriod() : nil
        let beside = audio.backend == .jack ? options.values["device"].map { AudioTarget.alsa(device: $0) } : nil
        return try measure(options) {
            try LatencyBenchmark.run(audio: audio, serverPeriod: serverPeriod, beside: beside, seconds: seconds, rate: rate, voices: voices,
                                     mic: mic, periodFrameCounts: periodFrameCounts, periodCounts: periodCounts)
        }
    }

    static let roundtrip = Subcommand(
        program: program, name: "roundtrip",
        summary: "The round trip through a loopback device (playback comes back on capture), found by cross-correlation to a fraction of a frame, beside the buffer latency.",
        description: "At periods of 64, 128 and 256 frames, 2 and 3 periods each.",
        options: [
            OptionSpec(name: "device", valueName: "DEV", help: "the loopback PCM", default: .value("staccato_loop")),
            AudioTargetOptions.audio(help: "alsa (--device alone) or jack (a native JACK client on the server's loopback ports too, at each period set on the server, beside the ALSA plugin at that period)"),
            AudioTargetOptions.jackName(default: jackClientName),
            BenchOptions.seconds(3, help: "how long each setting plays"),
            BenchOptions.json(),
        ]
    ) { options in
        let seconds = Double(try options.integer("seconds"))
        let device = try options.string("device")
        guard try options.choice("audio", of: PlaybackStream.Backend.self) != .null else {
            throw UsageError(description: "--audio null has no loopback to measure a round trip through")
        }
        try DeviceList.requireOpenable(device, capture: true)
        let audio = try options.audioTarget(alsaDevice: device, connections: RoundTripBenchmark.loopback)
        let jack = audio.backend == .jack ? audio : nil
        let serverPeriod = jack != nil ? try JACKServerPeriod() : nil
        return try measure(options) { try RoundTripBenchmark.run(device: device, jack: jack, serverPeriod: serverPeriod, seconds: seconds) }
    }

    static let soak = Subcommand(
        program: program, name: "soak",
        summary: "Random note storms, pedal, program changes, drum rolls and the mic chain, duplex: xruns, refused commands, peak and stuck voices, and VmRSS every 10 s.",
        description: "scripts/soak runs it on the test devices.",
        options: [
            OptionSpec(name: "device", valueName: "DEV", help: "the PCM, played and captured", default: .value("staccato_jack")),
            BenchOptions.seconds(600, help: "how long it plays"),
            OptionSpec(name: "period", valueName: "FRAMES", help: "frames per period", default: .number(64), range: 16...8_192),
            OptionSpec(name: "seed", valueName: "N", help: "the storm's random seed: the same seed plays the same storm", default: .number(8),
                       range: 0...Double(UInt32.max)),
            BenchOptions.json(),
        ]
    ) { options in
        let device = try options.string("device")
        let seconds = Double(try options.integer("seconds"))
        let period = try options.integer("period")
        let seed = UInt64(try options.integer("seed"))
        try DeviceList.requireOpenable(device, capture: true)
        return try measure(options) { try Soak.run(device: device, seconds: seconds, period: period, seed: seed) }
    }
}
