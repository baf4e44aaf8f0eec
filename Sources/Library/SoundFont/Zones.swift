import Render

/// The two levels of the SF2 hierarchy share one zone grammar (SF2 §7.3–7.9, §9.4); this type
/// carries what differs between them, so the parsing below is written once.
struct ZoneLevel {
    /// The generator that ends a zone and names what it plays: instrument or sampleID.
    let link: GeneratorOperator
    /// Table names for error messages.
    let owner: String
    let generatorChunk: String
    let target: String

    static let preset = ZoneLevel(link: .instrument, owner: "preset", generatorChunk: "pdta/pgen", target: "instrument")
    static let instrument = ZoneLevel(link: .sampleID, owner: "instrument", generatorChunk: "pdta/igen", target: "sample")
}

/// One playable zone: its generators already merged over its level's global zone, and the index
/// of the instrument or sample it plays (checked against the table).
struct Zone {
    let generators: GeneratorSet
    /// The zone's modulators over its level's global zone's (an identical local one replaces the
    /// global one, SF2 §9.5.1), file order; invalid ones (§8.2.1 sources, unknown destinations and
    /// transforms) dropped.
    let modulators: [SamplerModulator]
    let link: Int
}

extension Hydra {
    /// The zones of one preset or instrument, in file order, with the global zone folded in.
    ///
    /// Rules (SF2 §7.3, §7.7, §9.4): generators after the link generator are ignored; keyRange
    /// counts only as the first generator and velRange only after nothing but keyRange; a later
    /// duplicate replaces an earlier one; unknown, unused and reserved operators are ignored. The
    /// first zone is global when it has no link generator; any other zone without one is ignored.
    func zones(level: ZoneLevel, ownerName: String, bags: Range<Int>, bagTable: [Bag],
               generators: [GeneratorRecord], modulators: [ModulatorRecord], linkCount: Int) throws(SoundFontError) -> [Zone] {
        var global = GeneratorSet()
        var globalModulators: [SamplerModulator] = []
        var zones: [Zone] = []
        for bagIndex in bags {
            let zoneModulators = Self.modulators(modulators[bagTable[bagIndex].firstModulator..<bagTable[bagIndex + 1].firstModulator])
            var set = GeneratorSet()
            var link: Int?
            // 0: nothing yet; 1: only keyRange so far; 2: anything else seen.
            var stage = 0
            for record in generators[bagTable[bagIndex].firstGenerator..<bagTable[bagIndex + 1].firstGenerator] {
                guard let op = GeneratorOperator(rawValue: record.op) else { stage = 2; continue }
                if op == level.link {
                    guard Int(record.amount) < linkCount else {
                        throw SoundFontError(file: file, chunk: level.generatorChunk, offset: record.offset,
                                             reason: "\(level.owner) '\(ownerName)' zone \(bagIndex - bags.lowerBound): \(level.target) index \(record.amount) is out of range (\(linkCount) \(level.target)s)")
                    }
                    link = Int(record.amount)
                    break
                }
                switch op {
                case .keyRange:
                    if stage == 0 { set[op] = record.amount; stage = 1 }
                case .velRange:
                    if stage <= 1 { set[op] = record.amount }
                    stage = 2
                default:
                    if GeneratorInfo[op].isZoneValue { set[op] = record.amount }
                    stage = 2
                }
            }
            if let link {
                zones.append(Zone(generators: set.overlaid(on: global),
                                  modulators: zoneModulators.overlaid(on: globalModulators), link: link))
            } else if bagIndex == bags.lowerBound {
                global = set
                globalModulators = zoneModulators
            }
        }
        return zones
    }

    /// A zone's modulator records as the renderer's modulators: invalid ones dropped (as FluidSynth
    /// drops them), and of identical ones in one zone only the first kept (SF2 §9.5.1 allows one).
    static func modulators(_ records: ArraySlice<ModulatorRecord>) -> [SamplerModulator] {
        var result: [SamplerModulator] = []
        for record in records {
            let source = ModulatorSource(rawValue: record.source), amountSource = ModulatorSource(rawValue: record.amountSource)
            guard source.isValid, amountSource.isValid, record.transform == 0 || record.transform == 2,
                  let destination = ModulatorDestination(rawValue: record.destination) else { continue }
            let modulator = SamplerModulator(source: source, destination: destination, amount: Float(record.amount),
                                             amountSource: amountSource, absoluteValue: record.transform == 2)
            if !result.contains(where: { $0.isIdentical(to: modulator) }) { result.append(modulator) }
        }
        return result
    }
}

extension [SamplerModulator] {
    /// These modulators replacing their identical ones in `base`, the rest of `base` kept, and
    /// those with no identical one there appended (SF2 §9.5.1: a local zone over its global zone,
    /// an instrument zone over the default modulators).
    func overlaid(on base: [SamplerModulator]) -> [SamplerModulator] {
        var merged = base
        for modulator in self {
            if let index = merged.firstIndex(where: { $0.isIdentical(to: modulator) }) {
                merged[index] = modulator
            } else {
                merged.append(modulator)
            }
        }
        return merged
    }

    /// These modulators with preset-level `additions` added (SF2 §9.5.1): an identical one adds its
    /// amount, as FluidSynth adds it; any other is appended. Modulators left with amount 0 do nothing
    /// and are dropped.
    func adding(_ additions: [SamplerModulator]) -> [SamplerModulator] {
        var merged = self
        for modulator in additions {
            if let index = merged.firstIndex(where: { $0.isIdentical(to: modulator) }) {
                merged[index].amount += modulator.amount
            } else {
                merged.append(modulator)
            }
        }
        return merged.filter { $0.amount != 0 }
    }
}
