import AudioFile
import DSP
import FileChecks
import Foundation
import Render
import Synchronization

/// Loads SoundFont 2 files (SF2 2.01–2.04) and SoundFont 3 files (SF3: SF2 with Ogg Vorbis
/// compressed samples, FluidSynth's and MuseScore's format) into `SampleBank`s.
///
/// What a bank holds: one `SampleBank.Preset` per preset in the file, sorted by bank then program,
/// each with its regions (every preset zone × every instrument zone whose key and velocity ranges
/// overlap) fully resolved; and every sample those regions play, in one mono pool with
/// `SampleBank.guardFrameCount` zero frames around each, at the width the file stores it: 16-bit
/// words as they are in smpl (an SF3 sample's Vorbis stream decoded to 16 bits, as FluidSynth
/// decodes it), or Floats when a usable sm24 makes the samples 24-bit. The samples go from the file
/// into the pool in one pass, converting nothing that need not be; the file is never held whole. Stereo and linked samples are kept as independent mono regions, each with
/// its own pan, as the font's zones describe them.
///
/// Modulators (SF2 §8, §9.5): every region gets the default modulators, an instrument zone's
/// modulators replacing identical defaults (its global zone's applying where the zone has no
/// identical one), then the preset zone's added; each distinct resolved list is stored once in the
/// bank's modulator table.
///
/// Errors: a file that is not a sound SoundFont is reported as a `SoundFontError` naming the
/// file, chunk and byte; nothing input-derived is trusted before it is checked, so a damaged
/// file never traps and never yields a partial bank.
public enum SoundFontLoader {
    /// Most regions one bank may hold, and most pool frames per smpl frame: a damaged font whose
    /// zones multiply out (every preset zone × every instrument zone) or whose sample headers
    /// overlap could otherwise ask for gigabytes. Real fonts are far below both.
    static let maximumRegionCount = 1 << 20
    static let maximumPoolExpansion = 4
    /// Memory a load asks for beyond the sample pool: the region and key tables, and what the
    /// command goes on to allocate (an engine, its buffers). A font that passes the check by less
    /// would still abort a moment later.
    static let memoryReserve = 64 << 20

    /// How a font is read, where readings differ.
    public struct Options: Sendable {
        /// What initialAttenuation is multiplied by. FluidSynth multiplies it by 0.4, as the EMU8000
        /// and EMU10K1 hardware did, and General MIDI fonts are voiced for that: 100 cB of
        /// initialAttenuation then lowers a note by 4 dB, not the 10 dB the specification says.
        /// - Thread: any.
        public var attenuationScale: AttenuationScale = .emu

        public enum AttenuationScale: Sendable, Equatable {
            /// × 0.4, as FluidSynth and the EMU hardware (the default).
            case emu
            /// × 1, as SF2 2.04 §8.1.3 states it.
            case nominal

            /// The factor.
            /// - Thread: any.
            public var factor: Double {
                switch self {
                case .emu: 0.4
                case .nominal: 1
                }
            }
        }

        /// Told the share of the font's sample data decoded so far, 0…1, after each sample (and 1
        /// at the end), one call at a time, on the loading thread or one of the threads decoding an
        /// SF3 with it: for a progress line while a large font loads.
        /// - Thread: any.
        public var progress: (@Sendable (Double) -> Void)?

        /// - Thread: any.
        public init(attenuationScale: AttenuationScale = .emu, progress: (@Sendable (Double) -> Void)? = nil) {
            self.attenuationScale = attenuationScale
            self.progress = progress
        }
    }

    /// Reads and loads the file at `path`.
    /// - Parameter sampleRate: the engine's rate. Regions keep their samples' recorded rates and
    ///   the renderer pitch-shifts by the ratio, so the loader does not resample and needs it for
    ///   nothing else yet; it is part of the signature so every bank loader is called alike.
    /// - Thread: control. Not real-time safe: allocates and reads the file.
    public static func load(path: String, sampleRate: Double, options: Options = Options()) throws(SoundFontError) -> SampleBank {
        try load(try FontSource(path: path, name: fileName(of: path)), options: options)
    }

