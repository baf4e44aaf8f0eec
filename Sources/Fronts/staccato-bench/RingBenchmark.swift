import Foundation
import Lockfree

/// Items per second through an `SPSCRing` between two threads, one item at a time and in batches,
/// and through JACK's `jack_ringbuffer` for the same items. Each figure is the median of several
/// runs made side by side in one process, so a noisy machine shifts them together rather than
/// faking a difference.
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
        let key: String
        let staccato: (Int) -> Double
        /// The same transfer through `jack_ringbuffer`, for the cases compared with it.
        var jack: ((Int) -> Double)? = nil
    }

    static let capacity = 4_096

    /// A case measured on both rings with the same items, batch and capacity.
    static func compared<Element: BitwiseCopyable>(_ name: String, key: String, batch: Int, make: @escaping (Int) -> Element) -> Case {
        Case(name: name, key: key,
             staccato: { measure(itemCount: $0, batch: batch, capacity: capacity, make: make) },
             jack: { JackRingBenchmark.measure(itemCount: $0, batch: batch, capacity: capacity, make: make) })
    }

    static func run(itemCount: Int, runs: Int) -> [String: Any] {
        let cases = [
            compared("8-byte items, one at a time", key: "u64_single", batch: 1) { UInt64($0) },
            compared("8-byte items, batches of 256", key: "u64_batch256", batch: 256) { UInt64($0) },
            compared("64-byte items, one at a time", key: "item64_single", batch: 1) { Item64(sequence: UInt64($0)) },
            Case(name: "64-byte items, batches of 64", key: "item64_batch64") { measure(itemCount: $0, batch: 64, capacity: capacity) { Item64(sequence: UInt64($0)) } },
            Case(name: "float samples, 64-frame stereo blocks", key: "float_stereo_blocks64") { measure(itemCount: $0, batch: 128, capacity: 8_192) { Float($0 & 0xffff) } },
        ]
        print("SPSC ring, two threads, \(itemCount) items per run, median of \(runs) runs (runs interleaved across cases and rings)")
        var ours = Array(repeating: [Double](), count: cases.count)
        var jack = Array(repeating: [Double](), count: cases.count)
        for _ in 0..<runs {
            for (index, benchmark) in cases.enumerated() {
                ours[index].append(benchmark.staccato(itemCount))
                if let measureJack = benchmark.jack { jack[index].append(measureJack(itemCount)) }
            }
        }
        func figure(_ runs: [Double]) -> String {
            "\(String(format: "%8.1f", runs.median / 1e6)) M items/s  (min \(String(format: "%.1f", runs.min()! / 1e6)), max \(String(format: "%.1f", runs.max()! / 1e6)))"
        }
        var report: [String: Any] = ["items_per_run": itemCount, "runs": runs, "capacity_items": capacity, "unit": "items/s"]
        for (index, benchmark) in cases.enumerated() {
            print("  \(benchmark.name.padding(toLength: 40, withPad: " ", startingAt: 0)) \(figure(ours[index]))")
            report["spscring_" + benchmark.key] = ours[index].summary
        }
        print("jack_ringbuffer (write_space/write, read_space/read; same items, batches and byte capacity), same run:")
        for (index, benchmark) in cases.enumerated() where !jack[index].isEmpty {
            let ratio = ours[index].median / jack[index].median
            print("  \(benchmark.name.padding(toLength: 40, withPad: " ", startingAt: 0)) \(figure(jack[index]))  SPSCRing/jack \(String(format: "%.2f", ratio))x")
            report["jack_ringbuffer_" + benchmark.key] = jack[index].summary
            report["ratio_spscring_over_jack_" + benchmark.key] = ratio
        }
        return report
    }

    /// Moves `itemCount` items from a producer thread to this thread; returns items per second.
    static func measure<Element: BitwiseCopyable>(itemCount: Int, batch: Int, capacity: Int, make: (Int) -> Element) -> Double {
        let ring = SPSCRing<Element>.make(capacity: capacity)
        let producer = Box(ring.producer)
        let consumer = Box(ring.consumer)
        let sourceAddress = TwoThreadTransfer.source(count: batch, make)
        let sink = UnsafeMutablePointer<Element>.allocate(capacity: batch)
        defer { sink.deallocate(); UnsafeMutablePointer<Element>(bitPattern: sourceAddress)!.deallocate() }
        return TwoThreadTransfer.itemsPerSecond(itemCount: itemCount, produce: {
            let source = UnsafePointer<Element>(bitPattern: sourceAddress)!
            var sent = 0
            if batch == 1 {
                while sent < itemCount { if producer.half.tryPush(source[0]) { sent += 1 } }
            } else {
                while sent < itemCount {
                    sent += producer.half.push(contentsOf: UnsafeBufferPointer(start: source, count: min(batch, itemCount - sent)))
                }
            }
        }, consume: {
            var received = 0
            if batch == 1 {
                while received < itemCount { if consumer.half.tryPop() != nil { received += 1 } }
            } else {
                let buffer = UnsafeMutableBufferPointer(start: sink, count: batch)
                while received < itemCount { received += consumer.half.pop(into: buffer) }
            }
        })
    }
}
