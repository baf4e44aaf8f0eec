import DSP
import FeedbackSuppression
import Lockfree
import VoiceProcessing

/// The effects graph, audio-thread half:
///
///     microphone → DC blocker → [voice processing] → bass shelf → treble shelf → boost ─┐
///                                      instruments (tones, sampler, drums) ─┴→ reverb
///     → master volume × mute → [feedback suppressor] → safety limiter → out
///
/// The instruments join before the reverb, so one graph serves the live microphone and the
/// instruments alike. Every knob comes from an `EffectsControls` cell, read once per block; gains
/// ramp per frame, filter coefficients per block, so no change clicks or zippers.
///
/// Voice processing (when the renderer is built with it: `RenderConfiguration.voiceProcessing`)
/// runs on the microphone in mono: echo cancellation against the instruments' own output, noise
/// suppression, automatic gain (`VoiceProcessor`), 10 ms late (two 5 ms processing frames).
///
/// The feedback suppressor (only while a microphone feeds the graph: without one, a loud steady
/// tone is the music, not a loop) notches each feedback frequency it finds, narrowly, and ducks the
/// whole output only as a last resort (`FeedbackSuppressor`).
struct EffectsChain {
    static var bassHertz: Double { 150 }
    static var trebleHertz: Double { 6_000 }
    /// The cookbook's shelf slope S = 1, the steepest without a bump.
    static var shelfQ: Double { 0.707_106_781_186_547_6 }
    static var limiterCeilingDecibels: Float { -1 }

    /// The bass knob's low shelf.
    @_noAllocation @_noLocks
    static func bassShelf(decibels: Float, sampleRate: Double) -> BiquadCoefficients {
        BiquadCoefficients(.lowShelf(gain: Double(decibels)), frequency: bassHertz, q: shelfQ, sampleRate: sampleRate)
    }

    /// The treble knob's high shelf.
    @_noAllocation @_noLocks
    static func trebleShelf(decibels: Float, sampleRate: Double) -> BiquadCoefficients {
        BiquadCoefficients(.highShelf(gain: Double(decibels)), frequency: trebleHertz, q: shelfQ, sampleRate: sampleRate)
    }

    let sampleRate: Double
    let bassReader: ParameterReader, trebleReader: ParameterReader, boostReader: ParameterReader
    let reverbReader: ParameterReader, volumeReader: ParameterReader
    let noiseSuppressionReader: ParameterReader, automaticGainReader: ParameterReader, gainTargetReader: ParameterReader
    let humRemovalReader: ParameterReader

    var inputDCLeft: DCBlocker, inputDCRight: DCBlocker
    var bassLeft = Biquad(), bassRight = Biquad(), trebleLeft = Biquad(), trebleRight = Biquad()
    var appliedBass: Float = .nan, appliedTreble: Float = .nan
    var voice: VoiceProcessor?
    var boost: GainStage
    var reverb: Reverb
    /// True while the reverb's tanks hold a tail; false once the mix has been 0 long enough that
    /// the tanks were skipped (they are cleared before the reverb sounds again).
    var reverbIsRunning = false
    var master: SmoothedValue
    var mute: SmoothedValue
    var limiter: SafetyLimiter
    let limiterEnabled: Bool
    var feedback: FeedbackSuppressor
    let feedbackSuppressionEnabled: Bool

    init(sampleRate: Double, maxFrameCount: Int, controls: EffectsControls, limiterEnabled: Bool, feedbackSuppressionEnabled: Bool,
         voiceProcessing: Bool, echoCancellation: Bool, echoTailSeconds: Double) {
        self.sampleRate = sampleRate
        bassReader = controls.bassDecibels.reader
        trebleReader = controls.trebleDecibels.reader
        boostReader = controls.boostDecibels.reader
        reverbReader = controls.reverbPercent.reader
        volumeReader = controls.volume.reader
        noiseSuppressionReader = controls.noiseSuppressionDecibels.reader
        humRemovalReader = controls.humRemoval.reader
        automaticGainReader = controls.automaticGain.reader
        gainTargetReader = controls.gainTargetDecibels.reader
        voice = voiceProcessing || echoCancellation ? VoiceProcessor(sampleRate: sampleRate, echoCancellation: echoCancellation, echoTailSeconds: echoTailSeconds) : nil
        inputDCLeft = DCBlocker(sampleRate: sampleRate)
        inputDCRight = DCBlocker(sampleRate: sampleRate)
        let smoothing = Int(sampleRate * 0.01)  // 10 ms: no zipper, still feels immediate
        boost = GainStage(decibels: controls.boostDecibels.value, rampFrameCount: smoothing)
        reverb = Reverb(sampleRate: sampleRate, maxFrameCount: maxFrameCount, preset: .mediumRoom,
                        mixPercent: controls.reverbPercent.value)
        master = SmoothedValue(controls.volume.value, rampFrameCount: Int(sampleRate * ClickFreeFade.seconds))
        mute = SmoothedValue(1, rampFrameCount: Int(sampleRate * ClickFreeFade.seconds))
        let ceilingDecibels = Self.limiterCeilingDecibels
        limiter = SafetyLimiter(sampleRate: sampleRate, ceilingDecibels: ceilingDecibels)
        self.limiterEnabled = limiterEnabled
        feedback = FeedbackSuppressor(sampleRate: sampleRate, ceilingDecibels: ceilingDecibels)
        self.feedbackSuppressionEnabled = feedbackSuppressionEnabled
        // Start where the knobs are: the first block must not ramp in from flat.
        updateEqualiser(startingNow: true)
        updateVoiceProcessing()
    }

