import DSP

/// A voice's running equalizer: its region's three `SamplerEqualizer` bands as peaking filters
/// with their state, run eight voices at a time on the lanes before the mix
/// (`VoiceLaneWorkspace.equalizeLanes`).
///
/// One per voice slot, beside the pool's voices as `FlexVoiceState` is, for the same reason: most
/// voices have none.
struct VoiceEqualizer {
    var bands = (VoiceFilter(), VoiceFilter(), VoiceFilter())

    init() {}

    /// Band `index` (0…2) of the equalizer at `equalizer`, for the lanes to gather: the tuple is
    /// its only field, and a tuple of one type is laid out as an array of it.
    @_noAllocation @_noLocks
    static func band(_ index: Int, of equalizer: UnsafeMutablePointer<VoiceEqualizer>) -> UnsafeMutablePointer<VoiceFilter> {
        UnsafeMutableRawPointer(equalizer).assumingMemoryBound(to: VoiceFilter.self) + index
    }

    /// Sets the bands for `equalizer`, a note of `velocity`, `controllers` as they are now, and
    /// what flex routes add (`moved`, bands 1-3 in lanes 0-2). Called at the note-on (`reset`
    /// true: the state starts at rest), whenever a controller of the channel moves, and every
    /// block a flex route moves a band.
    @_noAllocation @_noLocks
    mutating func set(_ equalizer: SamplerEqualizer, velocity: UInt8, controllers: UnsafePointer<UInt8>, sampleRate: Double, reset: Bool,
                      moved: (gain: SIMD4<Float>, frequency: SIMD4<Float>, octaves: SIMD4<Float>) = (.zero, .zero, .zero)) {
        if reset {
            bands.0.reset()
            bands.1.reset()
            bands.2.reset()
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
        apply(equalizer.first, 0, to: &bands.0)
        apply(equalizer.second, 1, to: &bands.1)
        apply(equalizer.third, 2, to: &bands.2)
    }
}
