/// A voice's filter: by default the resonant two-pole low-pass SoundFont voices use, else one of
/// the kinds SFZ names (`Kind`), each an RBJ Audio EQ Cookbook biquad (the one-pole a bilinear
/// first-order section) in transposed direct form II: the coefficients and state of one voice's
/// filter. Coefficients are recomputed at control rate when the cutoff moves; the state carries
/// across, so a change never resets the filter. Voices are filtered eight at a time by
/// `VoiceFilterLanes`, whatever their kinds: every kind is the same five coefficients.
public struct VoiceFilter: Sendable {
    /// The response a voice's filter has (SFZ `fil_type`).
    public enum Kind: UInt8, Sendable, BitwiseCopyable {
        /// Two-pole low-pass, 12 dB an octave (SF2; SFZ `lpf_2p`).
        case lowPass2 = 0
        /// One-pole low-pass, 6 dB an octave (`lpf_1p`); no resonance.
        case lowPass1 = 1
        /// Two-pole high-pass (`hpf_2p`).
        case highPass2 = 2
        /// Two-pole band-pass, 0 dB at its centre (`bpf_2p`).
        case bandPass2 = 3
        /// Two-pole band-reject (`brf_2p`).
        case bandReject2 = 4
        /// One-pole high-pass (`hpf_1p`); no resonance.
        case highPass1 = 5
    }

    @usableFromInline var b0: Float = 1, b1: Float = 0, b2: Float = 0, a1: Float = 0, a2: Float = 0
    @usableFromInline var z1: Float = 0, z2: Float = 0
    @usableFromInline var lastCutoff: Float = -1
    @usableFromInline var lastQ: Float = -1
    @usableFromInline var lastPassbandGain: Float = -1
    @usableFromInline var lastKind: UInt8 = 0

    /// - Thread: any.
    public init() {}

    /// Clears the state (a new note).
    /// - Thread: audio.
    @inlinable @_noAllocation @_noLocks
    public mutating func reset() {
        z1 = 0
        z2 = 0
        lastCutoff = -1
    }

    /// The Q of a filter with no resonance peak (1/√2, Butterworth): SF2 initialFilterQ 0.
    /// - Thread: any
    public static var butterworthQ: Float {
        @inlinable @_noAllocation @_noLocks get { 0.707_106_78 }
    }

    /// Sets the kind, cutoff (Hz), Q (linear) and the gain of the passband (1 by default: a
    /// resonant SoundFont filter lowers it); cheap when nothing changed. The gain is folded into
    /// the feed-forward coefficients, so it costs nothing per frame. One-pole kinds ignore Q.
    /// - Thread: audio
    @inlinable @_noAllocation @_noLocks
    public mutating func set(_ kind: Kind = .lowPass2, cutoff: Float, q: Float, passbandGain: Float = 1, sampleRate: Float) {
        guard let turns = update(kind, cutoff: cutoff, q: q, passbandGain: passbandGain, sampleRate: sampleRate) else { return }
        if !setIfOnePole(kind, turns: turns, passbandGain: passbandGain) { setTwoPole(kind, turns: turns, q: q, passbandGain: passbandGain) }
    }

    /// Sets a one-pole `kind` at `turns` of the rate and returns true; returns false for a
    /// two-pole kind, which `setTwoPole` sets.
    /// - Thread: audio
    @inlinable @_noAllocation @_noLocks
    public mutating func setIfOnePole(_ kind: Kind, turns: Double, passbandGain: Float) -> Bool {
        switch kind {
        case .lowPass1: setOnePole(lowPass: true, turns: turns, passbandGain: passbandGain)
        case .highPass1: setOnePole(lowPass: false, turns: turns, passbandGain: passbandGain)
        case .lowPass2, .highPass2, .bandPass2, .bandReject2: return false
        }
        return true
    }

