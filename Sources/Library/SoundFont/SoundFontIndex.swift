import Render

/// A SoundFont read headers first: its RIFF structure and pdta tables checked, every compressed
/// sample's length measured, every preset's regions resolved in smpl coordinates, each with the
/// sample it plays; no sample decoded. What a load decodes, and when, is chosen from here
/// (`makeBank`), so a render decodes only what its song reaches and a live command only what its
/// first notes need before it plays.
/// - Thread: control.
final class SoundFontIndex {
    let name: String
    let file: SoundFontFile
    let hydra: Hydra
    /// Each compressed sample's Ogg Vorbis stream (its byte range in smpl), by sample index.
    let streams: [Int: Range<Int>]
    /// Every preset's regions, presets sorted by bank then program, in smpl coordinates.
    let regions: UnsafeMutableBufferPointer<SamplerRegion>
    /// The sample each region of `regions` plays (an index into `hydra.samples`).
    let sampleOfRegion: [Int]
    let presets: [SampleBank.Preset]
    let presetNames: [String]
    let modulators: [SamplerModulator]
    /// The samples some region plays, in file order.
    let usedSamples: [Int]
    /// Set once a bank has taken `regions` over.
    private var regionsHandedOver = false

    init(_ source: FontSource, options: SoundFontLoader.Options) throws(SoundFontError) {
        name = source.name
        file = try SoundFontFile(source)
        try file.requirePlayableVersion()
        var hydra = try Hydra(pdta: file.pdta, sampleFrameCount: file.smpl.count / 2, smplByteCount: file.smpl.count,
                              compressedSamplesAllowed: file.isSF3)
        streams = try SoundFontLoader.measureCompressedSamples(&hydra, file: file)
        self.hydra = hydra
        var (presetRegions, modulators) = try SoundFontLoader.resolveRegions(hydra, options: options)
        self.modulators = modulators

        // Presets sorted by bank, then program (file order among equals), their regions laid out
        // contiguously in the bank's own table, and each preset's list dropped once copied: the
        // regions (a few hundred bytes each, tens of thousands in a GM font) are held once by the
        // time the samples come in.
        let order = hydra.presets.indices.dropLast().sorted {
            (hydra.presets[$0].bank, hydra.presets[$0].program, $0) < (hydra.presets[$1].bank, hydra.presets[$1].program, $1)
        }
        let regionTotal = presetRegions.reduce(0) { $0 + $1.count }
        let regions = UnsafeMutableBufferPointer<SamplerRegion>.allocate(capacity: max(1, regionTotal))
        var sampleOfRegion = [Int](repeating: 0, count: regionTotal)
        var presets: [SampleBank.Preset] = []
        var presetNames: [String] = []
        var regionCount = 0
        for index in order {
            let header = hydra.presets[index]
            presets.append(SampleBank.Preset(bank: UInt16(header.bank), program: UInt8(header.program),
                                             firstRegion: regionCount, regionCount: presetRegions[index].count))
            presetNames.append(header.name)
            for (region, sampleIndex) in presetRegions[index] {
                (regions.baseAddress! + regionCount).initialize(to: region)
                sampleOfRegion[regionCount] = sampleIndex
                regionCount += 1
            }
            presetRegions[index] = []
        }
        presetRegions = []
        self.regions = UnsafeMutableBufferPointer(rebasing: regions[..<regionTotal])
        self.sampleOfRegion = sampleOfRegion
        self.presets = presets
        self.presetNames = presetNames
        var used = [Bool](repeating: false, count: hydra.samples.count)
        for sample in sampleOfRegion { used[sample] = true }
        usedSamples = used.indices.filter { used[$0] }
        // The lists' memory goes back to the system before the pool is filled, rather than
        // staying in the heap beside it for the life of the process.
        _ = releaseFreedHeapMemory(0)
    }

    deinit {
        if !regionsHandedOver { UnsafeMutableBufferPointer(start: regions.baseAddress, count: max(1, regions.count)).deallocate() }
    }

