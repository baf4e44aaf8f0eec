import Synchronization

/// One continuous control (a volume, a frequency) shared between the control thread and the audio
/// thread without a lock: the last value written is the value read, as a whole `Float`.
///
/// Use a cell for values where only the latest matters; anything that must arrive in order, or at a
/// given frame, goes through a `RenderCommand` instead. The audio thread smooths what it reads.
///
/// The cell owns its storage; the audio thread reads through a `ParameterReader`, a plain pointer
/// copy, so reading costs no reference counting. Whoever holds a reader also keeps the cell alive.
public final class ParameterCell: @unchecked Sendable {
    @usableFromInline let storage: UnsafeMutablePointer<Atomic<UInt32>>
    /// Values outside this range are clamped on write.
    public let range: ClosedRange<Float>

    /// - Thread: control. Not real-time safe: allocates.
    public init(_ initialValue: Float, range: ClosedRange<Float>) {
        self.range = range
        storage = .allocate(capacity: 1)
        storage.initialize(to: Atomic(initialValue.clamped(to: range).bitPattern))
    }

    deinit {
        storage.deinitialize(count: 1)
        storage.deallocate()
    }

    /// The latest value.
    /// - Thread: any.
    public var value: Float { reader.value }

    /// A reference-count-free view for the audio thread, valid while this cell lives.
    /// - Thread: any.
    public var reader: ParameterReader { ParameterReader(storage: storage) }

    /// Stores `newValue`, clamped to `range`; NaN is refused and leaves the value unchanged. An
    /// atomic store: a plug-in's audio thread sets its gain port's value with it.
    /// - Thread: any.
    @_noAllocation @_noLocks
    public func set(_ newValue: Float) {
        guard !newValue.isNaN else { return }
        storage.pointee.store(newValue.clamped(to: range).bitPattern, ordering: .relaxed)
    }
}

/// Reads a `ParameterCell` without touching its reference count.
public struct ParameterReader: @unchecked Sendable, BitwiseCopyable {
    @usableFromInline let storage: UnsafeMutablePointer<Atomic<UInt32>>

    @inlinable init(storage: UnsafeMutablePointer<Atomic<UInt32>>) { self.storage = storage }

    /// The latest value written to the cell.
    /// - Thread: any.
    @inlinable
    public var value: Float {
        @_noAllocation @_noLocks get { Float(bitPattern: storage.pointee.load(ordering: .relaxed)) }
    }
}

extension Float {
    @inlinable
    func clamped(to range: ClosedRange<Float>) -> Float {
        Swift.min(Swift.max(self, range.lowerBound), range.upperBound)
    }
}