    /// The first half of `set`, for a caller that computes the sines of several filters at once
    /// (`twoPoleSines`): records the settings and returns the cutoff in turns of the rate, or nil
    /// when nothing changed. The caller then sets the coefficients with `setIfOnePole` or
    /// `setTwoPole(_:sine:cosine:q:passbandGain:)`, as `set` does.
    /// - Thread: audio
    @inlinable @_noAllocation @_noLocks
    public mutating func update(_ kind: Kind, cutoff: Float, q: Float, passbandGain: Float, sampleRate: Float) -> Double? {
        let clampedCutoff = min(max(cutoff, 5), sampleRate * 0.45)
        guard clampedCutoff != lastCutoff || q != lastQ || passbandGain != lastPassbandGain || kind.rawValue != lastKind else { return nil }
        lastCutoff = clampedCutoff
        lastQ = q
        lastPassbandGain = passbandGain
        lastKind = kind.rawValue
        return Double(clampedCutoff / sampleRate)
    }

    /// The sine and cosine a two-pole filter at `turns` of the rate is set from, for eight filters
    /// at once; each lane bit for bit what `setTwoPole(_:turns:q:passbandGain:)` computes.
    /// - Thread: any.
    @inlinable @inline(__always) @_noAllocation @_noLocks
    public static func twoPoleSines(turns: SIMD8<Double>) -> (sine: SIMD8<Float>, cosine: SIMD8<Float>) {
        (SIMD8<Float>(sineOfTurns(turns)), SIMD8<Float>(cosineOfTurns(turns)))
    }

    /// The analogue one-pole, bilinear with the cutoff (`turns` of the rate) prewarped: −3 dB
    /// exactly at the cutoff.
    @inlinable @_noAllocation @_noLocks
    mutating func setOnePole(lowPass: Bool, turns: Double, passbandGain: Float) {
        let warped = Float(sineOfTurns(turns / 2) / sineOfTurns(turns / 2 + 0.25))  // tan(π f / rate)
        b0 = (lowPass ? warped : 1) / (warped + 1) * passbandGain
        b1 = lowPass ? b0 : -b0
        b2 = 0
        a1 = (warped - 1) / (warped + 1)
        a2 = 0
    }

    /// RBJ's two-pole `kind` at the cutoff (`turns` of the rate) and `q`.
    @inlinable @_noAllocation @_noLocks
    mutating func setTwoPole(_ kind: Kind, turns: Double, q: Float, passbandGain: Float) {
        let sine = Float(sineOfTurns(turns))
        let cosine = Float(cosineOfTurns(turns))
        setTwoPole(kind, sine: sine, cosine: cosine, q: q, passbandGain: passbandGain)
    }

    /// The least Q a two-pole filter is set with: below it the coefficients lose their meaning.
    /// - Thread: any.
    public static var leastQ: Float { @_noAllocation @_noLocks get { 0.01 } }

    /// A two-pole filter's coefficients as computed elsewhere (eight lanes at once, as
    /// `setTwoPole` would one at a time).
    /// - Thread: audio
    @inlinable @_noAllocation @_noLocks
    public mutating func setTwoPole(b0: Float, b1: Float, b2: Float, a1: Float, a2: Float) {
        (self.b0, self.b1, self.b2, self.a1, self.a2) = (b0, b1, b2, a1, a2)
    }

    /// RBJ's two-pole `kind` from the sine and cosine of its cutoff (`twoPoleSines`) and `q`.
    /// - Thread: audio
    @inlinable @_noAllocation @_noLocks
    public mutating func setTwoPole(_ kind: Kind, sine: Float, cosine: Float, q: Float, passbandGain: Float) {
        let terms = Self.twoPoleTerms(sine: SIMD2(repeating: sine), cosine: SIMD2(repeating: cosine), q: SIMD2(repeating: q),
                                      passbandGain: SIMD2(repeating: passbandGain))
        let alpha = terms.alpha[0], normalize = terms.normalize[0]
        switch kind {
        case .highPass2:
            let feedForward = (1 + cosine) * passbandGain * normalize
            b0 = feedForward * 0.5
            b1 = -feedForward
            b2 = b0
        case .bandPass2:
            b0 = alpha * passbandGain * normalize
            b1 = 0
            b2 = -b0
        case .bandReject2:
            b0 = passbandGain * normalize
            b1 = -2 * cosine * b0
            b2 = b0
        case .lowPass2, .lowPass1, .highPass1:  // the one-poles never come here
            b0 = terms.lowPassB0[0]
            b1 = terms.lowPassB1[0]
            b2 = b0
        }
        a1 = terms.a1[0]
        a2 = terms.a2[0]
    }

