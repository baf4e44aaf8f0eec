import AudioFile
import Engine
import Foundation
import MIDI
import Render
import Synchronization

/// Offline render speed, as a multiple of real time, of whole MIDI files to WAV files: Staccato
/// through `Engine.render(_:to:)` (what `staccato render` does), FluidSynth through
/// its `-F` fast render, alternating engine by engine and run by run so both see the same machine.
enum ThroughputBenchmark {
    static let defaultSongs = ["joplin_maple_leaf_rag", "mozart_turkish_march", "converse_what_a_friend_piano_pedal"]
        .map { InstrumentLoader.shippedFile("Tests/Fixtures/midi/\($0).mid") }

    /// One render by Staccato of a parsed song with an already loaded font; the engine is built
    /// inside the timing, as `staccato render` builds one per file.
    static func renderStaccato(_ song: MIDIFile, bank: SampleBank, to output: String, threads: Int) throws -> (seconds: Double, audioSeconds: Double) {
        let start = DispatchTime.now().uptimeNanoseconds
        // Dry, as fluidsynth runs here (-R 0 -C 0): the same work on both sides.
        var configuration = RenderConfiguration(sampleRate: 48_000, effects: false)
        configuration.threadCount = threads
        let engine = Engine(configuration: EngineConfiguration(render: configuration))
        engine.install(bank)
        let summary = try engine.render(song, to: output)
        return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, summary.seconds)
    }

    /// `count` one-thread renders of the song at once, each on its own thread with its own engine
    /// (as `staccato render --out-dir` runs a batch): what `count` cores give work that shares
    /// nothing, the ceiling for one render on `count` threads on this machine.
    /// - Returns: the wall time from the first start to the last end, and the audio one render
    ///   made (the same song each time).
    static func renderIndependently(_ song: MIDIFile, bank: SampleBank, count: Int, to folder: URL) throws -> (seconds: Double, audioSeconds: Double) {
        let outcomes = IndependentOutcomes()
        let start = DispatchTime.now().uptimeNanoseconds
        // No more at once than there are cores (the caller caps `count`), so Dispatch's pool runs them all together.
        DispatchQueue.concurrentPerform(iterations: count) { index in
            let output = folder.appendingPathComponent("independent-\(index).wav").path
            let outcome = Result { try renderStaccato(song, bank: bank, to: output, threads: 1).audioSeconds }
            outcomes.results.withLock { $0.append(outcome) }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        var audioSeconds = 0.0
        for outcome in outcomes.results.withLock({ $0 }) { audioSeconds = try outcome.get() }
        return (seconds, audioSeconds)
    }

    /// - Parameter threadCounts: Staccato renders each song with each of these thread counts, in
    ///   turn run by run; the first is the one compared with FluidSynth, the others with it. With
    ///   1 and more among them, each run also renders the song that many times at once, one thread
    ///   each (`renderIndependently`), for the machine's own ceiling.
    static func run(font: String, songs: [String], runs: Int, threadCounts: [Int]) throws -> [String: Any] {
        let folder = try ScratchFolder.make("throughput")
        let outputFolder = folder.deletingLastPathComponent().path
        defer { try? FileManager.default.removeItem(at: folder) }
        let ours = folder.appendingPathComponent("staccato.wav").path
        let theirs = folder.appendingPathComponent("fluidsynth.wav").path

        let loadStart = DispatchTime.now().uptimeNanoseconds
        let bank = try InstrumentLoader.load(path: font, sampleRate: 48_000)
        let loadSeconds = Double(DispatchTime.now().uptimeNanoseconds - loadStart) / 1e9
        let fluidVersion = FluidSynth.version
        print("Throughput: offline render to a float WAV (Staccato) / WAV (FluidSynth -F) of whole MIDI files, 48 kHz,")
        print("\(URL(fileURLWithPath: font).lastPathComponent), median of \(runs) runs, engines alternating run by run;"
              + " Staccato with \(threadCounts.map(String.init).joined(separator: ", ")) thread\(threadCounts == [1] ? "" : "s") on \(ProcessInfo.processInfo.activeProcessorCount) cores, \(FontsBenchmark.cpuModel)")
        print("  Staccato font load: \(String(format: "%.3f", loadSeconds)) s (once; not in the render times below)")
        print("  Both engines write their WAV files to \(outputFolder)"
              + (folder.path.hasPrefix("/dev/shm/") ? " (memory: the renders are timed, not the disk)" : ""))
        if fluidVersion == nil { print("  fluidsynth is not on PATH: Staccato alone (apt install fluidsynth, or scripts/install-deps --reference)") }

        var files: [[String: Any]] = []
        var fluidLoad: [Double] = []
        for path in songs {
            let song = try MIDIFile.read(path: path)
            var withLoad: [Double] = [], fluid: [Double] = [], fluidRenderOnly: [Double] = []
            // Real-time factors by thread count; the first count's are the ones FluidSynth is set beside.
            var threaded = [[Double]](repeating: [], count: threadCounts.count)
            var audio = (staccato: 0.0, fluid: 0.0)
            // The independent renders' combined real-time factor, set beside the one-thread render's.
            let oneThread = threadCounts.firstIndex(of: 1)
            let independentCount = min(threadCounts.max() ?? 1, ProcessInfo.processInfo.activeProcessorCount)
            var independentCombined: [Double] = []
            for _ in 0..<runs {
                for (index, threads) in threadCounts.enumerated() {
                    let render = try renderStaccato(song, bank: bank, to: ours, threads: threads)
                    threaded[index].append(render.audioSeconds / render.seconds)
                    if index == 0 { withLoad.append(render.audioSeconds / (render.seconds + loadSeconds)) }
                    audio.staccato = render.audioSeconds
                }
                if oneThread != nil, independentCount > 1 {
                    let together = try renderIndependently(song, bank: bank, count: independentCount, to: folder)
                    independentCombined.append(Double(independentCount) * together.audioSeconds / together.seconds)
                }
                if fluidVersion != nil, let render = FluidSynth.render(font: font, song: path, to: theirs),
                   let load = FluidSynth.loadSeconds(font: font, output: theirs) {
                    fluid.append(render.audioSeconds / render.seconds)
                    fluidLoad.append(load)
                    fluidRenderOnly.append(render.audioSeconds / max(render.seconds - load, 1e-9))
                    audio.fluid = render.audioSeconds
                }
            }
            let staccato = threaded[0]
            let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
            var line = "  \(name.padding(toLength: 36, withPad: " ", startingAt: 0)) Staccato \(String(format: "%6.1f", staccato.median))x"
                + " (\(String(format: "%.1f", withLoad.median))x with font load) of \(String(format: "%.1f", audio.staccato)) s"
            var file: [String: Any] = ["file": name, "staccato_audio_seconds": audio.staccato,
                                       "staccato_realtime_factor": staccato.summary,
                                       "staccato_realtime_factor_with_load": withLoad.summary]
            if !fluid.isEmpty {
                let ratio = staccato.median / fluid.median
                line += ";  FluidSynth \(String(format: "%5.1f", fluid.median))x of \(String(format: "%.1f", audio.fluid)) s;  ratio \(String(format: "%.2f", ratio))x"
                    + " (\(String(format: "%.2f", staccato.median / fluidRenderOnly.median))x against FluidSynth less its start-up and load)"
                file["fluidsynth_audio_seconds"] = audio.fluid
                file["fluidsynth_realtime_factor"] = fluid.summary
                file["ratio_staccato_over_fluidsynth"] = ratio
                file["fluidsynth_realtime_factor_less_load"] = fluidRenderOnly.summary
                file["ratio_staccato_over_fluidsynth_less_load"] = staccato.median / fluidRenderOnly.median
            } else if fluidVersion != nil {
                line += ";  FluidSynth failed on this file"
            }
            print(line)
            if threadCounts.count > 1 {
                var threads: [[String: Any]] = []
                var parts: [String] = []
                for (index, count) in threadCounts.enumerated() {
                    let speedup = threaded[index].median / threaded[0].median
                    parts.append("\(count) thread\(count == 1 ? "" : "s") \(String(format: "%.1f", threaded[index].median))x real time"
                                 + (index == 0 ? "" : " (\(String(format: "%.2f", speedup))x the speed of \(threadCounts[0]))"))
                    threads.append(["threads": count, "staccato_realtime_factor": threaded[index].summary, "speedup": speedup])
                }
                print("    " + parts.joined(separator: ";  "))
                file["staccato_by_threads"] = threads
                if let oneThread, !independentCombined.isEmpty {
                    // Medians over medians, as the thread counts' speed-ups are.
                    let speedup = independentCombined.median / threaded[oneThread].median
                    print("    \(independentCount) one-thread renders at once: \(String(format: "%.1f", independentCombined.median))x real time together,"
                          + " \(String(format: "%.2f", speedup))x the speed of one alone (work that shares nothing: what \(independentCount) cores give on this machine)")
                    file["independent_one_thread_renders"] = ["count": independentCount, "combined_realtime_factor": independentCombined.summary,
                                                              "speedup_over_one": speedup]
                }
            }
            files.append(file)
        }
        if fluidVersion != nil {
            print("  (FluidSynth's figure is the whole child process, start-up and font load included"
                  + (fluidLoad.isEmpty ? "" : ": \(String(format: "%.3f", fluidLoad.median)) s of it, timed alone with no MIDI file") + ";")
            print("   target: Staccato >= 2x FluidSynth)")
        }
        var report: [String: Any] = ["soundfont": URL(fileURLWithPath: font).lastPathComponent, "sample_rate": 48_000, "runs": runs,
                                     "thread_counts": threadCounts, "cores": ProcessInfo.processInfo.activeProcessorCount, "cpu": FontsBenchmark.cpuModel,
                                     "staccato_font_load_seconds": loadSeconds, "output_folder": outputFolder,
                                     "files": files]
        report["fluidsynth_version"] = fluidVersion ?? NSNull()
        if !fluidLoad.isEmpty { report["fluidsynth_load_seconds"] = fluidLoad.summary }
        return report
    }
}

/// The outcomes of renders run at once (`ThroughputBenchmark.renderIndependently`).
/// - Thread: any. A lock guards them.
private final class IndependentOutcomes: Sendable {
    let results = Mutex<[Result<Double, any Error>]>([])
}
