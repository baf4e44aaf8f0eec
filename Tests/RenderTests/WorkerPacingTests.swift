import Engine
import Foundation
import Render
import TestSupport
import XCTest

/// Live, the voice workers are paced (`Renderer.setVoiceWorkersPaced`): they take the last block's
/// frames as the period and sleep once a period, to just before its work is due. When they wake
/// is a matter of time only: the audio thread renders whatever no worker has claimed, so the
/// output is the same bits as one thread's, whether the blocks come a period apart, slower, or
/// back to back (a stream catching up).
final class WorkerPacingTests: XCTestCase {
    static let blockFrameCount = 64
    static let blockCount = 400

    /// 96 held notes of a sine (twelve groups of eight: every block is shared), rendered a block
    /// at a time with `sleepMicroseconds` between blocks.
    func render(threads: Int, paced: Bool, sleepMicroseconds: UInt32) -> (samples: [Float], workerItems: Int) {
        var configuration = RenderConfiguration(sampleRate: 48_000, maxFrameCount: Self.blockFrameCount, voiceCount: 128)
        configuration.threadCount = threads
        let engine = Engine(configuration: EngineConfiguration(render: configuration))
        XCTAssertTrue(engine.install(SyntheticBank.sine()))
        for note in 0..<96 {
            XCTAssertTrue(engine.send(midi: .noteOn(channel: UInt8(note % 8), key: UInt8(24 + note), velocity: 100)))
        }
        engine.renderer.setVoiceWorkersPaced(paced)
        var samples: [Float] = []
        engine.renderOffline(frameCount: Self.blockCount * Self.blockFrameCount, blockFrameCount: Self.blockFrameCount) { block in
            samples.append(contentsOf: block)
            if sleepMicroseconds > 0 { usleep(sleepMicroseconds) }
        }
        return (samples, engine.renderer.voiceItemsRenderedByWorkers)
    }

    func testPacedWorkersLeaveTheOutputOneThreadsBitForBit() {
        let reference = render(threads: 1, paced: false, sleepMicroseconds: 0)
        XCTAssertGreaterThan(reference.samples.map(abs).max() ?? 0, 0.01, "the notes sound")
        // About a period apart (1,333 µs at 48 kHz, the render included), three periods apart,
        // and back to back.
        for sleep: UInt32 in [1_000, 4_000, 0] {
            let paced = render(threads: 2, paced: true, sleepMicroseconds: sleep)
            let firstDifference = paced.samples.indices.first { paced.samples[$0].bitPattern != reference.samples[$0].bitPattern }
            XCTAssertNil(firstDifference.map { $0 / 2 }, "blocks \(sleep) µs apart: first frame that differs from one thread")
            // How many items the worker took is the machine's business (a busy one may leave it none).
            print("paced, blocks \(sleep) µs apart: the worker rendered \(paced.workerItems) items over \(Self.blockCount) blocks")
        }
    }
}
