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
               generators: [GeneratorRecord], linkCount: Int) throws(SoundFontError) -> [Zone] {
        var global = GeneratorSet()
        var zones: [Zone] = []
        for bagIndex in bags {
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
                zones.append(Zone(generators: set.overlaid(on: global), link: link))
            } else if bagIndex == bags.lowerBound {
                global = set
            }
        }
        return zones
    }
}
