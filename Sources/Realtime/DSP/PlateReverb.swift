// Jon Dattorro's plate reverb ("Effect Design, Part 1: Reverberator and Other Filters", JAES 45(9),
// 1997), the figure-eight tank it describes. The mono input passes a pre-delay,
// a one-pole "bandwidth" low-pass and four series all-passes (the input diffusers, which smear an
// impulse into a dense burst before the tank sees it). The tank is two branches feeding each other
// in a loop: each is a modulated all-pass, a delay, a damping low-pass, a decay gain, a second
// all-pass, a second delay and another decay gain. Each output channel sums seven taps spread over
// both branches; the left and right taps are different points of the loop, so the channels are
// decorrelated while sharing one tail.
//
// Differences from the paper, each for a reason:
// - Every length, tap and the excursion are scaled from Dattorro's 29,761 Hz to the engine rate,
//   and so are the low-pass poles, so the plate sounds (and decays) the same at any rate.
// - The decay is set as RT60 in seconds: the loop's four decay gains are chosen so the whole
//   figure-eight loses 60 dB in that time (the paper's `decay` knob has no time unit).
//   `decayDiffusion2` follows the decay as the paper suggests (decay + 0.15, within 0.25…0.5).
// - The input is scaled so the wet level stays about the same whatever the decay, as in the
//   Freeverb tank.
// - The modulation is a sine LFO in quadrature between the branches, read with linear
//   interpolation: cheap, and the tank's own all-passes hide its slight high-frequency loss.

/// Dattorro's plate tank, with its input diffusion. Owns its storage: `deallocate()` frees it.
@usableFromInline
struct DattorroPlate {
    /// The rate Dattorro's lengths are in samples of.
    @usableFromInline static var referenceRate: Double { @inlinable @_noAllocation @_noLocks get { 29_761 } }
    /// The pre-delay, in seconds: enough to part the tail from the dry sound, as a plate's usually is.
    @usableFromInline static var preDelaySeconds: Double { @inlinable @_noAllocation @_noLocks get { 0.02 } }
    /// The modulation's rate; the branches are a quarter turn apart.
    @usableFromInline static var lfoHertz: Double { @inlinable @_noAllocation @_noLocks get { 1 } }
    /// The paper's diffusion gains, signed for `ReverbAllPass`: the paper gives the tank's first
    /// all-passes the opposite sign to the input diffusers and the tank's second all-passes.
    @usableFromInline static var inputDiffusion1: Float { @inlinable @_noAllocation @_noLocks get { -0.75 } }
    @usableFromInline static var inputDiffusion2: Float { @inlinable @_noAllocation @_noLocks get { -0.625 } }
    @usableFromInline static var decayDiffusion1: Float { @inlinable @_noAllocation @_noLocks get { 0.7 } }
    /// Scales the input so the plate's wet level matches the rooms' (measured: an energy gain of
    /// 0.6 for white noise, the medium room's).
    @usableFromInline static var outputLevel: Float { @inlinable @_noAllocation @_noLocks get { 0.45 } }

    /// Seven taps per channel, as ages (frames) into the tank's lines; see `output`.
    @usableFromInline typealias Taps = (Int, Int, Int, Int, Int, Int, Int)

    @usableFromInline let storage: UnsafeMutablePointer<Float>
    @usableFromInline let storageCount: Int

    @usableFromInline var preDelay: ReverbDelayLine
    @usableFromInline var diffusers: (ReverbAllPass, ReverbAllPass, ReverbAllPass, ReverbAllPass)
    @usableFromInline var leftModulated: ReverbDelayLine, rightModulated: ReverbDelayLine
    @usableFromInline var leftDelay1: ReverbDelayLine, rightDelay1: ReverbDelayLine
    @usableFromInline var leftAllPass: ReverbAllPass, rightAllPass: ReverbAllPass
    @usableFromInline var leftDelay2: ReverbDelayLine, rightDelay2: ReverbDelayLine
    @usableFromInline let leftTaps: Taps, rightTaps: Taps

    /// The modulated all-passes' mean delays and the modulation's depth, in frames.
    @usableFromInline let leftModulatedDelay: Float, rightModulatedDelay: Float, excursion: Float
    /// The frames one trip round the whole figure-eight takes (it passes four decay gains).
    @usableFromInline let loopFrames: Int

    @usableFromInline let bandwidthPole: Float
    @usableFromInline var bandwidthState: Float = 0
    @usableFromInline var leftDampingState: Float = 0, rightDampingState: Float = 0
    @usableFromInline var damping: Float = 0
    @usableFromInline var decay: Float = 0
    @usableFromInline var decayDiffusion2: Float = 0.5
    @usableFromInline var inputGain: Float = 0

