import Foundation
import Lockfree

/// Items per second through an `SPSCRing` between two threads, one item at a time and in batches.
/// Each figure is the median of several runs made side by side in one process, so a noisy machine
/// shifts them together rather than faking a difference.
enum RingBenchmark {
    struct Item64: BitwiseCopyable {
        var sequence: UInt64
        var payload: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0)
    }

    final class Box<Half: ~Copyable>: @unchecked Sendable {
        var half: Half
        init(_ half: consuming Half) { self.half = half }
    }

    struct Case {
        let name: String
        let run: (Int) -> Double
    }

    static func run(itemCount: Int, runs: Int) {
        let cases = [
            Case(name: "8-byte items, one at a time") { measure(itemCount: $0, batch: 1, capacity: 4_096) { UInt64($0) } },
            Case(name: "8-byte items, batches of 256") { measure(itemCount: $0, batch: 256, capacity: 4_096) { UInt64($0) } },
            Case(name: "64-byte items, one at a time") { measure(itemCount: $0, batch: 1, capacity: 4_096) { Item64(sequence: UInt64($0)) } },
            Case(name: "64-byte items, batches of 64") { measure(itemCount: $0, batch: 64, capacity: 4_096) { Item64(sequence: UInt64($0)) } },
            Case(name: "float samples, 64-frame stereo blocks") { measure(itemCount: $0, batch: 128, capacity: 8_192) { Float($0 & 0xffff) } },
        ]
        print("SPSC ring, two threads, \(itemCount) items per run, median of \(runs) runs (runs interleaved across cases)")
        var results = Array(repeating: [Double](), count: cases.count)
        for _ in 0..<runs {
            for (index, benchmark) in cases.enumerated() { results[index].append(benchmark.run(itemCount)) }
        }
        for (index, benchmark) in cases.enumerated() {
            let sorted = results[index].sorted()
            let median = sorted[sorted.count / 2]
            print("  \(benchmark.name.padding(toLength: 40, withPad: " ", startingAt: 0)) \(String(format: "%8.1f", median / 1e6)) M items/s"
                  + "  (min \(String(format: "%.1f", sorted.first! / 1e6)), max \(String(format: "%.1f", sorted.last! / 1e6)))")
        }
    }

    /// Moves `itemCount` items from a producer thread to this thread; returns items per second.
    static func measure<Element: BitwiseCopyable>(itemCount: Int, batch: Int, capacity: Int,
                                                  make: @escaping @Sendable (Int) -> Element) -> Double {
        let ring = SPSCRing<Element>.make(capacity: capacity)
        let producer = Box(ring.producer)
        let consumer = Box(ring.consumer)
        let ready = DispatchSemaphore(value: 0)
        let source = UnsafeMutablePointer<Element>.allocate(capacity: batch)
        let sink = UnsafeMutablePointer<Element>.allocate(capacity: batch)
        defer { source.deallocate(); sink.deallocate() }
        for index in 0..<batch { source[index] = make(index) }
        let sourceAddress = UInt(bitPattern: source)
        let thread = Thread {
            let source = UnsafePointer<Element>(bitPattern: sourceAddress)!
            ready.signal()
            var sent = 0
            if batch == 1 {
                while sent < itemCount { if producer.half.tryPush(source[0]) { sent += 1 } }
            } else {
                while sent < itemCount {
                    sent += producer.half.push(contentsOf: UnsafeBufferPointer(start: source, count: min(batch, itemCount - sent)))
                }
            }
        }
        thread.start()
        ready.wait()
        let start = DispatchTime.now().uptimeNanoseconds
        var received = 0
        if batch == 1 {
            while received < itemCount { if consumer.half.tryPop() != nil { received += 1 } }
        } else {
            let buffer = UnsafeMutableBufferPointer(start: sink, count: batch)
            while received < itemCount { received += consumer.half.pop(into: buffer) }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return Double(itemCount) / seconds
    }
}
