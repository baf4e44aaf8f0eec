extension UnsafeBufferPointer {
    /// A new buffer holding a copy of `array` (at least one slot is allocated, so the base
    /// address is never nil and `deallocate()` is always valid). Banks and kits keep their data in
    /// such buffers so the audio thread reads it without reference counting.
    /// - Thread: control. Not real-time safe: allocates.
    static func copying(_ array: [Element]) -> UnsafeBufferPointer<Element> {
        let buffer = UnsafeMutableBufferPointer<Element>.allocate(capacity: Swift.max(1, array.count))
        _ = buffer.initialize(from: array)
        return UnsafeBufferPointer(start: buffer.baseAddress, count: array.count)
    }
}