    /// Loads a SoundFont already in memory; `name` stands for the file in the bank and in errors.
    /// - Thread: control. Not real-time safe: allocates.
    public static func load(bytes: [UInt8], name: String, sampleRate: Double,
                            options: Options = Options()) throws(SoundFontError) -> SampleBank {
        try load(FontSource(bytes: bytes, name: name), options: options)
    }

    private static func load(_ source: FontSource, options: Options) throws(SoundFontError) -> SampleBank {
        let name = source.name
        let file = try SoundFontFile(source)
        try file.requirePlayableVersion()
        var hydra = try Hydra(pdta: file.pdta, sampleFrameCount: file.smpl.count / 2, smplByteCount: file.smpl.count,
                              compressedSamplesAllowed: file.isSF3)
        let streams = try measureCompressedSamples(&hydra, file: file)
        var (presetRegions, modulators) = try resolveRegions(hydra, options: options)

        // Presets sorted by bank, then program (file order among equals), their regions laid out
        // contiguously in the bank's own table, and each preset's list dropped once copied: the
        // regions (a few hundred bytes each, tens of thousands in a GM font) are held once by the
        // time the samples come in.
        let order = hydra.presets.indices.dropLast().sorted {
            (hydra.presets[$0].bank, hydra.presets[$0].program, $0) < (hydra.presets[$1].bank, hydra.presets[$1].program, $1)
        }
        let regionTotal = presetRegions.reduce(0) { $0 + $1.count }
        let regions = UnsafeMutableBufferPointer<SamplerRegion>.allocate(capacity: max(1, regionTotal))
        var regionsHandedOver = false
        defer { if !regionsHandedOver { regions.deallocate() } }
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
        // The lists' memory goes back to the system before the pool is filled, rather than
        // staying in the heap beside it for the life of the process.
        _ = releaseFreedHeapMemory(0)

        let pool = try decodeSamples(usedBy: sampleOfRegion, hydra: hydra, file: file, streams: streams, report: options.progress)
        // The bank takes the pool over; until it does, a failure frees it here.
        var poolHandedOver = false
        defer { if !poolHandedOver { pool.samples.deallocate() } }
        // The regions move from smpl's coordinates into the pool's.
        for index in 0..<regionTotal {
            let sampleIndex = sampleOfRegion[index]
            let shift = pool.slots[sampleIndex] - hydra.samples[sampleIndex].start
            regions[index].start += shift
            regions[index].end += shift
            regions[index].loopStart += shift
            regions[index].loopEnd += shift
            regions[index].sampleStart += shift
            regions[index].sampleEnd += shift
        }
        let table = UnsafeMutableBufferPointer(rebasing: regions[..<regionTotal])
        try checkBankInvariants(regions: UnsafeBufferPointer(table), poolSize: pool.samples.frameCount, presets: presets, name: name)
        poolHandedOver = true
        regionsHandedOver = true
        return SampleBank(name: name, takingSamples: pool.samples, takingRegions: table, presets: presets, presetNames: presetNames,
                          modulators: modulators)
    }

    /// The INFO fields of the file at `path`, after checking its RIFF structure (but not its
    /// presets or samples, and whatever its version: an SF3 file reports version 3 here and is
    /// refused by `load`).
    /// - Thread: control. Not real-time safe: allocates and reads the file.
    public static func info(path: String) throws(SoundFontError) -> SoundFontInfo {
        try SoundFontFile(try FontSource(path: path, name: fileName(of: path))).info
    }

    /// The INFO fields of a SoundFont in memory.
    /// - Thread: control. Not real-time safe: allocates.
    public static func info(bytes: [UInt8], name: String) throws(SoundFontError) -> SoundFontInfo {
        try SoundFontFile(FontSource(bytes: bytes, name: name)).info
    }

    /// Most decoded frames per byte of Vorbis data accepted for one SF3 sample. Real streams
    /// decode to about 10 frames a byte; silence compresses far better, but not past this.
    static let maximumVorbisFramesPerByte = 1_024

