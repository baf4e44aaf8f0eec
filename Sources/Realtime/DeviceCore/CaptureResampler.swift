/// Stretches a captured signal by a ratio close to 1, so that a duplex stream whose capture and
/// playback run on two clocks (two sound cards; a card and a server) can take exactly what each
/// side gives and wants without ever dropping or repeating a captured frame, the artifact a drop
/// or repeat leaves in a microphone's signal. As zita-ajbridge does, the ratio comes from a
/// controller that holds the latency steady (`DriftCorrector`), and moves by parts per million.
///
/// Guarantees:
/// - At a ratio of exactly 1 the output is the input, sample for sample, two frames later (the
///   interpolator's look-ahead); at any other ratio, a cubic (Catmull-Rom) interpolation of it.
/// - What goes in comes out: over any run, the input frames consumed are the output frames made
///   times the ratio, to within the few frames held for interpolation; nothing is lost or made up.
/// - Allocation-free and lock-free after `init`; each call's work is bounded by its frame count.
///
/// - Thread: audio. The device thread's own; `init` and `deallocate` are the control thread's.
public struct CaptureResampler {
    public let channelCount: Int
    /// The most input frames one `resample` call takes.
    public let maxInputFrameCount: Int
    private let capacity: Int  // frames
    private let frames: UnsafeMutablePointer<Float>
    /// Frames held, from the buffer's start.
    private var count: Int
    /// Where the next output frame is read, in frames from the buffer's start: at least 1 (the
    /// interpolator reads a frame before it and two after).
    private var position: Double = 1
    /// Output frames owed to the input already taken, less those made: the fraction carried over.
    private var owed: Double = 0

    /// The most output frames one call makes for `frameCount` input frames, at a ratio no further
    /// from 1 than `DriftCorrector.maximumDeviation` (0.2 %), with the fraction carried over.
    /// - Thread: any.
    @_noAllocation @_noLocks
    public static func maxOutputFrameCount(forInput frameCount: Int) -> Int { frameCount + frameCount / 256 + 4 }

    /// - Thread: control. Not real-time safe: allocates.
    public init(channelCount: Int, maxInputFrameCount: Int) {
        self.channelCount = max(1, channelCount)
        self.maxInputFrameCount = max(1, maxInputFrameCount)
        capacity = 2 * self.maxInputFrameCount + 16
        frames = .allocate(capacity: capacity * self.channelCount)
        // Written now, so that no page of it is first touched on the audio thread; three frames of
        // silence are the history the first output frames interpolate from.
        frames.initialize(repeating: 0, count: capacity * self.channelCount)
        count = Self.historyFrameCount
    }

    /// - Thread: control.
    public func deallocate() { frames.deallocate() }

    /// How many frames later than it came in a captured frame comes out, at a ratio of 1.
    /// - Thread: any.
    public static var delayFrameCount: Int {
        @_noAllocation @_noLocks get { historyFrameCount - 1 }
    }

    /// The silent frames it starts with: one before the read position and two after it, so that
    /// at a ratio of 1 each call makes as many frames as it takes, from the first.
    static var historyFrameCount: Int {
        @_noAllocation @_noLocks get { 3 }
    }

    /// Forgets what it holds (after the devices restart): the silent history again.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    public mutating func reset() {
        for index in 0..<(Self.historyFrameCount * channelCount) { frames[index] = 0 }
        count = Self.historyFrameCount
        position = 1
        owed = 0
    }

    /// Takes `inputFrameCount` captured frames (interleaved, at most `maxInputFrameCount`) and
    /// writes the output frames they make at `ratio` (input frames per output frame: above 1
    /// makes fewer) into `output`, which has room for `maxOutputFrameCount(forInput:)`. Returns
    /// how many it wrote.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    public mutating func resample(_ input: UnsafePointer<Float>, inputFrameCount: Int, ratio: Double,
                                  into output: UnsafeMutablePointer<Float>) -> Int {
        let taken = min(min(max(0, inputFrameCount), maxInputFrameCount), capacity - count)
        let end = count * channelCount
        for index in 0..<(taken * channelCount) { frames[end + index] = input[index] }
        count += taken

        owed += Double(taken) / ratio
        var made = Int(owed)
        // The last frame made reads two frames past its position: never past what is held.
        let span = Double(count - 3) - position
        let readable = span < 0 ? 0 : Int(span / ratio) + 1
        made = max(0, min(min(made, readable), Self.maxOutputFrameCount(forInput: maxInputFrameCount)))
        owed -= Double(made)

        for frame in 0..<made {
            let whole = Int(position)
            let t = Float(position - Double(whole))
            let before = frames + (whole - 1) * channelCount
            for channel in 0..<channelCount {
                let y0 = before[channel], y1 = before[channelCount + channel]
                let y2 = before[2 * channelCount + channel], y3 = before[3 * channelCount + channel]
                // Catmull-Rom: exact at t = 0 (y1), continuous in value and slope between frames.
                let a = (y3 - y0) * 0.5 + (y1 - y2) * 1.5
                let b = y0 - y1 * 2.5 + y2 * 2 - y3 * 0.5
                let c = (y2 - y0) * 0.5
                output[frame * channelCount + channel] = ((a * t + b) * t + c) * t + y1
            }
            position += ratio
        }
        // Keep from the frame before the next position on.
        let shift = max(0, Int(position) - 1)
        if shift > 0 {
            // Moving down, front to back: each sample is read before it is overwritten.
            let offset = shift * channelCount
            for index in 0..<((count - shift) * channelCount) { frames[index] = frames[index + offset] }
            count -= shift
            position -= Double(shift)
        }
        return made
    }
}
