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

    /// Each font × each song (one note first, then `songs`): the whole process's wall time and
    /// peak RSS of `staccato render`, of `fluidsynth -F`, and of `fluidsynth -F` with
    /// `synth.dynamic-sample-loading` (which loads a preset's samples when a channel selects it),
    /// run by run alternating; and Staccato's time to its first note (its load figure: everything
    /// before the render starts, the render's first block following at once).
    static func run(fonts: [String], songs: [String], runs: Int) throws -> [String: Any] {
        let folder = try ScratchFolder.make("fonts").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let oneNotePath = folder + "/one-note.mid"
        let oneNote = MIDIFile(format: 0, division: .ticksPerQuarter(480), tracks: [[
            TrackEvent(tick: 0, kind: .channel(.noteOn(channel: 0, key: 60, velocity: 100))),
            TrackEvent(tick: 480, kind: .channel(.noteOff(channel: 0, key: 60, velocity: 0))),
            TrackEvent(tick: 480, kind: .endOfTrack),
        ]])
        try Data(oneNote.standardMIDIFileBytes()).write(to: URL(fileURLWithPath: oneNotePath))
        let songs = [oneNotePath] + songs
        func songName(_ path: String) -> String { path == oneNotePath ? "one note" : URL(fileURLWithPath: path).lastPathComponent }
        let staccato = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("staccato").path
        let wav = folder + "/out.wav"
        let fluidVersion = FluidSynth.version

        print("Fonts: each song through each font, median of \(runs) runs, engines, fonts and songs alternating")
        print("  CPU: \(cpuModel); staccato render (\(staccato)); fluidsynth \(fluidVersion ?? "not on PATH") -ni -q -F -r 48000")
        print("  wall s, RSS MB: the whole child process (wait4's rusage), font load included")
        print("  first note s: Staccato's load figure (render's 'with loading' time less its render time: song, font, engine)")
        print("  dyn: fluidsynth -o synth.dynamic-sample-loading=1 (a preset's samples loaded when a channel selects it)")
        print("  load s: fluidsynth given the font and no MIDI file, less fluidsynth --version: its time before any note")

        struct Runs { var wall: [[Double]] = [[], [], []], rss: [[Double]] = [[], [], []], firstNote: [Double] = [], failures: [String] = [] }
        var figures = [[Runs]](repeating: [Runs](repeating: Runs(), count: songs.count), count: fonts.count)
        // FluidSynth's own load, each way, per font: given the font and no MIDI file it loads
        // the font and exits; less its start-up (`--version`; given no font it would load the
        // system's default one). Before that it plays nothing: its time to a first note at least.
        var fluidLoads = [[[Double]]](repeating: [[], []], count: fonts.count)
        let megabyte = Double(1 << 20)
        let fluid = ["fluidsynth", "-ni", "-q", "-r", "48000", "-F", wav]
        for _ in 0..<runs {
            for (fontIndex, font) in fonts.enumerated() {
                if fluidVersion != nil, let bare = run(["fluidsynth", "--version"], folder: folder) {
                    for (way, extra) in [[], ["-o", "synth.dynamic-sample-loading=1"]].enumerated() {
                        if let fontOnly = run(fluid + extra + [font], folder: folder) {
                            fluidLoads[fontIndex][way].append(max(0, fontOnly.seconds - bare.seconds))
                        }
                    }
                }
                for (songIndex, song) in songs.enumerated() {
                    var commands = [[staccato, "render", song, "--soundfont", font, "--out", wav]]
                    if fluidVersion != nil {
                        commands.append(fluid + [font, song])
                        commands.append(fluid + ["-o", "synth.dynamic-sample-loading=1", font, song])
                    }
                    for (engine, command) in commands.enumerated() {
                        guard let measured = run(command, folder: folder), measured.status == 0 else {
                            figures[fontIndex][songIndex].failures.append("\(["staccato", "fluidsynth", "fluidsynth dyn"][engine]) failed")
                            continue
                        }
                        figures[fontIndex][songIndex].wall[engine].append(measured.seconds)
                        figures[fontIndex][songIndex].rss[engine].append(Double(measured.peakBytes) / megabyte)
                        if engine == 0, let load = staccatoLoadSeconds(measured.output) { figures[fontIndex][songIndex].firstNote.append(load) }
                    }
                }
            }
        }

        func cell(_ values: [Double], _ format: String) -> String { values.isEmpty ? "-" : String(format: format, values.median) }
        func ratio(_ ours: [Double], _ theirs: [Double]) -> String {
            ours.isEmpty || theirs.isEmpty || theirs.median == 0 ? "-" : String(format: "%.2fx", ours.median / theirs.median)
        }
        let header = ["font", "song", "Staccato wall s", "first note s", "RSS MB", "FluidSynth wall s", "load s", "RSS MB", "dyn wall s", "dyn load s",
                      "dyn RSS MB", "wall ratio", "RSS ratio"]
        var rows: [[String]] = []
        var reports: [[String: Any]] = []
        for (fontIndex, (font, perSong)) in zip(fonts, figures).enumerated() {
            let size = ((try? FileManager.default.attributesOfItem(atPath: font)[.size] as? Int) ?? nil) ?? 0
            for (song, runs) in zip(songs, perSong) {
                rows.append([URL(fileURLWithPath: font).lastPathComponent, songName(song),
                             cell(runs.wall[0], "%.2f"), cell(runs.firstNote, "%.2f"), cell(runs.rss[0], "%.1f"),
                             cell(runs.wall[1], "%.2f"), cell(fluidLoads[fontIndex][0], "%.2f"), cell(runs.rss[1], "%.1f"),
                             cell(runs.wall[2], "%.2f"), cell(fluidLoads[fontIndex][1], "%.2f"), cell(runs.rss[2], "%.1f"),
                             ratio(runs.wall[0], runs.wall[1]), ratio(runs.rss[0], runs.rss[1])])
                var report: [String: Any] = ["soundfont": font, "file_bytes": size, "song": songName(song)]
                for (key, values) in [("fluidsynth_load_seconds", fluidLoads[fontIndex][0]), ("fluidsynth_dynamic_load_seconds", fluidLoads[fontIndex][1])]
                    where !values.isEmpty {
                    report[key] = values.summary
                }
                for (key, values) in [("staccato_process_seconds", runs.wall[0]), ("staccato_peak_rss_mb", runs.rss[0]),
                                      ("staccato_first_note_seconds", runs.firstNote),
                                      ("fluidsynth_process_seconds", runs.wall[1]), ("fluidsynth_peak_rss_mb", runs.rss[1]),
                                      ("fluidsynth_dynamic_process_seconds", runs.wall[2]), ("fluidsynth_dynamic_peak_rss_mb", runs.rss[2])]
                    where !values.isEmpty {
                    report[key] = values.summary
                }
                if !runs.failures.isEmpty { report["failures"] = runs.failures }
                reports.append(report)
            }
        }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        for row in [header] + rows {
            print("  " + row.enumerated().map { column, text in
                column < 2 ? text.padding(toLength: widths[column], withPad: " ", startingAt: 0)
                           : String(repeating: " ", count: widths[column] - text.count) + text
            }.joined(separator: "  "))
        }
        for (font, perSong) in zip(fonts, figures) {
            for (song, runs) in zip(songs, perSong) where !runs.failures.isEmpty {
                print("  \(URL(fileURLWithPath: font).lastPathComponent), \(songName(song)): \(runs.failures.count) failed runs (\(Set(runs.failures).sorted().joined(separator: ", ")))")
            }
        }
        var result: [String: Any] = ["runs": runs, "cpu_model": cpuModel, "fonts": reports,
                                     "songs": songs.map(songName), "one_note": "middle C, 1 beat at 120 bpm"]
        result["fluidsynth_version"] = fluidVersion ?? NSNull()
        return result
    }
}
