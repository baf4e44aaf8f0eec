import Foundation
import Glibc
import MIDI

/// What the fonts users have cost to load, Staccato beside FluidSynth: peak resident memory and
/// load time of each engine playing one note through each font, run by run alternating engine and
/// font so both see the same machine. Both are separate processes, measured from outside through
/// `wait4`'s rusage, so neither engine's figure includes the benchmark's own memory.
enum FontsBenchmark {
    /// The system's fonts measured when no `--soundfont` is given (those that exist).
    static let systemFonts = ["/usr/share/sounds/sf2/FluidR3_GM.sf2", "/usr/share/sounds/sf2/TimGM6mb.sf2",
                              "/usr/share/sounds/sf3/MuseScore_General_Full.sf3"]

    /// Peak RSS and wall time of one child process.
    struct Measured {
        var status: Int32
        var peakBytes: Int
        var seconds: Double
        var output: String
    }

    /// Runs `arguments` (found on PATH, or a path) with standard output to a file that is read back
    /// and standard error discarded, and reaps it with `wait4` for its rusage: `ru_maxrss` is the
    /// child's own peak resident set. `nil` when it cannot be started.
    static func run(_ arguments: [String], folder: String) -> Measured? {
        let outputPath = folder + "/child-output.txt"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let start = DispatchTime.now().uptimeNanoseconds
        guard posix_spawnp(&pid, arguments[0], &actions, nil, argv, environ) == 0 else { return nil }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        // ru_maxrss is in kilobytes on Linux.
        return Measured(status: (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f),
                        peakBytes: usage.ru_maxrss * 1_024, seconds: seconds, output: output)
    }

    /// Staccato's own load time from `render`'s report: `… in R s (…; T s with loading)` is the
    /// whole command, T, of which R rendered; the rest read the song, loaded the font and built
    /// the engine. `nil` when the report is not there.
    static func staccatoLoadSeconds(_ output: String) -> Double? {
        guard let match = output.firstMatch(of: /of audio in ([0-9.]+) s \(.*; ([0-9.]+) s with loading\)/),
              let render = Double(match.1), let total = Double(match.2) else { return nil }
        return max(0, total - render)
    }

    /// The CPU, as /proc/cpuinfo names it ("AMD EPYC 7B13"), for the report's header.
    static var cpuModel: String {
        let text = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let line = text.split(separator: "\n").first { $0.hasPrefix("model name") }
        return line.flatMap { $0.split(separator: ":", maxSplits: 1).last }.map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown CPU"
    }

