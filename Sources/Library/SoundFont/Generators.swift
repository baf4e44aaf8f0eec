import Render

/// SF2 generator operators (SF2 2.04 §8.1.2), numbered as in the file.
enum GeneratorOperator: UInt16, CaseIterable {
    case startAddrsOffset = 0, endAddrsOffset, startloopAddrsOffset, endloopAddrsOffset
    case startAddrsCoarseOffset, modLfoToPitch, vibLfoToPitch, modEnvToPitch
    case initialFilterFc, initialFilterQ, modLfoToFilterFc, modEnvToFilterFc
    case endAddrsCoarseOffset, modLfoToVolume, unused1, chorusEffectsSend
    case reverbEffectsSend, pan, unused2, unused3
    case unused4, delayModLFO, freqModLFO, delayVibLFO
    case freqVibLFO, delayModEnv, attackModEnv, holdModEnv
    case decayModEnv, sustainModEnv, releaseModEnv, keynumToModEnvHold
    case keynumToModEnvDecay, delayVolEnv, attackVolEnv, holdVolEnv
    case decayVolEnv, sustainVolEnv, releaseVolEnv, keynumToVolEnvHold
    case keynumToVolEnvDecay, instrument, reserved1, keyRange
    case velRange, startloopAddrsCoarseOffset, keynum, velocity
    case initialAttenuation, reserved2, endloopAddrsCoarseOffset, coarseTune
    case fineTune, sampleID, sampleModes, reserved3
    case scaleTuning, exclusiveClass, overridingRootKey, unused5
    case endOper
}

/// How the loader treats one generator: the single table behind defaults, clamping and the
/// preset-level rules, so no other code repeats these numbers.
struct GeneratorInfo {
    enum Kind {
        /// A value with a default and a legal range (SF2 §8.1.3). `presetAdds` is false for the
        /// generators the specification forbids at preset level (keynum, velocity, sampleModes,
        /// exclusiveClass, overridingRootKey): a preset zone's value for them is ignored.
        case value(defaultValue: Int, range: ClosedRange<Int>, presetAdds: Bool)
        /// A sample address offset in frames (fine, or ×32768 coarse): instrument level only,
        /// clamped later against the sample itself.
        case sampleOffset
        /// keyRange / velRange: low byte, high byte; intersected across levels.
        case range
        /// instrument (preset level) / sampleID (instrument level): ends a zone.
        case link
        /// Unused, reserved and endOper: ignored wherever they appear.
        case ignored
    }

    let kind: Kind

    /// Whether a zone keeps this generator's amount: not for the ignored ones, nor for a link
    /// (the other level's link generator is meaningless in a zone and dropped).
    var isZoneValue: Bool {
        switch kind {
        case .ignored, .link: false
        case .value, .sampleOffset, .range: true
        }
    }

    static let table: [GeneratorInfo] = GeneratorOperator.allCases.map { GeneratorInfo(kind: kind(of: $0)) }

    static subscript(_ op: GeneratorOperator) -> GeneratorInfo { table[Int(op.rawValue)] }

    private static func kind(of op: GeneratorOperator) -> Kind {
        let timecents = -12_000...8_000, delayTimecents = -12_000...5_000
        switch op {
        case .startAddrsOffset, .endAddrsOffset, .startloopAddrsOffset, .endloopAddrsOffset,
             .startAddrsCoarseOffset, .endAddrsCoarseOffset, .startloopAddrsCoarseOffset,
             .endloopAddrsCoarseOffset:
            return .sampleOffset
        case .modLfoToPitch, .vibLfoToPitch, .modEnvToPitch, .modLfoToFilterFc, .modEnvToFilterFc:
            return .value(defaultValue: 0, range: -12_000...12_000, presetAdds: true)
        case .initialFilterFc: return .value(defaultValue: 13_500, range: 1_500...13_500, presetAdds: true)
        case .initialFilterQ: return .value(defaultValue: 0, range: 0...960, presetAdds: true)
        case .modLfoToVolume: return .value(defaultValue: 0, range: -960...960, presetAdds: true)
        case .chorusEffectsSend, .reverbEffectsSend: return .value(defaultValue: 0, range: 0...1_000, presetAdds: true)
        case .pan: return .value(defaultValue: 0, range: -500...500, presetAdds: true)
        case .delayModLFO, .delayVibLFO, .delayModEnv, .holdModEnv, .delayVolEnv, .holdVolEnv:
            return .value(defaultValue: -12_000, range: delayTimecents, presetAdds: true)
        case .attackModEnv, .decayModEnv, .releaseModEnv, .attackVolEnv, .decayVolEnv, .releaseVolEnv:
            return .value(defaultValue: -12_000, range: timecents, presetAdds: true)
        case .freqModLFO, .freqVibLFO: return .value(defaultValue: 0, range: -16_000...4_500, presetAdds: true)
        case .sustainModEnv: return .value(defaultValue: 0, range: 0...1_000, presetAdds: true)
        case .sustainVolEnv: return .value(defaultValue: 0, range: 0...1_440, presetAdds: true)
        case .keynumToModEnvHold, .keynumToModEnvDecay, .keynumToVolEnvHold, .keynumToVolEnvDecay:
            return .value(defaultValue: 0, range: -1_200...1_200, presetAdds: true)
        case .initialAttenuation: return .value(defaultValue: 0, range: 0...1_440, presetAdds: true)
        case .coarseTune: return .value(defaultValue: 0, range: -120...120, presetAdds: true)
        case .fineTune: return .value(defaultValue: 0, range: -99...99, presetAdds: true)
        case .scaleTuning: return .value(defaultValue: 100, range: 0...1_200, presetAdds: true)
        // -1 means "not set" for these three; the range keeps it representable.
        case .keynum, .velocity, .overridingRootKey: return .value(defaultValue: -1, range: -1...127, presetAdds: false)
        // 1 and 3 loop; every other value (0, 2, anything undefined) plays unlooped, so no clamp.
        case .sampleModes: return .value(defaultValue: 0, range: Int(Int16.min)...Int(Int16.max), presetAdds: false)
        case .exclusiveClass: return .value(defaultValue: 0, range: 0...127, presetAdds: false)
        case .keyRange, .velRange: return .range
        case .instrument, .sampleID: return .link
        case .unused1, .unused2, .unused3, .unused4, .unused5, .reserved1, .reserved2, .reserved3, .endOper:
            return .ignored
        }
    }
}

