import DSP

/// One SoundFont 2.04 modulator (SF2 §8.2–8.5): `amount` × map(primary source) × map(amount
/// source), optionally made absolute, added to a destination parameter of the voice.
///
/// Banks hold their regions' resolved modulator lists in one flat table (`SampleBank.modulators`),
/// built on the control thread; a voice evaluates its region's list at note-on and again only when
/// a controller of its channel changes. Plain data, trivially copyable.
public struct SamplerModulator: Sendable, BitwiseCopyable, Hashable {
    public var source: ModulatorSource
    public var destination: ModulatorDestination
    /// The full-scale change of the destination, in its SF2 unit (cB, cents, 0.1 %, timecents).
    public var amount: Float
    /// Multiplies the amount (SF2 sfModAmtSrcOper); `.none` reads as 1.
    public var amountSource: ModulatorSource
    /// SF2 sfModTransOper 2: the output's absolute value. 0 (linear) is the only other transform.
    public var absoluteValue: Bool
    /// A curve of the region's bank (`SampleBank.curves`, SFZ's `<curve>` and `*_curveccN`) the
    /// primary source's 7-bit value is read through, in place of its SF2 curve; -1 for none.
    public var curve: Int32 = -1

    /// - Thread: any.
    public init(source: ModulatorSource, destination: ModulatorDestination, amount: Float,
                amountSource: ModulatorSource = .none, absoluteValue: Bool = false) {
        self.source = source
        self.destination = destination
        self.amount = amount
        self.amountSource = amountSource
        self.absoluteValue = absoluteValue
    }

    /// Whether `other` is "identical" in the sense of SF2 §9.5.1: the same sources, destination
    /// and transform (the amount may differ). An identical modulator replaces, it is not added.
    /// - Thread: any.
    public func isIdentical(to other: SamplerModulator) -> Bool {
        source == other.source && destination == other.destination && amountSource == other.amountSource
            && absoluteValue == other.absoluteValue
    }

    /// The SF2 2.04 §8.4 default modulators, every region's starting list: one table, read by the
    /// SoundFont loader (which lets a font's identical modulators replace entries) and by every
    /// other bank (sample sets), which play them as they are.
    ///
    /// Velocity → filter cutoff (§8.4.2) is listed, so that a font's identical modulator replaces
    /// it, but with amount 0: FluidSynth forces it off (fluid_mod.c, "S. Christian Collins' mod, to
    /// stop forcing velocity based filtering"), and General MIDI fonts are voiced against that; as
    /// the spec words it, soft notes of a sustained sound lose 8.6 dB above 6 kHz. Its sources are
    /// FluidSynth's (secondary source positive), the form fonts use to turn it off. Unlike FluidSynth,
    /// a font's own identical modulator does apply.
    public static let defaults: [SamplerModulator] = [
        // §8.4.1 velocity → attenuation: concave, negative, 960 cB.
        SamplerModulator(source: ModulatorSource(.velocity, curve: .concave, negative: true), destination: .initialAttenuation, amount: 960),
        // §8.4.2 velocity → cutoff, off (see above).
        SamplerModulator(source: ModulatorSource(.velocity, negative: true), destination: .initialFilterFc, amount: 0,
                         amountSource: ModulatorSource(.velocity, curve: .switch)),
        // §8.4.3 channel pressure → vibrato LFO pitch depth, 50 cents.
        SamplerModulator(source: ModulatorSource(.channelPressure), destination: .vibLfoToPitch, amount: 50),
        // §8.4.4 CC1 (mod wheel) → vibrato LFO pitch depth, 50 cents.
        SamplerModulator(source: ModulatorSource(controller: 1), destination: .vibLfoToPitch, amount: 50),
        channelVolume,
        // §8.4.6 CC10 (pan) → pan, bipolar, 500 (0.1 %): centre 64, ±50 %.
        SamplerModulator(source: ModulatorSource(controller: 10, bipolar: true), destination: .pan, amount: 500),
        channelExpression,
        // §8.4.8 CC91 → reverb send, 200 (0.1 %).
        SamplerModulator(source: ModulatorSource(controller: 91), destination: .reverbEffectsSend, amount: 200),
        // §8.4.9 CC93 → chorus send, 200 (0.1 %).
        SamplerModulator(source: ModulatorSource(controller: 93), destination: .chorusEffectsSend, amount: 200),
        // §8.4.10 pitch wheel × pitch wheel sensitivity → pitch, 12700 cents (FluidSynth's fineTune).
        SamplerModulator(source: ModulatorSource(.pitchWheel, bipolar: true), destination: .fineTune, amount: 12_700,
                         amountSource: ModulatorSource(.pitchWheelSensitivity)),
    ]

