import Lockfree
import Synchronization

/// A tap on the renderer's final output for recording: the audio thread copies each block,
/// interleaved, into an SPSC ring; a writer thread on the control side drains it to a file.
///
/// A block that does not fit whole is dropped and its frames counted, never waited for: the audio
/// thread must not block on a slow disk. Size the ring for the longest stall the writer may see
/// (the default two seconds survives any sane file system).
///
/// - Thread: audio | control. Built on the control thread (allocates). `write` is the audio thread's; `read` is the
///   writer thread's; the counters are for anyone.
public final class OutputTap: @unchecked Sendable {
    public let channelCount: Int
    /// False for the placeholder tap of a renderer nobody records (capacity 0).
    public let isEnabled: Bool
    private var producer: SPSCRing<Float>.Producer
    private var consumer: SPSCRing<Float>.Consumer
    private let droppedFrames = Atomic<Int>(0)
    private let writtenFrames = Atomic<Int>(0)

    /// A tap holding `capacityFrameCount` frames; 0 makes a disabled tap that records nothing.
    /// - Thread: control.
    public init(channelCount: Int, capacityFrameCount: Int) {
        self.channelCount = max(1, channelCount)
        isEnabled = capacityFrameCount > 0
        let ring = SPSCRing<Float>.make(capacity: max(1, capacityFrameCount) * self.channelCount)
        producer = ring.producer
        consumer = ring.consumer
    }

    /// Frames the audio thread had to drop because the ring was full (target: 0).
    /// - Thread: any.
    public var droppedFrameCount: Int { droppedFrames.load(ordering: .relaxed) }
    /// Frames the audio thread handed to the ring.
    /// - Thread: any.
    public var tappedFrameCount: Int { writtenFrames.load(ordering: .relaxed) }

    /// Copies `frameCount` interleaved frames into the ring, or counts them as dropped.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    public func write(_ frames: UnsafePointer<Float>, frameCount: Int) {
        guard isEnabled else { return }
        let sampleCount = frameCount * channelCount
        let regions = producer.reserve(upTo: sampleCount)
        guard regions.count == sampleCount else {
            droppedFrames.add(frameCount, ordering: .relaxed)
            return
        }
        regions.fill(from: frames)
        producer.commit(sampleCount)
        writtenFrames.add(frameCount, ordering: .relaxed)
    }

    /// Moves whole frames out of the ring into `destination` and returns how many frames.
    /// - Thread: control. The writer's.
    public func read(into destination: UnsafeMutableBufferPointer<Float>) -> Int {
        let wholeFrames = destination.count / channelCount * channelCount
        let samples = consumer.pop(into: UnsafeMutableBufferPointer(rebasing: destination[0..<wholeFrames]))
        return samples / channelCount
    }
}
