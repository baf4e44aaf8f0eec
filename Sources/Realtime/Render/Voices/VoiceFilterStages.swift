import DSP

/// A voice's filters after its own: an SFZ region's second filter (`SamplerSecondFilter`) and its
/// three equalizer bands (`SamplerEqualizer`, peaking filters), with their state, run eight voices
/// at a time on the lanes before the mix (`VoiceLaneWorkspace.runFilterStages`).
///
/// One per voice slot, beside the pool's voices as `FlexVoiceState` is, for the same reason: most
/// voices have none.
struct VoiceFilterStages {
    /// Stage 0 the second filter, stages 1-3 the equalizer's bands.
    var stages = (VoiceFilter(), VoiceFilter(), VoiceFilter(), VoiceFilter())
    /// Stages in all.
    static var count: Int { @_noAllocation @_noLocks get { 4 } }

    init() {}

    /// Stage `index` (0…3) of the stages at `stages`, for the lanes to gather: the tuple is its
    /// only field, and a tuple of one type is laid out as an array of it.
    @_noAllocation @_noLocks
    static func stage(_ index: Int, of stages: UnsafeMutablePointer<VoiceFilterStages>) -> UnsafeMutablePointer<VoiceFilter> {
        UnsafeMutableRawPointer(stages).assumingMemoryBound(to: VoiceFilter.self) + index
    }

    /// Sets the second filter for `filter`, a note of `key` and `velocity`, and `controllers` as
    /// they are now (through `curves`, its bank's, where it names one): at the note-on (`reset` true: its state starts at rest) and whenever a
    /// controller of the channel moves.
    @_noAllocation @_noLocks
    mutating func setSecondFilter(_ filter: SamplerSecondFilter, key: UInt8, velocity: UInt8, controllers: UnsafePointer<UInt8>,
                                  curves: UnsafePointer<Float>?, sampleRate: Double, reset: Bool) {
        if reset { stages.0.reset() }
        var cents = filter.cutoffCents + filter.centsPerKey * (Float(key) - filter.keyCenter) + filter.centsAtFullVelocity * Float(velocity) * (1 / 127)
        var decibels = filter.resonanceDecibels
        if filter.cutoffController != SamplerFlex.noController {
            let value = controllers[Int(filter.cutoffController)]
            let share = filter.cutoffCurve >= 0 && curves != nil
                ? curves![Int(filter.cutoffCurve) * SampleBank.Layout.curveLength + Int(value)] : Float(value) * (1 / 127)
            cents += filter.centsAtFullController * share
        }
        if filter.resonanceController != SamplerFlex.noController {
            decibels += filter.decibelsAtFullController * Float(controllers[Int(filter.resonanceController)]) * (1 / 127)
        }
        // SFZ's two-pole filters are RBJ's at Q = the resonance as a linear gain (0 dB: Q 1).
        stages.0.set(filter.kind, cutoff: absoluteCentsToHertz(cents), q: decibelsToAmplitude(max(-96, min(96, decibels))),
                     sampleRate: Float(sampleRate))
    }

    /// Sets the equalizer's bands for `equalizer`, a note of `velocity`, `controllers` as they are
    /// now, and what flex routes add (`moved`, bands 1-3 in lanes 0-2). Called at the note-on
    /// (`reset` true: the state starts at rest), whenever a controller of the channel moves, and
    /// every block a flex route moves a band.
    @_noAllocation @_noLocks
    mutating func setEqualizer(_ equalizer: SamplerEqualizer, velocity: UInt8, controllers: UnsafePointer<UInt8>, sampleRate: Double, reset: Bool,
                               moved: (gain: SIMD4<Float>, frequency: SIMD4<Float>, octaves: SIMD4<Float>) = (.zero, .zero, .zero)) {
        if reset {
            stages.1.reset()
            stages.2.reset()
            stages.3.reset()
        }
        let velocityShare = Float(velocity) * (1 / 127)
        let rate = Float(sampleRate)
        func apply(_ band: SamplerEqualizer.Band, _ index: Int, to filter: inout VoiceFilter) {
            func controlled(_ controller: UInt8, _ atFull: Float) -> Float {
                controller == SamplerFlex.noController ? 0 : atFull * Float(controllers[Int(controller)]) * (1 / 127)
            }
            filter.setPeaking(frequency: band.frequency + band.frequencyAtFullVelocity * velocityShare
                                  + controlled(band.frequencyController, band.frequencyAtFullController) + moved.frequency[index],
                              octaves: band.octaves + controlled(band.octavesController, band.octavesAtFullController) + moved.octaves[index],
                              gainDecibels: band.gainDecibels + band.gainAtFullVelocity * velocityShare
                                  + controlled(band.gainController, band.gainAtFullController) + moved.gain[index],
                              sampleRate: rate)
        }
        apply(equalizer.first, 0, to: &stages.1)
        apply(equalizer.second, 1, to: &stages.2)
        apply(equalizer.third, 2, to: &stages.3)
    }
}
