import AudioFile
import DSP
import FileChecks
import Foundation
import ProcessLimits
import Render
import SampleStreaming
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
        public var progress: (@Sendable (Double) -> Void)?

        /// Which samples `load` decodes (`.all`, the default: every sample a region plays).
        public var selection: SampleSelection = .all

        /// Bytes of sample memory a bank `open` returns may keep: every sample's head stays, and
        /// the bodies notes play come and go, the least recently started dropped first when the
        /// bank is over (a body a voice is playing stays: the budget bounds what is kept, not what
        /// plays). Nil: every sample decoded whole, once. A budget the heads alone exceed is
        /// refused before anything is decoded.
        public var sampleCacheBytes: Int?

        /// A pause before each sample the background decoding writes (`open`): a slow disk, made
        /// on purpose, for the tests and benchmarks that show the audio thread never waits for it.
        public var backgroundDelay: Duration?

        /// Told, a line each, what goes wrong while samples decode in the background (`open`): a
        /// sample that does not decode, named with the file and the reason. Called on a decoding
        /// thread.
        public var warning: (@Sendable (String) -> Void)?

        /// - Thread: any.
        public init(attenuationScale: AttenuationScale = .emu, progress: (@Sendable (Double) -> Void)? = nil,
                    selection: SampleSelection = .all, sampleCacheBytes: Int? = nil, backgroundDelay: Duration? = nil,
                    warning: (@Sendable (String) -> Void)? = nil) {
            self.backgroundDelay = backgroundDelay
            self.attenuationScale = attenuationScale
            self.progress = progress
            self.selection = selection
            self.sampleCacheBytes = sampleCacheBytes
            self.warning = warning
        }
    }

    /// Which of a font's samples a load decodes.
    public enum SampleSelection: Sendable {
        /// Every sample a region plays.
        case all
        /// Only the samples these notes reach (`PlayedNotes.firstFrames(ofRegions:presets:)`):
        /// what a song needs. The bank's other regions never sound; a note on one counts as a
        /// sample underrun (`RenderStatistics.sampleUnderruns`).
        case played(PlayedNotes)
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
        let index = try SoundFontIndex(source, options: options)
        switch options.selection {
        case .all:
            return try index.makeBank(decoding: index.usedSamples, residency: false, progress: options.progress).bank
        case .played(let notes):
            let wanted = index.samplesReached(by: notes)
            return try index.makeBank(decoding: wanted, residency: true, progress: options.progress).bank
        }
    }

    /// Opens the font at `path` for playing at once: reads its structure, decodes the heads
    /// (`SampleStreaming.headSeconds`) of the samples `first` reaches on every core, and returns a bank that plays
    /// those, while their bodies, then the samples of `rest`, go on decoding in the background,
    /// most urgent first (a body a playing note asks for before the queue) (`.played`: by the frame each
    /// is first played at; `.all`: every other sample, bank 0's programs in order, then the drum
    /// kits, then the other banks). A note on a sample not yet decoded does not start that
    /// region (`RenderStatistics.sampleUnderruns`). A sample that fails to decode in the
    /// background is one line to `options.warning` and stays silent; everything else plays on.
    /// - Throws: what `load` throws for the file's structure, or a sample `first` needs that
    ///   does not decode.
    /// - Thread: control. Not real-time safe: allocates, reads the file, starts a thread.
    public static func open(path: String, sampleRate: Double, first: PlayedNotes, rest: SampleSelection = .all,
                            options: Options = Options()) throws(SoundFontError) -> (bank: SampleBank, decoding: BackgroundDecoding) {
        let index = try SoundFontIndex(try FontSource(path: path, name: fileName(of: path)), options: options)
        let urgent = index.samplesReached(by: first)
        let later = switch rest {
        case .all: index.samplesByLikelyUse()
        case .played(let notes): index.samplesReached(by: notes)
        }
        let order = SampleStreaming.decodingOrder(urgent: urgent, then: later)
        let encoding = index.file.sm24 == nil ? 2 : 4
        let headBytes = order.reduce(0) { total, sample in
            let header = index.hydra.samples[sample]
            return total + min(header.end - header.start, SampleStreaming.headFrames(rate: Double(header.sampleRate))) * encoding
        }
        if let refusal = SampleStreaming.refusal(headBytes: headBytes, cacheBytes: options.sampleCacheBytes) {
            throw SoundFontError(file: "soundfont '\(index.name)'", reason: refusal)
        }
        // The urgent samples' heads now, on every core; the rest in the background.
        let made = try index.makeBank(decoding: order, decodeNow: 0, residency: true, budgetBytes: options.sampleCacheBytes, progress: nil)
        var progress = DecodingProgress(report: options.progress)
        try made.decoder.decodeInParallel(order[..<urgent.count], headsOnly: true, progress: &progress)
        progress.finish()
        let decoding = BackgroundDecoding(decoder: made.decoder, samples: order, holding: made.bank, budgetBytes: options.sampleCacheBytes,
                                          delay: options.backgroundDelay,
                                          warning: options.warning)
        return (made.bank, decoding)
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
    static func measureCompressedSamples(_ hydra: inout Hydra, file: SoundFontFile) throws(SoundFontError) -> [Int: Range<Int>] {
        var streams: [Int: Range<Int>] = [:]
        for index in hydra.samples.indices.dropLast() where hydra.samples[index].isCompressed && !hydra.samples[index].isROM {
            let sample = hydra.samples[index]
            func failure(_ reason: String) -> SoundFontError {
                file.smpl.error(at: sample.start, "sample \(index) '\(sample.name)': \(reason)")
            }
            let stream = sample.start ..< sample.end
            // The last page is at most 65,307 bytes, and nearly always a few kilobytes: the last
            // 8 KB are read first, and the largest a page can be only when no page ends them. (All
            // 65 KB of every stream would read the whole of a GM font just to list it.)
            var frameCount: Int?
            for tail in [min(stream.count, 8_192), min(stream.count, 27 + 255 + 255 * 255)] where frameCount == nil {
                let bytes = try file.smpl.bytes(stream.upperBound - tail, tail)
                frameCount = bytes.withUnsafeBytes { AudioFileReader.oggFrameCount($0) }
                if tail == stream.count { break }
            }
            guard let frameCount else {
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
    static func resolveRegions(_ hydra: Hydra, options: Options) throws(SoundFontError)
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

    /// Copies `sample`'s frames from smpl into `slot`: 16-bit words as they are, or with sm24 the
    /// 24-bit value (word << 8 | low byte) / 8388608 as a Float. The range was validated against
    /// smpl (and sm24 has smpl's frame count), and the chunk checks it again.
    static func copy(_ sample: Hydra.SampleHeader, from file: SoundFontFile, into slot: UnsafeMutableRawPointer,
                     encoding: SampleEncoding, frames range: Range<Int>? = nil) throws(SoundFontError) {
        // `slot` holds the range's first frame; the whole sample when no range is given.
        let range = range ?? 0..<(sample.end - sample.start)
        let first = sample.start + range.lowerBound, frames = range.count
        guard frames > 0 else { return }
        guard encoding == .float32 else {
            try file.smpl.read(first * 2, frames * 2, into: slot)
            #if _endian(big)
            let words = slot.assumingMemoryBound(to: Int16.self)
            for frame in 0..<frames { words[frame] = Int16(littleEndian: words[frame]) }
            #endif
            return
        }
        // Plain pointer loops: per-element buffer checks and iterators would make debug builds
        // (the tests) crawl.
        let words = try file.smpl.bytes(first * 2, frames * 2)
        let low = try file.sm24.map { sm24 throws(SoundFontError) in try sm24.bytes(first, frames) } ?? [UInt8](repeating: 0, count: frames)
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
    static func checkBankInvariants(regions: UnsafeBufferPointer<SamplerRegion>, poolSize: Int,
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
    static func requireMemory(_ byteCount: Int, for name: String, _ purpose: String, addressSpaceOnly: Bool = false) throws(SoundFontError) {
        guard let available = addressSpaceOnly ? MemoryHeadroom.addressSpaceBytes() : MemoryHeadroom.availableBytes(),
              byteCount > available else { return }
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

    static func fileName(of path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}
