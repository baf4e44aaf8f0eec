// A Freeverb-class stereo reverb (after Jezar's Freeverb, public domain): per channel, eight
// parallel comb filters with a one-pole low-pass in their feedback paths (the "damping": highs die
// first, as in a real room) feed four series all-passes (diffusion). The right channel's delay
// lines are 23 samples (at 44.1 kHz) longer than the left's, so the two tails are decorrelated and
// the reverb sounds wide.
//
// Differences from the original, each for a reason:
// - Every length is scaled from the 44.1 kHz tunings to the engine rate, and so is the damping
//   pole, so a preset sounds (and decays) the same at any rate.
// - The decay is set as RT60 in seconds, and each comb gets its own feedback 10^(−3·L/(RT60·fs))
//   so that all eight decay at the same rate (Freeverb's single feedback makes the short combs die
//   first). `setRoomSize` keeps Freeverb's 0…1 knob, mapped to the RT60 it would give.
// - The input gain is normalised by the combs' energy gain, so the wet level stays about the same
//   whether the tail is short or long.
// - The all-passes are true Schroeder all-passes (Freeverb's are not quite all-pass).
//
// This is the rooms' tank of `Reverb` (Reverb.swift, which holds the mix and the switching); the
// plate's is Dattorro's (PlateReverb.swift). Both are built from ReverbPrimitives.swift.

/// The Freeverb tank: eight combs feeding four series all-passes per channel, the right channel's
/// lines longer than the left's. Owns its storage: `deallocate()` frees it.
@usableFromInline
struct FreeverbTank {
    @usableFromInline static let combCount = 8
    @usableFromInline static let allPassCount = 4
    /// Freeverb's tunings at 44.1 kHz, in samples.
    @usableFromInline static let combTunings: (Int, Int, Int, Int, Int, Int, Int, Int) = (1116, 1188, 1277, 1356, 1422, 1491, 1557, 1617)
    @usableFromInline static let allPassTunings: (Int, Int, Int, Int) = (556, 441, 341, 225)
    @usableFromInline static let stereoSpread = 23
    @usableFromInline static let allPassGain: Float = 0.5

    /// Combs 0..<8 are the left channel's, 8..<16 the right's; likewise the all-passes (4 + 4).
    @usableFromInline let combs: UnsafeMutablePointer<ReverbComb>
    @usableFromInline let allPasses: UnsafeMutablePointer<ReverbAllPass>
    /// All delay lines, one allocation.
    @usableFromInline let lines: UnsafeMutablePointer<Float>
    /// What the input is scaled by before the tank (set with the decay).
    @usableFromInline var inputGain: Float = 0

    init(sampleRate: Double) {
        let scale = sampleRate / 44_100
        func scaled(_ samples: Int) -> Int { max(1, Int((Double(samples) * scale).rounded())) }
        let combTunings = withUnsafeBytes(of: FreeverbTank.combTunings) { Array($0.bindMemory(to: Int.self)) }
        let allPassTunings = withUnsafeBytes(of: FreeverbTank.allPassTunings) { Array($0.bindMemory(to: Int.self)) }
        var combLengths: [Int] = [], allPassLengths: [Int] = []
        for offset in [0, FreeverbTank.stereoSpread] {
            combLengths += combTunings.map { scaled($0 + offset) }
            allPassLengths += allPassTunings.map { scaled($0 + offset) }
        }
        let total = combLengths.reduce(0, +) + allPassLengths.reduce(0, +)
        lines = .allocate(capacity: total)
        lines.initialize(repeating: 0, count: total)
        combs = .allocate(capacity: combLengths.count)
        allPasses = .allocate(capacity: allPassLengths.count)
        var next = lines
        for (number, length) in combLengths.enumerated() {
            (combs + number).initialize(to: ReverbComb(buffer: next, length: length))
            next += length
        }
        for (number, length) in allPassLengths.enumerated() {
            (allPasses + number).initialize(to: ReverbAllPass(buffer: next, length: length))
            next += length
        }
    }

    func deallocate() {
        lines.deallocate()
        combs.deallocate()
        allPasses.deallocate()
    }

    /// Silences the tail at once.
    @inlinable @_noAllocation @_noLocks
    mutating func clear() {
        for number in 0..<(2 * FreeverbTank.combCount) { combs[number].clear() }
        for number in 0..<(2 * FreeverbTank.allPassCount) { allPasses[number].line.clear() }
    }

    /// Gives each comb the feedback that makes it lose 60 dB in `rt60` seconds, and the input the
    /// gain that keeps the wet level whatever the decay.
    @inlinable @_noAllocation @_noLocks
    mutating func setDecay(seconds rt60: Double, sampleRate: Double) {
        // g = 10^(−3·L/(RT60·fs)) = 2^(−3·log2(10)·L/(RT60·fs)).
        let exponentPerSample = Float(-3 * 3.321_928_094_887_362 / (rt60 * sampleRate))
        var energy: Float = 0
        for number in 0..<(2 * FreeverbTank.combCount) {
            let g = fastExp2(exponentPerSample * Float(combs[number].line.length))
            combs[number].feedback = g
            energy += 1 / (1 - g * g)  // a comb's energy gain for white input
        }
        // Normalise so the 8 combs of one channel give about unity energy gain together.
        // (√ via exp2/log2: `squareRoot()` is an opaque call to the real-time checker.)
        inputGain = fastExp2(0.5 * log2Approximation(2 / energy))
    }

    /// Sets every comb's damping pole.
    @inlinable @_noAllocation @_noLocks
    mutating func setDamping(pole: Float) {
        for number in 0..<(2 * FreeverbTank.combCount) { combs[number].damping = pole }
    }

    /// Runs the tank over `input` (already scaled by `inputGain`), writing the wet output.
    @inlinable @_noAllocation @_noLocks
    mutating func process(_ input: UnsafePointer<Float>, left wetLeft: UnsafeMutablePointer<Float>,
                          right wetRight: UnsafeMutablePointer<Float>, frameCount: Int) {
        wetLeft.update(repeating: 0, count: frameCount)
        wetRight.update(repeating: 0, count: frameCount)
        for number in 0..<FreeverbTank.combCount {
            combs[number].accumulate(input, into: wetLeft, frameCount: frameCount)
            combs[number + FreeverbTank.combCount].accumulate(input, into: wetRight, frameCount: frameCount)
        }
        for number in 0..<FreeverbTank.allPassCount {
            allPasses[number].process(wetLeft, frameCount: frameCount, gain: FreeverbTank.allPassGain)
            allPasses[number + FreeverbTank.allPassCount].process(wetRight, frameCount: frameCount, gain: FreeverbTank.allPassGain)
        }
    }
}