    /// The samples `notes` reach, those played first first (file order among equals).
    func samplesReached(by notes: PlayedNotes) -> [Int] {
        let firstOfRegion = presets.withUnsafeBufferPointer { notes.firstFrames(ofRegions: UnsafeBufferPointer(regions), presets: $0) }
        var firstOfSample = [Int64?](repeating: nil, count: hydra.samples.count)
        for (region, frame) in firstOfRegion.enumerated() {
            guard let frame else { continue }
            let sample = sampleOfRegion[region]
            if firstOfSample[sample].map({ frame < $0 }) ?? true { firstOfSample[sample] = frame }
        }
        return firstOfSample.indices.filter { firstOfSample[$0] != nil }.sorted { (firstOfSample[$0]!, $0) < (firstOfSample[$1]!, $1) }
    }

    /// Every sample a region plays, in the order a player is likely to want them: the piano (0:0)
    /// and the standard drum kit (128:0), which every channel starts with, then the rest of bank 0
    /// by program (General MIDI's melodic instruments), the other drum kits, and the other banks,
    /// each preset's samples in region order.
    func samplesByLikelyUse() -> [Int] {
        func rank(_ preset: SampleBank.Preset) -> Int {
            let kits = SampleBank.Preset.percussionBank
            return switch (preset.bank, preset.program) {
            case (0, 0): 0
            case (kits, 0): 1
            case (0, _): 2
            case (kits, _): 3
            default: 4
            }
        }
        let order = presets.indices.sorted { (rank(presets[$0]), presets[$0].bank, presets[$0].program, $0)
            < (rank(presets[$1]), presets[$1].bank, presets[$1].program, $1) }
        var seen = [Bool](repeating: false, count: hydra.samples.count)
        var samples: [Int] = []
        for index in order {
            for region in presets[index].firstRegion ..< presets[index].firstRegion + presets[index].regionCount
                where !seen[sampleOfRegion[region]] {
                seen[sampleOfRegion[region]] = true
                samples.append(sampleOfRegion[region])
            }
        }
        return samples
    }

    /// The bank, taking this index's regions over (call once): a pool laid out for every used
    /// sample (`SampleDecoder.init`), of which `samples` are written: the first `decodeNow` (all
    /// when nil) before it returns, on every core, and the others by the decoder it returns.
    /// Regions of samples not in `samples` never sound. With `residency`
    /// the bank says which samples are in memory (`SampleResidency`), and those regions' notes are
    /// counted as underruns; without it every used sample must be in `samples` and decoded now.
    func makeBank(decoding samples: [Int], decodeNow: Int? = nil, residency: Bool, budgetBytes: Int? = nil,
                  progress report: (@Sendable (Double) -> Void)?) throws(SoundFontError) -> (bank: SampleBank, decoder: SampleDecoder) {
        precondition(!regionsHandedOver, "a font index makes one bank")
        let decodeNow = decodeNow ?? samples.count
        precondition(residency || decodeNow == usedSamples.count, "a bank without residency flags must hold every sample")
        let flags = residency ? SampleResidency(sampleCount: hydra.samples.count) : nil
        let decoder = try SampleDecoder(index: self, samples: samples, residency: flags, budgetBytes: budgetBytes)
        // The bank takes the pool over; until it does, a failure frees it here.
        var poolHandedOver = false
        defer { if !poolHandedOver { decoder.pool.deallocate() } }
        // The regions move from smpl's coordinates into the pool's.
        for index in regions.indices {
            let sample = sampleOfRegion[index]
            if residency { regions[index].sampleIndex = Int32(sample) }
            let shift = decoder.slots[sample] - hydra.samples[sample].start
            regions[index].start += shift
            regions[index].end += shift
            regions[index].loopStart += shift
            regions[index].loopEnd += shift
            regions[index].sampleStart += shift
            regions[index].sampleEnd += shift
        }
        try SoundFontLoader.checkBankInvariants(regions: UnsafeBufferPointer(regions), poolSize: decoder.pool.frameCount,
                                                presets: presets, name: name)
        var progress = SoundFontLoader.DecodingProgress(report: report)
        try decoder.decodeInParallel(samples[..<decodeNow], progress: &progress)
        progress.finish()
        poolHandedOver = true
        regionsHandedOver = true
        let bank = SampleBank(name: name, takingSamples: decoder.pool, takingRegions: regions, presets: presets,
                              presetNames: presetNames, modulators: modulators, residency: flags)
        return (bank, decoder)
    }
}

/// glibc's `malloc_trim` (malloc.h, which the Glibc module does not bring in): hands the free pages
/// of the heap back to the system. Returns 1 when some were.
@_silgen_name("malloc_trim")
private func releaseFreedHeapMemory(_ pad: Int) -> Int32