    /// Reads every compressed (SF3) sample's length from the last page of its Ogg stream, without
    /// decoding it, and rewrites its header into decoded frames: start 0, end the frame count, the
    /// loop as stored (already relative to the sample's start), so region building treats it like
    /// any other sample and the pool can be sized before anything is decoded. Returns each
    /// compressed sample's stream (its byte range in smpl), keyed by sample index.
    private static func measureCompressedSamples(_ hydra: inout Hydra, file: SoundFontFile) throws(SoundFontError) -> [Int: Range<Int>] {
        var streams: [Int: Range<Int>] = [:]
        for index in hydra.samples.indices.dropLast() where hydra.samples[index].isCompressed && !hydra.samples[index].isROM {
            let sample = hydra.samples[index]
            func failure(_ reason: String) -> SoundFontError {
                file.smpl.error(at: sample.start, "sample \(index) '\(sample.name)': \(reason)")
            }
            let stream = sample.start ..< sample.end
            // The last page is at most 65,307 bytes: only those are read here.
            let tail = min(stream.count, 27 + 255 + 255 * 255)
            let bytes = try file.smpl.bytes(stream.upperBound - tail, tail)
            guard let frameCount = bytes.withUnsafeBytes({ AudioFileReader.oggFrameCount($0) }) else {
                throw failure("the Ogg Vorbis data does not end with a whole Ogg page")
            }
            guard frameCount > 0 else { throw failure("the Ogg Vorbis data decodes to no frames") }
            guard frameCount <= stream.count * maximumVorbisFramesPerByte else {
                throw failure("the Ogg Vorbis data claims \(frameCount) frames, more than its \(stream.count) bytes can hold")
            }
            guard sample.loopStart <= sample.loopEnd, sample.loopEnd <= frameCount else {
                throw failure("loop \(sample.loopStart)…\(sample.loopEnd) does not lie within its \(frameCount) decoded frames")
            }
            hydra.samples[index] = Hydra.SampleHeader(name: sample.name, start: 0, end: frameCount, loopStart: sample.loopStart,
                                                      loopEnd: sample.loopEnd, sampleRate: sample.sampleRate,
                                                      originalPitch: sample.originalPitch, pitchCorrection: sample.pitchCorrection,
                                                      type: sample.type, offset: sample.offset, compressedSamplesAllowed: true)
            streams[index] = stream
        }
        return streams
    }

    /// The regions of every preset (file order), in smpl coordinates, each with the index of the
    /// sample it plays, and the modulator table their modulator ranges index (the defaults first).
    private static func resolveRegions(_ hydra: Hydra, options: Options) throws(SoundFontError)
        -> ([[(region: SamplerRegion, sample: Int)]], [SamplerModulator]) {
        // Every instrument's zones, once, whether or not a preset uses it: the font is checked
        // whole, and presets sharing an instrument do not parse it again.
        var instrumentZones: [[Zone]] = []
        instrumentZones.reserveCapacity(hydra.instruments.count - 1)
        for (index, instrument) in hydra.instruments.dropLast().enumerated() {
            let zones = try hydra.zones(level: .instrument, ownerName: instrument.name, bags: hydra.bagRange(ofInstrument: index),
                                        bagTable: hydra.instrumentBags, generators: hydra.instrumentGenerators,
                                        modulators: hydra.instrumentModulators, linkCount: hydra.samples.count - 1)
            for zone in zones where hydra.samples[zone.link].isROM {
                let sample = hydra.samples[zone.link]
                throw SoundFontError(file: hydra.file, chunk: "pdta/shdr", offset: sample.offset,
                                     reason: "sample '\(sample.name)' (played by instrument '\(instrument.name)') is a ROM sample (type 0x\(String(sample.type, radix: 16))); ROM samples are not supported")
            }
            instrumentZones.append(zones)
        }

        var presetRegions: [[(region: SamplerRegion, sample: Int)]] = []
        var regionTotal = 0
        // Most zones resolve to the same few lists: each is stored once.
        var modulatorTable = SamplerModulator.defaults
        var modulatorLists: [[SamplerModulator]: Int32] = [SamplerModulator.defaults: 0]
        for (index, preset) in hydra.presets.dropLast().enumerated() {
            let zones = try hydra.zones(level: .preset, ownerName: preset.name, bags: hydra.bagRange(ofPreset: index),
                                        bagTable: hydra.presetBags, generators: hydra.presetGenerators,
                                        modulators: hydra.presetModulators, linkCount: hydra.instruments.count - 1)
            var regions: [(region: SamplerRegion, sample: Int)] = []
            for presetZone in zones {
                for instrumentZone in instrumentZones[presetZone.link] {
                    guard var region = RegionBuilder.region(preset: presetZone.generators, instrument: instrumentZone.generators,
                                                            sample: hydra.samples[instrumentZone.link],
                                                            attenuationScale: options.attenuationScale.factor) else { continue }
                    let list = instrumentZone.modulators.overlaid(on: SamplerModulator.defaults).adding(presetZone.modulators)
                    if let first = modulatorLists[list] {
                        region.firstModulator = first
                    } else {
                        region.firstModulator = Int32(modulatorTable.count)
                        modulatorLists[list] = region.firstModulator
                        modulatorTable += list
                    }
                    region.modulatorCount = Int32(list.count)
                    regions.append((region, instrumentZone.link))
                }
            }
            regionTotal += regions.count
            guard regionTotal <= maximumRegionCount else {
                throw SoundFontError(file: hydra.file, chunk: "pdta/phdr", offset: preset.offset,
                                     reason: "preset '\(preset.name)' brings the bank past \(maximumRegionCount) regions")
            }
            presetRegions.append(regions)
        }
        return (presetRegions, modulatorTable)
    }

