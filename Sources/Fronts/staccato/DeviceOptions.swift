import AudioIO
import CommandLineSpec
import Engine
import Render

/// The options every playing subcommand shares. The defaults are `StreamConfiguration`'s, except
/// where a command asks for another (the demo's larger period).
enum DeviceOptions {
    static let defaults = StreamConfiguration()
    /// The PCM a command plays through when no `--device` is given.
    static let defaultDevice = OptionDefault.value("default")
    /// The JACK client's name when no `--jack-name` is given.
    static let jackClientName = "staccato"

    static func specs(device: OptionDefault, periodFrameCount: Int = defaults.periodFrameCount) -> [OptionSpec] {
        [
            OptionSpec(name: "device", valueName: "NAME", help: "ALSA playback PCM; see 'staccato devices'", default: device),
        ] + AudioTargetOptions.specs(clientName: jackClientName) + streamSpecs(periodFrameCount: periodFrameCount)
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
