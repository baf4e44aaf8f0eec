import Engine
import Foundation
import Render

/// N note-ons in one 64-frame block, with the default 256-voice pool: the time of the block that
/// receives them and of the blocks after it while the stolen voices fade, against the block's
/// deadline, and whether any note-on was lost. The blocks are rendered as the device thread renders
/// them (`RealtimeThread`: SCHED_FIFO when allowed, one block a period). FluidSynth gets the same burst in the same run
/// (bench/fluidsynth_burst.py: the note-ons, then one 64-frame `fluid_synth_write_float`).
///
/// Lost note-ons are counted at each step they could be lost: refused by the command ring, not
/// received by the renderer, or received and started no voice. The renderer has no counter of voice
/// starts, so they are derived: with no voice ending in the burst's first block (none can: a voice
/// ends only after its release), every voice started is either still sounding or was stolen, so
/// starts = sounding + stolen. What the same notes should start is the sum of the voices each note's
/// key starts alone (`HeldNotes.voicesPerKey`). Past the font's distinct notes (15 channels × its
/// keys) notes repeat; a repeat releases its earlier note, which by then was stolen long ago.
enum BurstBenchmark {
    static let noteCounts = [512, 1_024, 2_048]
    static let blockFrames = 64
    static let sampleRate = 48_000.0
    /// The burst's block and the blocks that cover the 5 ms fade of the stolen voices, and more.
    static let blocksTimed = 16

    struct Figure {
        var worstNanoseconds: UInt64
        var burstBlockNanoseconds: UInt64
        var refused: Int
        var received: Int
        var unmapped: Int
        var voicesStarted: Int
        var stolen: Int
        var hardCuts: Int
        var soundingAfter: Int
    }