    /// The sample pool: every sample some region plays (`sampleOfRegion`), in file order, between guard frames;
    /// `slots[i]` is where sample `i` starts in `samples` (-1 when unused). Each sample goes from
    /// the file straight into its slot: 16-bit words copied as they are, an SF3 stream decoded in
    /// place. The pool is the caller's to free (or to hand to `SampleBank`, which takes it over
    /// without a copy); on a throw it is freed here.
    private static func decodeSamples(usedBy sampleOfRegion: [Int], hydra: Hydra,
                                      file: SoundFontFile, streams: [Int: Range<Int>],
                                      report: (@Sendable (Double) -> Void)?) throws(SoundFontError)
        -> (samples: SamplePool, slots: [Int]) {
        let guardFrames = SampleBank.guardFrameCount
        var used = [Bool](repeating: false, count: hydra.samples.count)
        for sample in sampleOfRegion { used[sample] = true }
        var slots = [Int](repeating: -1, count: hydra.samples.count)
        var poolSize = guardFrames
        var decodedFrames = 0
        var progress = DecodingProgress(report: report)
        for (index, sample) in hydra.samples.enumerated() where used[index] {
            slots[index] = poolSize
            poolSize += sample.end - sample.start + guardFrames
            if let stream = streams[index] {
                decodedFrames += sample.end
                progress.totalBytes += stream.count
            } else {
                progress.totalBytes += 2 * (sample.end - sample.start)
            }
        }
        let smplFrames = file.smpl.count / 2
        guard poolSize <= maximumPoolExpansion * smplFrames + decodedFrames + guardFrames * hydra.samples.count + guardFrames else {
            throw SoundFontError(file: hydra.file, chunk: "pdta/shdr", offset: hydra.samples[0].offset,
                                 reason: "the samples' ranges overlap so much that decoding them needs \(poolSize) frames for a smpl chunk of \(smplFrames)")
        }
        // 24-bit samples need more than a word; a Float holds them exactly.
        let encoding: SampleEncoding = file.sm24 == nil ? .int16 : .float32
        // The pool is the bank's: `SampleBank` takes it over, so it is held once.
        try requireMemory(poolSize * encoding.bytesPerFrame + memoryReserve, for: hydra.file, "of sample memory")
        // Every frame is written once, a guard frame or a sample's, so each page is touched first
        // as the samples reach it, and all of them before the bank can sound.
        let pool = SamplePool.allocate(encoding: encoding, frameCount: poolSize)
        var filled = false
        defer { if !filled { pool.deallocate() } }
        let frameBytes = encoding.bytesPerFrame
        func zero(_ frame: Int, _ count: Int) { (pool.storage + frame * frameBytes).initializeMemory(as: UInt8.self, repeating: 0, count: count * frameBytes) }
        zero(0, guardFrames)
        var samples: [Int] = []
        for (index, sample) in hydra.samples.enumerated() where used[index] {
            zero(slots[index] + sample.end - sample.start, guardFrames)
            samples.append(index)
        }
        try decodeInParallel(samples, hydra: hydra, file: file, streams: streams, into: pool, slots: slots, progress: &progress)
        progress.finish()
        filled = true
        return (pool, slots)
    }

