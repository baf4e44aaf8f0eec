import CJack

/// JACK's `jack_ringbuffer`, the lock-free ring most Linux audio code uses, measured the way
/// `RingBenchmark` measures `SPSCRing`: same item sizes, batches and byte capacity.
enum JackRingBenchmark {
    final class Ring: @unchecked Sendable {
        let pointer: UnsafeMutablePointer<jack_ringbuffer_t>
        init(bytes: Int) { pointer = jack_ringbuffer_create(bytes) }
        deinit { jack_ringbuffer_free(pointer) }
    }

    /// Moves `itemCount` items of `Element` through a ring of `capacity` items, `batch` at a time
    /// at most (checking write_space/read_space before every write/read); returns items per second.
    static func measure<Element: BitwiseCopyable>(itemCount: Int, batch: Int, capacity: Int,
                                                  make: (Int) -> Element) -> Double {
        let size = MemoryLayout<Element>.stride
        let ring = Ring(bytes: capacity * size)
        let sourceAddress = TwoThreadTransfer.source(count: batch, make)
        let sink = UnsafeMutableRawPointer.allocate(byteCount: batch * size, alignment: 64)
        defer { sink.deallocate(); UnsafeMutableRawPointer(bitPattern: sourceAddress)!.deallocate() }
        return TwoThreadTransfer.itemsPerSecond(itemCount: itemCount, produce: {
            let source = UnsafePointer<CChar>(bitPattern: sourceAddress)!
            var sent = 0
            while sent < itemCount {
                let count = min(jack_ringbuffer_write_space(ring.pointer) / size, batch, itemCount - sent)
                if count > 0 { sent += jack_ringbuffer_write(ring.pointer, source, count * size) / size }
            }
        }, consume: {
            let target = sink.assumingMemoryBound(to: CChar.self)
            var received = 0
            while received < itemCount {
                let count = min(jack_ringbuffer_read_space(ring.pointer) / size, batch)
                if count > 0 { received += jack_ringbuffer_read(ring.pointer, target, count * size) / size }
            }
        })
    }
}