    /// §8.4.5 CC7 (volume) → attenuation: concave, negative, 960 cB. Named for the drum player,
    /// which scales its hits by it and `channelExpression` as voices are scaled.
    /// - Thread: any.
    public static var channelVolume: SamplerModulator {
        @_noAllocation @_noLocks get {
            SamplerModulator(source: ModulatorSource(controller: 7, curve: .concave, negative: true), destination: .initialAttenuation, amount: 960)
        }
    }
    /// §8.4.7 CC11 (expression) → attenuation: concave, negative, 960 cB.
    /// - Thread: any.
    public static var channelExpression: SamplerModulator {
        @_noAllocation @_noLocks get {
            SamplerModulator(source: ModulatorSource(controller: 11, curve: .concave, negative: true), destination: .initialAttenuation, amount: 960)
        }
    }

    /// This modulator's output for a voice: amount × map(source) × map(amount source).
    /// - Thread: audio | control.
    @inlinable @_noAllocation @_noLocks
    public func value(_ sources: ModulatorSourceValues) -> Float {
        let primary: Float
        if curve >= 0, let curves = sources.curves {
            primary = curves[Int(curve) * SampleBank.Layout.curveLength + Int(source.sevenBitValue(sources))]
        } else {
            primary = source.mapped(sources)
        }
        let output = amount * primary * amountSource.mapped(sources)
        return absoluteValue ? abs(output) : output
    }
}

/// What a modulator reads when a voice evaluates it: the note's key and velocity (after the
/// zone's keynum/velocity generators, as FluidSynth does), the pressure of the key it was played
/// on, and the voice's channel.
/// - Thread: audio | control.
public struct ModulatorSourceValues {
    /// - Thread: audio | control.
    public var key: UInt8
    /// - Thread: audio | control.
    public var velocity: UInt8
    /// 128 continuous-controller values, 0…127.
    /// - Thread: audio | control.
    public var controllers: UnsafePointer<UInt8>
    /// The polyphonic key pressure of the key the note was played on.
    /// - Thread: audio | control.
    public var keyPressure: UInt8
    /// - Thread: audio | control.
    public var channelPressure: UInt8
    /// 0…16383, centre 8192.
    /// - Thread: audio | control.
    public var pitchBend: UInt16
    /// RPN 0, in semitones.
    /// - Thread: audio | control.
    public var pitchBendRangeSemitones: Float
    /// The curves of the voice's bank (`SampleBank.curves`), for modulators that name one.
    /// - Thread: audio | control.
    public var curves: UnsafePointer<Float>? = nil

    /// - Thread: any.
    @inlinable @_noAllocation @_noLocks
    public init(key: UInt8, velocity: UInt8, controllers: UnsafePointer<UInt8>, keyPressure: UInt8, channelPressure: UInt8,
                pitchBend: UInt16, pitchBendRangeSemitones: Float) {
        self.key = key
        self.velocity = velocity
        self.controllers = controllers
        self.keyPressure = keyPressure
        self.channelPressure = channelPressure
        self.pitchBend = pitchBend
        self.pitchBendRangeSemitones = pitchBendRangeSemitones
    }
}

/// A modulator source as SF2 §8.2 encodes it (sfModulator): bits 0–6 the controller index, bit 7
/// the CC flag, bit 8 the direction, bit 9 the polarity, bits 10–15 the curve type. Kept in that
/// encoding, so a font's modulators compare with the defaults bit for bit.
public struct ModulatorSource: Sendable, BitwiseCopyable, Hashable {
    public let rawValue: UInt16

    /// The SF2 general controllers (index with the CC flag clear, §8.2.1).
    public enum General: UInt16, Sendable {
        case none = 0, velocity = 2, key = 3, polyPressure = 10, channelPressure = 13
        case pitchWheel = 14, pitchWheelSensitivity = 16
    }

