import Engine
import Foundation
import Render
import Synchronization

/// Voices one core renders in real time at 64-frame periods: hold many notes of a real font, render
/// 64-frame blocks on one thread, count active voices every block, and divide the voice-frames
/// rendered per second by the sample rate. FluidSynth is measured the same way in the same run
/// (bench/fluidsynth_polyphony.py drives libfluidsynth), so the two figures are side by side. Cubic is
/// measured with the fastest build of the sampler kernels the CPU runs and with the generic one, and,
/// where the fastest is AVX-512, with the AVX2+FMA build too.
enum PolyphonyBenchmark {
    struct Figure {
        var voicesPerCore: Double
        var meanVoices: Double
        var realtimeFactor: Double
        /// Voice-frames per second of CPU time, over the sample rate: what the voices cost in CPU,
        /// charged the whole process's time however many threads share them, or one thread's
        /// when renders run side by side (`measureIndependently`); nil where not measured.
        var voicesPerCPUSecond: Double? = nil
    }

    /// The process's CPU time (every thread's), in nanoseconds.
    static var processCPUNanoseconds: UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return UInt64(time.nanoseconds)
    }

    /// What a render is timed by: elapsed time, or the CPU time of the rendering thread (which leaves
    /// out time the thread spent preempted when other work shares the machine).
    enum Clock: String {
        case wall, threadCPU = "cpu"

        /// Nanoseconds on this clock; only differences mean anything.
        var nanoseconds: UInt64 {
            switch self {
            case .wall:
                return DispatchTime.now().uptimeNanoseconds
            case .threadCPU:
                var time = timespec()
                clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
                return UInt64(time.nanoseconds)
            }
        }
    }

    static func measureStaccato(font: String, notes: Int, seconds: Double, cubic: Bool,
                                kernel: SamplerKernelVariant, clock: Clock, threads: Int = 1, rate: Double = 48_000,
                                program: (bank: UInt8, program: UInt8) = (0, 0)) throws -> Figure {
        let bank = try InstrumentLoader.load(path: font, sampleRate: rate)
        let engine = heldNotesEngine(bank: bank, notes: notes, cubic: cubic, kernel: kernel, threads: threads, rate: rate, program: program)
        return time(engine, seconds: seconds, clock: clock, cpuNanoseconds: { processCPUNanoseconds }, rate: rate)
    }

    /// An engine with `notes` notes of `bank` struck: `time` applies them and times the rest.
    static func heldNotesEngine(bank: SampleBank, notes: Int, cubic: Bool, kernel: SamplerKernelVariant, threads: Int,
                                rate: Double, program: (bank: UInt8, program: UInt8)) -> Engine {
        var configuration = RenderConfiguration(
            sampleRate: rate, maxFrameCount: timedBlockFrameCount, voiceCount: 4_096, cubicInterpolation: cubic,
            samplerKernel: kernel)
        configuration.threadCount = threads
        let engine = Engine(configuration: EngineConfiguration(render: configuration))
        engine.install(bank)
        let held = HeldNotes(bank: bank, program: program)
        held.prepare(engine)
        held.strike(engine, 0..<notes)
        return engine
    }

    /// The block the held notes are timed in: the real-time figure's period.
    static let timedBlockFrameCount = 64

    /// Applies `engine`'s struck notes in a first block, then times `seconds` of them held in
    /// 64-frame blocks; `cpuNanoseconds` is the CPU time the voices are charged (the process's, or
    /// one thread's when renders run side by side).
    static func time(_ engine: Engine, seconds: Double, clock: Clock, cpuNanoseconds: () -> UInt64, rate: Double) -> Figure {
        let block = timedBlockFrameCount
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: block * 2)
        defer { buffer.deallocate() }
        engine.renderer.render(into: buffer, frameCount: block)  // applies the note-ons, untimed
        let blocks = Int(seconds * rate) / block
        var voiceFrames = 0
        var elapsed = 0.0, cpu = 0.0
        // Voices are counted between timed stretches of 32 blocks, exactly as for FluidSynth.
        for first in stride(from: 0, to: blocks, by: 32) {
            let count = min(32, blocks - first)
            voiceFrames += engine.renderer.statistics.activeVoices * block * count
            let start = clock.nanoseconds, cpuStart = cpuNanoseconds()
            for _ in 0..<count { engine.renderer.render(into: buffer, frameCount: block) }
            elapsed += Double(clock.nanoseconds - start) / 1e9
            cpu += Double(cpuNanoseconds() - cpuStart) / 1e9
        }
        engine.processEvents()
        return Figure(voicesPerCore: Double(voiceFrames) / elapsed / rate,
                      meanVoices: Double(voiceFrames) / Double(blocks * block),
                      realtimeFactor: Double(blocks * block) / rate / elapsed,
                      voicesPerCPUSecond: Double(voiceFrames) / cpu / rate)
    }

    /// `count` one-thread renders of the same held notes at once, each on a thread of its own with
    /// an engine of its own (one loaded font between them, as one render's threads share one), each
    /// charged its own thread's CPU time: what `count` cores lose to each other on this machine
    /// with nothing to share or wait for, beside which the threads of one render are judged.
    static func measureIndependently(font: String, count: Int, notes: Int, seconds: Double, kernel: SamplerKernelVariant,
                                     rate: Double = 48_000, program: (bank: UInt8, program: UInt8)) throws -> [Figure] {
        let bank = try InstrumentLoader.load(path: font, sampleRate: rate)
        let side = SideBySide()
        let group = DispatchGroup()
        for _ in 0..<count {
            group.enter()
            let thread = Thread {
                // The engine is gone before the group is left, so its teardown is not timed as
                // part of what the caller measures next.
                do {
                    let engine = heldNotesEngine(bank: bank, notes: notes, cubic: true, kernel: kernel, threads: 1, rate: rate, program: program)
                    // Every render is ready before any is timed, so that they run side by side throughout.
                    side.ready.add(1, ordering: .acquiringAndReleasing)
                    while side.ready.load(ordering: .acquiring) < count { sched_yield() }
                    let figure = time(engine, seconds: seconds, clock: .wall, cpuNanoseconds: { Clock.threadCPU.nanoseconds }, rate: rate)
                    side.figures.withLock { $0.append(figure) }
                }
                group.leave()
            }
            thread.start()
        }
        group.wait()
        return side.figures.withLock { $0 }
    }

    static func measureFluidSynth(font: String, notes: Int, seconds: Double, clock: Clock, program: (bank: UInt8, program: UInt8) = (0, 0)) -> Figure? {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("fluidsynth_polyphony.py").path
        guard let run = ChildProcess.run(["python3", script, font, String(notes), String(seconds), "48000", clock.rawValue, String(program.program), String(program.bank)]), run.status == 0,
              let json = try? JSONSerialization.jsonObject(with: run.output) as? [String: Double],
              let voices = json["voices_per_core"], let mean = json["mean_voices"], let factor = json["realtime_factor"]
        else { return nil }
        return Figure(voicesPerCore: voices, meanVoices: mean, realtimeFactor: factor)
    }

    /// What one run measures, in order; `--engines` picks some of them.
    enum Contender: String, CaseIterable {
        case cubic, cubicAVX2 = "cubic-avx2", cubicGeneric = "cubic-generic", linear, fluidsynth
    }

    /// - Parameter threadCounts: cubic is measured with each; more than one thread is timed by wall
    ///   time (the threads' CPU time is reported beside it), and the ramp runs with each too.
    static func run(font: String, notes: Int, seconds: Double, runs: Int, clock: Clock, rampPeriods: [Int], rampRuns: Int,
                    contenders: Set<Contender> = Set(Contender.allCases), threadCounts: [Int] = [1],
                    beside: String? = nil, program: (bank: UInt8, program: UInt8) = (0, 0)) throws -> [String: Any] {
        print("Polyphony: voices one core renders in real time, 64-frame blocks at 48 kHz, \(notes) held notes of \(URL(fileURLWithPath: font).lastPathComponent)"
              + (program == (0, 0) ? "," : " (program \(program.bank):\(program.program) on every channel),"))
        print("median of \(runs) runs, each \(seconds) s of audio; the engines alternate run by run; timed by "
              + (clock == .wall ? "wall time" : "each render thread's CPU time"))
        let fastest = SamplerKernelVariant.fastestSupported
        var cubic: [Figure] = [], cubicAVX2: [Figure] = [], cubicGeneric: [Figure] = [], linear: [Figure] = [], fluid: [Figure] = []
        let moreThreads = Array(threadCounts.drop { $0 == 1 })
        var threaded = [[Figure]](repeating: [], count: moreThreads.count)
        var besideFigures: [Figure] = []
        // With more threads measured, as many one-thread renders at once: the machine's own loss.
        let independentCount = min(moreThreads.max() ?? 1, ProcessInfo.processInfo.activeProcessorCount)
        // Per run, the renders' mean voices per CPU second: one figure a run, as for the others;
        // beside it their mean voices per wall second (never more: a thread runs at most the wall
        // time) and the voices each render held.
        var independent: [Double] = [], independentWall: [Double] = [], independentVoices: [Double] = []
        for _ in 0..<runs {
            if let beside {
                besideFigures.append(try measureStaccato(font: beside, notes: notes, seconds: seconds, cubic: true, kernel: fastest, clock: clock))
            }
            if contenders.contains(.cubic) {
                cubic.append(try measureStaccato(font: font, notes: notes, seconds: seconds, cubic: true, kernel: fastest, clock: clock,
                                                 program: program))
                for (index, threads) in moreThreads.enumerated() {
                    threaded[index].append(try measureStaccato(font: font, notes: notes, seconds: seconds, cubic: true, kernel: fastest,
                                                               clock: .wall, threads: threads, program: program))
                }
                if independentCount > 1 {
                    let renders = try measureIndependently(font: font, count: independentCount, notes: notes, seconds: seconds,
                                                           kernel: fastest, program: program)
                    independent.append(renders.map { $0.voicesPerCPUSecond ?? 0 }.reduce(0, +) / Double(renders.count))
                    independentWall.append(renders.map(\.voicesPerCore).reduce(0, +) / Double(renders.count))
                    independentVoices.append(renders.map(\.meanVoices).reduce(0, +) / Double(renders.count))
                }
            }
            if fastest > .avx2FMA && contenders.contains(.cubicAVX2) {
                cubicAVX2.append(try measureStaccato(font: font, notes: notes, seconds: seconds, cubic: true, kernel: .avx2FMA, clock: clock,
                                                     program: program))
            }
            if fastest != .generic && contenders.contains(.cubicGeneric) {
                cubicGeneric.append(try measureStaccato(font: font, notes: notes, seconds: seconds, cubic: true, kernel: .generic, clock: clock,
                                                        program: program))
            }
            if contenders.contains(.linear) {
                linear.append(try measureStaccato(font: font, notes: notes, seconds: seconds, cubic: false, kernel: fastest, clock: clock,
                                                  program: program))
            }
            if contenders.contains(.fluidsynth), let figure = measureFluidSynth(font: font, notes: notes, seconds: seconds, clock: clock,
                                                                                       program: program) {
                fluid.append(figure)
            }
        }
        var report: [String: Any] = ["soundfont": URL(fileURLWithPath: font).lastPathComponent, "notes": notes,
                                     "seconds": seconds, "runs": runs, "block_frames": timedBlockFrameCount, "sample_rate": 48_000,
                                     "sampler_kernel": fastest.description, "clock": clock.rawValue,
                                     "program": "\(program.bank):\(program.program)"]
        let contenderOf: [String: Contender] = ["staccato_cubic": .cubic, "staccato_cubic_avx2": .cubicAVX2,
                                                "staccato_cubic_generic": .cubicGeneric,
                                                "staccato_linear": .linear, "fluidsynth": .fluidsynth]
        func show(_ name: String, key: String, _ figures: [Figure]) {
            guard let contender = contenderOf[key], contenders.contains(contender) else { return }
            guard !figures.isEmpty else { return print("  \(name.padding(toLength: 52, withPad: " ", startingAt: 0)) not measured (is fluidsynth installed?)") }
            let median = figures.median(by: \.voicesPerCore)
            print("  \(name.padding(toLength: 52, withPad: " ", startingAt: 0)) \(String(format: "%7.0f", median.voicesPerCore)) voices/core"
                  + "  (\(String(format: "%.0f", median.meanVoices)) voices sounding, \(String(format: "%.2f", median.realtimeFactor))x real time)")
            report[key] = ["voices_per_core": figures.map(\.voicesPerCore).summary,
                           "mean_voices": median.meanVoices, "realtime_factor": median.realtimeFactor]
        }
        show("Staccato, cubic (4-point), \(fastest) kernels", key: "staccato_cubic", cubic)
        if let single = cubic.isEmpty ? nil : cubic.median(by: \.voicesPerCore) {
            // Per CPU second, each figure is the median of the runs' own per-CPU figures.
            let singlePerCPU = cubic.map { $0.voicesPerCPUSecond ?? $0.voicesPerCore }.median
            var byThreads: [[String: Any]] = [["threads": 1, "voices_per_second": single.voicesPerCore,
                                               "voices_per_cpu_second": singlePerCPU]]
            for (index, threads) in moreThreads.enumerated() where !threaded[index].isEmpty {
                let median = threaded[index].median(by: \.voicesPerCore)
                let perCPU = threaded[index].map { $0.voicesPerCPUSecond ?? 0 }.median
                print("  \("  the same on \(threads) threads".padding(toLength: 52, withPad: " ", startingAt: 0)) \(String(format: "%7.0f", median.voicesPerCore)) voices/s"
                      + " (\(String(format: "%.2f", median.voicesPerCore / single.voicesPerCore))x one thread); per second of CPU"
                      + " \(String(format: "%.0f", perCPU)) (\(String(format: "%+.1f", 100 * (perCPU / singlePerCPU - 1))) % against one thread's \(String(format: "%.0f", singlePerCPU)))")
                byThreads.append(["threads": threads, "voices_per_second": threaded[index].map(\.voicesPerCore).summary,
                                  "voices_per_cpu_second": perCPU, "speedup": median.voicesPerCore / single.voicesPerCore])
            }
            if !moreThreads.isEmpty { report["staccato_cubic_by_threads"] = byThreads }
            if !independent.isEmpty {
                print("  \("  \(independentCount) one-thread renders at once".padding(toLength: 52, withPad: " ", startingAt: 0))"
                      + " per second of CPU \(String(format: "%.0f", independent.median)) each (\(String(format: "%+.1f", 100 * (independent.median / singlePerCPU - 1))) %"
                      + " against one thread alone: what \(independentCount) cores lose to each other on this machine, sharing nothing)")
                report["staccato_cubic_independent"] = ["count": independentCount, "voices_per_cpu_second": independent.summary,
                                                        "voices_per_wall_second": independentWall.summary,
                                                        "mean_voices": independentVoices.median,
                                                        "against_one_thread": independent.median / singlePerCPU - 1]
            }
        }
        if !cubicAVX2.isEmpty {
            show("Staccato, cubic (4-point), \(SamplerKernelVariant.avx2FMA) kernels", key: "staccato_cubic_avx2", cubicAVX2)
        }
        if !cubicGeneric.isEmpty {
            show("Staccato, cubic (4-point), \(SamplerKernelVariant.generic) kernels", key: "staccato_cubic_generic", cubicGeneric)
        }
        show("Staccato, linear, \(fastest) kernels", key: "staccato_linear", linear)
        if let beside, !besideFigures.isEmpty {
            let median = besideFigures.median(by: \.voicesPerCore)
            let name = URL(fileURLWithPath: beside).lastPathComponent
            let label = "Staccato, cubic, \(fastest) kernels, \(name)"
            print("  \(label.count >= 52 ? label : label.padding(toLength: 52, withPad: " ", startingAt: 0)) \(String(format: "%7.0f", median.voicesPerCore)) voices/core"
                  + "  (\(String(format: "%.0f", median.meanVoices)) voices sounding, \(String(format: "%.2f", median.realtimeFactor))x real time)")
            var entry: [String: Any] = ["instrument": name, "voices_per_core": besideFigures.map(\.voicesPerCore).summary,
                                        "mean_voices": median.meanVoices, "realtime_factor": median.realtimeFactor]
            if !cubic.isEmpty {
                let ratio = median.voicesPerCore / cubic.map(\.voicesPerCore).median
                print("  ratio \(name) / \(URL(fileURLWithPath: font).lastPathComponent), cubic: \(String(format: "%.2f", ratio))x")
                entry["ratio_over_font"] = ratio
            }
            report["staccato_cubic_beside"] = entry
        }
        show("FluidSynth \(FluidSynth.version ?? ""), 4th-order interpolation", key: "fluidsynth", fluid)
        report["fluidsynth_version"] = FluidSynth.version ?? NSNull()
        if !cubic.isEmpty && !fluid.isEmpty {
            let ratio = cubic.map(\.voicesPerCore).median / fluid.map(\.voicesPerCore).median
            print("  ratio Staccato cubic / FluidSynth: \(String(format: "%.2f", ratio))x")
            report["ratio_staccato_cubic_over_fluidsynth"] = ratio
        }
        if !cubicGeneric.isEmpty && !cubic.isEmpty {  // the ratio needs both (--engines may name one)
            let ratio = cubic.map(\.voicesPerCore).median / cubicGeneric.map(\.voicesPerCore).median
            print("  ratio Staccato cubic, \(fastest) / \(SamplerKernelVariant.generic) kernels: \(String(format: "%.2f", ratio))x")
            report["ratio_staccato_cubic_fastest_over_generic_kernels"] = ratio
        }
        if !cubicAVX2.isEmpty && !cubic.isEmpty {
            let ratio = cubic.map(\.voicesPerCore).median / cubicAVX2.map(\.voicesPerCore).median
            print("  ratio Staccato cubic, \(fastest) / \(SamplerKernelVariant.avx2FMA) kernels: \(String(format: "%.2f", ratio))x")
            report["ratio_staccato_cubic_fastest_over_avx2_kernels"] = ratio
        }
        report["ramp_runs"] = rampRuns
        guard rampRuns > 0 else { return report }
        report["ramp"] = try PolyphonyRamp.run(font: font, periods: rampPeriods, runs: rampRuns, clock: clock, threadCounts: threadCounts,
                                               program: program)
        report["ramp_load_limit"] = PolyphonyRamp.loadLimit
        return report
    }
}

/// What the renders of `PolyphonyBenchmark.measureIndependently` share: a start line and their figures.
private final class SideBySide: Sendable {
    let ready = Atomic<Int>(0)
    let figures = Mutex<[PolyphonyBenchmark.Figure]>([])
}