    /// The LFO's phase in turns (exact across blocks), its step, and the rotation by one step that
    /// turns the sine and cosine from frame to frame within a block.
    @usableFromInline var lfoPhase: Double = 0
    @usableFromInline let lfoIncrement: Double
    @usableFromInline let lfoStepCosine: Float, lfoStepSine: Float

    /// Allocates a plate for `sampleRate`. Not real-time safe.
    @usableFromInline
    init(sampleRate: Double) {
        let scale = sampleRate / DattorroPlate.referenceRate
        func scaled(_ samples: Int) -> Int { max(1, Int((Double(samples) * scale).rounded())) }
        let excursionFrames = 16 * scale
        excursion = Float(excursionFrames)
        let leftModulatedFrames = scaled(672), rightModulatedFrames = scaled(908)
        leftModulatedDelay = Float(leftModulatedFrames)
        rightModulatedDelay = Float(rightModulatedFrames)
        // Room for the deepest excursion and the interpolation's second sample.
        let modulationRoom = Int(excursionFrames.rounded(.up)) + 2
        let lengths = [
            max(1, Int((DattorroPlate.preDelaySeconds * sampleRate).rounded())),
            scaled(142), scaled(107), scaled(379), scaled(277),
            leftModulatedFrames + modulationRoom, rightModulatedFrames + modulationRoom,
            scaled(4_453), scaled(4_217), scaled(1_800), scaled(2_656), scaled(3_720), scaled(3_163),
        ]
        storageCount = lengths.reduce(0, +)
        storage = .allocate(capacity: storageCount)
        storage.initialize(repeating: 0, count: storageCount)
        var lines: [ReverbDelayLine] = []
        var next = storage
        for length in lengths {
            lines.append(ReverbDelayLine(buffer: next, length: length))
            next += length
        }
        func allPass(_ number: Int) -> ReverbAllPass { ReverbAllPass(buffer: lines[number].buffer, length: lines[number].length) }
        preDelay = lines[0]
        diffusers = (allPass(1), allPass(2), allPass(3), allPass(4))
        leftModulated = lines[5]; rightModulated = lines[6]
        leftDelay1 = lines[7]; rightDelay1 = lines[8]
        leftAllPass = allPass(9); rightAllPass = allPass(10)
        leftDelay2 = lines[11]; rightDelay2 = lines[12]
        loopFrames = leftModulatedFrames + rightModulatedFrames + lengths[7...12].reduce(0, +)
        // The paper's taps: for each channel, two on the far branch's first delay, one on its second
        // all-pass, one on its second delay, then one on each of the near branch's three (see `output`).
        leftTaps = (scaled(266), scaled(2_974), scaled(1_913), scaled(1_996), scaled(1_990), scaled(187), scaled(1_066))
        rightTaps = (scaled(353), scaled(3_627), scaled(1_228), scaled(2_673), scaled(2_111), scaled(335), scaled(121))
        // The paper's bandwidth 0.9995 is the one-pole's 1 − pole at 29,761 Hz; keep its time constant.
        bandwidthPole = Float(fastExp2(-10.965_784_284_662_087 / scale))  // log2(0.0005)
        lfoIncrement = DattorroPlate.lfoHertz / sampleRate
        lfoStepCosine = Float(sineOfTurns(lfoIncrement + 0.25))
        lfoStepSine = Float(sineOfTurns(lfoIncrement))
    }

    @usableFromInline
    func deallocate() { storage.deallocate() }

    /// Silences the plate at once (not for use while it sounds: it would click).
    @inlinable @_noAllocation @_noLocks
    mutating func clear() {
        storage.update(repeating: 0, count: storageCount)
        bandwidthState = 0
        leftDampingState = 0
        rightDampingState = 0
    }

    /// Sets the decay to −60 dB round the loop, ignoring damping (which shortens the highs').
    @inlinable @_noAllocation @_noLocks
    mutating func setDecay(seconds rt60: Double, sampleRate: Double) {
        // Each of the four gains covers a quarter of the loop: g = 10^(−3·(L/4)/(RT60·fs)).
        let exponent = Float(-3 * 3.321_928_094_887_362 * Double(loopFrames) / (4 * rt60 * sampleRate))
        decay = fastExp2(exponent)
        decayDiffusion2 = min(max(decay + 0.15, 0.25), 0.5)
        // The tank's energy builds up as 1 / (1 − g⁴) over the loop; normalise that away.
        // (√ via exp2/log2: `squareRoot()` is an opaque call to the real-time checker.)
        let loopGain = decay * decay * decay * decay
        inputGain = DattorroPlate.outputLevel * fastExp2(0.5 * log2Approximation(1 - loopGain))
    }