    /// SF2 §8.2.4 source types.
    public enum Curve: UInt16, Sendable {
        case linear = 0, concave = 1, convex = 2, `switch` = 3
    }

    /// The value "no controller": reads as 1 (SF2 §8.2.1), not as a switch-off.
    public static let none = ModulatorSource(rawValue: 0)

    /// The raw value as stored in a font.
    /// - Thread: any.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// A general-controller source.
    /// - Thread: any.
    public init(_ general: General, curve: Curve = .linear, bipolar: Bool = false, negative: Bool = false) {
        self.init(index: general.rawValue, isController: false, curve: curve, bipolar: bipolar, negative: negative)
    }

    /// A MIDI continuous-controller source (the CC flag set).
    /// - Thread: any.
    public init(controller: UInt8, curve: Curve = .linear, bipolar: Bool = false, negative: Bool = false) {
        self.init(index: UInt16(controller & 0x7F), isController: true, curve: curve, bipolar: bipolar, negative: negative)
    }

    private init(index: UInt16, isController: Bool, curve: Curve, bipolar: Bool, negative: Bool) {
        rawValue = index | (isController ? 0x80 : 0) | (negative ? 0x100 : 0) | (bipolar ? 0x200 : 0) | curve.rawValue << 10
    }

    /// - Thread: any.
    public var index: UInt16 {
        @_noAllocation @_noLocks get { rawValue & 0x7F }
    }
    /// - Thread: any.
    public var isController: Bool {
        @_noAllocation @_noLocks get { rawValue & 0x80 != 0 }
    }
    /// - Thread: any.
    public var isNegative: Bool {
        @_noAllocation @_noLocks get { rawValue & 0x100 != 0 }
    }
    /// - Thread: any.
    public var isBipolar: Bool {
        @_noAllocation @_noLocks get { rawValue & 0x200 != 0 }
    }
    /// The curve type, bits 10–15 (0–3 are defined).
    /// - Thread: any.
    public var curveType: UInt16 {
        @_noAllocation @_noLocks get { rawValue >> 10 }
    }

    /// Whether a modulator may read this source (SF2 §8.2.1, as FluidSynth checks it): the general
    /// controllers listed above and every CC but bank select (0, 32), data entry (6, 38), the
    /// NRPN/RPN selectors (98–101) and the channel-mode messages (120–127); curve types 0–3 only.
    /// A modulator with an invalid source is ignored whole.
    /// - Thread: any.
    public var isValid: Bool {
        guard curveType <= Curve.switch.rawValue else { return false }
        if isController {
            switch index {
            case 0, 6, 32, 38, 98...101, 120...127: return false
            default: return true
            }
        }
        return General(rawValue: index) != nil
    }

    /// Whether the source depends on nothing but the note (no controller that can move while the
    /// voice sounds).
    /// - Thread: any.
    public var isFixedAtNoteOn: Bool {
        !isController && (index == General.none.rawValue || index == General.velocity.rawValue || index == General.key.rawValue)
    }

    /// The source's raw value as a curve table reads it: 0…127 (the pitch wheel's top seven bits).
    /// - Thread: audio | control.
    @inlinable @_noAllocation @_noLocks
    public func sevenBitValue(_ sources: ModulatorSourceValues) -> UInt8 {
        if isController { return min(sources.controllers[Int(index)], 127) }
        switch index {
        case General.velocity.rawValue: return min(sources.velocity, 127)
        case General.key.rawValue: return min(sources.key, 127)
        case General.polyPressure.rawValue: return min(sources.keyPressure, 127)
        case General.channelPressure.rawValue: return min(sources.channelPressure, 127)
        case General.pitchWheel.rawValue: return UInt8(min(sources.pitchBend >> 7, 127))
        default: return 127
        }
    }

