import Synchronization

/// Which of a bank's samples are in memory, one flag a sample, for a bank that is installed before
/// all its samples are decoded.
///
/// Guarantees:
/// - A flag goes from absent to resident once and never back, so a voice that started on a sample
///   reads frames that stay written for the bank's life.
/// - `markResident` is a release store made after the sample's frames (and the guard frames
///   around them) are written, and the audio thread's test an acquire load: a note that sees the
///   flag sees every frame, already made resident by the thread that wrote them, so the audio
///   thread never waits, locks or faults a page in for a sample.
/// - A sample whose flag is not set is never read: its regions do not start (counted as
///   `RenderStatistics.sampleUnderruns`).
///
/// The bank owns its residency and frees it with itself; the threads that decode into the bank
/// hold the bank, so neither goes while they write.
public final class SampleResidency: @unchecked Sendable {
    /// Samples in the bank's source (the loader's numbering, `SamplerRegion.sampleIndex`).
    /// - Thread: any.
    public let sampleCount: Int
    /// The flags, as the audio thread reads them (`SampleBank.Layout.residentSamples`).
    /// - Thread: any.
    public let flags: UnsafePointer<Atomic<Bool>>
    private let storage: UnsafeMutablePointer<Atomic<Bool>>
    private let residentTotal = Atomic<Int>(0)

    /// `sampleCount` samples, none in memory yet.
    /// - Thread: control. Not real-time safe: allocates.
    public init(sampleCount: Int) {
        precondition(sampleCount >= 0)
        self.sampleCount = sampleCount
        storage = .allocate(capacity: max(1, sampleCount))
        for index in 0..<max(1, sampleCount) { (storage + index).initialize(to: Atomic(false)) }
        flags = UnsafePointer(storage)
    }

    deinit {
        storage.deinitialize(count: max(1, sampleCount))
        storage.deallocate()
    }

    /// Says that sample `index`'s frames are written. Each sample once.
    /// - Thread: any. The thread that wrote the frames.
    public func markResident(_ index: Int) {
        precondition(index >= 0 && index < sampleCount, "sample index outside the bank")
        if !storage[index].exchange(true, ordering: .releasing) { residentTotal.add(1, ordering: .relaxed) }
    }

    /// Whether sample `index` is in memory.
    /// - Thread: any.
    public func isResident(_ index: Int) -> Bool {
        index >= 0 && index < sampleCount && storage[index].load(ordering: .acquiring)
    }

    /// How many samples are in memory.
    /// - Thread: any.
    public var residentCount: Int { residentTotal.load(ordering: .relaxed) }
}

/// Whether a region of sample `index` may start: true for a region that names no sample (-1) or
/// a bank without residency flags, else the sample's flag (`SampleResidency.flags`).
/// - Thread: audio. The sampler calls it at note-on.
@inline(__always) @_noAllocation @_noLocks
func sampleIsPlayable(_ index: Int32, flags: UnsafePointer<Atomic<Bool>>?) -> Bool {
    guard let flags, index >= 0 else { return true }
    return flags[Int(index)].load(ordering: .acquiring)
}
