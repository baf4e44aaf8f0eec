import CommandLineSpec
import Foundation

/// staccato-bench's benchmarks: each one's options as specs, from which its usage line and its
/// `--help` are made, and how it reads them into a run.
enum Benchmarks {
    /// The program every benchmark is of: the first word of its usage line.
    static let program = "staccato-bench"
    static let all: [Subcommand] = [ring, polyphony, burst, drums, throughput, profile, latency, roundtrip, soak, compare, fonts, library, feedback, chart]

    /// `staccato-bench --help`: every benchmark by its summary.
    static let staccatoBench = CommandLineProgram(
        name: program, commandKind: "benchmark",
        about: "Staccato's benchmarks: medians measured side by side in one run, beside FluidSynth or the system's own where there is one. They never fail on a figure.",
        commands: all,
        closing: "'staccato-bench <benchmark> --help' shows a benchmark's options. --json PATH writes its figures there as JSON (see\n"
            + "bench/results/README.md); for latency (a render-time histogram per setting) and polyphony (voices against the\n"
            + "period) an SVG chart goes beside it, PATH with .svg for .json.",
        namesCommandInMistakes: false)

    /// Runs `body` and writes its figures to `--json PATH` when asked, with the chart beside them
    /// for the benchmarks that have one. PATH is checked before the run.
    static func measure(_ options: ParsedOptions, _ body: () throws -> [String: Any]) throws -> Int32 {
        let jsonPath = try options.writableFile("json")
        let figures = try body()
        if let jsonPath {
            let written = try JSONReport.write(figures, benchmark: options.command, to: jsonPath)
            if let chart = try Charts.write(fromJSON: written, jsonPath: jsonPath) { print("chart: \(chart)") }
        }
        return 0
    }

    static let chart = Subcommand(
        program: program, name: "chart", summary: "Draws the chart of a saved latency or polyphony report again.",
        positionals: [PositionalSpec(name: "FILE.json", help: "a report that --json wrote", isRequired: true)],
        options: [
            OptionSpec(name: "svg", valueName: "OUT.svg", help: "where the chart goes", default: .described("beside the report, .svg for .json")),
        ]
    ) { options in
        guard options.positionals.count == 1 else {
            throw UsageError(description: options.positionals.isEmpty ? "chart needs a saved report: FILE.json of latency or polyphony"
                                                                       : "chart draws one report at a time, got \(options.positionals.count)")
        }
        let svgPath = try options.writableFile("svg")
        let path = options.positionals[0]
        try requireExistingFile(path)
        try Charts.redraw(json: path, to: svgPath)
        return 0
    }
}