    /// The source's value through its direction, polarity and curve (SF2 §8.2, §9.5.3): unipolar
    /// 0 ..< 1, bipolar -1 ..< 1; `.none` is 1.
    ///
    /// A 7-bit value v reads as v/128, FluidSynth's reading of the "127/128" of §8.4: a linear
    /// CC at 127 gives 127/128 of the amount; concave and convex stop at 127/128 too. Velocity and
    /// CC7/CC11 through the concave curve come out as 400·log10(127/v) cB × amount/960. The bipolar
    /// mapping is 2·v/128 − 1, so CC10 = 64 is the exact centre (FluidSynth additionally maps the
    /// top value to 127/128). Pitch wheel sensitivity reads semitones/127 rather than FluidSynth's
    /// /128: with the default amount 12700, RPN 0 = 2 then bends exactly 200 cents, where FluidSynth
    /// bends 198.4.
    /// - Thread: audio | control.
    @inlinable @_noAllocation @_noLocks
    public func mapped(_ sources: ModulatorSourceValues) -> Float {
        var normalized: Float
        if isController {
            normalized = Float(sources.controllers[Int(index)]) * (1 / 128)
            if isNegative { normalized = 127 / 128 - normalized }
        } else {
            switch index {
            case General.none.rawValue: return 1
            case General.velocity.rawValue: normalized = Float(sources.velocity) * (1 / 128)
            case General.key.rawValue: normalized = Float(sources.key) * (1 / 128)
            case General.polyPressure.rawValue: normalized = Float(sources.keyPressure) * (1 / 128)
            case General.channelPressure.rawValue: normalized = Float(sources.channelPressure) * (1 / 128)
            case General.pitchWheel.rawValue: normalized = Float(sources.pitchBend) * (1 / 16_384)
            case General.pitchWheelSensitivity.rawValue: normalized = sources.pitchBendRangeSemitones * (1 / 127)
            default: return 0
            }
            if isNegative {
                let step: Float = index == General.pitchWheel.rawValue ? 1 / 16_384 : 1 / 128
                normalized = 1 - step - normalized
            }
        }
        if !isBipolar {
            switch curveType {
            case Curve.concave.rawValue: return min(concaveCurve(128 * normalized), 127 / 128)
            case Curve.convex.rawValue: return min(1 - concaveCurve(127 - 128 * normalized), 127 / 128)
            case Curve.switch.rawValue: return normalized >= 0.5 ? 1 : 0
            default: return normalized
            }
        }
        let bipolar = 2 * normalized - 1
        let magnitude = abs(bipolar)
        let sign: Float = bipolar < 0 ? -1 : 1
        switch curveType {
        case Curve.concave.rawValue: return sign * min(concaveCurve(128 * magnitude), 127 / 128)
        case Curve.convex.rawValue: return sign * min(1 - concaveCurve(127 - 128 * magnitude), 127 / 128)
        case Curve.switch.rawValue: return sign
        default: return bipolar
        }
    }
}

/// The SF2 concave curve on a 0…127 scale: 0 at 0, 1 at 127, (400/960)·log10(127/(127 − x)) in
/// between, so that 960 × concaveCurve(127 − v) is the 400·log10(127/v) cB the velocity and
/// volume modulators apply. The convex curve is 1 − concaveCurve(127 − x).
@inlinable @_noAllocation @_noLocks
func concaveCurve(_ x: Float) -> Float {
    if x <= 0 { return 0 }
    if x >= 127 { return 1 }
    // (400/960)·log10(r) = (400/960)·log10(2)·log2(r)
    return 0.125_429_165 * log2Approximation(127 / (127 - x))
}