    /// Reads or decodes the samples `indices` (file order) into their slots, on as many threads as
    /// there are cores: a Vorbis decoder runs on one core, and filling a large pool is mostly the
    /// kernel making its pages resident, which two cores do in half the time. Each thread takes
    /// the next sample in file order (so the file is still read front to back) and writes only that
    /// sample's slot. The first failure in file order is thrown; the threads stop taking samples
    /// once one has failed.
    private static func decodeInParallel(_ indices: [Int], hydra: Hydra, file: SoundFontFile, streams: [Int: Range<Int>],
                                         into pool: SamplePool, slots: [Int], progress: inout DecodingProgress) throws(SoundFontError) {
        guard !indices.isEmpty else { return }
        let shared = SharedDecoding(progress: progress)
        let threadCount = min(indices.count, max(1, ProcessInfo.processInfo.activeProcessorCount))
        let job = DecodingJob(hydra: hydra, file: file, streams: streams, pool: pool, slots: slots)
        DispatchQueue.concurrentPerform(iterations: threadCount) { _ in
            while true {
                let next = shared.nextJob.wrappingAdd(1, ordering: .relaxed).oldValue
                // A sample before the first failure so far is still decoded: it may fail first.
                guard next < indices.count, next < shared.firstFailure.load(ordering: .relaxed) else { return }
                do throws(SoundFontError) {
                    let byteCount = try job.decode(indices[next])
                    shared.state.withLock { $0.progress.advance(byteCount) }
                } catch {
                    shared.state.withLock { state in
                        guard state.failure.map({ $0.order > next }) ?? true else { return }
                        state.failure = (next, error)
                        shared.firstFailure.store(next, ordering: .relaxed)
                    }
                    return
                }
            }
        }
        let outcome = shared.state.withLock { $0 }
        progress = outcome.progress
        if let failure = outcome.failure { throw failure.error }
    }

    /// What the decoding threads share: the next sample to take, the first (in file order) to have
    /// failed so far (`Int.max`: none), and, locked, the progress and that failure.
    private final class SharedDecoding: Sendable {
        struct State: Sendable {
            var progress: DecodingProgress
            var failure: (order: Int, error: SoundFontError)?
        }
        let nextJob = Atomic<Int>(0)
        let firstFailure = Atomic<Int>(.max)
        let state: Mutex<State>
        init(progress: DecodingProgress) { state = Mutex(State(progress: progress, failure: nil)) }
    }

    /// One sample's decoding, as each thread runs it: read from the file (`pread`, safe from any
    /// thread) into the sample's own slot, an SF3 stream decoded there.
    private struct DecodingJob: @unchecked Sendable {
        let hydra: Hydra
        let file: SoundFontFile
        let streams: [Int: Range<Int>]
        let pool: SamplePool
        let slots: [Int]

        /// Decodes sample `index`; returns the bytes of smpl it took, for the progress.
        func decode(_ index: Int) throws(SoundFontError) -> Int {
            let sample = hydra.samples[index]
            let slot = pool.storage + slots[index] * pool.encoding.bytesPerFrame
            guard let stream = streams[index] else {
                try SoundFontLoader.copy(sample, from: file, into: slot, encoding: pool.encoding)
                return 2 * (sample.end - sample.start)
            }
            let subject = "sample \(index) '\(sample.name)'"
            let bytes = try file.smpl.bytes(stream.lowerBound, stream.count)
            do {
                try bytes.withUnsafeBytes { bytes in
                    try AudioFileReader.decodeMono(bytes: bytes, name: subject, into: slot, wordsNotFloats: pool.encoding == .int16,
                                                   frameCount: sample.end - sample.start)
                }
            } catch {
                let reason = (error as? AudioFileError)?.reason ?? "\(error)"
                throw file.smpl.error(at: stream.lowerBound, "\(subject): the Ogg Vorbis data does not decode (\(reason))")
            }
            return stream.count
        }
    }

