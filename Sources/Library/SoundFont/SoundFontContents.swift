/// What a SoundFont holds, read from its INFO list and its pdta tables without decoding a sample:
/// for `staccato info` and scripts that ask which presets a font has.
///
/// - Thread: any. A plain value.
public struct SoundFontContents: Sendable {
    /// One preset, as `bank:program name`.
    public struct Preset: Sendable, Equatable {
        public let bank: Int
        public let program: Int
        public let name: String
    }

    public let info: SoundFontInfo
    /// Sorted by bank, then program (the order the loader installs them).
    public let presets: [Preset]
    public let instrumentCount: Int
    public let sampleCount: Int
    /// How many samples are Ogg Vorbis streams (SF3).
    public let compressedSampleCount: Int
    /// The smpl chunk's size (plus sm24's when it is used), in bytes.
    public let sampleDataBytes: Int

    /// "SF3" for a version 3 file, else "SF2".
    /// Regions the presets resolve to (every preset zone × every instrument zone whose key and
    /// velocity ranges overlap).
    public let regionCount: Int
    /// Frames of the samples the regions play, decoded (an SF3 stream measured, not decoded), and
    /// the bytes each takes in memory: 2 for 16-bit samples, 4 when sm24 makes them 24-bit.
    public let decodedFrames: Int
    public let bytesPerDecodedFrame: Int

    /// Bits a decoded sample frame carries: 16, or 24 (held as a float).
    /// - Thread: any.
    public var decodedBits: Int { bytesPerDecodedFrame == 2 ? 16 : 24 }

    /// - Thread: any.
    public var format: String { info.version.major == 3 ? "SF3" : "SF2" }
}

extension SoundFontLoader {
    /// The contents of the file at `path`, its pdta tables checked as `load` checks them.
    /// - Thread: control. Not real-time safe: allocates and reads the file.
    public static func contents(path: String) throws(SoundFontError) -> SoundFontContents {
        let index = try SoundFontIndex(try FontSource(path: path, name: fileName(of: path)), options: Options())
        let file = index.file, hydra = index.hydra
        let presets = zip(index.presets, index.presetNames).map { SoundFontContents.Preset(bank: Int($0.bank), program: Int($0.program), name: $1) }
        let samples = hydra.samples.dropLast()
        let decodedFrames = index.usedSamples.reduce(0) { $0 + hydra.samples[$1].end - hydra.samples[$1].start }
        return SoundFontContents(info: file.info, presets: presets, instrumentCount: hydra.instruments.count - 1,
                                 sampleCount: samples.count, compressedSampleCount: samples.filter(\.isCompressed).count,
                                 sampleDataBytes: file.smpl.count + (file.sm24?.count ?? 0), regionCount: index.regions.count,
                                 decodedFrames: decodedFrames, bytesPerDecodedFrame: file.sm24 == nil ? 2 : 4)
    }
}