/// The voice parameters a modulator may change (SF2 §8.1.2 generators, by their generator
/// numbers). Those a voice fixes at note-on (LFO and envelope timing) follow the controllers only
/// when a note starts; the others follow them while the note sounds.
public enum ModulatorDestination: UInt16, Sendable, BitwiseCopyable {
    case modLfoToPitch = 5, vibLfoToPitch = 6, modEnvToPitch = 7, initialFilterFc = 8, initialFilterQ = 9
    case modLfoToFilterFc = 10, modEnvToFilterFc = 11, modLfoToVolume = 13
    case chorusEffectsSend = 15, reverbEffectsSend = 16, pan = 17
    case delayModLFO = 21, freqModLFO = 22, delayVibLFO = 23, freqVibLFO = 24
    case delayModEnv = 25, attackModEnv = 26, holdModEnv = 27, decayModEnv = 28, sustainModEnv = 29, releaseModEnv = 30
    case delayVolEnv = 33, attackVolEnv = 34, holdVolEnv = 35, decayVolEnv = 36, sustainVolEnv = 37, releaseVolEnv = 38
    case initialAttenuation = 48, coarseTune = 51, fineTune = 52
    // The sample's addresses, read at note-on (FluidSynth modulates them as any generator:
    // MuseScore_General's flute starts its low notes earlier in the sample by the key).
    case startAddrsOffset = 0, endAddrsOffset = 1, startloopAddrsOffset = 2, endloopAddrsOffset = 3
    case startAddrsCoarseOffset = 4, endAddrsCoarseOffset = 12, startloopAddrsCoarseOffset = 45, endloopAddrsCoarseOffset = 50
    // SFZ's envelope controls (`ampeg_attack_onccN`, `fileg_sustain_onccN`, ...), which add to a
    // stage's seconds or its sustain's share linearly, as SFZ defines them, where SF2's add
    // timecents and centibels. Past SF2's generator numbers.
    case volEnvDelaySeconds = 100, volEnvAttackSeconds, volEnvHoldSeconds, volEnvDecaySeconds, volEnvSustainShare, volEnvReleaseSeconds
    case modEnvDelaySeconds = 110, modEnvAttackSeconds, modEnvHoldSeconds, modEnvDecaySeconds, modEnvSustainShare, modEnvReleaseSeconds
    // SFZ's stereo controls, in percent: a stereo sample's channels apart (`width_onccN`) and
    // together to one side (`position_onccN`).
    case widthPercent = 120, positionPercent
}

/// The summed outputs of a voice's modulators, per destination, in the destinations' SF2 units.
struct ModulatorSums {
    var attenuation: Float = 0
    var pan: Float = 0
    var cutoff: Float = 0
    var resonance: Float = 0
    /// fineTune + 100 × coarseTune, in cents.
    var pitch: Float = 0
    var modLfoToPitch: Float = 0
    var vibLfoToPitch: Float = 0
    var modEnvToPitch: Float = 0
    var modLfoToCutoff: Float = 0
    var modEnvToCutoff: Float = 0
    var modLfoToVolume: Float = 0
    var reverbSend: Float = 0
    var chorusSend: Float = 0
    /// SFZ's width and position, percent.
    var width: Float = 0, position: Float = 0
    // Note-on only.
    var modLfoDelay: Float = 0, modLfoFrequency: Float = 0, vibLfoDelay: Float = 0, vibLfoFrequency: Float = 0
    var modEnvDelay: Float = 0, modEnvAttack: Float = 0, modEnvHold: Float = 0, modEnvDecay: Float = 0
    var modEnvSustain: Float = 0, modEnvRelease: Float = 0
    var volEnvDelay: Float = 0, volEnvAttack: Float = 0, volEnvHold: Float = 0, volEnvDecay: Float = 0
    var volEnvSustain: Float = 0, volEnvRelease: Float = 0
    /// SFZ's linear envelope controls: seconds added to each stage, a share (0…1) to the sustain.
    var volEnvSeconds = EnvelopeChange(), modEnvSeconds = EnvelopeChange()
    /// Sample frames the start, end, loop start and loop end move (coarse offsets counted 32,768 each).
    var startFrames: Float = 0, endFrames: Float = 0, loopStartFrames: Float = 0, loopEndFrames: Float = 0

    @_noAllocation @_noLocks init() {}

    /// Whether a modulator moves the sample's addresses.
    var movesSampleAddresses: Bool {
        @_noAllocation @_noLocks get { startFrames != 0 || endFrames != 0 || loopStartFrames != 0 || loopEndFrames != 0 }
    }

