import CommandLineSpec
import Engine
import Render

/// The options several benchmarks share, each with the default the benchmark passes.
enum BenchOptions {
    /// `--json PATH`; `chart`: the benchmark draws its chart beside the report.
    static func json(chart: Bool = false) -> OptionSpec {
        OptionSpec(name: "json", valueName: "PATH", help: "write the figures to PATH as JSON (see bench/results/README.md), checked before the run"
                       + (chart ? "; an SVG chart goes beside it, PATH with .svg for .json" : ""))
    }

    static func runs(_ count: Int) -> OptionSpec {
        OptionSpec(name: "runs", valueName: "R", help: "runs; the figures are their medians",
                   default: .number(count), range: 1...1_000)
    }

    static func seconds(_ seconds: Int, help: String) -> OptionSpec {
        OptionSpec(name: "seconds", valueName: "S", help: help, default: .number(seconds), range: 1...86_400)
    }

    /// The instrument that plays: what the benchmarks play, so that their figures do not depend on
    /// what the machine has installed (`InstrumentLoader.defaultSoundFontPath`).
    static let soundFont = OptionSpec(
        name: "soundfont", valueName: "FONT", help: "the SoundFont (SF2, SF3) or SFZ instrument that plays",
        default: .described("$STACCATO_SOUNDFONT, else the shipped piano/xylophone font", value: { InstrumentLoader.defaultSoundFontPath }))

    /// `--threads 1,2`: the thread counts the voices render on, each measured in turn.
    static func threadCounts(help: String) -> OptionSpec {
        OptionSpec(name: "threads", valueName: "N,...", help: help, default: .numbers([1]),
                   range: 1...Double(RenderConfiguration.maximumThreadCount))
    }
}
