import DSP

/// How much of the echo the echo canceller and the suppression after it take out: the echo return
/// loss enhancement (ERLE), the microphone's power over the output's, in dB.
///
/// Where the singer sings the ratio says nothing of the echo, since the voice passes; so it is
/// taken, as sums of power over the whole session, on the frames the late-echo gate judged to
/// hold echo alone with the gate already closed through them (`LateEchoGate.heldEchoOnly`): the
/// intro before the voice comes in, and its pauses, without the frames where the gate is still
/// closing on a voice's last sound.
///
/// Guarantees: `measure` allocates nothing and locks nothing.
/// - Thread: audio.
struct EchoReturnLossMeter {
    /// Echo-only frames it takes before a figure is reported: 2 s of them.
    static var minimumSeconds: Double { 2 }

    private var microphoneSum = 0.0, outputSum = 0.0
    private var echoOnlyFrameCount = 0
    private let minimumFrameCount: Int

    /// - Parameter frameCount: frames per processing frame (each `measure` call).
    /// - Thread: control.
    init(frameCount: Int, sampleRate: Double) {
        minimumFrameCount = max(1, Int(Self.minimumSeconds * sampleRate) / max(1, frameCount))
    }

    /// The figure, once `minimumSeconds` of echo-only frames have been measured.
    var decibels: Float? {
        @_noAllocation @_noLocks get {
            guard echoOnlyFrameCount >= minimumFrameCount, microphoneSum > 0 else { return nil }
            // 10·log10 by log2: the checker cannot see into libm.
            return 3.010_3 * log2Approximation(Float(microphoneSum / max(outputSum, microphoneSum * 1e-10)))
        }
    }

    /// Adds one processing frame: the microphone as it came and the output that stands for it,
    /// `frameCount` samples each, when the frame held echo alone.
    @_noAllocation @_noLocks
    mutating func measure(microphone: UnsafePointer<Float>, output: UnsafePointer<Float>, frameCount: Int, echoOnly: Bool) {
        guard echoOnly else { return }
        for index in 0..<frameCount {
            microphoneSum += Double(microphone[index]) * Double(microphone[index])
            outputSum += Double(output[index]) * Double(output[index])
        }
        echoOnlyFrameCount += 1
    }
}
