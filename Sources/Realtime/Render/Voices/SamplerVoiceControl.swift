import DSP
import Synchronization

// A voice's control work once a block: envelopes, LFOs and pitch stepped, and the block's gains,
// ratio and filter, ramped, in a `ControlBlock` the lane readers and mixers take.
extension SamplerVoice {
    /// The result of a voice's control-rate update for one block: whether it is still reading its
    /// sample and how many frames it read, whether its filter runs, and its left/right and send
    /// gains ramped across the block.
    struct ControlBlock {
        @_noAllocation @_noLocks init() {}
        var isReading = false
        /// The voice's next frames are not yet decoded (`sampleFrontier`): it ends, silent, and
        /// the sampler counts an underrun.
        var isStarved = false
        /// A voice still waiting out its region's start delay: silent, and not at its end.
        var isWaiting = false
        var produced = 0
        var filterActive = false
        var leftStart: Float = 0, leftStep: Float = 0
        var rightStart: Float = 0, rightStep: Float = 0
        var reverbStart: Float = 0, reverbStep: Float = 0
        var chorusStart: Float = 0, chorusStep: Float = 0
        /// What the voice's frames are multiplied by to reach full scale: its pool's
        /// `SampleEncoding.scale`, which the sampler folds into the lane's gains.
        var sampleScale: Float = 1
        /// Between `prepare` and `complete`: the pitch, cutoff and attenuation the block ends at,
        /// whose exponentials the group's lanes compute together (`LaneControlMath`), and the
        /// level's other factors.
        var cents: Double = 0
        var cutoffCents: Float = 0
        var levelCentibels: Float = 0
        var envelopeStart: Float = 0, envelopeEnd: Float = 0
        var amplitude: Float = 1
        var pan: Float = 0
        /// `prepare` left the rest of the update to `complete`.
        var isPending = false
        /// `complete` left the two-pole filter's coefficients to `setFilter(lane:of:)`, at this
        /// cutoff in turns of the rate.
        var setsFilter = false
        var filterTurns: Double = 0
        /// Whether the voice reaches the reverb or the chorus bus anywhere in the block.
        var sendsReverb: Bool { @_noAllocation @_noLocks get { reverbStart != 0 || reverbStep != 0 } }
        var sendsChorus: Bool { @_noAllocation @_noLocks get { chorusStart != 0 || chorusStep != 0 } }
    }

