/// The nine pdta tables ("the hydra", SF2 §7), every record parsed and every cross-table index
/// checked, so later stages can index these arrays freely.
/// Modulators (pmod/imod) are parsed here and their bag indices validated; `zones` reads them.
struct Hydra {
    struct PresetHeader {
        let name: String
        let program: Int
        let bank: Int
        let firstBag: Int
        /// Absolute file offset of the record, for errors.
        let offset: Int
    }

    struct InstrumentHeader {
        let name: String
        let firstBag: Int
        let offset: Int
    }

    struct Bag {
        let firstGenerator: Int
        let firstModulator: Int
        let offset: Int
    }

    struct GeneratorRecord {
        /// The operator number as stored; unknown numbers are kept and later ignored.
        let op: UInt16
        let amount: UInt16
        let offset: Int
    }

    struct ModulatorRecord {
        let source: UInt16
        let destination: UInt16
        let amount: Int16
        let amountSource: UInt16
        let transform: UInt16
    }

    struct SampleHeader {
        let name: String
        /// Frame indices into smpl: `[start, end)`, loop `[loopStart, loopEnd)`.
        let start: Int
        let end: Int
        let loopStart: Int
        let loopEnd: Int
        let sampleRate: Int
        let originalPitch: Int
        let pitchCorrection: Int
        let type: UInt16
        let offset: Int

        var isROM: Bool { type & 0x8000 != 0 }
        /// SF3: the sample is an Ogg Vorbis stream, `[start, end)` are byte offsets into smpl and
        /// the loop points are decoded frames counted from the sample's start. Only a version 3
        /// file sets `compressedSamplesAllowed`; in an SF2 the bit means nothing.
        var isCompressed: Bool { compressedSamplesAllowed && type & Self.compressedTypeBit != 0 }
        static let compressedTypeBit: UInt16 = 0x10
        var compressedSamplesAllowed = false
    }

    /// The file's name, for errors raised after parsing.
    let file: String
    /// Each table includes its terminal record (EOP, EOI, EOS and the zeroed bag/gen/mod ends).
    let presets: [PresetHeader]
    let presetBags: [Bag]
    let presetModulators: [ModulatorRecord]
    let presetGenerators: [GeneratorRecord]
    let instruments: [InstrumentHeader]
    let instrumentBags: [Bag]
    let instrumentModulators: [ModulatorRecord]
    let instrumentGenerators: [GeneratorRecord]
    /// Compressed (SF3) samples are rewritten by the loader once decoded, into frames of their own.
    var samples: [SampleHeader]