    /// Reverberates `frameCount` frames of the mono `input` (destroyed: used as scratch) into
    /// `left` and `right`.
    @inlinable @_noAllocation @_noLocks
    mutating func process(_ input: UnsafeMutablePointer<Float>, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frameCount: Int) {
        var band = bandwidthState
        let pole = bandwidthPole, oneMinusPole = 1 - bandwidthPole
        for frame in 0..<frameCount {
            band = preDelay.push(input[frame]) * oneMinusPole + band * pole
            input[frame] = band
        }
        bandwidthState = band
        diffusers.0.process(input, frameCount: frameCount, gain: DattorroPlate.inputDiffusion1)
        diffusers.1.process(input, frameCount: frameCount, gain: DattorroPlate.inputDiffusion1)
        diffusers.2.process(input, frameCount: frameCount, gain: DattorroPlate.inputDiffusion2)
        diffusers.3.process(input, frameCount: frameCount, gain: DattorroPlate.inputDiffusion2)

        // The LFO from its exact phase at each block start, so the per-frame rotation cannot drift.
        var sine = Float(sineOfTurns(lfoPhase))
        var cosine = Float(sineOfTurns(lfoPhase < 0.75 ? lfoPhase + 0.25 : lfoPhase - 0.75))
        lfoPhase += lfoIncrement * Double(frameCount)
        while lfoPhase >= 1 { lfoPhase -= 1 }
        let stepCosine = lfoStepCosine, stepSine = lfoStepSine
        let g = decay, diffusion2 = -decayDiffusion2, d = damping, oneMinusD = 1 - damping
        var leftDamped = leftDampingState, rightDamped = rightDampingState
        for frame in 0..<frameCount {
            let x = input[frame]
            // Each branch starts from what the other's last delay lets out: the figure-eight.
            let fromLeft = leftDelay2.front, fromRight = rightDelay2.front
            let leftIn = DattorroPlate.modulatedAllPass(&leftModulated, x + g * fromRight, delay: leftModulatedDelay + excursion * sine)
            leftDamped = leftDelay1.push(leftIn) * oneMinusD + leftDamped * d
            _ = leftDelay2.push(leftAllPass.process(leftDamped * g, gain: diffusion2))
            let rightIn = DattorroPlate.modulatedAllPass(&rightModulated, x + g * fromLeft, delay: rightModulatedDelay + excursion * cosine)
            rightDamped = rightDelay1.push(rightIn) * oneMinusD + rightDamped * d
            _ = rightDelay2.push(rightAllPass.process(rightDamped * g, gain: diffusion2))
            left[frame] = output(leftTaps, near: (leftDelay1, leftAllPass.line, leftDelay2), far: (rightDelay1, rightAllPass.line, rightDelay2))
            right[frame] = output(rightTaps, near: (rightDelay1, rightAllPass.line, rightDelay2), far: (leftDelay1, leftAllPass.line, leftDelay2))
            let turnedCosine = cosine * stepCosine - sine * stepSine
            sine = sine * stepCosine + cosine * stepSine
            cosine = turnedCosine
        }
        leftDampingState = leftDamped
        rightDampingState = rightDamped
    }

    /// The tank's first all-pass in each branch, its delay swept by the LFO: `delay` frames, ≥ 1.
    @inlinable @_noAllocation @_noLocks
    static func modulatedAllPass(_ line: inout ReverbDelayLine, _ input: Float, delay: Float) -> Float {
        // The sample `delay` frames before the one about to be pushed is `delay − 1` before the latest.
        let (store, output) = ReverbAllPass.step(input, delayed: line.tap(fractional: delay - 1), gain: DattorroPlate.decayDiffusion1)
        _ = line.push(store)
        return output
    }

    /// One channel's output: the paper's seven taps, with its signs (the same pattern for both
    /// channels, with the branches' roles swapped).
    @inlinable @_noAllocation @_noLocks
    func output(_ taps: Taps, near: (ReverbDelayLine, ReverbDelayLine, ReverbDelayLine), far: (ReverbDelayLine, ReverbDelayLine, ReverbDelayLine)) -> Float {
        far.0.tap(taps.0) + far.0.tap(taps.1) - far.1.tap(taps.2) + far.2.tap(taps.3)
            - near.0.tap(taps.4) - near.1.tap(taps.5) - near.2.tap(taps.6)
    }
}
