import Render
import SampleStreaming
import Synchronization
import TestSupport
import XCTest

/// Writing a playing bank's samples in the background, through any loader's `StreamedSamples`:
/// each queued sample once and only those, a failure a line per file while the rest go on, and a
/// cancel that stops the queue. A recording source stands in for a font's decoder.
final class BackgroundDecodingTests: XCTestCase {
    /// Records what it is asked to decode; the samples in `failing` throw, in two files.
    final class RecordingSource: StreamedSamples, @unchecked Sendable {
        let sampleCount: Int
        let bytesPerFrame = 4
        let pool: SamplePool
        var residency: SampleResidency? { nil }
        let failing: Set<Int>
        let delayMicroseconds: UInt32
        let decoded = Mutex<[Int]>([])

        init(sampleCount: Int, pool: SamplePool, failing: Set<Int> = [], delayMicroseconds: UInt32 = 0) {
            self.sampleCount = sampleCount
            self.pool = pool
            self.failing = failing
            self.delayMicroseconds = delayMicroseconds
        }

        func frameCount(of index: Int) -> Int { 1_000 }
        func headFrames(of index: Int) -> Int { 100 }
        func slot(of index: Int) -> Int { SampleBank.guardFrameCount }
        func decode(_ index: Int, upTo: Int?) throws(StreamedSampleFailure) {
            if delayMicroseconds > 0 { usleep(delayMicroseconds) }
            if failing.contains(index) { throw StreamedSampleFailure(file: "part\(index % 2).sf2", description: "part\(index % 2).sf2: damaged") }
            decoded.withLock { $0.append(index) }
        }
    }

    let bank = SyntheticBank.sine()

    func testEveryQueuedSampleIsDecodedOnceAndNoOther() {
        let source = RecordingSource(sampleCount: 40, pool: bank.samples)
        let queued = SampleStreaming.decodingOrder(urgent: [7, 3], then: Array(0..<30))
        XCTAssertEqual(Array(queued.prefix(3)), [7, 3, 0], "the urgent samples first, each once")
        XCTAssertEqual(queued.count, 30)
        let decoding = BackgroundDecoding(decoder: source, samples: queued, holding: bank, warning: nil)
        decoding.wait()
        let decoded = source.decoded.withLock { $0 }
        XCTAssertEqual(decoded.sorted(), Array(0..<30), "each queued sample once, the other ten never")
        XCTAssertEqual(decoding.remainingCount, 0)
        XCTAssertEqual(decoding.failedCount, 0)
        XCTAssertTrue(decoding.target === bank, "it holds the bank, so the pool outlives its writers")
    }

    func testAFailedSampleIsOneLineAFileAndTheRestDecode() {
        let source = RecordingSource(sampleCount: 20, pool: bank.samples, failing: [2, 4, 5, 9])
        let warnings = Mutex<[String]>([])
        let decoding = BackgroundDecoding(decoder: source, samples: Array(0..<20), holding: bank) { line in
            warnings.withLock { $0.append(line) }
        }
        decoding.wait()
        XCTAssertEqual(decoding.failedCount, 4)
        XCTAssertEqual(source.decoded.withLock { $0 }.sorted(), Array(0..<20).filter { ![2, 4, 5, 9].contains($0) })
        let lines = warnings.withLock { $0 }.sorted()
        XCTAssertEqual(lines.count, 2, "a line for the first failure of each file: \(lines)")
        XCTAssertTrue(lines.allSatisfy { $0.contains(": damaged; its notes stay silent") }, "\(lines)")
    }

    func testCancelStopsTheQueue() {
        let source = RecordingSource(sampleCount: 400, pool: bank.samples, delayMicroseconds: 2_000)
        let decoding = BackgroundDecoding(decoder: source, samples: Array(0..<400), holding: bank, warning: nil)
        usleep(20_000)
        decoding.cancel()
        decoding.wait()
        let count = source.decoded.withLock { $0.count }
        XCTAssertLessThan(count, 400, "the queue stopped")
        XCTAssertEqual(Set(source.decoded.withLock { $0 }).count, count, "no sample twice")
    }

    func testACacheTooSmallForTheHeadsIsRefusedInOneLine() {
        XCTAssertNil(SampleStreaming.refusal(headBytes: 10 << 20, cacheBytes: nil))
        XCTAssertNil(SampleStreaming.refusal(headBytes: 10 << 20, cacheBytes: 10 << 20))
        XCTAssertEqual(SampleStreaming.refusal(headBytes: (10 << 20) + 1, cacheBytes: 8 << 20),
                       "a sample cache of 8 MB cannot hold the samples' heads (11 MB); give --sample-cache 11 or more")
        XCTAssertEqual(SampleStreaming.headFrames(rate: 48_000), 24_000)
        XCTAssertEqual(SampleStreaming.headFrames(rate: 1_000), 1_024, "a kilobyte-frame at least")
    }
}
