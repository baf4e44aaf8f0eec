import Engine
import Foundation
import Render

/// Voices rendered in real time per core at each period: on one thread, render blocks of one period
/// with N held voices, time every block, and raise N (doubling, then bisecting) until the p99.9
/// block time passes 80 % of the period's duration. The figure is the largest N that held, counted
/// as the fewest voices the renderer reported sounding after any timed block (notes of a real
/// instrument decay, so the count is checked, not assumed).
///
/// The blocks are rendered as the device thread renders them: one a period, on a SCHED_FIFO thread
/// (`RealtimeThread`), so the figure is the render's and not the time slices of other work.
/// Each trial times max(256 blocks, 1 s of audio); p99.9 is the nearest rank, so with fewer than
/// 1,000 blocks (periods of 256 frames and more) it is the slowest block, which is the stricter figure.
enum PolyphonyRamp {
    static let periodFrameCounts = [16, 32, 64, 128, 256, 512, 1_024]
    static let loadLimit = 0.8
    static let sampleRate = 48_000.0
    /// The most voices `RenderConfiguration` builds.
    static let poolLimit = RenderConfiguration.maximumVoiceCount
    static let firstTrialVoices = 256

    struct Trial {
        var requestedVoices: Int
        var voices: Int
        var p999Nanoseconds: UInt64
        var blocks: Int
        var scheduling: String
    }

    struct Ramp {
        var period: Int
        var cubic: Bool
        var trials: [Trial] = []
        var best: Trial?
        /// The pool's limit, or all the font's distinct notes sounding if that is fewer voices.
        var voiceLimit: Int
        var reachedLimit: Bool { best.map { $0.requestedVoices >= voiceLimit } ?? false }

        var deadlineNanoseconds: Double { Double(period) / PolyphonyRamp.sampleRate * 1e9 }
        func holds(_ trial: Trial) -> Bool { Double(trial.p999Nanoseconds) <= PolyphonyRamp.loadLimit * deadlineNanoseconds }
    }