    /// Parses and validates the pdta list against a smpl chunk of `sampleFrameCount` frames
    /// (`smplByteCount` bytes, which compressed samples address when `compressedSamplesAllowed`).
    init(pdta: ByteReader, sampleFrameCount: Int, smplByteCount: Int = 0, compressedSamplesAllowed: Bool = false) throws(SoundFontError) {
        file = pdta.file
        var chunks: [String: RIFFChunk] = [:]
        for chunk in try pdta.chunks(prefix: "pdta") where chunks[chunk.id] == nil { chunks[chunk.id] = chunk }

        /// Reads table `id`: a whole number of `size`-byte records, at least `minimum` of them
        /// (the terminal record always; SF2 §7 also requires one real preset, instrument, sample).
        func table<Record>(_ id: String, size: Int, minimum: Int,
                           _ parse: (ByteReader, Int) throws(SoundFontError) -> Record) throws(SoundFontError) -> [Record] {
            guard let chunk = chunks[id] else { throw pdta.error(at: 0, "the pdta list has no '\(id)' chunk") }
            let data = chunk.data
            guard data.count % size == 0 else {
                throw SoundFontError(file: data.file, chunk: data.chunk, offset: chunk.headerOffset,
                                     reason: "size \(data.count) is not a multiple of \(size)")
            }
            guard data.count / size >= minimum else {
                throw SoundFontError(file: data.file, chunk: data.chunk, offset: chunk.headerOffset,
                                     reason: "\(data.count / size) records; at least \(minimum) required, including the terminal record")
            }
            var records: [Record] = []
            records.reserveCapacity(data.count / size)
            for base in stride(from: 0, to: data.count, by: size) { records.append(try parse(data, base)) }
            return records
        }
        func bag(_ data: ByteReader, _ base: Int) throws(SoundFontError) -> Bag {
            Bag(firstGenerator: Int(try data.u16(base)), firstModulator: Int(try data.u16(base + 2)), offset: data.fileOffset(base))
        }
        func generator(_ data: ByteReader, _ base: Int) throws(SoundFontError) -> GeneratorRecord {
            GeneratorRecord(op: try data.u16(base), amount: try data.u16(base + 2), offset: data.fileOffset(base))
        }
        func modulator(_ data: ByteReader, _ base: Int) throws(SoundFontError) -> ModulatorRecord {
            ModulatorRecord(source: try data.u16(base), destination: try data.u16(base + 2), amount: try data.i16(base + 4),
                            amountSource: try data.u16(base + 6), transform: try data.u16(base + 8))
        }

        presets = try table("phdr", size: 38, minimum: 2) { (data, base) throws(SoundFontError) in
            PresetHeader(name: try data.string(base, length: 20), program: Int(try data.u16(base + 20)),
                         bank: Int(try data.u16(base + 22)), firstBag: Int(try data.u16(base + 24)), offset: data.fileOffset(base))
        }
        presetBags = try table("pbag", size: 4, minimum: 1, bag)
        presetModulators = try table("pmod", size: 10, minimum: 1, modulator)
        presetGenerators = try table("pgen", size: 4, minimum: 1, generator)
        instruments = try table("inst", size: 22, minimum: 2) { (data, base) throws(SoundFontError) in
            InstrumentHeader(name: try data.string(base, length: 20), firstBag: Int(try data.u16(base + 20)), offset: data.fileOffset(base))
        }
        instrumentBags = try table("ibag", size: 4, minimum: 1, bag)
        instrumentModulators = try table("imod", size: 10, minimum: 1, modulator)
        instrumentGenerators = try table("igen", size: 4, minimum: 1, generator)
        samples = try table("shdr", size: 46, minimum: 2) { (data, base) throws(SoundFontError) in
            SampleHeader(name: try data.string(base, length: 20),
                         start: Int(try data.u32(base + 20)), end: Int(try data.u32(base + 24)),
                         loopStart: Int(try data.u32(base + 28)), loopEnd: Int(try data.u32(base + 32)),
                         sampleRate: Int(try data.u32(base + 36)), originalPitch: Int(try data.u8(base + 40)),
                         pitchCorrection: Int(Int8(bitPattern: try data.u8(base + 41))),
                         type: try data.u16(base + 44), offset: data.fileOffset(base),
                         compressedSamplesAllowed: compressedSamplesAllowed)
        }

        func fail(_ chunk: String, _ offset: Int, _ reason: String) -> SoundFontError {
            SoundFontError(file: pdta.file, chunk: "pdta/\(chunk)", offset: offset, reason: reason)
        }

        // Headers → bags: each header's first bag is at or after the previous one's, and the
        // terminal header's (the end of the last real zone list) names an existing bag record.
        func checkBagIndices(_ firstBags: [(name: String, firstBag: Int, offset: Int)], chunk: String,
                             kind: String, bagCount: Int, bagChunk: String) throws(SoundFontError) {
            var previous = 0
            for header in firstBags {
                guard header.firstBag >= previous else {
                    throw fail(chunk, header.offset, "\(kind) '\(header.name)': bag index \(header.firstBag) is below the previous \(kind)'s \(previous)")
                }
                guard header.firstBag < bagCount else {
                    throw fail(chunk, header.offset, "\(kind) '\(header.name)': bag index \(header.firstBag) is past the last '\(bagChunk)' record (\(bagCount - 1))")
                }
                previous = header.firstBag
            }
        }
        try checkBagIndices(presets.map { ($0.name, $0.firstBag, $0.offset) }, chunk: "phdr", kind: "preset",
                            bagCount: presetBags.count, bagChunk: "pbag")
        try checkBagIndices(instruments.map { ($0.name, $0.firstBag, $0.offset) }, chunk: "inst", kind: "instrument",
                            bagCount: instrumentBags.count, bagChunk: "ibag")

        // Bags → generators and modulators, the same rule one level down.
        func checkListIndices(_ bags: [Bag], chunk: String, generatorCount: Int, generatorChunk: String,
                              modulatorCount: Int, modulatorChunk: String) throws(SoundFontError) {
            var previous = (generator: 0, modulator: 0)
            for (index, bag) in bags.enumerated() {
                guard bag.firstGenerator >= previous.generator, bag.firstModulator >= previous.modulator else {
                    throw fail(chunk, bag.offset, "zone \(index): generator/modulator index \(bag.firstGenerator)/\(bag.firstModulator) is below the previous zone's \(previous.generator)/\(previous.modulator)")
                }
                guard bag.firstGenerator < generatorCount else {
                    throw fail(chunk, bag.offset, "zone \(index): generator index \(bag.firstGenerator) is past the last '\(generatorChunk)' record (\(generatorCount - 1))")
                }
                guard bag.firstModulator < modulatorCount else {
                    throw fail(chunk, bag.offset, "zone \(index): modulator index \(bag.firstModulator) is past the last '\(modulatorChunk)' record (\(modulatorCount - 1))")
                }
                previous = (bag.firstGenerator, bag.firstModulator)
            }
        }
        try checkListIndices(presetBags, chunk: "pbag", generatorCount: presetGenerators.count, generatorChunk: "pgen",
                             modulatorCount: presetModulators.count, modulatorChunk: "pmod")
        try checkListIndices(instrumentBags, chunk: "ibag", generatorCount: instrumentGenerators.count, generatorChunk: "igen",
                             modulatorCount: instrumentModulators.count, modulatorChunk: "imod")

        for preset in presets.dropLast() where preset.program > 127 {
            throw fail("phdr", preset.offset, "preset '\(preset.name)': program \(preset.program) is not a MIDI program (0…127)")
        }

        // Sample headers against smpl. ROM samples address the sound card's ROM, not smpl, so
        // their numbers mean nothing here; using one is an error reported where it is used.
        for sample in samples.dropLast() where !sample.isROM {
            let subject = "sample '\(sample.name)'"
            if sample.isCompressed {
                // Loop points are checked against the decoded length, once it is known.
                guard sample.start < sample.end, sample.end <= smplByteCount else {
                    throw fail("shdr", sample.offset, "\(subject): compressed data \(sample.start)…\(sample.end) does not lie within smpl (\(smplByteCount) bytes)")
                }
                guard sample.sampleRate > 0 else { throw fail("shdr", sample.offset, "\(subject): sample rate is 0") }
                continue
            }
            guard sample.start < sample.end, sample.end <= sampleFrameCount else {
                throw fail("shdr", sample.offset, "\(subject): start \(sample.start), end \(sample.end) do not lie within smpl (\(sampleFrameCount) frames)")
            }
            guard sample.loopStart <= sampleFrameCount, sample.loopEnd <= sampleFrameCount else {
                throw fail("shdr", sample.offset, "\(subject): loop \(sample.loopStart)…\(sample.loopEnd) does not lie within smpl (\(sampleFrameCount) frames)")
            }
            // loopStart == loopEnd is the customary "no loop" (FluidSynth accepts it too); a loop
            // that ends before it starts is damage.
            guard sample.loopStart <= sample.loopEnd else {
                throw fail("shdr", sample.offset, "\(subject): loop start \(sample.loopStart) is after loop end \(sample.loopEnd)")
            }
            guard sample.sampleRate > 0 else {
                throw fail("shdr", sample.offset, "\(subject): sample rate is 0")
            }
        }
    }

    /// Bags `[first, end)` of preset `index` (not the terminal). In range by construction.
    func bagRange(ofPreset index: Int) -> Range<Int> { presets[index].firstBag..<presets[index + 1].firstBag }
    func bagRange(ofInstrument index: Int) -> Range<Int> { instruments[index].firstBag..<instruments[index + 1].firstBag }
}
