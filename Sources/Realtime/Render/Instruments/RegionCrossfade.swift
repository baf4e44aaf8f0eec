import DSP

extension SamplerRegion {
    /// Key and velocity crossfades (SFZ `xfin_*`, `xfout_*`, `xf_keycurve`, `xf_velcurve`): a
    /// region fades in across one range of keys (or velocities) and out across another, so two
    /// layers that overlap there hand over without a step. The gain is fixed at note-on.
    ///
    /// Fading in over `inLow…inHigh`: 0 below `inLow`, rising to 1 at `inHigh`; fading out over
    /// `outLow…outHigh`: 1 up to `outLow`, falling to 0 at `outHigh` and 0 beyond. The default
    /// ranges (in 0…0, out 127…127) leave every note at 1. The power curve (the default) takes the
    /// square root of the straight line, so two layers crossing keep their summed power; the gain
    /// curve keeps their summed amplitude.
    public struct Crossfade: Sendable, BitwiseCopyable, Equatable {
        public var inLowKey: UInt8 = 0
        public var inHighKey: UInt8 = 0
        public var outLowKey: UInt8 = 127
        public var outHighKey: UInt8 = 127
        public var inLowVelocity: UInt8 = 0
        public var inHighVelocity: UInt8 = 0
        public var outLowVelocity: UInt8 = 127
        public var outHighVelocity: UInt8 = 127
        /// Whether the key crossfade follows the power curve (else the gain curve).
        public var keyPowerCurve = true
        public var velocityPowerCurve = true

        /// - Thread: any.
        public init() {}

        /// The attenuation in centibels the crossfades give a note of `key` and `velocity`, or
        /// nil when they silence it.
        /// - Thread: audio | control.
        @inlinable @_noAllocation @_noLocks
        public func attenuationCentibels(key: UInt8, velocity: UInt8) -> Float? {
            let keyLine = Self.line(key, inLow: inLowKey, inHigh: inHighKey, outLow: outLowKey, outHigh: outHighKey)
            let velocityLine = Self.line(velocity, inLow: inLowVelocity, inHigh: inHighVelocity, outLow: outLowVelocity, outHigh: outHighVelocity)
            guard keyLine > 0, velocityLine > 0 else { return nil }
            // The power curve's square root is half the straight line's decibels.
            func centibels(_ line: Float, power: Bool) -> Float { line >= 1 ? 0 : -10 * amplitudeToDecibels(line) * (power ? 0.5 : 1) }
            return centibels(keyLine, power: keyPowerCurve) + centibels(velocityLine, power: velocityPowerCurve)
        }

        /// One dimension's straight-line gain: fading in, then out.
        @inlinable @_noAllocation @_noLocks
        static func line(_ value: UInt8, inLow: UInt8, inHigh: UInt8, outLow: UInt8, outHigh: UInt8) -> Float {
            var position: Float = 1
            if value < inLow { return 0 }
            if value < inHigh { position = Float(value - inLow) / Float(inHigh - inLow) }
            if value > outHigh { return 0 }
            if value > outLow { position *= Float(outHigh - value) / Float(outHigh - outLow) }
            return position
        }
    }
}
