import DSP

/// A voice's running SFZ 2 flex envelopes and LFOs (`SamplerFlex`), advanced a control block at a
/// time, and what their routes add to the voice's parameters.
///
/// One per voice slot, beside the pool's voices rather than in them: most voices have no flex
/// modulation, and the slot (`SamplerFlex.capacity` of each) would double a voice's size. A voice
/// holds a pointer to its slot; a voice copied into a fade slot has its state copied too
/// (`SamplerVoice.copyForFade`).
struct FlexVoiceState {
    /// One envelope's place: the point it is heading for, from which level, how far along.
    struct EnvelopeState {
        var points: UnsafePointer<SamplerFlex.Point>? = nil
        var pointCount: Int32 = 0
        var sustainPoint: Int32 = 0
        /// The point the envelope is heading for; `pointCount` or past when finished.
        var stage: Int32 = 0
        var elapsedFrames: Float = 0
        var stageFrames: Float = 0
        /// 1 / `stageFrames` (0 for a stage of none): a multiply a block rather than a division.
        var stagePerFrame: Float = 0
        var from: Float = 0
        var to: Float = 0
        var shape: Float = 0
        var level: Float = 0

        var isFinished: Bool { @_noAllocation @_noLocks get { stage >= pointCount } }

        /// Heads for point `stage` from where the envelope is, reading its controllers now.
        @_noAllocation @_noLocks
        mutating func enter(_ stage: Int32, controllers: UnsafePointer<UInt8>, sampleRate: Float) {
            self.stage = stage
            from = level
            elapsedFrames = 0
            guard let points, stage < pointCount else { return }
            let point = points[Int(stage)]
            var seconds = point.seconds
            if point.timeController != SamplerFlex.noController {
                seconds += point.secondsAtFullController * Float(controllers[Int(point.timeController)]) * (1 / 127)
            }
            var target = point.level
            if point.levelController != SamplerFlex.noController {
                target += point.levelAtFullController * Float(controllers[Int(point.levelController)]) * (1 / 127)
            }
            to = min(max(target, -1), 1)
            stageFrames = max(0, seconds) * sampleRate
            stagePerFrame = stageFrames > 0 ? 1 / stageFrames : 0
            shape = point.shape
        }

        /// The level `fraction` (0…1) of the way through the stage, along its shape.
        @_noAllocation @_noLocks
        func levelAt(_ fraction: Float) -> Float {
            var curve = min(max(fraction, 0), 1)
            if shape > 0, curve > 0 {
                curve = Self.power(curve, 1 + shape)
            } else if shape < 0, curve < 1 {
                curve = 1 - Self.power(1 - curve, 1 - shape)
            }
            return from + (to - from) * curve
        }

        /// `base` (0…1) to the `exponent` (1 or more): by multiplying for the whole exponents
        /// libraries mostly write (a shape of 2 or -3), through 2^(e · log2 b) otherwise.
        @inline(__always) @_noAllocation @_noLocks
        static func power(_ base: Float, _ exponent: Float) -> Float {
            let whole = Int(exponent)
            guard Float(whole) == exponent, whole <= 8 else { return fastExp2(exponent * log2Approximation(base)) }
            var result = base
            for _ in 1..<whole { result *= base }
            return result
        }

        /// Moves on `frameCount` frames: through every stage that ends meanwhile, holding at the
        /// sustain point while the key is down, past it once `released`.
        @_noAllocation @_noLocks
        mutating func advance(by frameCount: Int, released: Bool, controllers: UnsafePointer<UInt8>, sampleRate: Float) {
            var remaining = Float(frameCount)
            while stage < pointCount {
                if released && stage <= sustainPoint {
                    enter(sustainPoint + 1, controllers: controllers, sampleRate: sampleRate)
                    continue
                }
                let left = stageFrames - elapsedFrames
                if stage == sustainPoint || remaining < left {
                    // (A sustain point reached holds its level: the count stops there.)
                    elapsedFrames = min(elapsedFrames + remaining, stageFrames)
                    level = stageFrames > 0 ? levelAt(elapsedFrames * stagePerFrame) : to
                    return
                }
                remaining -= max(0, left)
                level = to
                enter(stage + 1, controllers: controllers, sampleRate: sampleRate)
            }
            // Past its last point an envelope is silent, as sfizz has it.
            level = 0
        }
    }