/// The generators set in one zone (or a zone merged over its level's global zone): raw 16-bit
/// amounts plus which ones are present, since "absent" and "set to the default" differ at preset
/// level (absent adds nothing).
struct GeneratorSet {
    private var amounts = [UInt16](repeating: 0, count: GeneratorOperator.allCases.count)
    private var present: UInt64 = 0

    subscript(op: GeneratorOperator) -> UInt16? {
        get { present & (1 << UInt64(op.rawValue)) != 0 ? amounts[Int(op.rawValue)] : nil }
        set {
            if let newValue {
                amounts[Int(op.rawValue)] = newValue
                present |= 1 << UInt64(op.rawValue)
            } else {
                present &= ~(1 << UInt64(op.rawValue))
            }
        }
    }

    /// The signed amount of `op`, if present.
    func signed(_ op: GeneratorOperator) -> Int? { self[op].map { Int(Int16(bitPattern: $0)) } }

    /// This zone's generators over `defaults` (its global zone): a local value replaces the
    /// global one, it is not added (SF2 §9.4).
    func overlaid(on defaults: GeneratorSet) -> GeneratorSet {
        var merged = defaults
        for op in GeneratorOperator.allCases where self[op] != nil { merged[op] = self[op] }
        return merged
    }

    /// The key or velocity range `op` holds (0...127 when absent), or nil when it is empty
    /// (low above high). A high end above 127 is cut to 127.
    func range(_ op: GeneratorOperator) -> ClosedRange<Int>? {
        guard let amount = self[op] else { return 0...127 }
        let low = Int(amount & 0xff), high = min(127, Int(amount >> 8))
        return low <= high ? low...high : nil
    }
}

extension GeneratorSet {
    /// The combined value of a `.value` generator for a region: the instrument zone's absolute
    /// value (or the default), plus the preset zone's value where the preset level may add,
    /// clamped to the legal range (SF2 §9.4, §8.1.3).
    static func combined(_ op: GeneratorOperator, instrument: GeneratorSet, preset: GeneratorSet) -> Int {
        let range = range(of: op)
        return min(range.upperBound, max(range.lowerBound, unclamped(op, instrument: instrument, preset: preset)))
    }

    /// The instrument value (or the default) plus the preset's, before the range applies.
    static func unclamped(_ op: GeneratorOperator, instrument: GeneratorSet, preset: GeneratorSet) -> Int {
        guard case let .value(defaultValue, _, presetAdds) = GeneratorInfo[op].kind else { return 0 }
        return (instrument.signed(op) ?? defaultValue) + (presetAdds ? preset.signed(op) ?? 0 : 0)
    }

    /// The legal range of a `.value` generator (0...0 for any other).
    static func range(of op: GeneratorOperator) -> ClosedRange<Int> {
        guard case let .value(_, range, _) = GeneratorInfo[op].kind else { return 0...0 }
        return range
    }

    /// A sample address offset in frames: fine + 32768 × coarse, instrument level only.
    func sampleOffset(fine: GeneratorOperator, coarse: GeneratorOperator) -> Int {
        (signed(fine) ?? 0) + SamplerRegion.coarseAddressOffsetFrames * (signed(coarse) ?? 0)
    }
}