    static func trial(bank: SampleBank, held: HeldNotes, period: Int, voices: Int, cubic: Bool, clock: PolyphonyBenchmark.Clock,
                      threads: Int) -> Trial {
        var configuration = RenderConfiguration(sampleRate: sampleRate, maxFrameCount: period, voiceCount: poolLimit, cubicInterpolation: cubic)
        configuration.threadCount = threads
        let engine = Engine(configuration: EngineConfiguration(render: configuration))
        engine.install(bank)
        held.prepare(engine)
        var notes = 0
        while notes < held.distinctCount && held.voiceCount(0..<notes) < voices { notes += 1 }
        held.strike(engine, 0..<notes)
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: period * 2)
        defer { buffer.deallocate() }
        // The block that starts the voices and a few after it are not timed: they measure note-on
        // handling and cold caches, which the burst benchmark covers.
        for _ in 0..<8 { engine.renderer.render(into: buffer, frameCount: period) }
        let blocks = max(256, Int(sampleRate) / period)
        var times: [UInt64] = []
        times.reserveCapacity(blocks)
        var fewest = Int.max
        let scheduling = RealtimeThread.run(periodNanoseconds: Int(Double(period) / sampleRate * 1e9)) { thread in
            // The voice workers run as the device thread does, as live playback runs them.
            if case let .fifo(priority) = thread.scheduling { engine.renderer.setVoiceWorkerPriority(priority) }
            engine.renderer.setVoiceWorkersPaced(true)
            for _ in 0..<blocks {
                thread.waitForNextPeriod()
                let start = clock.nanoseconds
                engine.renderer.render(into: buffer, frameCount: period)
                times.append(clock.nanoseconds - start)
                fewest = min(fewest, engine.renderer.statistics.activeVoices)
            }
        }
        engine.processEvents()
        times.sort()
        return Trial(requestedVoices: voices, voices: fewest, p999Nanoseconds: times.sortedQuantile(0.999), blocks: blocks,
                     scheduling: "\(scheduling)")
    }

    /// Doubles from 256 voices while the load holds, then bisects the last step to 1/16 of it.
    /// A count held when one of two trials held.
    static func ramp(bank: SampleBank, held: HeldNotes, period: Int, cubic: Bool, clock: PolyphonyBenchmark.Clock, threads: Int = 1) -> Ramp {
        var ramp = Ramp(period: period, cubic: cubic, voiceLimit: min(poolLimit, held.distinctVoiceCount))
        let voiceLimit = ramp.voiceLimit
        // Other work on the machine only ever adds time, so a trial that fails is run once more
        // and the count holds if either run held.
        func attempt(_ voices: Int) -> Bool {
            for _ in 0..<2 {
                let result = trial(bank: bank, held: held, period: period, voices: voices, cubic: cubic, clock: clock, threads: threads)
                ramp.trials.append(result)
                guard ramp.holds(result) else { continue }
                if result.voices > (ramp.best?.voices ?? -1) { ramp.best = result }
                return true
            }
            return false
        }
        var held = 0
        var failed = 0
        var voices = firstTrialVoices
        while failed == 0 {
            if attempt(voices) {
                held = voices
                if voices >= voiceLimit { return ramp }
                voices = min(2 * voices, voiceLimit)
            } else {
                failed = voices
            }
        }
        let resolution = max(16, failed / 16)
        while failed - held > resolution {
            let middle = (held + failed) / 2
            if attempt(middle) { held = middle } else { failed = middle }
        }
        return ramp
    }

    /// Per period, `runs` ramps of each interpolation, alternating; the median ramp is the figure.
    /// Per period, `runs` ramps of each interpolation on one thread, alternating, and of cubic on each
    /// of `threadCounts` above one; the median ramp is the figure.
    static func run(font: String, periods: [Int], runs: Int, clock: PolyphonyBenchmark.Clock, threadCounts: [Int] = [1],
                    program: (bank: UInt8, program: UInt8) = (0, 0)) throws -> [[String: Any]] {
        let moreThreads = threadCounts.filter { $0 > 1 }
        let bank = try InstrumentLoader.load(path: font, sampleRate: sampleRate)
        let held = HeldNotes(bank: bank, program: program)
        print("")
        print("Real-time voices per period: one thread renders blocks of one period with N held voices; N rises until the")
        print("p99.9 block time passes 80 % of the period (a trial per N: max(256 blocks, 1 s of audio), every block timed; one retry),")
        print("on a thread paced like the device thread: SCHED_FIFO 70 when allowed, woken once a period; median of \(runs) ramps;")
        print(clock == .wall ? "blocks timed by wall time (a block the host took the CPU from counts whole)"
                             : "blocks timed by the thread's CPU time (time the host or other threads took the CPU is left out)")
        print("held: \(held.distinctCount) distinct notes (\(HeldNotes.melodicChannels.count) channels × \(held.keys.count) keys) of program \(held.bank):\(held.program), "
              + "\(held.distinctVoiceCount) voices at once; a pool of \(poolLimit)")
        print("  period  deadline  80 % of it   cubic: voices  p99.9 (of period)   linear: voices  p99.9 (of period)   every ramp: cubic | linear")
        var rows: [[String: Any]] = []
        for period in periods {
            var cubicRamps: [Ramp] = [], linearRamps: [Ramp] = []
            var threadedRamps = [[Ramp]](repeating: [], count: moreThreads.count)
            for _ in 0..<runs {
                cubicRamps.append(ramp(bank: bank, held: held, period: period, cubic: true, clock: clock))
                linearRamps.append(ramp(bank: bank, held: held, period: period, cubic: false, clock: clock))
                for (index, threads) in moreThreads.enumerated() {
                    threadedRamps[index].append(ramp(bank: bank, held: held, period: period, cubic: true, clock: clock, threads: threads))
                }
            }
            let cubic = cubicRamps.median { Double($0.best?.voices ?? 0) }
            let linear = linearRamps.median { Double($0.best?.voices ?? 0) }
            let deadline = cubic.deadlineNanoseconds
            let everyRamp = [cubicRamps, linearRamps].map { $0.map { String($0.best?.voices ?? 0) }.joined(separator: ", ") }
            print("  \(String(period).padding(toLength: 6, withPad: " ", startingAt: 0))"
                  + String(format: "  %6.0f µs   %6.0f µs", deadline / 1e3, loadLimit * deadline / 1e3)
                  + "   \(describe(cubic))   \(describe(linear))   \(everyRamp.joined(separator: " | "))")
            var row: [String: Any] = ["period_frames": period, "deadline_us": deadline / 1e3, "limit_us": loadLimit * deadline / 1e3,
                                      "cubic": json(cubic, every: cubicRamps), "linear": json(linear, every: linearRamps)]
            var byThreads: [[String: Any]] = []
            for (index, threads) in moreThreads.enumerated() {
                let median = threadedRamps[index].median { Double($0.best?.voices ?? 0) }
                let ratio = Double(median.best?.voices ?? 0) / Double(max(cubic.best?.voices ?? 0, 1))
                print("          cubic on \(threads) threads:".padding(toLength: 37, withPad: " ", startingAt: 0)
                      + "\(describe(median))(\(String(format: "%.2f", ratio))x one thread)   "
                      + threadedRamps[index].map { String($0.best?.voices ?? 0) }.joined(separator: ", "))
                var entry = json(median, every: threadedRamps[index])
                entry["threads"] = threads
                entry["ratio_to_one_thread"] = ratio
                byThreads.append(entry)
            }
            if !byThreads.isEmpty { row["cubic_by_threads"] = byThreads }
            rows.append(row)
        }
        if rows.contains(where: { ($0["cubic"] as? [String: Any])?["reached_voice_limit"] as? Bool == true }) {
            print("  ≥: the load still held at \(min(poolLimit, held.distinctVoiceCount)) voices, the most this font's distinct notes and the voice pool sound at once")
        }
        return rows
    }

    static func describe(_ ramp: Ramp) -> String {
        guard let best = ramp.best else {
            let first = ramp.trials.first.map { String(format: "%.0f µs", Double($0.p999Nanoseconds) / 1e3) } ?? "-"
            return "< \(firstTrialVoices) (p99.9 \(first))".padding(toLength: 36, withPad: " ", startingAt: 0)
        }
        let voices = (ramp.reachedLimit ? "≥ " : "") + best.voices.formatted()
        return voices.leftPadded(to: 14) + String(format: "  %6.0f µs (%3.0f %%)  ", Double(best.p999Nanoseconds) / 1e3,
                                                   100 * Double(best.p999Nanoseconds) / ramp.deadlineNanoseconds)
    }

    /// The median ramp `ramp` in full, and the voices of `every` ramp.
    static func json(_ ramp: Ramp, every: [Ramp]) -> [String: Any] {
        var object: [String: Any] = ["reached_voice_limit": ramp.reachedLimit, "voice_limit": ramp.voiceLimit,
                                     "voices_every_ramp": every.map { $0.best?.voices ?? 0 },
                                     "trials": ramp.trials.map { ["requested_voices": $0.requestedVoices, "voices": $0.voices,
                                                                  "p99_9_us": Double($0.p999Nanoseconds) / 1e3, "blocks": $0.blocks, "scheduling": $0.scheduling,
                                                                  "held": ramp.holds($0)] }]
        if let best = ramp.best {
            object["voices"] = best.voices
            object["p99_9_us"] = Double(best.p999Nanoseconds) / 1e3
            object["load"] = Double(best.p999Nanoseconds) / ramp.deadlineNanoseconds
        } else {
            object["voices"] = 0
        }
        return object
    }
}

extension String {
    func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
}