    /// One LFO's place in its period, its delay and fade-in.
    struct LFOState {
        var description: UnsafePointer<SamplerFlex.LFO>? = nil
        /// Turns, 0 ..< 1.
        var phase: Float = 0
        var delayFrames: Float = 0
        /// The fade-in's share reached, 0…1, and what a frame adds to it (0: no fade).
        var fade: Float = 1
        var fadePerFrame: Float = 0
        /// The sample-and-hold wave's value, and which half of its period it was drawn in.
        var held: Float = 0
        var heldInSecondHalf = false

        /// The wave at `phase` (turns), before the fade.
        @_noAllocation @_noLocks
        static func wave(_ wave: SamplerFlex.Wave, at phase: Float) -> Float {
            switch wave {
            case .triangle: return phase < 0.25 ? 4 * phase : phase < 0.75 ? 2 - 4 * phase : 4 * phase - 4
            case .sine: return fastSineOfTurns(phase)
            case .pulse75: return phase < 0.75 ? 1 : 0
            case .square: return phase < 0.5 ? 1 : 0
            case .pulse25: return phase < 0.25 ? 1 : 0
            case .pulse12: return phase < 0.125 ? 1 : 0
            case .rampUp: return 2 * phase - 1
            case .rampDown: return 1 - 2 * phase
            case .sampleAndHold: return 0
            }
        }
    }

    // What a block reads of every voice with flex modulation comes first, then its LFOs, then its
    // envelopes (libraries run more LFOs than envelopes), so that the usual few share three or
    // four cache lines of the state's dozen: the state is read beside the voice, and its lines
    // were a tenth of a flex voice's time.
    var envelopeCount = 0
    var lfoCount = 0
    var routes: UnsafePointer<SamplerFlex.Route>? = nil
    var routeCount = 0
    var amplitudeEnvelope = -1
    var isReleased = false
    /// The envelope that stands for the amplitude envelope has run its last point: the voice ends.
    var amplitudeEnvelopeFinished = false
    /// The voice's own generator for the sample-and-hold wave (xorshift), seeded at note-on, so
    /// every render draws the same values at any block size.
    var randomState: UInt32 = 1
    /// Seconds a frame, set at note-on: a division every block would head every LFO's chain.
    var framePeriod: Float = 0

    /// A route reaches the equalizer: `equalizerMoves` has something to give.
    var movesEqualizer = false
    /// A route reaches the resonance: the voice sets its filter's Q from them every block.
    var movesResonance = false
    var lfos: (LFOState, LFOState, LFOState, LFOState, LFOState, LFOState, LFOState, LFOState)
    var envelopes: (EnvelopeState, EnvelopeState, EnvelopeState, EnvelopeState,
                    EnvelopeState, EnvelopeState, EnvelopeState, EnvelopeState)

    @_noAllocation @_noLocks
    init() {
        envelopes = (EnvelopeState(), EnvelopeState(), EnvelopeState(), EnvelopeState(),
                     EnvelopeState(), EnvelopeState(), EnvelopeState(), EnvelopeState())
        lfos = (LFOState(), LFOState(), LFOState(), LFOState(), LFOState(), LFOState(), LFOState(), LFOState())
    }

    /// What the routes add to the voice's parameters at a block's end: one sum a target
    /// (`SamplerFlex.Target.slot`), the amplitude's a product (1: no change). The voice keeps it
    /// on its stack and `advance` writes it in place: returned as a value, its copy, read whole
    /// just after the scalar writes, stalled on them, and kept in the state it took two more
    /// cache lines a voice.
    struct Outputs {
        var sums: (Float, Float, Float, Float, Float, Float, Float, Float, Float,
                   Float, Float, Float, Float, Float, Float, Float, Float) = (0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        @_noAllocation @_noLocks init() {}

        /// What the routes add to `target` (pan, width and position as -1…1, the voice's pan's unit).
        @_noAllocation @_noLocks
        mutating func output(_ target: SamplerFlex.Target) -> Float {
            let slot = target.slot
            let sum = withUnsafeMutableBytes(of: &sums) { $0.load(fromByteOffset: slot * MemoryLayout<Float>.stride, as: Float.self) }
            switch target {
            case .pan, .width, .position: return sum / 100
            default: return sum
            }
        }

        /// What the routes add to the equalizer's bands 1-3 (lanes 0-2).
        var equalizerMoves: (gain: SIMD4<Float>, frequency: SIMD4<Float>, octaves: SIMD4<Float>) {
            @_noAllocation @_noLocks mutating get {
                (SIMD4(output(.equalizer1Gain), output(.equalizer2Gain), output(.equalizer3Gain), 0),
                 SIMD4(output(.equalizer1Frequency), output(.equalizer2Frequency), output(.equalizer3Frequency), 0),
                 SIMD4(output(.equalizer1Octaves), output(.equalizer2Octaves), output(.equalizer3Octaves), 0))
            }
        }
    }