    /// Runs the control-rate update for the next `frameCount` (≤ `controlBlockFrameCount`) frames,
    /// in two steps around the exponentials, which the group computes for its lanes together
    /// (`LaneControlMath`): a moving voice needs three every block, each a chain of dependent
    /// steps, and eight lanes take about the time of one. `prepare` steps the envelopes, LFOs and
    /// modulators and leaves in `block` the pitch, cutoff and attenuation the block ends at;
    /// `complete` takes their exponentials and sets `lastIncrement` (the read speed), the filter
    /// and the block's gains. Envelope, fade and pan are evaluated at the block's ends and ramped
    /// linearly across it: at most 64 frames (1.3 ms) of granularity. The caller then reads the
    /// sample (the group's SIMD reader, then `readSample` for frames near a boundary), filters when
    /// `filterActive`, mixes, and calls `finish`.
    /// `state` is a pointer because copying the channel's state for every voice every block costs
    /// more than the few fields read from it.
    /// A voice with flex modulation has had it stepped (`stepFlex`) and the group's `flexMath`
    /// computed before `prepare`, which sums its routes from `lane` of it.
    @_noAllocation @_noLocks
    mutating func prepare(frameCount: Int, channel state: UnsafePointer<ChannelState>, sampleRate: Double,
                          flexMath: UnsafePointer<LaneFlexMath>, lane: Int, into block: inout ControlBlock) {
        block = ControlBlock()
        guard let samples else { return }
        if waitingFrames > 0 {
            waitingFrames -= Int32(frameCount)
            block.isWaiting = true
            return
        }
        block.isReading = true
        block.sampleScale = samples.encoding.scale
        if state.pointee.controllerSerial != controllerSerial {
            applyModulators(channel: state)
            setFilterStages(channel: state, sampleRate: sampleRate, reset: false)
        }
        // Modulators with no destination are not stepped: most zones route none of them.
        var modulationDepth: Float = 0
        if modulationEnvelopeToPitch != 0 || modulationEnvelopeToCutoff != 0 {
            modulationDepth = modulationEnvelope.currentValue
            _ = modulationEnvelope.advance(by: frameCount)
        }
        var modulationLFOValue: Float = 0
        if modulationLFOToPitch != 0 || modulationLFOToCutoff != 0 || modulationLFOToVolume != 0 {
            modulationLFOValue = modulationLFO.valueThenAdvance(by: frameCount)
        }
        var vibratoValue: Float = 0
        if vibratoLFOToPitch != 0 {
            vibratoValue = vibratoLFO.valueThenAdvance(by: frameCount)
        }
        // What the flex routes add (nothing, for a voice without them).
        var flexPitch: Float = 0, flexCutoff: Float = 0, flexResonance: Float = 0, flexVolume: Float = 0, flexAmplitude: Float = 1
        var flexPan: Float = 0
        if runsFlex, let flex {
            var flexed = FlexVoiceState.Outputs()
            flex.pointee.route(lane: lane, of: flexMath, controllers: state.pointee.controllers, into: &flexed)
            flexPitch = flexed.output(.pitch)
            flexCutoff = flexed.output(.cutoff)
            flexResonance = flexed.output(.resonance)
            flexVolume = flexed.output(.volume)
            flexAmplitude = flexed.output(.amplitude)
            if flex.pointee.movesPan {
                flexPan = flexed.output(.pan) + SamplerRegion.stereoPan(side: region?.pointee.stereoSide ?? 0, width: flexed.output(.width),
                                                                        position: flexed.output(.position))
            }
            if runsEqualizer, flex.pointee.movesEqualizer, let filterStages, let region {
                filterStages.pointee.setEqualizer(region.pointee.equalizer, velocity: playedVelocity, controllers: state.pointee.controllers,
                                                  sampleRate: sampleRate, reset: false, moved: flexed.equalizerMoves)
            }
        }
        block.cents = pitchCents + Double(modulatedPitchCents + state.pointee.tuningCents + modulationDepth * modulationEnvelopeToPitch
            + modulationLFOValue * modulationLFOToPitch + vibratoValue * vibratoLFOToPitch + flexPitch)
        block.cutoffCents = cutoffCents + modulationDepth * modulationEnvelopeToCutoff + modulationLFOValue * modulationLFOToCutoff
            + flexCutoff
        if runsFlex, let flex, flex.pointee.movesResonance {
            // As `applyModulators` sets the Q, from the resonance the routes move (SFZ's decibels
            // are ten centibels each); every block, so that a sum back at 0 restores it.
            filterQ = Self.filterQ(resonanceCentibels: min(max(resonanceCentibels + 10 * flexResonance, 0), 960))
        }
        // Level at both ends of the block: envelope × fade × attenuation × pan.
        block.envelopeStart = volumeEnvelope.currentValue * fadeGain
        fadeGain = max(0, fadeGain + fadeStep * Float(frameCount))
        block.envelopeEnd = volumeEnvelope.advance(by: frameCount) * fadeGain
        block.levelCentibels = attenuationCentibels + modulationLFOValue * modulationLFOToVolume - 10 * flexVolume
        block.amplitude = flexAmplitude
        block.pan = min(max(pan + flexPan, -1), 1)
        block.isPending = true
    }

    /// Whether `prepare` reaches the flex modulation this block: the voice sounds (it is past its
    /// start delay) and runs some.
    var stepsFlex: Bool {
        @_noAllocation @_noLocks get { isActive && runsFlex && flex != nil && samples != nil && waitingFrames <= 0 }
    }

