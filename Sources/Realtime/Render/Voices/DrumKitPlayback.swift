/// One engine's playing of a `DrumKit`: its voices and each pad's next voice, the state a hit
/// changes. The kit is an immutable description; `Engine.install(_:)` makes a playback of it for
/// its renderer, whose audio thread owns the playback from install until it hands it back on the
/// return ring (when the kit is neither current nor ringing), to be freed on the control thread.
/// Its storage is allocated here, so a hit never allocates.
public final class DrumKitPlayback: @unchecked Sendable {
    /// One voice's state. Recycling a ringing voice moves its playhead to `tail`, which fades out
    /// over 5 ms while `head` starts the new hit, so a recycle never clicks.
    public struct Voice: Sendable, BitwiseCopyable {
        public struct Playhead: Sendable, BitwiseCopyable {
            var isActive = false
            var position = 0
            var gain: Float = 0
            /// 1 normally; ramps to 0 by `fadeStep` when faded.
            var fade: Float = 1
            var fadeStep: Float = 0

            @_noAllocation @_noLocks
            init(isActive: Bool = false, gain: Float = 0) {
                self.isActive = isActive
                self.gain = gain
            }
        }
        var head = Playhead()
        var tail = Playhead()
        /// - Thread: audio.
        @_noAllocation @_noLocks public init() {}
    }

    /// What the audio thread reads: the kit's samples and pads, and this playback's voices, as plain
    /// data (it must not touch either class).
    public struct Layout: @unchecked Sendable, BitwiseCopyable {
        public let samples: UnsafeBufferPointer<Float>
        public let pads: UnsafeBufferPointer<DrumKit.Pad>
        public let padForNote: UnsafeBufferPointer<Int16>
        public let voices: UnsafeMutableBufferPointer<Voice>
        public let nextVoice: UnsafeMutableBufferPointer<Int>
    }

    /// The kit played; held as long as the playback is.
    public let kit: DrumKit
    public let layout: UnsafePointer<Layout>

    /// A silent playback of `kit`, every voice free and every pad's round robin at its first voice.
    /// - Thread: control. Not real-time safe: allocates.
    public init(of kit: DrumKit) {
        self.kit = kit
        let storage = UnsafeMutableBufferPointer<Voice>.allocate(capacity: max(1, kit.voiceCount))
        storage.initialize(repeating: Voice())
        let nextVoice = UnsafeMutableBufferPointer<Int>.allocate(capacity: max(1, kit.pads.count))
        nextVoice.initialize(repeating: 0)
        let layout = UnsafeMutablePointer<Layout>.allocate(capacity: 1)
        layout.initialize(to: Layout(samples: kit.samples, pads: kit.pads, padForNote: kit.padForNote,
                                     voices: UnsafeMutableBufferPointer(rebasing: storage[0..<kit.voiceCount]),
                                     nextVoice: nextVoice))
        self.layout = UnsafePointer(layout)
    }

    deinit {
        layout.pointee.voices.baseAddress?.deallocate()
        layout.pointee.nextVoice.deallocate()
        UnsafeMutablePointer(mutating: layout).deallocate()
    }
}
