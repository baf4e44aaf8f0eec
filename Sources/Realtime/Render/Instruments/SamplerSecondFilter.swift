import DSP

/// An SFZ region's second filter (`fil2_type`, `cutoff2`, `resonance2` and their key, velocity and
/// controller forms), run after the voice's own (`VoiceFilterStages`).
public struct SamplerSecondFilter: Sendable, BitwiseCopyable, Equatable {
    /// Whether the region has one.
    public var isActive = false
    public var kind = VoiceFilter.Kind.lowPass2
    /// The cutoff in absolute cents (8.176 Hz at 0), at the key centre and velocity 0.
    public var cutoffCents: Float = 13_500
    /// SFZ's resonance, in decibels (the two-pole filters' Q as a gain).
    public var resonanceDecibels: Float = 0
    /// `fil2_keytrack` and `fil2_keycenter`: cents a key from the centre.
    public var centsPerKey: Float = 0
    public var keyCenter: Float = 60
    /// `fil2_veltrack`: cents added at velocity 127.
    public var centsAtFullVelocity: Float = 0
    /// `cutoff2_onccN`: cents added at the controller's full value.
    public var cutoffController = SamplerFlex.noController
    public var centsAtFullController: Float = 0
    /// The curve of the bank (`SampleBank.curves`, SFZ `cutoff2_curveccN`) the cutoff's controller
    /// is read through, in place of its value over 127; -1 for none.
    public var cutoffCurve: Int32 = -1
    /// `resonance2_onccN`: decibels added at the controller's full value.
    public var resonanceController = SamplerFlex.noController
    public var decibelsAtFullController: Float = 0

    /// - Thread: any.
    public init() {}
}
