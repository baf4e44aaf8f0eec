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
            shape = point.shape
        }

        /// The level `fraction` (0…1) of the way through the stage, along its shape.
        @_noAllocation @_noLocks
        func levelAt(_ fraction: Float) -> Float {
            var curve = min(max(fraction, 0), 1)
            if shape > 0, curve > 0 {
                curve = fastExp2((1 + shape) * log2Approximation(curve))
            } else if shape < 0, curve < 1 {
                curve = 1 - fastExp2((1 - shape) * log2Approximation(1 - curve))
            }
            return from + (to - from) * curve
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
                    level = stageFrames > 0 ? levelAt(elapsedFrames / stageFrames) : to
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
        var fadeFrames: Float = 0
        var fadedFrames: Float = 0
        /// The sample-and-hold wave's value, and which half of its period it was drawn in.
        var held: Float = 0
        var heldInSecondHalf = false

        /// The wave at `phase` (turns), before the fade.
        @_noAllocation @_noLocks
        static func wave(_ wave: SamplerFlex.Wave, at phase: Float) -> Float {
            switch wave {
            case .triangle: return phase < 0.25 ? 4 * phase : phase < 0.75 ? 2 - 4 * phase : 4 * phase - 4
            case .sine: return Float(sineOfTurns(Double(phase)))
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

    var envelopes: (EnvelopeState, EnvelopeState, EnvelopeState, EnvelopeState,
                    EnvelopeState, EnvelopeState, EnvelopeState, EnvelopeState)
    var lfos: (LFOState, LFOState, LFOState, LFOState, LFOState, LFOState, LFOState, LFOState)
    /// Each source's value at the end of the last block: envelopes, then LFOs.
    var values: (SIMD8<Float>, SIMD8<Float>) = (.zero, .zero)
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

    @_noAllocation @_noLocks
    init() {
        envelopes = (EnvelopeState(), EnvelopeState(), EnvelopeState(), EnvelopeState(),
                     EnvelopeState(), EnvelopeState(), EnvelopeState(), EnvelopeState())
        lfos = (LFOState(), LFOState(), LFOState(), LFOState(), LFOState(), LFOState(), LFOState(), LFOState())
    }

    /// What the routes add to the voice's parameters at the end of a block.
    struct Outputs {
        @_noAllocation @_noLocks init() {}
        var pitchCents: Float = 0
        var volumeDecibels: Float = 0
        /// Multiplies the level (1: no change).
        var amplitude: Float = 1
        var pan: Float = 0
        var width: Float = 0
        var position: Float = 0
        var cutoffCents: Float = 0
        var resonanceDecibels: Float = 0
        /// Added to the equalizer's bands 1-3 (the fourth lane unused).
        var equalizerGain = SIMD4<Float>.zero
        var equalizerFrequency = SIMD4<Float>.zero
        var equalizerOctaves = SIMD4<Float>.zero
        /// Whether any route moves the equalizer.
        var movesEqualizer: Bool {
            @_noAllocation @_noLocks get { equalizerGain != .zero || equalizerFrequency != .zero || equalizerOctaves != .zero }
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
        envelopeCount = Int(ranges.envelopeCount)
        lfoCount = Int(ranges.lfoCount)
        routes = layout.pointee.routes + Int(ranges.firstRoute)
        routeCount = Int(ranges.routeCount)
        amplitudeEnvelope = Int(ranges.amplitudeEnvelope)
        isReleased = false
        randomState = UInt32(truncatingIfNeeded: seed &* 0x9E37_79B9_7F4A_7C15 >> 32) | 1
        values = (.zero, .zero)
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
                states[index] = LFOState(description: description, phase: Self.wrapped(lfo.phase),
                                         delayFrames: max(0, seconds(lfo.delaySeconds, lfo.delayController, lfo.delayAtFullController)) * rate,
                                         fadeFrames: max(0, seconds(lfo.fadeSeconds, lfo.fadeController, lfo.fadeAtFullController)) * rate)
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

    /// Moves every envelope and LFO on `frameCount` frames and returns what the routes add at the
    /// block's end, reading their controllers from `controllers`.
    @_noAllocation @_noLocks
    mutating func advance(by frameCount: Int, controllers: UnsafePointer<UInt8>, sampleRate: Double) -> Outputs {
        let rate = Float(sampleRate)
        let released = isReleased
        var envelopeValues = SIMD8<Float>.zero, lfoValues = SIMD8<Float>.zero
        let envelopeCount = self.envelopeCount, lfoCount = self.lfoCount
        withUnsafeMutableBytes(of: &envelopes) { raw in
            let states = raw.baseAddress!.assumingMemoryBound(to: EnvelopeState.self)
            for index in 0..<envelopeCount {
                states[index].advance(by: frameCount, released: released, controllers: controllers, sampleRate: rate)
                envelopeValues[index] = states[index].level
            }
        }
        if amplitudeEnvelope >= 0 {
            let index = amplitudeEnvelope
            amplitudeEnvelopeFinished = withUnsafeBytes(of: &envelopes) {
                $0.load(fromByteOffset: index * MemoryLayout<EnvelopeState>.stride, as: EnvelopeState.self).isFinished
            }
        }
        var random = randomState
        withUnsafeMutableBytes(of: &lfos) { raw in
            let states = raw.baseAddress!.assumingMemoryBound(to: LFOState.self)
            for index in 0..<lfoCount {
                lfoValues[index] = Self.advance(&states[index], by: frameCount, controllers: controllers, sampleRate: rate, random: &random)
            }
        }
        randomState = random
        values = (envelopeValues, lfoValues)
        var outputs = Outputs()
        if amplitudeEnvelope >= 0 { outputs.amplitude = envelopeValues[amplitudeEnvelope] }
        guard let routes else { return outputs }
        for index in 0..<routeCount {
            let route = routes[index]
            let source = route.source < UInt8(SamplerFlex.capacity) ? envelopeValues[Int(route.source)]
                : lfoValues[Int(route.source) - SamplerFlex.capacity]
            var depth = route.depth
            if route.controller != SamplerFlex.noController {
                depth += route.depthAtFullController * Float(controllers[Int(route.controller)]) * (1 / 127)
            }
            let amount = source * depth
            switch route.target {
            case .pitch: outputs.pitchCents += amount
            case .volume: outputs.volumeDecibels += amount
            case .amplitude: outputs.amplitude *= amount / 100
            case .pan: outputs.pan += amount / 100
            case .width: outputs.width += amount / 100
            case .position: outputs.position += amount / 100
            case .cutoff: outputs.cutoffCents += amount
            case .resonance: outputs.resonanceDecibels += amount
            case .equalizer1Gain: outputs.equalizerGain[0] += amount
            case .equalizer2Gain: outputs.equalizerGain[1] += amount
            case .equalizer3Gain: outputs.equalizerGain[2] += amount
            case .equalizer1Frequency: outputs.equalizerFrequency[0] += amount
            case .equalizer2Frequency: outputs.equalizerFrequency[1] += amount
            case .equalizer3Frequency: outputs.equalizerFrequency[2] += amount
            case .equalizer1Octaves: outputs.equalizerOctaves[0] += amount
            case .equalizer2Octaves: outputs.equalizerOctaves[1] += amount
            case .equalizer3Octaves: outputs.equalizerOctaves[2] += amount
            }
        }
        return outputs
    }

    /// Moves one LFO on `frameCount` frames; its value at the block's end.
    @_noAllocation @_noLocks
    static func advance(_ state: inout LFOState, by frameCount: Int, controllers: UnsafePointer<UInt8>, sampleRate: Float,
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
        state.phase = wrapped(state.phase + max(0, frequency) * frames / sampleRate)
        state.fadedFrames += frames
        let fade = state.fadeFrames > 0 ? min(1, state.fadedFrames / state.fadeFrames) : 1
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