    /// Sums the outputs of `count` modulators at `modulators`.
    @_noAllocation @_noLocks
    init(_ modulators: UnsafePointer<SamplerModulator>, count: Int, sources: ModulatorSourceValues) {
        self.init()
        for index in 0..<count {
            let modulator = modulators + index
            let output = modulator.pointee.value(sources)
            switch modulator.pointee.destination {
            case .initialAttenuation: attenuation += output
            case .pan: pan += output
            case .initialFilterFc: cutoff += output
            case .initialFilterQ: resonance += output
            case .fineTune: pitch += output
            case .coarseTune: pitch += 100 * output
            case .modLfoToPitch: modLfoToPitch += output
            case .vibLfoToPitch: vibLfoToPitch += output
            case .modEnvToPitch: modEnvToPitch += output
            case .modLfoToFilterFc: modLfoToCutoff += output
            case .modEnvToFilterFc: modEnvToCutoff += output
            case .modLfoToVolume: modLfoToVolume += output
            case .reverbEffectsSend: reverbSend += output
            case .chorusEffectsSend: chorusSend += output
            case .delayModLFO: modLfoDelay += output
            case .freqModLFO: modLfoFrequency += output
            case .delayVibLFO: vibLfoDelay += output
            case .freqVibLFO: vibLfoFrequency += output
            case .delayModEnv: modEnvDelay += output
            case .attackModEnv: modEnvAttack += output
            case .holdModEnv: modEnvHold += output
            case .decayModEnv: modEnvDecay += output
            case .sustainModEnv: modEnvSustain += output
            case .releaseModEnv: modEnvRelease += output
            case .delayVolEnv: volEnvDelay += output
            case .attackVolEnv: volEnvAttack += output
            case .holdVolEnv: volEnvHold += output
            case .decayVolEnv: volEnvDecay += output
            case .sustainVolEnv: volEnvSustain += output
            case .releaseVolEnv: volEnvRelease += output
            case .startAddrsOffset: startFrames += output
            case .endAddrsOffset: endFrames += output
            case .startloopAddrsOffset: loopStartFrames += output
            case .endloopAddrsOffset: loopEndFrames += output
            case .startAddrsCoarseOffset: startFrames += Float(SamplerRegion.coarseAddressOffsetFrames) * output
            case .endAddrsCoarseOffset: endFrames += Float(SamplerRegion.coarseAddressOffsetFrames) * output
            case .startloopAddrsCoarseOffset: loopStartFrames += Float(SamplerRegion.coarseAddressOffsetFrames) * output
            case .endloopAddrsCoarseOffset: loopEndFrames += Float(SamplerRegion.coarseAddressOffsetFrames) * output
            case .volEnvDelaySeconds: volEnvSeconds.delay += output
            case .volEnvAttackSeconds: volEnvSeconds.attack += output
            case .volEnvHoldSeconds: volEnvSeconds.hold += output
            case .volEnvDecaySeconds: volEnvSeconds.decay += output
            case .volEnvSustainShare: volEnvSeconds.sustain += output
            case .volEnvReleaseSeconds: volEnvSeconds.release += output
            case .modEnvDelaySeconds: modEnvSeconds.delay += output
            case .modEnvAttackSeconds: modEnvSeconds.attack += output
            case .modEnvHoldSeconds: modEnvSeconds.hold += output
            case .modEnvDecaySeconds: modEnvSeconds.decay += output
            case .modEnvSustainShare: modEnvSeconds.sustain += output
            case .modEnvReleaseSeconds: modEnvSeconds.release += output
            case .widthPercent: width += output
            case .positionPercent: position += output
            }
        }
    }
}

/// What SFZ's envelope controls add to an envelope at note-on: seconds to each stage, a share of
/// full level (0…1) to the sustain.
struct EnvelopeChange {
    var delay: Float = 0, attack: Float = 0, hold: Float = 0, decay: Float = 0, sustain: Float = 0, release: Float = 0

    /// `seconds` lengthened (or shortened, never below 0) by `change` seconds.
    @_noAllocation @_noLocks
    static func seconds(_ seconds: Double, adding change: Float) -> Double { change == 0 ? seconds : max(0, seconds + Double(change)) }
}

/// `seconds` (a time generator already converted, 0 for the −12000 timecents floor) moved by
/// `timecents`, floored as the loader floors it: 0 stays the floor's 2^−10 s until moved above it.
@_noAllocation @_noLocks
func modulatedSeconds(_ seconds: Double, timecents: Float) -> Double {
    guard timecents != 0 else { return seconds }
    let base: Double = seconds > 0 ? 1_200 * Double(log2Approximation(Float(seconds))) : -12_000
    let total = base + Double(timecents)
    return total <= -12_000 ? 0 : fastExp2(min(total, 8_000) / 1_200)
}
