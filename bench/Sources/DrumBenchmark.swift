import DrumKitLoader
import Engine
import Foundation
import Render

/// Rapid fire: how many drum hits per second the player sustains in real time with every pad's
/// voices ringing. Each run hits the pads round robin, K hits in every 64-frame block, and reports
/// how much faster than real time it rendered; the largest rate still above 1x is the figure.
enum DrumBenchmark {
    static func run(manifest: String, seconds: Double, runs: Int) throws -> [String: Any] {
        let rate = 48_000.0
        let kit = try DrumKitLoader.load(manifest: manifest, sampleRate: rate)
        let notes: [UInt8] = (0..<128).compactMap { kit.padForNote[$0] >= 0 ? UInt8($0) : nil }
        print("Drums: rapid fire on \(kit.name) (\(kit.pads.count) pads, \(kit.voiceCount) voices), 64-frame blocks at 48 kHz,")
        print("median of \(runs) runs of \(seconds) s")
        var sustained = 0.0
        var rates: [[String: Any]] = []
        for hitsPerBlock in [1, 4, 16, 64, 256] {
            var factors: [Double] = []
            var ringing = 0
            for _ in 0..<runs {
                let engine = Engine(configuration: EngineConfiguration(render: RenderConfiguration(sampleRate: rate, maxFrameCount: 64)))
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
                factors.append(Double(blocks * 64) / rate / elapsed)
                ringing = voices / max(1, blocks / 64 + 1)
            }
            let median = factors.median
            let hitsPerSecond = Double(hitsPerBlock) * rate / 64
            print("  \(String(format: "%6.0f", hitsPerSecond)) hits/s (\(hitsPerBlock) per block): \(String(format: "%6.1f", median))x real time, ~\(ringing) voices ringing")
            rates.append(["hits_per_second": hitsPerSecond, "hits_per_block": hitsPerBlock,
                          "realtime_factor": factors.summary, "voices_ringing": ringing])
            if median >= 1 { sustained = max(sustained, hitsPerSecond * min(median, 1)) }
        }
        print("  sustained in real time: at least \(String(format: "%.0f", sustained)) hits/s with every pad ringing")
        return ["kit": kit.name, "pads": kit.pads.count, "seconds": seconds, "runs": runs, "block_frames": 64,
                "rates": rates, "sustained_hits_per_second": sustained]
    }
}