    /// What every kind of RBJ two-pole shares (`alpha`, the normalising `1 / (1 + alpha)`, the
    /// feedback coefficients), and the low-pass's feed-forward ones (`b2` is `b0`), lane by lane,
    /// `q` taken as at least `leastQ`. One voice runs it as two lanes (`setTwoPole`), a group of
    /// voices as eight (the renderer's lane control): the same operations in the same order, so a
    /// lane's coefficients are the bits the voice alone would set. (Generic, so it cannot carry the
    /// real-time attributes itself; every caller does, and is checked with it inlined.)
    /// - Thread: any
    @inlinable @inline(__always)
    public static func twoPoleTerms<Lanes: SIMD>(sine: Lanes, cosine: Lanes, q: Lanes, passbandGain: Lanes)
        -> (alpha: Lanes, normalize: Lanes, a1: Lanes, a2: Lanes, lowPassB0: Lanes, lowPassB1: Lanes) where Lanes.Scalar == Float {
        let least = Lanes(repeating: leastQ)
        let alpha = sine / (2 * q.replacing(with: least, where: q .< least))
        // One division, then products: a moving filter sets these every block.
        let normalize = 1 / (1 + alpha)
        let lowPassFeedForward = (1 - cosine) * passbandGain * normalize
        return (alpha, normalize, -2 * cosine * normalize, (1 - alpha) * normalize, lowPassFeedForward * 0.5, lowPassFeedForward)
    }

    /// RBJ's peaking equalizer: `gainDecibels` at `frequency` (Hz), over a band `octaves` wide
    /// between its half-gain points (the cookbook's BW); cheap when nothing changed. An SFZ
    /// region's `eqN_` bands (`VoiceFilterStages` in the renderer) run as these.
    /// - Thread: audio
    @inlinable @_noAllocation @_noLocks
    public mutating func setPeaking(frequency: Float, octaves: Float, gainDecibels: Float, sampleRate: Float) {
        let clampedFrequency = min(max(frequency, 5), sampleRate * 0.45)
        let clampedOctaves = min(max(octaves, 0.001), 12)
        guard clampedFrequency != lastCutoff || clampedOctaves != lastQ || gainDecibels != lastPassbandGain || lastKind != Self.peakingKind else { return }
        lastCutoff = clampedFrequency
        lastQ = clampedOctaves
        lastPassbandGain = gainDecibels
        lastKind = Self.peakingKind
        let turns = Double(clampedFrequency / sampleRate)
        let sine = sineOfTurns(turns)
        let cosine = cosineOfTurns(turns)
        // alpha = sin w0 · sinh(x), x = ln 2 / 2 · BW · w0 / sin w0; sinh through 2^(x · log2 e),
        // and x · log2 e = BW / 2 · w0 / sin w0.
        let exponent = 0.5 * Double(clampedOctaves) * (2 * Double.pi * turns) / sine
        let sinh = (fastExp2(exponent) - fastExp2(-exponent)) * 0.5
        let alpha = sine * sinh
        let amplitude = fastExp2(Double(gainDecibels) / 40 * 3.321_928_094_887_362)  // 10^(dB/40)
        let a0 = 1 + alpha / amplitude
        b0 = Float((1 + alpha * amplitude) / a0)
        b1 = Float(-2 * cosine / a0)
        b2 = Float((1 - alpha * amplitude) / a0)
        a1 = b1
        a2 = Float((1 - alpha / amplitude) / a0)
    }

    /// `lastKind` of a peaking band: past every `Kind`.
    @inlinable static var peakingKind: UInt8 { @_noAllocation @_noLocks get { 255 } }

    /// Flushes state that has decayed into the denormal range, which would slow the CPU to a crawl.
    /// - Thread: audio.
    @inlinable @_noAllocation @_noLocks
    public mutating func flushDenormals() {
        if abs(z1) < Self.denormalThreshold { z1 = 0 }
        if abs(z2) < Self.denormalThreshold { z2 = 0 }
    }

    /// The state below which `flushDenormals` sets it to zero: far below hearing, and far above the
    /// denormal range (which would slow every later step), so a decaying state reaches zero first.
    /// - Thread: any.
    @inlinable public static var denormalThreshold: Float { @_noAllocation @_noLocks get { 1e-20 } }
}

