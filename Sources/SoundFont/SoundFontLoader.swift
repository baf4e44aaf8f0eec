import AudioFile
import FileChecks
import Foundation
import Render

/// Loads SoundFont 2 files (SF2 2.01–2.04) and SoundFont 3 files (SF3: SF2 with Ogg Vorbis
/// compressed samples, FluidSynth's and MuseScore's format) into `SampleBank`s.
///
/// What a bank holds: one `SampleBank.Preset` per preset in the file, sorted by bank then program,
/// each with its regions (every preset zone × every instrument zone whose key and velocity ranges
/// overlap) fully resolved; and every sample those regions play, decoded once to Float (16-bit
/// smpl, or 24-bit with a usable sm24, or an SF3 sample's Vorbis stream) into one mono pool with `SampleBank.guardFrameCount` zero
/// frames around each. Stereo and linked samples are kept as independent mono regions, each with
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
        /// at the end), on the loading thread: for a progress line while a large font loads.
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
        let name = fileName(of: path)
        return try load(bytes: try readFile(path, name: name), name: name, sampleRate: sampleRate, options: options)
    }

    /// Loads a SoundFont already in memory; `name` stands for the file in the bank and in errors.
    /// - Thread: control. Not real-time safe: allocates.
    public static func load(bytes: [UInt8], name: String, sampleRate: Double,
                            options: Options = Options()) throws(SoundFontError) -> SampleBank {
        let file = try SoundFontFile(ByteReader(file: name, bytes: bytes))
        try file.requirePlayableVersion()
        var hydra = try Hydra(pdta: file.pdta, sampleFrameCount: file.smpl.count / 2, smplByteCount: file.smpl.count,
                              compressedSamplesAllowed: file.isSF3)
        var progress = DecodingProgress(hydra: hydra, report: options.progress)
        var compressed = try decodeCompressedSamples(&hydra, file: file, progress: &progress)
        let (presetRegions, modulators) = try resolveRegions(hydra, options: options)
        let pool = try decodeSamples(usedBy: presetRegions, hydra: hydra, file: file, compressed: &compressed, progress: &progress)
        // The bank takes the pool over; until it does, a failure frees it here.
        var poolHandedOver = false
        defer { if !poolHandedOver { pool.samples.deallocate() } }
        progress.finish()

        // Presets sorted by bank, then program (file order among equals), regions moved into the
        // pool's coordinates and laid out contiguously per preset.
        let order = hydra.presets.indices.dropLast().sorted {
            (hydra.presets[$0].bank, hydra.presets[$0].program, $0) < (hydra.presets[$1].bank, hydra.presets[$1].program, $1)
        }
        var regions: [SamplerRegion] = []
        regions.reserveCapacity(presetRegions.reduce(0) { $0 + $1.count })
        var presets: [SampleBank.Preset] = []
        var presetNames: [String] = []
        for index in order {
            let header = hydra.presets[index]
            presets.append(SampleBank.Preset(bank: UInt16(header.bank), program: UInt8(header.program),
                                             firstRegion: regions.count, regionCount: presetRegions[index].count))
            presetNames.append(header.name)
            for (resolved, sampleIndex) in presetRegions[index] {
                var region = resolved
                let shift = pool.slots[sampleIndex] - hydra.samples[sampleIndex].start
                region.start += shift
                region.end += shift
                region.loopStart += shift
                region.loopEnd += shift
                regions.append(region)
            }
        }
        try checkBankInvariants(regions: regions, poolSize: pool.samples.count, presets: presets, name: name)
        poolHandedOver = true
        return SampleBank(name: name, takingSamples: pool.samples, regions: regions, presets: presets, presetNames: presetNames,
                          modulators: modulators)
    }

    /// The INFO fields of the file at `path`, after checking its RIFF structure (but not its
    /// presets or samples, and whatever its version: an SF3 file reports version 3 here and is
    /// refused by `load`).
    /// - Thread: control. Not real-time safe: allocates and reads the file.
    public static func info(path: String) throws(SoundFontError) -> SoundFontInfo {
        let name = fileName(of: path)
        return try info(bytes: try readFile(path, name: name), name: name)
    }

    /// The INFO fields of a SoundFont in memory.
    /// - Thread: control. Not real-time safe: allocates.
    public static func info(bytes: [UInt8], name: String) throws(SoundFontError) -> SoundFontInfo {
        try SoundFontFile(ByteReader(file: name, bytes: bytes)).info
    }

    /// Most decoded frames per byte of Vorbis data accepted for one SF3 sample. Real streams
    /// decode to about 10 frames a byte; silence compresses far better, but not past this.
    static let maximumVorbisFramesPerByte = 1_024

    /// Decodes every compressed (SF3) sample, and rewrites its header into decoded frames: start
    /// 0, end the frame count, the loop as stored (already relative to the sample's start), so
    /// region building treats it like any other sample. Keyed by sample index.
    private static func decodeCompressedSamples(_ hydra: inout Hydra, file: SoundFontFile,
                                                progress: inout DecodingProgress) throws(SoundFontError) -> [Int: [Float]] {
        var decoded: [Int: [Float]] = [:]
        for index in hydra.samples.indices.dropLast() where hydra.samples[index].isCompressed && !hydra.samples[index].isROM {
            var sample = hydra.samples[index]
            let subject = "sample \(index) '\(sample.name)'"
            func failure(_ reason: String) -> SoundFontError {
                file.smpl.error(at: sample.start, "\(subject): \(reason)")
            }
            let byteCount = sample.end - sample.start
            let result = try file.smpl.withBytes(sample.start, byteCount) { bytes -> Result<DecodedAudio, AudioFileError> in
                do {
                    return .success(try AudioFileReader.decode(bytes: UnsafeRawBufferPointer(bytes), name: subject,
                                                               maximumFrameCount: byteCount * maximumVorbisFramesPerByte))
                } catch let error as AudioFileError {
                    return .failure(error)
                } catch {
                    return .failure(AudioFileError(path: subject, reason: "\(error)"))
                }
            }
            let audio: DecodedAudio
            switch result {
            case .success(let value): audio = value
            case .failure(let error): throw failure("the Ogg Vorbis data does not decode (\(error.reason))")
            }
            guard audio.channelCount == 1 else {
                throw failure("the Ogg Vorbis data has \(audio.channelCount) channels; a SoundFont sample has 1")
            }
            guard audio.frameCount > 0 else { throw failure("the Ogg Vorbis data decodes to no frames") }
            guard sample.loopStart <= sample.loopEnd, sample.loopEnd <= audio.frameCount else {
                throw failure("loop \(sample.loopStart)…\(sample.loopEnd) does not lie within its \(audio.frameCount) decoded frames")
            }
            sample = Hydra.SampleHeader(name: sample.name, start: 0, end: audio.frameCount, loopStart: sample.loopStart,
                                        loopEnd: sample.loopEnd, sampleRate: sample.sampleRate, originalPitch: sample.originalPitch,
                                        pitchCorrection: sample.pitchCorrection, type: sample.type, offset: sample.offset,
                                        compressedSamplesAllowed: true)
            hydra.samples[index] = sample
            decoded[index] = audio.samples
            progress.advance(byteCount)
        }
        return decoded
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

    /// The sample pool: every sample some region plays, in file order, decoded between guard
    /// frames; `slots[i]` is where sample `i` starts in `samples` (-1 when unused). `compressed`
    /// holds the SF3 samples already decoded; each is dropped from it once copied, so the decoded
    /// samples and the pool are not both held whole. The pool is the caller's to free (or to hand
    /// to `SampleBank`, which takes it over without a copy); on a throw it is freed here.
    private static func decodeSamples(usedBy presetRegions: [[(region: SamplerRegion, sample: Int)]], hydra: Hydra,
                                      file: SoundFontFile, compressed: inout [Int: [Float]],
                                      progress: inout DecodingProgress) throws(SoundFontError)
        -> (samples: UnsafeMutableBufferPointer<Float>, slots: [Int]) {
        let guardFrames = SampleBank.guardFrameCount
        var used = [Bool](repeating: false, count: hydra.samples.count)
        for regions in presetRegions { for entry in regions { used[entry.sample] = true } }
        progress.countPlainSamples(hydra.samples.enumerated().filter { used[$0.offset] }.map(\.element))
        var slots = [Int](repeating: -1, count: hydra.samples.count)
        var poolSize = guardFrames
        for (index, sample) in hydra.samples.enumerated() where used[index] {
            slots[index] = poolSize
            poolSize += sample.end - sample.start + guardFrames
        }
        let smplFrames = file.smpl.count / 2
        let decodedFrames = compressed.values.reduce(0) { $0 + $1.count }
        guard poolSize <= maximumPoolExpansion * smplFrames + decodedFrames + guardFrames * hydra.samples.count + guardFrames else {
            throw SoundFontError(file: hydra.file, chunk: "pdta/shdr", offset: hydra.samples[0].offset,
                                 reason: "the samples' ranges overlap so much that decoding them needs \(poolSize) frames for a smpl chunk of \(smplFrames)")
        }
        // The pool is the bank's: `SampleBank` takes it over, so it is held once. (The decoded SF3
        // samples are held already, so what can be had no longer includes them.)
        try requireMemory(poolSize * MemoryLayout<Float>.stride + memoryReserve, for: hydra.file, "of sample memory")
        // Every frame is written once, a guard frame or a sample's, so no page is touched before
        // the decoding reaches it: a compressed sample's pages come as its decoded copy goes.
        let pool = UnsafeMutableBufferPointer<Float>.allocate(capacity: poolSize)
        var filled = false
        defer { if !filled { pool.deallocate() } }
        guard let base = pool.baseAddress else { throw file.smpl.error(at: 0, "internal: the sample pool has no storage") }
        base.initialize(repeating: 0, count: guardFrames)
        for (index, sample) in hydra.samples.enumerated() where used[index] {
            let frameCount = sample.end - sample.start
            if let frames = compressed.removeValue(forKey: index) {
                guard frames.count == frameCount else {
                    throw file.smpl.error(at: 0, "internal: sample '\(sample.name)' decoded to \(frames.count) frames, not \(frameCount)")
                }
                frames.withUnsafeBufferPointer { decoded in
                    guard let decoded = decoded.baseAddress else { return }
                    (base + slots[index]).initialize(from: decoded, count: frameCount)
                }
            } else {
                try decode(sample, from: file, into: pool, at: slots[index])
                progress.advance(2 * frameCount)
            }
            (base + slots[index] + frameCount).initialize(repeating: 0, count: guardFrames)
        }
        filled = true
        return (pool, slots)
    }

    /// Decodes `sample` to Float at `poolIndex`: 16-bit words / 32768, or with sm24 the 24-bit
    /// value (word << 8 | low byte) / 8388608. The range was validated against smpl (and sm24
    /// has smpl's frame count), and the reader checks it again once per sample.
    private static func decode(_ sample: Hydra.SampleHeader, from file: SoundFontFile,
                               into pool: UnsafeMutableBufferPointer<Float>, at poolIndex: Int) throws(SoundFontError) {
        let frames = sample.end - sample.start
        guard poolIndex >= 0, frames >= 0, poolIndex <= pool.count - frames else {
            throw file.smpl.error(at: 0, "internal: sample '\(sample.name)' does not fit its pool slot")
        }
        guard frames > 0 else { return }
        // Plain pointer loops: the range is checked once above and by `withBytes`, and
        // per-element buffer checks and iterators would make debug builds (the tests) crawl.
        guard let slot = pool.baseAddress.map({ $0 + poolIndex }) else { return }
        try file.smpl.withBytes(sample.start * 2, frames * 2) { words in
            guard let words = UnsafeRawPointer(words.baseAddress) else { return }
            var frame = 0
            while frame < frames {
                let value = Int16(littleEndian: words.loadUnaligned(fromByteOffset: 2 * frame, as: Int16.self))
                slot[frame] = Float(Int(value)) * (1 / 32_768)
                frame += 1
            }
        }
        guard let sm24 = file.sm24 else { return }
        try sm24.withBytes(sample.start, frames) { low in
            guard let low = low.baseAddress else { return }
            var frame = 0
            while frame < frames {
                // slot holds word / 2^15; the 24-bit value is (word × 256 + low) / 2^23.
                slot[frame] += Float(Int(low[frame])) * (1 / 8_388_608)
                frame += 1
            }
        }
    }

    /// `SampleBank.init` traps on a region outside the pool; the construction above cannot
    /// produce one, and this makes sure a loader bug becomes an error, not a crash.
    private static func checkBankInvariants(regions: [SamplerRegion], poolSize: Int,
                                            presets: [SampleBank.Preset], name: String) throws(SoundFontError) {
        for region in regions {
            guard region.start >= 0, region.start <= region.end, region.end <= poolSize,
                  region.loopStart >= region.start, region.loopEnd <= poolSize else {
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
    struct DecodingProgress {
        private let report: (@Sendable (Double) -> Void)?
        private let compressedBytes: Int
        /// Every plain sample's words until the regions say which are used.
        private var plainBytes: Int
        private var doneBytes = 0

        init(hydra: Hydra, report: (@Sendable (Double) -> Void)?) {
            self.report = report
            let samples = hydra.samples.dropLast().filter { !$0.isROM }
            compressedBytes = samples.filter(\.isCompressed).reduce(0) { $0 + $1.end - $1.start }
            plainBytes = samples.filter { !$0.isCompressed }.reduce(0) { $0 + 2 * ($1.end - $1.start) }
        }

        /// Only `used` plain samples are decoded: the total shrinks to them.
        mutating func countPlainSamples(_ used: [Hydra.SampleHeader]) {
            plainBytes = used.filter { !$0.isCompressed }.reduce(0) { $0 + 2 * ($1.end - $1.start) }
        }

        mutating func advance(_ byteCount: Int) {
            guard let report else { return }
            doneBytes += byteCount
            report(min(1, Double(doneBytes) / Double(max(1, compressedBytes + plainBytes))))
        }

        func finish() { report?(1) }
    }

    private static func fileName(of path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    /// The whole file, or an error naming it. Reads with POSIX calls to report errno's reason.
    static func readFile(_ path: String, name: String) throws(SoundFontError) -> [UInt8] {
        func failure(_ action: String) -> SoundFontError {
            SoundFontError(file: path, reason: "cannot \(action): \(String(cString: strerror(errno)))")
        }
        if let reason = FileKind.notRegularFileReason(path) {
            throw SoundFontError(file: path, reason: reason)
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure("open") }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw failure("stat") }
        let size = Int(status.st_size)
        try requireMemory(size, for: name, "to read the file")
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            initialized = 0
            guard let base = buffer.baseAddress else { return }
            while initialized < size {
                let count = read(descriptor, base + initialized, size - initialized)
                if count < 0, errno == EINTR { continue }
                if count <= 0 { failed = count < 0; break }
                initialized += count
            }
        }
        if failed { throw failure("read") }
        return bytes
    }
}
