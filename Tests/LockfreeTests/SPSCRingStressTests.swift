import Foundation
import Lockfree
import XCTest

/// Two threads, sequence-numbered items: every item must arrive exactly once, in order. Run also
/// under ThreadSanitizer (`make tsan`), which checks the acquire/release pairing.
final class SPSCRingStressTests: XCTestCase {
    /// Items per stress run: tens of millions by default; `STACCATO_STRESS_ITEMS` overrides it.
    static var itemCount: UInt64 {
        ProcessInfo.processInfo.environment["STACCATO_STRESS_ITEMS"].flatMap(UInt64.init) ?? 20_000_000
    }

    /// Holds a ring half so a thread can own it (the halves are non-copyable).
    final class Box<Half: ~Copyable>: @unchecked Sendable {
        var half: Half
        init(_ half: consuming Half) { self.half = half }
    }

    func testOneItemAtATime() {
        let count = Self.itemCount
        let ring = SPSCRing<UInt64>.make(capacity: 1_024)
        let producer = Box(ring.producer)
        let consumer = Box(ring.consumer)
        let refusedPushes = Box(UInt64(0))
        let done = DispatchSemaphore(value: 0)
        let writer = Thread {
            var refused: UInt64 = 0
            var next: UInt64 = 0
            while next < count {
                if producer.half.tryPush(next) { next += 1 } else { refused += 1 }
            }
            refusedPushes.half = refused
            done.signal()
        }
        writer.start()
        var expected: UInt64 = 0
        var outOfOrder: UInt64 = 0
        while expected < count {
            if let value = consumer.half.tryPop() {
                if value != expected { outOfOrder += 1 }
                expected += 1
            }
        }
        done.wait()
        XCTAssertEqual(expected, count)
        XCTAssertEqual(outOfOrder, 0, "items lost, duplicated or reordered")
        XCTAssertNil(consumer.half.tryPop(), "nothing beyond what was sent")
        print("SPSC stress (single items): \(count) items, \(refusedPushes.half) pushes refused while full and retried")
    }

    func testBatchesOfVaryingSize() {
        let count = Self.itemCount
        let ring = SPSCRing<UInt64>.make(capacity: 4_096)
        let producer = Box(ring.producer)
        let consumer = Box(ring.consumer)
        let done = DispatchSemaphore(value: 0)
        let writer = Thread {
            var next: UInt64 = 0
            var batchSize = 1
            while next < count {
                let regions = producer.half.reserve(upTo: min(batchSize, Int(count - next)))
                var written = 0
                for region in [regions.first, regions.second] {
                    for index in region.indices { region[index] = next + UInt64(written); written += 1 }
                }
                producer.half.commit(written)
                next += UInt64(written)
                batchSize = batchSize % 700 + 13  // sizes that straddle the wrap point in every way
            }
            done.signal()
        }
        writer.start()
        var expected: UInt64 = 0
        var outOfOrder: UInt64 = 0
        var scratch = [UInt64](repeating: 0, count: 333)
        while expected < count {
            let read = scratch.withUnsafeMutableBufferPointer { consumer.half.pop(into: $0) }
            for value in scratch[..<read] {
                if value != expected { outOfOrder += 1 }
                expected += 1
            }
        }
        done.wait()
        XCTAssertEqual(expected, count)
        XCTAssertEqual(outOfOrder, 0, "items lost, duplicated or reordered")
        XCTAssertEqual(consumer.half.readableCount(), 0, "nothing beyond what was sent")
    }
}