    static func measure(bank: SampleBank, held: HeldNotes, notes: Int, threads: Int) -> Figure {
        var configuration = RenderConfiguration(sampleRate: sampleRate, maxFrameCount: blockFrames, voiceCount: 256)
        configuration.threadCount = threads
        let engine = Engine(configuration: EngineConfiguration(render: configuration, commandCapacity: max(4_096, notes + 64)))
        engine.install(bank)
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: blockFrames * 2)
        defer { buffer.deallocate() }
        for _ in 0..<16 { engine.renderer.render(into: buffer, frameCount: blockFrames) }
        let before = engine.renderer.statistics
        let refused = held.strike(engine, 0..<notes)
        var times: [UInt64] = []
        times.reserveCapacity(blocksTimed)
        var afterBurst = before
        _ = RealtimeThread.run(periodNanoseconds: Int(Double(blockFrames) / sampleRate * 1e9)) { thread in
            if case let .fifo(priority) = thread.scheduling { engine.renderer.setVoiceWorkerPriority(priority) }
            engine.renderer.setVoiceWorkersPaced(true)
            for block in 0..<blocksTimed {
                thread.waitForNextPeriod()
                let start = DispatchTime.now().uptimeNanoseconds
                engine.renderer.render(into: buffer, frameCount: blockFrames)
                times.append(DispatchTime.now().uptimeNanoseconds - start)
                if block == 0 { afterBurst = engine.renderer.statistics }
            }
        }
        let after = engine.renderer.statistics
        engine.processEvents()
        return Figure(worstNanoseconds: times.max()!, burstBlockNanoseconds: times[0], refused: refused,
                      received: afterBurst.noteOns - before.noteOns, unmapped: afterBurst.unmappedNotes - before.unmappedNotes,
                      voicesStarted: afterBurst.activeVoices + afterBurst.stolenVoices - before.stolenVoices,
                      stolen: after.stolenVoices - before.stolenVoices, hardCuts: after.hardCuts - before.hardCuts,
                      soundingAfter: afterBurst.activeVoices)
    }

    struct FluidFigure {
        var worstNanoseconds: Double
        var burstBlockNanoseconds: Double
        var voicesAfter: Int
        var failedAllocations: Int
        var ctypesCallsNanoseconds: Double
    }

    static func measureFluidSynth(font: String, held: HeldNotes, notes: Int) -> FluidFigure? {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("fluidsynth_burst.py").path
        guard let run = ChildProcess.run(["python3", script, font, String(notes), String(blocksTimed),
                                                 held.keys.map(String.init).joined(separator: ",")]), run.status == 0,
              let json = try? JSONSerialization.jsonObject(with: run.output) as? [String: Double],
              let worst = json["worst_block_ns"], let first = json["burst_block_ns"],
              let voices = json["voices_after"], let failed = json["failed_voice_allocations"], let calls = json["ctypes_calls_ns"]
        else { return nil }
        return FluidFigure(worstNanoseconds: worst, burstBlockNanoseconds: first, voicesAfter: Int(voices), failedAllocations: Int(failed),
                           ctypesCallsNanoseconds: calls)
    }

    /// - Parameter threads: the threads rendering the voices (`RenderConfiguration.threadCount`).
    static func run(font: String, noteCounts: [Int], runs: Int, threads: Int = 1) throws -> [String: Any] {
        let bank = try InstrumentLoader.load(path: font, sampleRate: sampleRate)
        let held = HeldNotes(bank: bank)
        let deadline = Double(blockFrames) / sampleRate * 1e9
        print("Burst: N note-ons (velocity 100, no pedal) in one 64-frame block at 48 kHz, 256-voice pool (64 fade slots), \(URL(fileURLWithPath: font).lastPathComponent);")
        print("worst = slowest of the burst's block and the \(blocksTimed - 1) after it (the steals' 5 ms fades); deadline \(String(format: "%.0f", deadline / 1e3)) µs;")
        print("median of \(runs) runs (Staccato's blocks on a paced SCHED_FIFO thread, voices on \(threads) thread\(threads == 1 ? "" : "s")); Staccato and FluidSynth (polyphony 256, the note-ons then one 64-frame write) alternate run by run")
        print("      N   worst (burst block)    of deadline   dropped  refused  stolen  hard cuts  sounding   FluidSynth worst (burst)  voices  failed allocations")
        var rows: [[String: Any]] = []
        for notes in noteCounts {
            let expected = held.voiceCount(0..<notes)
            var figures: [Figure] = [], fluid: [FluidFigure] = []
            for _ in 0..<runs {
                figures.append(measure(bank: bank, held: held, notes: notes, threads: threads))
                if let figure = measureFluidSynth(font: font, held: held, notes: notes) { fluid.append(figure) }
            }
            let median = figures.median { Double($0.worstNanoseconds) }
            // Every run's losses, not the median run's: one lost note anywhere is a lost note.
            let dropped = figures.map { notes - $0.received + $0.unmapped + max(0, expected - $0.voicesStarted) }.max()!
            var line = "  \(String(notes).leftPadded(to: 5))  " + String(format: "%7.0f µs (%5.0f)", Double(median.worstNanoseconds) / 1e3, Double(median.burstBlockNanoseconds) / 1e3)
                + String(format: "   %7.1f %%", 100 * Double(median.worstNanoseconds) / deadline)
                + "  \(String(dropped).leftPadded(to: 8))  \(String(median.refused).leftPadded(to: 7))  \(String(median.stolen).leftPadded(to: 6))"
                + "  \(String(median.hardCuts).leftPadded(to: 9))  \(String(median.soundingAfter).leftPadded(to: 8))"
            var row: [String: Any] = [
                "notes": notes, "deadline_us": deadline / 1e3,
                "worst_block_us": figures.map { Double($0.worstNanoseconds) / 1e3 }.summary,
                "burst_block_us": figures.map { Double($0.burstBlockNanoseconds) / 1e3 }.summary,
                "notes_dropped_any_run": dropped, "voices_expected": expected, "voices_started": median.voicesStarted,
                "refused_by_command_ring": median.refused, "received": median.received, "unmapped": median.unmapped,
                "stolen_voices": median.stolen, "hard_cuts": figures.map(\.hardCuts).max()!, "voices_sounding_after_burst": median.soundingAfter]
            if !fluid.isEmpty {
                let fluidMedian = fluid.median(by: \.worstNanoseconds)
                line += String(format: "   %8.0f µs (%6.0f)", fluidMedian.worstNanoseconds / 1e3, fluidMedian.burstBlockNanoseconds / 1e3)
                    + "  \(String(fluidMedian.voicesAfter).leftPadded(to: 6))  \(String(fluid.map(\.failedAllocations).max()!).leftPadded(to: 6))"
                row["fluidsynth"] = ["worst_block_us": fluid.map { $0.worstNanoseconds / 1e3 }.summary,
                                     "burst_block_us": fluid.map { $0.burstBlockNanoseconds / 1e3 }.summary,
                                     "voices_after": fluidMedian.voicesAfter,
                                     "python_ctypes_calls_us": fluidMedian.ctypesCallsNanoseconds / 1e3, "failed_voice_allocations_any_run": fluid.map(\.failedAllocations).max()!]
            } else {
                line += "   not measured (is fluidsynth installed?)"
            }
            print(line)
            rows.append(row)
        }
        print("  FluidSynth's burst block includes N ctypes calls from Python (timed alone in the JSON: python_ctypes_calls_us)")
        print("  dropped = note-ons refused, not received, unmapped, or voices started (sounding + stolen) short of what the notes start alone (any run)")
        return ["soundfont": URL(fileURLWithPath: font).lastPathComponent, "block_frames": blockFrames, "sample_rate": Int(sampleRate), "threads": threads,
                "voice_pool": 256, "fade_slots": RenderConfiguration().fadeSlotCount, "blocks_timed": blocksTimed, "runs": runs,
                "fluidsynth_version": FluidSynth.version ?? NSNull(),
                "dropped_definition": "note-ons refused by the command ring, not received by the renderer, unmapped, or voices started (sounding + stolen after the burst block) short of the sum of the voices each note starts alone",
                "distinct_notes": held.distinctCount,
                "bursts": rows]
    }
}
