import DrumKitLoader
import Engine
import Foundation
import Render

/// Rapid fire: how many drum hits per second the player sustains in real time with every pad's
/// voices ringing. Each run hits the pads round robin, K hits in every 64-frame block, and reports
/// how much faster than real time it rendered; the largest rate still above 1x is the figure.
/// With `--threads 1,2` each rate is run with the voices on each thread count in turn, run by run.
enum DrumBenchmark {
    static func run(manifest: String, seconds: Double, runs: Int, threadCounts: [Int] = [1]) throws -> [String: Any] {
        let rate = 48_000.0
        let kit = try DrumKitLoader.load(manifest: manifest, sampleRate: rate)
        let notes: [UInt8] = (0..<128).compactMap { kit.padForNote[$0] >= 0 ? UInt8($0) : nil }
        print("Drums: rapid fire on \(kit.name) (\(kit.pads.count) pads, \(kit.voiceCount) voices), 64-frame blocks at 48 kHz,")
        print("median of \(runs) runs of \(seconds) s" + (threadCounts == [1] ? "" : "; voices on \(threadCounts.map(String.init).joined(separator: ", ")) threads"))
        var sustained = 0.0
        var rates: [[String: Any]] = []
        for hitsPerBlock in [1, 4, 16, 64, 256] {
            // Thread counts alternate run by run, so the host's slow moments fall on each alike.
            var factors = [Int: [Double]]()
            var ringing = [Int: Int]()
            for _ in 0..<runs {
                for threads in threadCounts {
                    var configuration = RenderConfiguration(sampleRate: rate, maxFrameCount: 64)
                    configuration.threadCount = threads
                    let engine = Engine(configuration: EngineConfiguration(render: configuration))
                    engine.install(try DrumKitLoader.load(manifest: manifest, sampleRate: rate))
                    let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 128)
                    defer { buffer.deallocate() }
                    let blocks = Int(seconds * rate / 64)
                    var next = 0
                    var elapsed = 0.0
                    var voices = 0
                    for block in 0..<blocks {
                        for hit in 0..<hitsPerBlock {
                            engine.send(midi: .noteOn(channel: 9, key: notes[next % notes.count], velocity: 100),
                                        at: FrameTime(block * 64 + hit * 64 / hitsPerBlock))
                            next += 1
                        }
                        let start = DispatchTime.now().uptimeNanoseconds
                        engine.renderer.render(into: buffer, frameCount: 64)
                        elapsed += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                        if block % 64 == 0 { engine.processEvents(); voices += engine.renderer.statistics.activeDrumVoices }
                    }
                    factors[threads, default: []].append(Double(blocks * 64) / rate / elapsed)
                    ringing[threads] = voices / max(1, blocks / 64 + 1)
                }
            }
            let hitsPerSecond = Double(hitsPerBlock) * rate / 64
            for threads in threadCounts {
                let median = factors[threads]!.median
                print("  \(String(format: "%6.0f", hitsPerSecond)) hits/s (\(hitsPerBlock) per block)"
                      + (threadCounts == [1] ? "" : ", \(threads) thread\(threads == 1 ? "" : "s")")
                      + ": \(String(format: "%6.1f", median))x real time, ~\(ringing[threads]!) voices ringing")
                rates.append(["hits_per_second": hitsPerSecond, "hits_per_block": hitsPerBlock, "threads": threads,
                              "realtime_factor": factors[threads]!.summary, "voices_ringing": ringing[threads]!])
                if median >= 1 { sustained = max(sustained, hitsPerSecond * min(median, 1)) }
            }
        }
        print("  sustained in real time: at least \(String(format: "%.0f", sustained)) hits/s with every pad ringing")
        return ["kit": kit.name, "pads": kit.pads.count, "seconds": seconds, "runs": runs, "block_frames": 64,
                "rates": rates, "sustained_hits_per_second": sustained]
    }
}