    /// Copies `sample`'s frames from smpl into `slot`: 16-bit words as they are, or with sm24 the
    /// 24-bit value (word << 8 | low byte) / 8388608 as a Float. The range was validated against
    /// smpl (and sm24 has smpl's frame count), and the chunk checks it again.
    private static func copy(_ sample: Hydra.SampleHeader, from file: SoundFontFile, into slot: UnsafeMutableRawPointer,
                             encoding: SampleEncoding) throws(SoundFontError) {
        let frames = sample.end - sample.start
        guard frames > 0 else { return }
        guard encoding == .float32 else {
            try file.smpl.read(sample.start * 2, frames * 2, into: slot)
            #if _endian(big)
            let words = slot.assumingMemoryBound(to: Int16.self)
            for frame in 0..<frames { words[frame] = Int16(littleEndian: words[frame]) }
            #endif
            return
        }
        // Plain pointer loops: per-element buffer checks and iterators would make debug builds
        // (the tests) crawl.
        let words = try file.smpl.bytes(sample.start * 2, frames * 2)
        let low = try file.sm24.map { sm24 throws(SoundFontError) in try sm24.bytes(sample.start, frames) } ?? [UInt8](repeating: 0, count: frames)
        let floats = slot.assumingMemoryBound(to: Float.self)
        words.withUnsafeBytes { words in
            var frame = 0
            while frame < frames {
                let word = Int16(littleEndian: words.loadUnaligned(fromByteOffset: 2 * frame, as: Int16.self))
                // The 24-bit value is (word × 256 + low) / 2^23.
                floats[frame] = Float(Int(word)) * (1 / 32_768) + Float(Int(low[frame])) * (1 / 8_388_608)
                frame += 1
            }
        }
    }

    /// `SampleBank.init` traps on a region outside the pool; the construction above cannot
    /// produce one, and this makes sure a loader bug becomes an error, not a crash.
    private static func checkBankInvariants(regions: UnsafeBufferPointer<SamplerRegion>, poolSize: Int,
                                            presets: [SampleBank.Preset], name: String) throws(SoundFontError) {
        for region in regions {
            guard region.start >= 0, region.start <= region.end, region.end <= poolSize,
                  region.loopStart >= region.start, region.loopEnd <= poolSize,
                  region.sampleStart >= 0, region.sampleStart <= region.start, region.end <= region.sampleEnd,
                  region.sampleEnd <= poolSize else {
                throw SoundFontError(file: name, chunk: "pdta", offset: 0, reason: "internal: a region lies outside the sample pool")
            }
        }
        for preset in presets {
            guard preset.firstRegion >= 0, preset.regionCount >= 0, preset.firstRegion + preset.regionCount <= regions.count else {
                throw SoundFontError(file: name, chunk: "pdta", offset: 0, reason: "internal: a preset's regions lie outside the region table")
            }
        }
    }

    /// Refuses, as one line, to allocate `byteCount` bytes that cannot be had (see
    /// `MemoryHeadroom`): Swift traps on a failed allocation, so asking first is the only way a
    /// font too large for the machine, or for the process's limits, is an error and not an abort.
    static func requireMemory(_ byteCount: Int, for name: String, _ purpose: String) throws(SoundFontError) {
        guard let available = MemoryHeadroom.availableBytes(), byteCount > available else { return }
        let megabytes = MemoryHeadroom.shortfall(needed: byteCount, available: available)
        throw SoundFontError(file: "soundfont '\(name)'",
                             reason: "needs \(megabytes.neededMB) MB \(purpose), only \(megabytes.availableMB) MB can be had")
    }

    /// How much of a font's sample data is decoded, for `Options.progress`: smpl bytes, a
    /// compressed sample counting its Ogg Vorbis stream and a plain one its 16-bit words.
    struct DecodingProgress: Sendable {
        private let report: (@Sendable (Double) -> Void)?
        /// The bytes of the samples that are decoded (those some region plays).
        var totalBytes = 0
        private var doneBytes = 0

        init(report: (@Sendable (Double) -> Void)?) { self.report = report }

        mutating func advance(_ byteCount: Int) {
            guard let report else { return }
            doneBytes += byteCount
            report(min(1, Double(doneBytes) / Double(max(1, totalBytes))))
        }

        func finish() { report?(1) }
    }

    private static func fileName(of path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}

/// glibc's `malloc_trim` (malloc.h, which the Glibc module does not bring in): hands the free pages
/// of the heap back to the system. Returns 1 when some were.
@_silgen_name("malloc_trim")
private func releaseFreedHeapMemory(_ pad: Int) -> Int32
