import Lockfree
import XCTest

final class SPSCRingTests: XCTestCase {
    func testCapacityRoundsUpToAPowerOfTwo() {
        let ring = SPSCRing<Int>.make(capacity: 100)
        let producer = ring.producer
        XCTAssertEqual(producer.capacity, 128)
        XCTAssertEqual(SPSCRing<Int>.make(capacity: 0).producer.capacity, 2)
    }

    func testFullRingRefusesWithoutOverwriting() {
        let ring = SPSCRing<Int>.make(capacity: 8)
        var producer = ring.producer
        var consumer = ring.consumer
        for value in 0..<8 { XCTAssertTrue(producer.tryPush(value)) }
        XCTAssertFalse(producer.tryPush(99), "a full ring must refuse")
        XCTAssertEqual(producer.freeCount(), 0)
        var popped: [Int] = []
        while let value = consumer.tryPop() { popped.append(value) }
        XCTAssertEqual(popped, Array(0..<8), "the refused item must not have overwritten anything")
        XCTAssertNil(consumer.tryPop())
        XCTAssertTrue(producer.tryPush(8), "room again once the consumer released slots")
    }

    func testPeekDoesNotConsume() {
        let ring = SPSCRing<Int>.make(capacity: 4)
        var producer = ring.producer
        var consumer = ring.consumer
        XCTAssertNil(consumer.peek())
        XCTAssertTrue(producer.tryPush(7))
        XCTAssertEqual(consumer.peek(), 7)
        XCTAssertEqual(consumer.peek(), 7)
        XCTAssertEqual(consumer.tryPop(), 7)
        XCTAssertNil(consumer.peek())
    }

    func testReservationWrapsIntoTwoRegionsAndPublishesOnlyOnCommit() {
        let ring = SPSCRing<Int>.make(capacity: 8)
        var producer = ring.producer
        var consumer = ring.consumer
        // Move both indices to 6 so the next reservation wraps.
        var scratch = [Int](repeating: 0, count: 6)
        XCTAssertEqual(Array(0..<6).withUnsafeBufferPointer { producer.push(contentsOf: $0) }, 6)
        XCTAssertEqual(scratch.withUnsafeMutableBufferPointer { consumer.pop(into: $0) }, 6)

        let regions = producer.reserve(upTo: 5)
        XCTAssertEqual(regions.first.count, 2)
        XCTAssertEqual(regions.second.count, 3)
        for (index, slot) in (Array(regions.first.indices.map { (regions.first, $0) }) + regions.second.indices.map { (regions.second, $0) }).enumerated() {
            slot.0[slot.1] = 100 + index
        }
        XCTAssertEqual(consumer.readableCount(), 0, "nothing is visible before commit")
        producer.commit(4)
        XCTAssertEqual(consumer.readableCount(), 4, "only the committed prefix is visible")
        let readable = consumer.readable(upTo: 10)
        XCTAssertEqual(Array(readable.first) + Array(readable.second), [100, 101, 102, 103])
        consumer.release(readable.count)
        XCTAssertEqual(producer.freeCount(), 8)
    }

    func testBatchPushStopsAtCapacity() {
        let ring = SPSCRing<UInt32>.make(capacity: 16)
        var producer = ring.producer
        var consumer = ring.consumer
        let written = (0..<40).map(UInt32.init).withUnsafeBufferPointer { producer.push(contentsOf: $0) }
        XCTAssertEqual(written, 16, "a batch writes the prefix that fits, never more")
        var out = [UInt32](repeating: 0, count: 40)
        let read = out.withUnsafeMutableBufferPointer { consumer.pop(into: $0) }
        XCTAssertEqual(Array(out[..<read]), (0..<16).map(UInt32.init))
    }

    func testParameterCellClampsAndRefusesNaN() {
        let cell = ParameterCell(0.3, range: 0...1)
        XCTAssertEqual(cell.value, 0.3)
        cell.set(4)
        XCTAssertEqual(cell.value, 1)
        cell.set(-1)
        XCTAssertEqual(cell.value, 0)
        cell.set(.nan)
        XCTAssertEqual(cell.value, 0)
        XCTAssertEqual(cell.reader.value, 0)
        XCTAssertEqual(ParameterCell(9, range: 0...1).value, 1, "the initial value is clamped too")
    }
}
