import Glibc

/// Residual-echo suppression for the echo a room keeps past the canceller's filter: the late
/// reverberation of a live room (RT60 0.6 s leaves the echo 10 dB down at 100 ms) that the
/// filter cannot model and speex's residual estimate, made from the filter's own output, does not
/// see.
///
/// The late echo's power is predicted from the reference (what the engine played) one filter
/// length ago and before, smoothed by a decay (`decaySeconds`), times the room's coupling: the
/// least ratio of the output's power to that prediction over the last `couplingSeconds` windows,
/// which the pauses of the voice set. A frame whose output stays within `marginDecibels` of the
/// predicted echo holds no voice, and is turned down by `depthDecibels`; a frame above it passes
/// whole. The gain opens within a frame and closes over `releaseSeconds`, each frame's change
/// ramped across its samples.
///
/// Guarantees: `init` (control thread) allocates the reference history; `process` allocates
/// nothing and locks nothing.
/// - Thread: audio. Built on the control thread; `deallocate` when no audio thread runs it.
struct LateEchoGate {
    /// The late echo's energy decay time constant: a room of RT60 0.7 s (60 dB over 13.8 time
    /// constants).
    static var decaySeconds: Double { 0.05 }
    /// How long the least ratio is kept: two windows of this, the older one dropped in turn.
    static var couplingSeconds: Double { 1.5 }
    /// How far above the predicted echo a frame must be to hold voice.
    static var marginDecibels: Float { 20 }
    /// How far an echo-only frame is turned down.
    static var depthDecibels: Float { -20 }
    static var releaseSeconds: Double { 0.03 }
    /// Below this mean square (−70 dBFS) the prediction counts as no echo.
    static var floorPower: Float { 1e-7 }

    private let frameCount: Int
    /// The reference's power, a frame a slot, a ring as long as the filter.
    private let history: UnsafeMutablePointer<Float>
    private let historyCount: Int
    private var historyIndex = 0
    private var late: Float = 0
    private let decay: Float
    private var leastRatio: Float = .infinity, previousLeastRatio: Float = .infinity
    private var framesInWindow = 0
    private let framesPerWindow: Int
    private let margin: Float, depth: Float, release: Float
    private var gain: Float = 1
    /// Whether the last frame was judged to hold echo alone, with the gate already closed
    /// through it (a frame while the gate closes may still carry a voice's last sound).
    private(set) var heldEchoOnly = false

    /// - Parameters:
    ///   - frameCount: frames per processing frame.
    ///   - filterFrameCount: the canceller's filter length, in frames: the echo it models.
    /// - Thread: control. Not real-time safe: allocates.
    init(frameCount: Int, filterFrameCount: Int, sampleRate: Double) {
        self.frameCount = frameCount
        historyCount = max(1, filterFrameCount / frameCount)
        history = .allocate(capacity: historyCount)
        history.initialize(repeating: 0, count: historyCount)
        let frameSeconds = Double(frameCount) / sampleRate
        decay = Float(exp(-frameSeconds / Self.decaySeconds))
        framesPerWindow = max(1, Int(Self.couplingSeconds / frameSeconds))
        margin = pow(10, Self.marginDecibels / 10)
        depth = pow(10, Self.depthDecibels / 20)
        release = Float(1 - exp(-frameSeconds / Self.releaseSeconds))
    }

    /// - Thread: stopped.
    func deallocate() { history.deallocate() }

    /// Turns `output` (the processed frame) down where it holds only late echo; `reference` is
    /// the reference frame it stands for, as 16-bit words.
    @_noAllocation @_noLocks
    mutating func process(_ output: UnsafeMutablePointer<Float>, reference: UnsafePointer<Int16>) {
        var referencePower: Float = 0, outputPower: Float = 0
        for index in 0..<frameCount {
            let sample = Float(reference[index]) / 32_768
            referencePower += sample * sample
            outputPower += output[index] * output[index]
        }
        referencePower /= Float(frameCount)
        outputPower /= Float(frameCount)
        // The reference a filter length ago enters the late echo, which decays.
        let leaving = history[historyIndex]
        history[historyIndex] = referencePower
        historyIndex = historyIndex + 1 == historyCount ? 0 : historyIndex + 1
        late = decay * late + (1 - decay) * leaving

        var target: Float = 1
        heldEchoOnly = false
        if late > Self.floorPower {
            let ratio = outputPower / late
            leastRatio = min(leastRatio, ratio)
            let coupling = min(leastRatio, previousLeastRatio)
            if coupling.isFinite, outputPower < margin * coupling * late {
                target = depth
                heldEchoOnly = gain <= depth * 1.01
            }
        }
        framesInWindow += 1
        if framesInWindow == framesPerWindow {
            framesInWindow = 0
            previousLeastRatio = leastRatio
            leastRatio = .infinity
        }
        let start = gain
        gain = target > gain ? target : gain + release * (target - gain)
        let step = (gain - start) / Float(frameCount)
        for index in 0..<frameCount { output[index] *= start + step * Float(index + 1) }
    }
}