    /// Steps the flex envelopes and LFOs over the block `prepare` is about to update (when
    /// `stepsFlex`), writing where each is into `lane` of the group's `flexMath`.
    @_noAllocation @_noLocks
    mutating func stepFlex(frameCount: Int, channel state: UnsafePointer<ChannelState>, sampleRate: Double, lane: Int,
                           into flexMath: inout LaneFlexMath) {
        flex?.pointee.step(by: frameCount, controllers: state.pointee.controllers, sampleRate: sampleRate, lane: lane, into: &flexMath)
    }

    /// Which of the block's pitch, cutoff and attenuation moved since the last: only those does
    /// `complete` read the exponentials of, and only those does the group compute.
    @_noAllocation @_noLocks
    func movement(_ block: ControlBlock) -> LaneControlMath.Movement {
        LaneControlMath.Movement(pitch: block.cents != lastCents, cutoff: block.cutoffCents != lastCutoffCents,
                                 level: block.levelCentibels != lastLevelCentibels)
    }

    /// The second step of the control update (see `prepare`): `ratio`, `cutoffHertz` and `level` are
    /// `centsToRatio(block.cents)`, `absoluteCentsToHertz(block.cutoffCents)` and
    /// `centibelsToAmplitude(block.levelCentibels)`, read only where they moved. With `sends` false
    /// (effects off) the send gains stay 0 and the voice reaches no effects bus.
    @_noAllocation @_noLocks
    mutating func complete(frameCount: Int, ratio: Double, cutoffHertz: Float, level: Float, sampleRate: Double, sends: Bool,
                           into block: inout ControlBlock) {
        block.isPending = false
        if block.cents != lastCents {
            lastCents = block.cents
            lastIncrement = rateRatio * ratio
        }
        // A sample still being decoded: the block reads up to its loop's end (looping) or a few
        // frames past where it ends, interpolation's reach included. Past what is written, the
        // voice ends here, silent, and is counted: it never reads a frame not yet written.
        if let frontier = sampleFrontier {
            let reach = Int(position + lastIncrement * Double(frameCount)) + 4
            let needed = min(reach, (isLooping ? loopEnd : end) + 2)
            let written = frontier.pointee.load(ordering: .acquiring)
            if written != .max {
                // Where this voice has got to, for the thread that streams the body ahead of it
                // (the furthest of its sample's voices; a lost race only waits a block).
                let reached = frontier.advanced(by: 3)
                if reached.pointee.load(ordering: .relaxed) < needed { reached.pointee.store(needed, ordering: .relaxed) }
            }
            if written < needed {
                block.isReading = false
                block.isStarved = true
                return
            }
        }
        if block.cutoffCents != lastCutoffCents {
            lastCutoffCents = block.cutoffCents
            lastCutoffHertz = block.cutoffCents < 13_500 ? cutoffHertz : .infinity
        }
        // Near Nyquist the filter is inaudible; skipping it saves a large share of a voice's cost.
        // A resonant one still runs there (at its 0.45 × rate clamp): its resonance lowers the
        // passband (`filterPassbandGain`) wherever the cutoff is, as FluidSynth's filter does.
        // Any other kind of filter is heard wherever its cutoff is.
        if lastCutoffHertz < Float(sampleRate) * 0.42 || filterQ > VoiceFilter.butterworthQ || filterKind.rawValue != VoiceFilter.Kind.lowPass2.rawValue {
            if let turns = filter.update(filterKind, cutoff: lastCutoffHertz, q: filterQ, passbandGain: filterPassbandGain,
                                         sampleRate: Float(sampleRate)),
               !filter.setIfOnePole(filterKind, turns: turns, passbandGain: filterPassbandGain) {
                block.setsFilter = true
                block.filterTurns = turns
            }
            block.filterActive = true
        }
        if block.levelCentibels != lastLevelCentibels {
            lastLevelCentibels = block.levelCentibels
            lastLevel = level
        }
        let panned = block.pan
        if panned != lastPan {
            // Constant-power pan: θ from 0 (left) to π/2 (right); cos/sin from the sine kernel.
            lastPan = panned
            let turns = Double(panned + 1) * 0.125
            lastPanLeft = Float(sineOfTurns(turns + 0.25))
            lastPanRight = Float(sineOfTurns(turns))
        }
        let envelopeStart = block.envelopeStart, envelopeEnd = block.envelopeEnd
        let level = lastLevel * block.amplitude
        let targetLeft = level * lastPanLeft
        let targetRight = level * lastPanRight
        block.leftStart = gainLeft * envelopeStart
        block.rightStart = gainRight * envelopeStart
        // One division for both sides (exact for the usual 64-frame block, a power of two).
        let perFrame = 1 / Float(frameCount)
        block.leftStep = (targetLeft * envelopeEnd - block.leftStart) * perFrame
        block.rightStep = (targetRight * envelopeEnd - block.rightStart) * perFrame
        gainLeft = targetLeft
        gainRight = targetRight
        // The sends take the voice before the pan, as FluidSynth's do: the effects have one input.
        guard sends else { return }
        let targetReverb = level * reverbSend, targetChorus = level * chorusSend
        block.reverbStart = gainReverb * envelopeStart
        block.reverbStep = (targetReverb * envelopeEnd - block.reverbStart) * perFrame
        block.chorusStart = gainChorus * envelopeStart
        block.chorusStep = (targetChorus * envelopeEnd - block.chorusStart) * perFrame
        gainReverb = targetReverb
        gainChorus = targetChorus
    }

