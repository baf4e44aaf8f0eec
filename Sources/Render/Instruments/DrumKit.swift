/// A loaded drum kit: one-shot pads, each with its decoded stereo sample and its own fixed pool of
/// voices. Built whole on the control thread (by the kit loader), swapped into the renderer by
/// pointer, and handed back on the return ring when the renderer lets go of it, to be freed on the
/// control thread — like `SampleBank`.
///
/// The voice storage lives in the kit, allocated at load: the audio thread owns it from install
/// until retirement, so a hit never allocates.
public final class DrumKit: @unchecked Sendable {
    /// Frames of silence after every pad's sample in `samples`.
    /// - Thread: any.
    public static var guardFrameCount: Int { 8 }

    /// One pad: what a note plays.
    public struct Pad: Sendable, BitwiseCopyable, Equatable {
        /// First frame of the pad's sample in `samples` (stereo frames: two floats each).
        /// - Thread: any.
        public var start: Int
        /// Frames in the sample.
        /// - Thread: any.
        public var frameCount: Int
        /// Linear gain at full velocity.
        /// - Thread: any.
        public var gain: Float
        /// Voices that may ring at once; the next hit after that recycles the oldest (round robin).
        /// - Thread: any.
        public var voiceCount: Int
        /// Pads in the same non-zero group silence each other (a closed hi-hat chokes the open one).
        /// - Thread: any.
        public var chokeGroup: UInt16
        /// First of this pad's voices in the kit's voice storage (set by `DrumKit.init`).
        /// - Thread: any.
        public var firstVoice: Int = 0

        /// - Thread: any.
        public init(start: Int, frameCount: Int, gain: Float, voiceCount: Int, chokeGroup: UInt16) {
            self.start = start
            self.frameCount = frameCount
            self.gain = gain
            self.voiceCount = voiceCount
            self.chokeGroup = chokeGroup
        }
    }

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

    /// - Thread: any.
    public let name: String
    /// Stereo interleaved samples of every pad, each followed by `guardFrameCount` silent frames.
    /// - Thread: any.
    public let samples: UnsafeBufferPointer<Float>
    /// - Thread: any.
    public let pads: UnsafeBufferPointer<Pad>
    /// The pad each MIDI note plays, or -1.
    /// - Thread: any.
    public let padForNote: UnsafeBufferPointer<Int16>
    /// Names of the pads, parallel to `pads` (control thread only).
    /// - Thread: any.
    public let padNames: [String]
    /// Each pad's own note (the first of its note set), parallel to `pads` (control thread only).
    /// - Thread: any.
    public let padNotes: [UInt8]
    /// Voice storage for all pads; the audio thread's while the kit is installed.
    /// - Thread: any.
    public let voices: UnsafeMutableBufferPointer<Voice>
    /// Where each pad's next hit goes (round robin), parallel to `pads`; the audio thread's.
    /// - Thread: any.
    public let nextVoice: UnsafeMutableBufferPointer<Int>
    /// The buffers above as plain data for the audio thread, which must not touch the class.
    /// - Thread: any.
    public let layout: UnsafePointer<Layout>

    public struct Layout: @unchecked Sendable, BitwiseCopyable {
        /// - Thread: any.
        public let samples: UnsafeBufferPointer<Float>
        /// - Thread: any.
        public let pads: UnsafeBufferPointer<Pad>
        /// - Thread: any.
        public let padForNote: UnsafeBufferPointer<Int16>
        /// - Thread: any.
        public let voices: UnsafeMutableBufferPointer<Voice>
        /// - Thread: any.
        public let nextVoice: UnsafeMutableBufferPointer<Int>
    }

    /// - Parameters:
    ///   - samples: stereo interleaved frames; every pad's range must lie inside it.
    ///   - notes: the MIDI note of each pad, parallel to `pads`.
    /// - Precondition: loaders validate first; this checks again.
    /// - Thread: control. Not real-time safe: allocates.
    public convenience init(name: String, samples: [Float], pads: [Pad], notes: [UInt8], padNames: [String]) {
        self.init(name: name, samples: samples, pads: pads, noteSets: notes.map { [$0] }, padNames: padNames)
    }

    /// - Parameters:
    ///   - noteSets: the MIDI notes each pad answers to, parallel to `pads` (a kick on 35 and 36);
    ///     no note may belong to two pads.
    /// - Thread: control.
    public init(name: String, samples: [Float], pads: [Pad], noteSets: [[UInt8]], padNames: [String]) {
        precondition(pads.count == noteSets.count && pads.count == padNames.count)
        var placed = pads
        var voiceTotal = 0
        var table = [Int16](repeating: -1, count: 128)
        for index in placed.indices {
            precondition(placed[index].start >= 0 && placed[index].frameCount >= 0
                         && (placed[index].start + placed[index].frameCount) * 2 <= samples.count, "pad outside the sample pool")
            precondition(placed[index].voiceCount >= 1)
            placed[index].firstVoice = voiceTotal
            voiceTotal += placed[index].voiceCount
            for note in noteSets[index] {
                precondition(Int(note) < MIDILimits.keyCount && table[Int(note)] < 0, "a note belongs to two pads")
                table[Int(note)] = Int16(index)
            }
        }
        self.name = name
        self.padNames = padNames
        padNotes = noteSets.map { $0.first ?? 0 }
        self.samples = UnsafeBufferPointer.copying(samples)
        self.pads = UnsafeBufferPointer.copying(placed)
        padForNote = UnsafeBufferPointer.copying(table)
        let storage = UnsafeMutableBufferPointer<Voice>.allocate(capacity: max(1, voiceTotal))
        storage.initialize(repeating: Voice())
        voices = UnsafeMutableBufferPointer(rebasing: storage[0..<voiceTotal])
        nextVoice = .allocate(capacity: max(1, placed.count))
        nextVoice.initialize(repeating: 0)
        let layout = UnsafeMutablePointer<Layout>.allocate(capacity: 1)
        layout.initialize(to: Layout(samples: self.samples, pads: self.pads, padForNote: padForNote,
                                     voices: voices, nextVoice: nextVoice))
        self.layout = UnsafePointer(layout)
    }

    deinit {
        samples.deallocate()
        pads.deallocate()
        padForNote.deallocate()
        voices.baseAddress?.deallocate()
        nextVoice.deallocate()
        UnsafeMutablePointer(mutating: layout).deallocate()
    }
}
