import DSP

/// Where a bank's sample frames are and how they are stored: what a voice reads from, as plain
/// data (no reference counting on the audio thread). Valid while the bank that owns the pool lives.
public struct SampleFrames: @unchecked Sendable, BitwiseCopyable {
    /// The first frame of the pool.
    public let base: UnsafeRawPointer
    public let encoding: SampleEncoding

    /// - Thread: any.
    @inlinable @_noAllocation @_noLocks
    public init(base: UnsafeRawPointer, encoding: SampleEncoding) {
        self.base = base
        self.encoding = encoding
    }

    /// Frame `frame`, converted to full scale 1 (exactly: see `SampleEncoding.scale`).
    /// - Thread: any.
    @inline(__always) @_noAllocation @_noLocks
    public subscript(frame: Int) -> Float { stored(frame) * encoding.scale }

    /// Frame `frame` at the stored scale (a 16-bit pool's reach ±32768): what the sampler
    /// interpolates, its lanes' gains carrying `SampleEncoding.scale`.
    /// - Thread: any.
    @inline(__always) @_noAllocation @_noLocks
    public func stored(_ frame: Int) -> Float {
        switch encoding {
        case .int16: Float(base.load(fromByteOffset: 2 * frame, as: Int16.self))
        case .float32: base.load(fromByteOffset: 4 * frame, as: Float.self)
        }
    }

    /// The address of frame `frame`.
    /// - Thread: any.
    @inline(__always) @_noAllocation @_noLocks
    public func address(ofFrame frame: Int) -> UnsafeRawPointer {
        base + frame * encoding.bytesPerFrame
    }
}

/// A bank's mono sample frames in one allocation, at the width the file stored them
/// (`SampleEncoding`). A loader allocates and fills it on the control thread, then hands it to
/// `SampleBank`, which owns it from then on and frees it with the bank.
public struct SamplePool: @unchecked Sendable {
    public let encoding: SampleEncoding
    public let frameCount: Int
    /// The frames: `frameCount × encoding.bytesPerFrame` bytes (at least one byte is allocated, so
    /// the address is always valid to free).
    public let storage: UnsafeMutableRawPointer

    /// An uninitialized pool of `frameCount` frames: the caller writes every frame before a bank
    /// takes it (a frame never written would be garbage, and its page might not be resident yet).
    /// - Thread: control. Not real-time safe: allocates.
    public static func allocate(encoding: SampleEncoding, frameCount: Int) -> SamplePool {
        precondition(frameCount >= 0)
        // Cache-line aligned: the reader's unaligned loads then split a line only where a sample
        // crosses one, never because of where the pool began.
        let storage = UnsafeMutableRawPointer.allocate(byteCount: max(1, frameCount * encoding.bytesPerFrame), alignment: 64)
        return SamplePool(encoding: encoding, frameCount: frameCount, storage: storage)
    }

    /// A pool holding a copy of `frames` (tests and small banks).
    /// - Thread: control. Not real-time safe: allocates.
    public static func copying(_ frames: [Float]) -> SamplePool { copying(frames, as: .float32) }

    /// A pool holding a copy of 16-bit `frames` (tests).
    /// - Thread: control. Not real-time safe: allocates.
    public static func copying(_ frames: [Int16]) -> SamplePool { copying(frames, as: .int16) }

    /// A pool of `encoding` holding the bytes of `frames`, whose element is that encoding's frame.
    private static func copying<Frame: BitwiseCopyable>(_ frames: [Frame], as encoding: SampleEncoding) -> SamplePool {
        precondition(MemoryLayout<Frame>.stride == encoding.bytesPerFrame)
        let pool = allocate(encoding: encoding, frameCount: frames.count)
        frames.withUnsafeBytes { pool.storage.copyMemory(from: $0.baseAddress ?? UnsafeRawPointer(pool.storage), byteCount: $0.count) }
        return pool
    }

    private init(encoding: SampleEncoding, frameCount: Int, storage: UnsafeMutableRawPointer) {
        self.encoding = encoding
        self.frameCount = frameCount
        self.storage = storage
    }

    /// The frames of an `.int16` pool.
    /// - Thread: control. While loading; a bank's pool is read-only.
    public var words: UnsafeMutableBufferPointer<Int16> {
        precondition(encoding == .int16, "not a 16-bit pool")
        return UnsafeMutableBufferPointer(start: storage.assumingMemoryBound(to: Int16.self), count: frameCount)
    }

    /// The frames of a `.float32` pool.
    /// - Thread: control. While loading; a bank's pool is read-only.
    public var floats: UnsafeMutableBufferPointer<Float> {
        precondition(encoding == .float32, "not a Float pool")
        return UnsafeMutableBufferPointer(start: storage.assumingMemoryBound(to: Float.self), count: frameCount)
    }

    /// What voices read.
    /// - Thread: any.
    public var frames: SampleFrames { SampleFrames(base: UnsafeRawPointer(storage), encoding: encoding) }

    /// Frame `frame` at full scale 1.
    /// - Thread: any.
    public subscript(frame: Int) -> Float { frames[frame] }

    /// Frames `range` at full scale 1, as an array (for inspection and tests).
    /// - Thread: control.
    public subscript(range: Range<Int>) -> [Float] { range.map { self[$0] } }

    /// Bytes of sample memory held.
    /// - Thread: any.
    public var byteCount: Int { frameCount * encoding.bytesPerFrame }

    /// Frees the frames. The pool's owner (a bank) calls this once.
    /// - Thread: control.
    public func deallocate() { storage.deallocate() }
}