    static func run(fonts: [String], runs: Int) throws -> [String: Any] {
        let folder = try ScratchFolder.make("fonts").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let song = folder + "/one-note.mid"
        let oneNote = MIDIFile(format: 0, division: .ticksPerQuarter(480), tracks: [[
            TrackEvent(tick: 0, kind: .channel(.noteOn(channel: 0, key: 60, velocity: 100))),
            TrackEvent(tick: 480, kind: .channel(.noteOff(channel: 0, key: 60, velocity: 0))),
            TrackEvent(tick: 480, kind: .endOfTrack),
        ]])
        try Data(oneNote.standardMIDIFileBytes()).write(to: URL(fileURLWithPath: song))
        let staccato = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("staccato").path
        let wav = folder + "/out.wav"
        let fluidVersion = FluidSynth.version

        print("Fonts: peak RSS and load time of one note through each font, median of \(runs) runs, engines and fonts alternating")
        print("  CPU: \(cpuModel); staccato render (\(staccato)); fluidsynth \(fluidVersion ?? "not on PATH") -ni -q -F")
        print("  RSS: ru_maxrss of the whole child process rendering the note (wait4)")
        print("  Staccato s: its own load figure (render's 'with loading' time less its render time: song, font, engine)")
        print("  FluidSynth s: wall time of fluidsynth given the font and no MIDI file (it loads the font, then exits)")
        print("                less that of fluidsynth --version (its start-up: given no font it would load the default one)")

        struct Runs { var staccatoRSS: [Double] = [], fluidRSS: [Double] = [], staccatoLoad: [Double] = [], fluidLoad: [Double] = []
                      var staccatoWall: [Double] = [], fluidWall: [Double] = [], failures: [String] = [] }
        var figures = [Runs](repeating: Runs(), count: fonts.count)
        let megabyte = Double(1 << 20)
        for _ in 0..<runs {
            for (index, font) in fonts.enumerated() {
                if let ours = run([staccato, "render", song, "--soundfont", font, "--out", wav], folder: folder), ours.status == 0 {
                    figures[index].staccatoRSS.append(Double(ours.peakBytes) / megabyte)
                    figures[index].staccatoWall.append(ours.seconds)
                    if let load = staccatoLoadSeconds(ours.output) { figures[index].staccatoLoad.append(load) }
                } else {
                    figures[index].failures.append("staccato render failed")
                }
                guard fluidVersion != nil else { continue }
                let fluid = ["fluidsynth", "-ni", "-q", "-F", wav]
                if let theirs = run(fluid + [font, song], folder: folder), theirs.status == 0 {
                    figures[index].fluidRSS.append(Double(theirs.peakBytes) / megabyte)
                    figures[index].fluidWall.append(theirs.seconds)
                } else {
                    figures[index].failures.append("fluidsynth render failed")
                }
                // Not fluidsynth with no font for the start-up: that loads the system's default font.
                if let fontOnly = run(fluid + [font], folder: folder), let bare = run(["fluidsynth", "--version"], folder: folder) {
                    figures[index].fluidLoad.append(max(0, fontOnly.seconds - bare.seconds))
                }
            }
        }

        func cell(_ values: [Double], _ format: String) -> String { values.isEmpty ? "-" : String(format: format, values.median) }
        func ratio(_ ours: [Double], _ theirs: [Double]) -> String {
            ours.isEmpty || theirs.isEmpty || theirs.median == 0 ? "-" : String(format: "%.2fx", ours.median / theirs.median)
        }
        let header = ["font", "file MB", "Staccato RSS MB", "FluidSynth RSS MB", "RSS ratio", "Staccato load s", "FluidSynth load s", "load ratio"]
        var rows: [[String]] = []
        var reports: [[String: Any]] = []
        for (font, runs) in zip(fonts, figures) {
            let size = ((try? FileManager.default.attributesOfItem(atPath: font)[.size] as? Int) ?? nil) ?? 0
            rows.append([URL(fileURLWithPath: font).lastPathComponent, String(format: "%.1f", Double(size) / megabyte),
                         cell(runs.staccatoRSS, "%.1f"), cell(runs.fluidRSS, "%.1f"), ratio(runs.staccatoRSS, runs.fluidRSS),
                         cell(runs.staccatoLoad, "%.2f"), cell(runs.fluidLoad, "%.2f"), ratio(runs.staccatoLoad, runs.fluidLoad)])
            var report: [String: Any] = ["soundfont": font, "file_bytes": size]
            for (key, values) in [("staccato_peak_rss_mb", runs.staccatoRSS), ("fluidsynth_peak_rss_mb", runs.fluidRSS),
                                  ("staccato_load_seconds", runs.staccatoLoad), ("fluidsynth_load_seconds", runs.fluidLoad),
                                  ("staccato_process_seconds", runs.staccatoWall), ("fluidsynth_process_seconds", runs.fluidWall)]
                where !values.isEmpty {
                report[key] = values.summary
            }
            if !runs.failures.isEmpty { report["failures"] = runs.failures }
            reports.append(report)
        }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        for row in [header] + rows {
            print("  " + row.enumerated().map { column, text in
                column == 0 ? text.padding(toLength: widths[0], withPad: " ", startingAt: 0)
                            : String(repeating: " ", count: widths[column] - text.count) + text
            }.joined(separator: "  "))
        }
        for (font, runs) in zip(fonts, figures) where !runs.failures.isEmpty {
            print("  \(URL(fileURLWithPath: font).lastPathComponent): \(runs.failures.count) failed runs (\(Set(runs.failures).sorted().joined(separator: ", ")))")
        }
        var result: [String: Any] = ["runs": runs, "cpu_model": cpuModel, "fonts": reports, "midi": "one note, middle C, 1 beat at 120 bpm"]
        result["fluidsynth_version"] = fluidVersion ?? NSNull()
        return result
    }
}