    func deallocate() {
        reverb.deallocate()
        voice?.deallocate()
        feedback.deallocate()
    }

    /// Reads the knobs (once per block).
    @_noAllocation @_noLocks
    mutating func updateParameters() {
        updateEqualiser(startingNow: false)
        boost.set(decibels: boostReader.value)
        master.move(to: volumeReader.value)
        let mix = reverbReader.value
        if mix != reverb.mixPercent { reverb.setMix(mix) }
        updateVoiceProcessing()
    }

    @_noAllocation @_noLocks
    mutating func updateVoiceProcessing() {
        guard voice != nil else { return }
        let target: Float? = automaticGainReader.value > 0.5 ? gainTargetReader.value : nil
        voice!.apply(removesHum: humRemovalReader.value > 0.5, noiseSuppressionDecibels: noiseSuppressionReader.value, gainTargetDecibels: target)
    }

    /// True when the microphone's chain cancels the instruments' echo: `processInput` wants their
    /// output as its reference.
    var cancelsEcho: Bool { @_noAllocation @_noLocks get { voice?.cancelsEcho ?? false } }

    @_noAllocation @_noLocks
    mutating func updateEqualiser(startingNow: Bool) {
        let bass = bassReader.value, treble = trebleReader.value
        if bass != appliedBass {
            appliedBass = bass
            let shelf = Self.bassShelf(decibels: bass, sampleRate: sampleRate)
            if startingNow { bassLeft = Biquad(shelf); bassRight = Biquad(shelf) } else { bassLeft.setTarget(shelf); bassRight.setTarget(shelf) }
        }
        if treble != appliedTreble {
            appliedTreble = treble
            let shelf = Self.trebleShelf(decibels: treble, sampleRate: sampleRate)
            if startingNow { trebleLeft = Biquad(shelf); trebleRight = Biquad(shelf) } else { trebleLeft.setTarget(shelf); trebleRight.setTarget(shelf) }
        }
    }

    /// Mutes or unmutes the output with a short fade.
    @_noAllocation @_noLocks
    mutating func setMuted(_ muted: Bool) { mute.move(to: muted ? 0 : 1) }

    @_noAllocation @_noLocks
    mutating func setReverbPreset(_ preset: ReverbPreset) { reverb.setPreset(preset) }

    /// The microphone's own chain, in place: DC blocker, voice processing, bass, treble, boost.
    /// `reference` is the instruments' output over the same frames, in mono (the echo to cancel).
    @_noAllocation @_noLocks
    mutating func processInput(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>,
                               reference: UnsafePointer<Float>?, frameCount: Int) {
        inputDCLeft.process(left, frameCount: frameCount)
        inputDCRight.process(right, frameCount: frameCount)
        if voice != nil {
            // Speex processes one voice: the microphone's channels are averaged, and the result feeds both sides.
            for frame in 0..<frameCount { left[frame] = (left[frame] + right[frame]) * 0.5 }
            voice!.process(left, reference: reference, frameCount: frameCount)
            for frame in 0..<frameCount { right[frame] = left[frame] }
        }
        bassLeft.process(left, frameCount: frameCount)
        bassRight.process(right, frameCount: frameCount)
        trebleLeft.process(left, frameCount: frameCount)
        trebleRight.process(right, frameCount: frameCount)
        boost.process(left: left, right: right, frameCount: frameCount)
    }

    /// The shared output chain, in place.
    @_noAllocation @_noLocks
    mutating func processOutput(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frameCount: Int,
                                microphoneIsOpen: Bool) {
        processReverb(left: left, right: right, frameCount: frameCount)
        for frame in 0..<frameCount {
            let gain = master.next() * mute.next()
            left[frame] *= gain
            right[frame] *= gain
        }
        // Feedback needs a microphone: without one, a loud steady tone is the music, not a loop.
        if microphoneIsOpen && feedbackSuppressionEnabled { feedback.process(left: left, right: right, frameCount: frameCount) }
        if limiterEnabled { limiter.process(left: left, right: right, frameCount: frameCount) }
    }

    @_noAllocation @_noLocks
    mutating func processReverb(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frameCount: Int) {
        let silentTarget = reverb.mixPercent == 0
        if silentTarget && !reverbIsRunning { return }  // dry: exact pass-through, no cost
        if !reverbIsRunning {
            reverb.reset()  // the tanks were skipped while dry: start from silence, not a stale tail
            reverbIsRunning = true
        }
        reverb.process(left: left, right: right, frameCount: frameCount)
        // Once the mix has reached 0 the wet gain is 0: the tank can stop.
        if silentTarget { reverbIsRunning = false }
    }

}