    /// Starts the region's envelopes and LFOs for a note, reading their controllers now.
    /// `seed` makes the voice's random sequence its own.
    @_noAllocation @_noLocks
    mutating func start(_ ranges: SamplerFlex.Ranges, controllers: UnsafePointer<UInt8>, sampleRate: Double, seed: UInt64) {
        guard let layout = UnsafePointer<SamplerFlex.Layout>(bitPattern: ranges.layoutAddress) else {
            envelopeCount = 0
            lfoCount = 0
            routeCount = 0
            return
        }
        let rate = Float(sampleRate)
        framePeriod = Float(1 / sampleRate)
        envelopeCount = Int(ranges.envelopeCount)
        lfoCount = Int(ranges.lfoCount)
        routes = layout.pointee.routes + Int(ranges.firstRoute)
        routeCount = Int(ranges.routeCount)
        amplitudeEnvelope = Int(ranges.amplitudeEnvelope)
        isReleased = false
        randomState = UInt32(truncatingIfNeeded: seed &* 0x9E37_79B9_7F4A_7C15 >> 32) | 1
        movesEqualizer = false
        movesResonance = false
        for index in 0..<routeCount {
            let slot = Int(routes![index].targetSlot)
            if slot >= SamplerFlex.Target.equalizer1Gain.slot { movesEqualizer = true }
            if slot == SamplerFlex.Target.resonance.slot { movesResonance = true }
        }
        amplitudeEnvelopeFinished = false
        var random = randomState
        withUnsafeMutableBytes(of: &envelopes) { raw in
            let states = raw.baseAddress!.assumingMemoryBound(to: EnvelopeState.self)
            for index in 0..<envelopeCount {
                let envelope = layout.pointee.envelopes[Int(ranges.firstEnvelope) + index]
                states[index] = EnvelopeState(points: layout.pointee.points + Int(envelope.firstPoint), pointCount: envelope.pointCount,
                                              sustainPoint: envelope.sustainPoint)
                states[index].enter(0, controllers: controllers, sampleRate: rate)
            }
        }
        withUnsafeMutableBytes(of: &lfos) { raw in
            let states = raw.baseAddress!.assumingMemoryBound(to: LFOState.self)
            for index in 0..<lfoCount {
                let description = layout.pointee.lfos + Int(ranges.firstLFO) + index
                let lfo = description.pointee
                func seconds(_ base: Float, _ controller: UInt8, _ atFull: Float) -> Float {
                    controller == SamplerFlex.noController ? base : base + atFull * Float(controllers[Int(controller)]) * (1 / 127)
                }
                let fadeFrames = max(0, seconds(lfo.fadeSeconds, lfo.fadeController, lfo.fadeAtFullController)) * rate
                states[index] = LFOState(description: description, phase: Self.wrapped(lfo.phase),
                                         delayFrames: max(0, seconds(lfo.delaySeconds, lfo.delayController, lfo.delayAtFullController)) * rate,
                                         fade: fadeFrames > 0 ? 0 : 1, fadePerFrame: fadeFrames > 0 ? 1 / fadeFrames : 0)
                states[index].held = Self.nextRandom(&random)
                states[index].heldInSecondHalf = states[index].phase >= 0.5
            }
        }
        randomState = random
    }

    /// `turns` brought into 0 ..< 1.
    @_noAllocation @_noLocks
    static func wrapped(_ turns: Float) -> Float {
        let fraction = turns - Float(Int(turns))
        return fraction < 0 ? fraction + 1 : fraction
    }

    /// A value in -1 ..< 1 from a voice's own sequence (xorshift).
    @_noAllocation @_noLocks
    static func nextRandom(_ state: inout UInt32) -> Float {
        state ^= state << 13
        state ^= state >> 17
        state ^= state << 5
        return Float(state >> 8) * (2 / 16_777_216) - 1
    }

