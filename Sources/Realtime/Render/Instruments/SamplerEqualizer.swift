/// An SFZ region's three-band equalizer (`eqN_freq`, `eqN_bw`, `eqN_gain`, their velocity and
/// controller forms), each band a peaking filter on the voice (`VoiceFilterStages`).
public struct SamplerEqualizer: Sendable, BitwiseCopyable, Equatable {
    /// One band. Its frequency, width and gain at the note-on, moved by the velocity and, while the
    /// note sounds, by one controller each.
    public struct Band: Sendable, BitwiseCopyable, Equatable {
        /// Hertz.
        public var frequency: Float
        /// The band's width in octaves between its half-gain points.
        public var octaves: Float = 1
        public var gainDecibels: Float = 0
        /// `eqN_vel2gain`, `eqN_vel2freq`: added at velocity 127, in proportion below.
        public var gainAtFullVelocity: Float = 0
        public var frequencyAtFullVelocity: Float = 0
        /// `eqN_gain_onccN`, `eqN_freq_onccN`, `eqN_bw_onccN`: added at the controller's full value.
        public var gainController = SamplerFlex.noController
        public var gainAtFullController: Float = 0
        public var frequencyController = SamplerFlex.noController
        public var frequencyAtFullController: Float = 0
        public var octavesController = SamplerFlex.noController
        public var octavesAtFullController: Float = 0
        /// - Thread: any.
        public init(frequency: Float) { self.frequency = frequency }

        /// Whether the band can change the sound: a gain, or a way to get one.
        /// - Thread: any.
        public var isAudible: Bool {
            gainDecibels != 0 || gainAtFullVelocity != 0 || (gainController != SamplerFlex.noController && gainAtFullController != 0)
        }
    }

    /// SFZ's default bands: 50 Hz, 500 Hz and 5 kHz, an octave wide, flat.
    public var first = Band(frequency: 50)
    public var second = Band(frequency: 500)
    public var third = Band(frequency: 5_000)
    /// Whether any band can change the sound; a voice runs the equalizer only then.
    public var isActive = false

    /// - Thread: any.
    public init() {}
}