/// Eight `VoiceFilter`s side by side in SIMD lanes, one voice per lane: their coefficients and
/// state, gathered for a block and stored back after it. The sampler kernels run them, in the mixing
/// loop (`SamplerKernels.mixLanes`), where each build of the kernels fuses what the CPU can.
/// A biquad's cost is the latency of its feedback chain, not its arithmetic; eight independent
/// chains fill the time one chain spends waiting, so eight voices filter for about the price of one.
public struct VoiceFilterLanes: Sendable {
    public typealias Lanes = SIMD8<Float>
    /// - Thread: audio.
    public var b0: Lanes, b1: Lanes, b2: Lanes, a1: Lanes, a2: Lanes
    /// The state of the transposed direct form II.
    /// - Thread: audio.
    public var z1: Lanes, z2: Lanes

    /// Every lane passes its input through unchanged.
    /// - Thread: audio.
    @inlinable @_noAllocation @_noLocks
    public init() {
        b0 = Lanes(repeating: 1)
        b1 = Lanes(); b2 = Lanes(); a1 = Lanes(); a2 = Lanes()
        z1 = Lanes(); z2 = Lanes()
    }

    /// The coefficients and state of eight filters, one per lane; a lane given `VoiceFilter()`
    /// passes its input through unchanged. Lanes are gathered whole rather than set one at a time:
    /// writing single lanes of a vector goes through memory and stalls on every write.
    /// - Thread: audio.
    @inlinable @_noAllocation @_noLocks
    public init(_ lanes: UnsafePointer<UnsafeMutablePointer<VoiceFilter>>) {
        let f0 = lanes[0], f1 = lanes[1], f2 = lanes[2], f3 = lanes[3]
        let f4 = lanes[4], f5 = lanes[5], f6 = lanes[6], f7 = lanes[7]
        b0 = Lanes(f0.pointee.b0, f1.pointee.b0, f2.pointee.b0, f3.pointee.b0, f4.pointee.b0, f5.pointee.b0, f6.pointee.b0, f7.pointee.b0)
        b1 = Lanes(f0.pointee.b1, f1.pointee.b1, f2.pointee.b1, f3.pointee.b1, f4.pointee.b1, f5.pointee.b1, f6.pointee.b1, f7.pointee.b1)
        b2 = Lanes(f0.pointee.b2, f1.pointee.b2, f2.pointee.b2, f3.pointee.b2, f4.pointee.b2, f5.pointee.b2, f6.pointee.b2, f7.pointee.b2)
        a1 = Lanes(f0.pointee.a1, f1.pointee.a1, f2.pointee.a1, f3.pointee.a1, f4.pointee.a1, f5.pointee.a1, f6.pointee.a1, f7.pointee.a1)
        a2 = Lanes(f0.pointee.a2, f1.pointee.a2, f2.pointee.a2, f3.pointee.a2, f4.pointee.a2, f5.pointee.a2, f6.pointee.a2, f7.pointee.a2)
        z1 = Lanes(f0.pointee.z1, f1.pointee.z1, f2.pointee.z1, f3.pointee.z1, f4.pointee.z1, f5.pointee.z1, f6.pointee.z1, f7.pointee.z1)
        z2 = Lanes(f0.pointee.z2, f1.pointee.z2, f2.pointee.z2, f3.pointee.z2, f4.pointee.z2, f5.pointee.z2, f6.pointee.z2, f7.pointee.z2)
    }

    /// Writes every lane's state back to the filter it came from, flushing denormals: all lanes at
    /// once, as `VoiceFilter.flushDenormals` flushes one (a filter written and read back lane by
    /// lane waited on every store).
    /// - Thread: audio.
    @inlinable @_noAllocation @_noLocks
    public func store(into lanes: UnsafePointer<UnsafeMutablePointer<VoiceFilter>>) {
        let tiny = Lanes(repeating: VoiceFilter.denormalThreshold)
        let z1 = self.z1.replacing(with: 0, where: self.z1 .< tiny .& self.z1 .> -tiny)
        let z2 = self.z2.replacing(with: 0, where: self.z2 .< tiny .& self.z2 .> -tiny)
        for lane in 0..<Lanes.scalarCount {
            lanes[lane].pointee.z1 = z1[lane]
            lanes[lane].pointee.z2 = z2[lane]
        }
    }
}