    /// Moves every envelope and LFO on `frameCount` frames and sums what the routes add at the
    /// block's end into `outputs` (as `Outputs()` made it), reading their controllers from
    /// `controllers`.
    @_noAllocation @_noLocks
    mutating func advance(by frameCount: Int, controllers: UnsafePointer<UInt8>, sampleRate: Double, into outputs: inout Outputs) {
        let rate = Float(sampleRate), framePeriod = self.framePeriod
        let released = isReleased
        let envelopeCount = self.envelopeCount, lfoCount = self.lfoCount, routeCount = self.routeCount
        let routes = self.routes
        var random = randomState
        // Each source's value at the block's end: envelopes, then LFOs (`SamplerFlex.Route.source`).
        // Scalars, written and read one at a time: lanes of a vector written singly and read
        // whole stalled every block on the stores.
        var values: (Float, Float, Float, Float, Float, Float, Float, Float,
                     Float, Float, Float, Float, Float, Float, Float, Float) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &values) { raw in
            let values = raw.baseAddress!.assumingMemoryBound(to: Float.self)
            withUnsafeMutableBytes(of: &envelopes) { raw in
                let states = raw.baseAddress!.assumingMemoryBound(to: EnvelopeState.self)
                for index in 0..<envelopeCount {
                    states[index].advance(by: frameCount, released: released, controllers: controllers, sampleRate: rate)
                    values[index] = states[index].level
                }
            }
            withUnsafeMutableBytes(of: &lfos) { raw in
                let states = raw.baseAddress!.assumingMemoryBound(to: LFOState.self)
                for index in 0..<lfoCount {
                    values[SamplerFlex.capacity + index] = Self.advance(&states[index], by: frameCount, controllers: controllers,
                                                                        framePeriod: framePeriod, random: &random)
                }
            }
            guard let routes else { return }
            withUnsafeMutableBytes(of: &outputs.sums) { raw in
                let sums = raw.baseAddress!.assumingMemoryBound(to: Float.self)
                for index in 0..<routeCount {
                    let route = routes[index]
                    var depth = route.depth
                    if route.controller != SamplerFlex.noController {
                        depth += route.depthAtFullController * Float(controllers[Int(route.controller)]) * (1 / 127)
                    }
                    let amount = values[Int(route.source)] * depth
                    let target = Int(route.targetSlot)
                    if target == SamplerFlex.Target.amplitude.slot { sums[target] *= amount / 100 } else { sums[target] += amount }
                }
            }
        }
        randomState = random
        if amplitudeEnvelope >= 0 {
            let index = amplitudeEnvelope
            let envelope = withUnsafeBytes(of: &envelopes) {
                $0.load(fromByteOffset: index * MemoryLayout<EnvelopeState>.stride, as: EnvelopeState.self)
            }
            amplitudeEnvelopeFinished = envelope.isFinished
            let offset = SamplerFlex.Target.amplitude.slot * MemoryLayout<Float>.stride
            withUnsafeMutableBytes(of: &outputs.sums) { raw in
                raw.storeBytes(of: raw.load(fromByteOffset: offset, as: Float.self) * envelope.level, toByteOffset: offset, as: Float.self)
            }
        }
    }

    /// Moves one LFO on `frameCount` frames; its value at the block's end.
    @_noAllocation @_noLocks
    static func advance(_ state: inout LFOState, by frameCount: Int, controllers: UnsafePointer<UInt8>, framePeriod: Float,
                        random: inout UInt32) -> Float {
        guard let description = state.description else { return 0 }
        var frames = Float(frameCount)
        if state.delayFrames > 0 {
            let waited = min(state.delayFrames, frames)
            state.delayFrames -= waited
            frames -= waited
            if state.delayFrames > 0 { return 0 }
        }
        let lfo = description.pointee
        var frequency = lfo.frequency
        if lfo.frequencyController != SamplerFlex.noController {
            frequency += lfo.frequencyAtFullController * Float(controllers[Int(lfo.frequencyController)]) * (1 / 127)
        }
        // A block moves the phase less than a period (100 Hz at 64 frames and 8 kHz is 0.8 of
        // one), so one subtraction wraps it, where the general wrap's conversions cost a tenth of
        // the flex state's time.
        var phase = state.phase + max(0, frequency) * frames * framePeriod
        if phase >= 1 { phase -= 1 }
        state.phase = phase < 1 ? phase : wrapped(phase)
        if state.fade < 1 { state.fade = min(1, state.fade + frames * state.fadePerFrame) }
        let fade = state.fade
        guard case .sampleAndHold = lfo.wave else {
            return fade * LFOState.wave(lfo.wave, at: state.phase)
        }
        // A new value each time the phase crosses into the other half of the period (a block
        // that spans several crossings draws once: a control-rate LFO cannot show more).
        let secondHalf = state.phase >= 0.5
        if secondHalf != state.heldInSecondHalf {
            state.heldInSecondHalf = secondHalf
            state.held = nextRandom(&random)
        }
        return fade * state.held
    }
}