    /// Sets the two-pole filter `complete` left pending (`ControlBlock.setsFilter`) from `lane`
    /// of the group's `math`: the sine and cosine of its cutoff, and for a low-pass its
    /// coefficients, which the group computes for its lanes together.
    @_noAllocation @_noLocks
    mutating func setFilter(lane: Int, of math: UnsafePointer<LaneControlMath>) {
        if filterKind.rawValue == VoiceFilter.Kind.lowPass2.rawValue {
            let b0 = math.pointee.lowPassB0[lane]
            filter.setTwoPole(b0: b0, b1: math.pointee.lowPassB1[lane], b2: b0, a1: math.pointee.lowPassA1[lane], a2: math.pointee.lowPassA2[lane])
        } else {
            filter.setTwoPole(filterKind, sine: math.pointee.filterSine[lane], cosine: math.pointee.filterCosine[lane], q: filterQ,
                              passbandGain: filterPassbandGain)
        }
    }

    /// Ends the voice if it ran out of sample, its envelope finished or its fade reached zero.
    @_noAllocation @_noLocks
    mutating func finish(_ block: ControlBlock, frameCount: Int) {
        if block.isWaiting && !isReleased { return }
        if block.produced < frameCount || volumeEnvelope.isFinished || fadeGain <= 0 { isActive = false }
        if runsFlex, let flex, flex.pointee.amplitudeEnvelopeFinished { isActive = false }
    }

    /// Frames (at most `limit`) that can be read at `lastIncrement` without coming within two frames
    /// of the sample end, or of the loop end of a loop the reader does not take: the stretch the
    /// group's SIMD reader may take. A voice that starts past its loop end (a start offset beyond
    /// it) is read a frame at a time until `readSample` has brought it into the loop: the reader
    /// steps back one loop length at most.
    @_noAllocation @_noLocks
    func clearFrameCount(limit: Int) -> Int {
        if loopsInReader && position < Double(loopEnd) { return limit }
        let boundary = isLooping ? loopEnd : end
        let clear = (Double(boundary - 2) - position) / lastIncrement
        return clear <= 0 ? 0 : min(limit, Int(clear))
    }
}
