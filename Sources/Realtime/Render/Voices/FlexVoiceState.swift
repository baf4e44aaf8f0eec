import DSP

/// A voice's running SFZ 2 flex envelopes and LFOs (`SamplerFlex`), stepped a control block at a
/// time, and what their routes add to the voice's parameters. The group computes its lanes' levels
/// and waves together between the two (`LaneFlexMath`).
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
        /// The stage's curve as `LaneFlexMath` powers it: 1 + |shape| where that is whole and at
        /// most 8, -1 where it is not, 0 for a straight line.
        var power: Float = 0
        var level: Float = 0
        /// It has reached its sustain point's level and holds it: a block while the key is down
        /// leaves `level` as it is (`holdsThisBlock`), with nothing for the group to compute.
        var reachedHold = false
        var holdsThisBlock = false

        var isFinished: Bool { @_noAllocation @_noLocks get { stage >= pointCount } }

        /// Heads for point `stage` from where the envelope is, reading its controllers now.
        @_noAllocation @_noLocks
        mutating func enter(_ stage: Int32, controllers: UnsafePointer<UInt8>, sampleRate: Float) {
            self.stage = stage
            from = level
            elapsedFrames = 0
            reachedHold = false
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
            let exponent = 1 + abs(shape)
            power = shape == 0 ? 0 : exponent <= 8 && Float(Int32(exponent)) == exponent ? exponent : -1
        }

        /// Moves on `frames` frames: through every stage that ends meanwhile, holding at the
        /// sustain point while the key is down, past it once `released`. Writes where along its
        /// stage it is into row `row` of `lane`, from which the group computes the level
        /// (`LaneFlexMath.Lane.setEnvelope`); `level` is set from that before the next step. One
        /// that holds writes nothing (`holdsThisBlock`).
        @inline(__always) @_noAllocation @_noLocks
        mutating func step(by frames: Float, released: Bool, controllers: UnsafePointer<UInt8>, sampleRate: Float,
                           row: Int, into lane: LaneFlexMath.Lane) {
            holdsThisBlock = reachedHold && !released
            if holdsThisBlock { return }
            // Most blocks stay inside the stage: the first pass of `walk`'s loop, with nothing to
            // enter, kept in line (the walk's stage entries out of it).
            if stage < pointCount && !(released && stage <= sustainPoint) && frames < stageFrames - elapsedFrames {
                elapsedFrames = min(elapsedFrames + frames, stageFrames)
                reachedHold = stage == sustainPoint && elapsedFrames >= stageFrames
                lane.setEnvelope(row: row, from: from, to: to, fraction: elapsedFrames * stagePerFrame, shape: shape, power: power)
                return
            }
            walk(by: frames, released: released, controllers: controllers, sampleRate: sampleRate, row: row, into: lane)
        }

        /// `step` through every stage that ends in the block.
        @inline(never) @_noAllocation @_noLocks
        mutating func walk(by frames: Float, released: Bool, controllers: UnsafePointer<UInt8>, sampleRate: Float,
                           row: Int, into lane: LaneFlexMath.Lane) {
            var remaining = frames
            while stage < pointCount {
                if released && stage <= sustainPoint {
                    enter(sustainPoint + 1, controllers: controllers, sampleRate: sampleRate)
                    continue
                }
                let left = stageFrames - elapsedFrames
                if stage == sustainPoint || remaining < left {
                    // (A sustain point reached holds its level: the count stops there.)
                    elapsedFrames = min(elapsedFrames + remaining, stageFrames)
                    reachedHold = stage == sustainPoint && elapsedFrames >= stageFrames
                    if stageFrames > 0 {
                        lane.setEnvelope(row: row, from: from, to: to, fraction: elapsedFrames * stagePerFrame, shape: shape, power: power)
                        return
                    }
                    lane.setEnvelope(row: row, from: to, to: to, fraction: 0, shape: 0, power: 0)
                    return
                }
                remaining -= max(0, left)
                level = to
                enter(stage + 1, controllers: controllers, sampleRate: sampleRate)
            }
            // Past its last point an envelope is silent, as sfizz has it.
            lane.setEnvelope(row: row, from: 0, to: 0, fraction: 0, shape: 0, power: 0)
        }
    }

    /// One LFO's place in its period, its delay and fade-in.
    /// Its description is the state's `lfoDescriptions` at the same index: without a pointer of its
    /// own it takes 32 bytes, two to a cache line.
    struct LFOState {
        /// Turns, 0 ..< 1.
        var phase: Float = 0
        var delayFrames: Float = 0
        /// The fade-in's share reached, 0…1, and what a frame adds to it (0: no fade).
        var fade: Float = 1
        var fadePerFrame: Float = 0
        /// The sample-and-hold wave's value.
        var held: Float = 0
        /// Its wave's number (`LaneFlexMath.code`), and its frequency in hertz (0 or more) where no
        /// controller moves it.
        var waveCode: Float = 0
        var frequency: Float = 0
        /// Which half of its period the sample-and-hold value was drawn in.
        var heldInSecondHalf = false

        /// Moves the phase on `frames` frames at `frequency` hertz. A block moves it less than a
        /// period (100 Hz at 64 frames and 8 kHz is 0.8 of one), so one subtraction wraps it,
        /// where the general wrap's conversions cost a tenth of the flex state's time.
        @_noAllocation @_noLocks
        mutating func movePhase(frames: Float, frequency: Float, framePeriod: Float) {
            var moved = phase + frequency * frames * framePeriod
            if moved >= 1 { moved -= 1 }
            phase = moved < 1 ? moved : FlexVoiceState.wrapped(moved)
        }
        /// Past its delay and fade, at a frequency no controller moves, with a wave that draws no
        /// values: a block only moves its phase.
        var isSteady = false
    }

    // What a block reads of every voice with flex modulation fills the first cache line, its LFOs
    // the next four, two to a line, and its envelopes the last seven, so that a voice with two
    // LFOs and an envelope reads three lines a block (the pool keeps each state on a line of its
    // own, `VoicePool.flexStates`): the state is read beside the voice, and its lines were a third
    // of the time a voice took to step its flex modulation.
    var routes: UnsafePointer<SamplerFlex.Route>? = nil
    /// The region's LFOs in the bank's table: `lfos`' descriptions, index for index.
    var lfoDescriptions: UnsafePointer<SamplerFlex.LFO>? = nil
    var envelopeCount: Int32 = 0
    var lfoCount: Int32 = 0
    var routeCount: Int32 = 0
    var amplitudeEnvelope: Int32 = -1
    /// The voice's own generator for the sample-and-hold wave (xorshift), seeded at note-on, so
    /// every render draws the same values at any block size.
    var randomState: UInt32 = 1
    /// Seconds a frame, set at note-on: a division every block would head every LFO's chain.
    var framePeriod: Float = 0
    var isReleased = false
    /// The envelope that stands for the amplitude envelope has run its last point: the voice ends.
    var amplitudeEnvelopeFinished = false
    /// A route reaches the equalizer: `equalizerMoves` has something to give.
    var movesEqualizer = false
    /// A route reaches the resonance: the voice sets its filter's Q from them every block.
    var movesResonance = false
    /// A route reaches the pan, the width or the position: only then does the voice read the
    /// three (each a division a block).
    var movesPan = false
    private var headerPadding: (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
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
            lfoDescriptions = nil
            return
        }
        let rate = Float(sampleRate)
        framePeriod = Float(1 / sampleRate)
        envelopeCount = Int32(ranges.envelopeCount)
        lfoCount = Int32(ranges.lfoCount)
        lfoDescriptions = layout.pointee.lfos + Int(ranges.firstLFO)
        routes = layout.pointee.routes + Int(ranges.firstRoute)
        routeCount = ranges.routeCount
        amplitudeEnvelope = Int32(ranges.amplitudeEnvelope)
        isReleased = false
        randomState = UInt32(truncatingIfNeeded: seed &* 0x9E37_79B9_7F4A_7C15 >> 32) | 1
        movesEqualizer = false
        movesResonance = false
        movesPan = false
        for index in 0..<Int(routeCount) {
            let slot = Int(routes![index].targetSlot)
            if slot >= SamplerFlex.Target.equalizer1Gain.slot { movesEqualizer = true }
            if slot == SamplerFlex.Target.resonance.slot { movesResonance = true }
            if slot == SamplerFlex.Target.pan.slot || slot == SamplerFlex.Target.width.slot || slot == SamplerFlex.Target.position.slot {
                movesPan = true
            }
        }
        amplitudeEnvelopeFinished = false
        var random = randomState
        withUnsafeMutableBytes(of: &envelopes) { raw in
            let states = raw.baseAddress!.assumingMemoryBound(to: EnvelopeState.self)
            for index in 0..<Int(envelopeCount) {
                let envelope = layout.pointee.envelopes[Int(ranges.firstEnvelope) + index]
                states[index] = EnvelopeState(points: layout.pointee.points + Int(envelope.firstPoint), pointCount: envelope.pointCount,
                                              sustainPoint: envelope.sustainPoint)
                states[index].enter(0, controllers: controllers, sampleRate: rate)
            }
        }
        withUnsafeMutableBytes(of: &lfos) { raw in
            let states = raw.baseAddress!.assumingMemoryBound(to: LFOState.self)
            for index in 0..<Int(lfoCount) {
                let lfo = layout.pointee.lfos[Int(ranges.firstLFO) + index]
                func seconds(_ base: Float, _ controller: UInt8, _ atFull: Float) -> Float {
                    controller == SamplerFlex.noController ? base : base + atFull * Float(controllers[Int(controller)]) * (1 / 127)
                }
                let fadeFrames = max(0, seconds(lfo.fadeSeconds, lfo.fadeController, lfo.fadeAtFullController)) * rate
                states[index] = LFOState(phase: Self.wrapped(lfo.phase),
                                         delayFrames: max(0, seconds(lfo.delaySeconds, lfo.delayController, lfo.delayAtFullController)) * rate,
                                         fade: fadeFrames > 0 ? 0 : 1, fadePerFrame: fadeFrames > 0 ? 1 / fadeFrames : 0)
                states[index].held = Self.nextRandom(&random)
                states[index].heldInSecondHalf = states[index].phase >= 0.5
                states[index].waveCode = LaneFlexMath.code(lfo.wave)
                states[index].frequency = max(0, lfo.frequency)
                Self.settle(&states[index], lfo: lfo)
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

    /// Moves every envelope and LFO on `frameCount` frames, reading their controllers from
    /// `controllers`, and writes where each is into `lane` of `math`; once `math` has computed
    /// them, `route` sums what they add.
    @_noAllocation @_noLocks
    mutating func step(by frameCount: Int, controllers: UnsafePointer<UInt8>, sampleRate: Double, lane: Int, into math: inout LaneFlexMath) {
        let frames = Float(frameCount), framePeriod = self.framePeriod
        let column = math.lane(lane)
        let envelopeCount = Int(self.envelopeCount), lfoCount = Int(self.lfoCount)
        // The envelopes up to the last that wrote (one that holds writes nothing to compute).
        var envelopeRows = 0
        if envelopeCount > 0 {
            let rate = Float(sampleRate), released = isReleased
            withUnsafeMutableBytes(of: &envelopes) { raw in
                let states = raw.baseAddress!.assumingMemoryBound(to: EnvelopeState.self)
                for index in 0..<envelopeCount {
                    states[index].step(by: frames, released: released, controllers: controllers, sampleRate: rate, row: index, into: column)
                    envelopeRows = states[index].holdsThisBlock ? envelopeRows : index + 1
                }
            }
        }
        if lfoCount > 0, let descriptions = lfoDescriptions {
            withUnsafeMutableBytes(of: &lfos) { raw in
                let states = raw.baseAddress!.assumingMemoryBound(to: LFOState.self)
                for index in 0..<lfoCount {
                    if states[index].isSteady {
                        states[index].movePhase(frames: frames, frequency: states[index].frequency, framePeriod: framePeriod)
                        column.setLFO(row: index, phase: states[index].phase, fade: 1, waveCode: states[index].waveCode)
                    } else {
                        Self.step(&states[index], of: descriptions[index], by: frames, controllers: controllers, framePeriod: framePeriod,
                                  random: &randomState, row: index, into: column)
                    }
                }
            }
        }
        math.note(envelopeCount: envelopeRows, lfoCount: lfoCount)
    }

    /// Sums what the routes add at the block's end into `outputs` (as `Outputs()` made it), from
    /// the levels and waves `math` computed in `lane` after `step`, reading the routes'
    /// controllers from `controllers`.
    @_noAllocation @_noLocks
    mutating func route(lane: Int, of math: UnsafePointer<LaneFlexMath>, controllers: UnsafePointer<UInt8>, into outputs: inout Outputs) {
        let envelopeCount = Int(self.envelopeCount), routeCount = Int(self.routeCount)
        let routes = self.routes
        let column = math.pointee.lane(lane)
        withUnsafeMutableBytes(of: &envelopes) { raw in
            let states = raw.baseAddress!.assumingMemoryBound(to: EnvelopeState.self)
            for index in 0..<envelopeCount where !states[index].holdsThisBlock {
                states[index].level = column.value(source: index)
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
                    let source = Int(route.source)
                    // (An envelope's level is its state's: one that holds wrote nothing this block.)
                    let value = source < SamplerFlex.capacity ? states[source].level : column.value(source: source)
                    let amount = value * depth
                    let target = Int(route.targetSlot)
                    if target == SamplerFlex.Target.amplitude.slot { sums[target] *= amount / 100 } else { sums[target] += amount }
                }
            }
        }
        if amplitudeEnvelope >= 0 {
            let index = Int(amplitudeEnvelope)
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

    /// Marks an LFO (described by `lfo`) steady once its delay and fade are over, where nothing else
    /// moves it.
    @_noAllocation @_noLocks
    static func settle(_ state: inout LFOState, lfo: SamplerFlex.LFO) {
        var steady = state.delayFrames <= 0 && state.fade >= 1 && lfo.frequencyController == SamplerFlex.noController
        if case .sampleAndHold = lfo.wave { steady = false }
        state.isSteady = steady
    }

    /// Moves one LFO (described by `lfo`) that is not steady on `frameCount` frames and writes
    /// where it is at the block's end into row `row` of `lane`.
    @_noAllocation @_noLocks
    static func step(_ state: inout LFOState, of lfo: SamplerFlex.LFO, by frameCount: Float, controllers: UnsafePointer<UInt8>,
                     framePeriod: Float, random: inout UInt32, row: Int, into lane: LaneFlexMath.Lane) {
        var frames = frameCount
        if state.delayFrames > 0 {
            let waited = min(state.delayFrames, frames)
            state.delayFrames -= waited
            frames -= waited
            if state.delayFrames > 0 {
                lane.setLFO(row: row, phase: state.phase, fade: 0, waveCode: state.waveCode)
                return
            }
        }
        var frequency = state.frequency
        if lfo.frequencyController != SamplerFlex.noController {
            frequency = max(0, lfo.frequency + lfo.frequencyAtFullController * Float(controllers[Int(lfo.frequencyController)]) * (1 / 127))
        }
        state.movePhase(frames: frames, frequency: frequency, framePeriod: framePeriod)
        if state.fade < 1 { state.fade = min(1, state.fade + frames * state.fadePerFrame) }
        if case .sampleAndHold = lfo.wave {
            // A new value each time the phase crosses into the other half of the period (a block
            // that spans several crossings draws once: a control-rate LFO cannot show more).
            let secondHalf = state.phase >= 0.5
            if secondHalf != state.heldInSecondHalf {
                state.heldInSecondHalf = secondHalf
                state.held = nextRandom(&random)
            }
            lane.setHeld(row: row, held: state.held)
        }
        lane.setLFO(row: row, phase: state.phase, fade: state.fade, waveCode: state.waveCode)
        settle(&state, lfo: lfo)
    }
}
