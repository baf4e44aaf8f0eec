import Foundation

/// The timing both ring benchmarks share: a producer thread and this thread as consumer, timed on
/// the consumer from the moment the producer runs until the last item has arrived.
enum TwoThreadTransfer {
    /// Items per second. `produce` and `consume` each move `itemCount` items and then return.
    static func itemsPerSecond(itemCount: Int, produce: @escaping @Sendable () -> Void, consume: () -> Void) -> Double {
        let ready = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let thread = Thread {
            ready.signal()
            produce()
            finished.signal()
        }
        thread.start()
        ready.wait()
        let start = DispatchTime.now().uptimeNanoseconds
        consume()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        // The producer must be gone before its buffers are freed and the next run starts.
        finished.wait()
        return Double(itemCount) / seconds
    }

    /// `count` items made by `make`, in memory the producer thread can read (a pointer is not
    /// Sendable; its address is).
    static func source<Element>(count: Int, _ make: (Int) -> Element) -> UInt {
        let source = UnsafeMutablePointer<Element>.allocate(capacity: count)
        for index in 0..<count { source[index] = make(index) }
        return UInt(bitPattern: source)
    }
}
