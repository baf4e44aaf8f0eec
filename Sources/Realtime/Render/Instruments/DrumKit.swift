/// A loaded drum kit: one-shot pads, each with its decoded stereo sample and the number of voices
/// it may ring with. An immutable description, built whole on the control thread (by the kit
/// loader): any number of engines may play one kit at once. What a kit's playing changes (its
/// voices, each pad's next voice) lives in a `DrumKitPlayback`, one per install, which the audio
/// thread owns until it hands it back, as sfizz keeps a Region apart from its Layer.
public final class DrumKit: @unchecked Sendable {
    /// Frames of silence after every pad's sample in `samples`.
    /// - Thread: any.
    public static var guardFrameCount: Int { 8 }

    /// One pad: what a note plays.
    public struct Pad: Sendable, BitwiseCopyable, Equatable {
        /// First frame of the pad's sample in `samples` (stereo frames: two floats each).
        public var start: Int
        /// Frames in the sample.
        public var frameCount: Int
        /// Linear gain at full velocity.
        public var gain: Float
        /// Voices that may ring at once; the next hit after that recycles the oldest (round robin).
        public var voiceCount: Int
        /// Pads in the same non-zero group silence each other (a closed hi-hat chokes the open one).
        public var chokeGroup: UInt16
        /// First of this pad's voices in a playback's voice storage (set by `DrumKit.init`).
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

    public let name: String
    /// Stereo interleaved samples of every pad, each followed by `guardFrameCount` silent frames.
    public let samples: UnsafeBufferPointer<Float>
    public let pads: UnsafeBufferPointer<Pad>
    /// The pad each MIDI note plays, or -1.
    public let padForNote: UnsafeBufferPointer<Int16>
    /// Names of the pads, parallel to `pads`: the audio thread never reads them.
    /// - Thread: control.
    public let padNames: [String]
    /// Each pad's own note (the first of its note set), parallel to `pads`: the audio thread never reads them.
    /// - Thread: control.
    public let padNotes: [UInt8]
    /// Voice storage for all pads; the audio thread's while the kit is installed.
    /// Voices of every pad together: the storage a `DrumKitPlayback` of this kit allocates.
    public let voiceCount: Int

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
        voiceCount = voiceTotal
    }

    deinit {
        samples.deallocate()
        pads.deallocate()
        padForNote.deallocate()
    }
}
