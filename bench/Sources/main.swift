import Engine
import Foundation

let usage = """
usage: staccato-bench <benchmark> [options]

benchmarks:
  ring [--items N] [--runs R]   SPSC ring throughput between two threads (default 20000000 items, 5 runs)
  polyphony [--notes N] [--seconds S] [--runs R] [--soundfont F]
                                voices per core in real time at 64-frame periods, cubic and linear,
                                beside FluidSynth in the same run (default 1000 notes = 2000 voices, 3 s, 3 runs)
  drums [--seconds S] [--runs R] [--kit kit.json]
                                rapid fire: drum hits per second sustained in real time with every pad ringing

Benchmarks report medians measured side by side in one run; they never fail on a figure.
"""

let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String, default value: Int, in arguments: [String] = arguments) -> Int {
    guard let index = arguments.firstIndex(of: "--\(name)") else { return value }
    guard index + 1 < arguments.count, let parsed = Int(arguments[index + 1]), parsed > 0 else {
        FileHandle.standardError.write("staccato-bench: --\(name) expects a positive whole number\n".data(using: .utf8)!)
        exit(2)
    }
    return parsed
}

switch arguments.first {
case "ring":
    RingBenchmark.run(itemCount: option("items", default: 20_000_000), runs: option("runs", default: 5))
case "polyphony":
    let fontIndex = arguments.firstIndex(of: "--soundfont")
    let font = fontIndex.flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil } ?? InstrumentLoader.defaultSoundFontPath
    do {
        try PolyphonyBenchmark.run(font: font, notes: option("notes", default: 1_000),
                                   seconds: Double(option("seconds", default: 3)), runs: option("runs", default: 3))
    } catch {
        FileHandle.standardError.write("staccato-bench: \(error)\n".data(using: .utf8)!)
        exit(1)
    }
case "drums":
    let kitIndex = arguments.firstIndex(of: "--kit")
    let manifest = kitIndex.flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil } ?? InstrumentLoader.shippedFile("samples/drums/kit.json")
    do {
        try DrumBenchmark.run(manifest: manifest, seconds: Double(option("seconds", default: 2)), runs: option("runs", default: 3))
    } catch {
        FileHandle.standardError.write("staccato-bench: \(error)\n".data(using: .utf8)!)
        exit(1)
    }
case "--help", "-h", "help":
    print(usage)
case let other:
    FileHandle.standardError.write("staccato-bench: \(other.map { "unknown benchmark '\($0)'" } ?? "which benchmark?") (see --help)\n".data(using: .utf8)!)
    exit(2)
}
