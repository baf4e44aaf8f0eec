/// What a SoundFont holds, read from its INFO list and its pdta tables without decoding a sample:
/// for `staccato info` and scripts that ask which presets a font has.
///
/// - Thread: any. A plain value.
public struct SoundFontContents: Sendable {
    /// One preset, as `bank:program name`.
    public struct Preset: Sendable, Equatable {
        /// - Thread: any.
        public let bank: Int
        /// - Thread: any.
        public let program: Int
        /// - Thread: any.
        public let name: String
    }

    /// - Thread: any.
    public let info: SoundFontInfo
    /// Sorted by bank, then program (the order the loader installs them).
    /// - Thread: any.
    public let presets: [Preset]
    /// - Thread: any.
    public let instrumentCount: Int
    /// - Thread: any.
    public let sampleCount: Int
    /// How many samples are Ogg Vorbis streams (SF3).
    /// - Thread: any.
    public let compressedSampleCount: Int
    /// The smpl chunk's size (plus sm24's when it is used), in bytes.
    /// - Thread: any.
    public let sampleDataBytes: Int

    /// "SF3" for a version 3 file, else "SF2".
    /// - Thread: any.
    public var format: String { info.version.major == 3 ? "SF3" : "SF2" }
}

extension SoundFontLoader {
    /// The contents of the file at `path`, its pdta tables checked as `load` checks them.
    /// - Thread: control. Not real-time safe: allocates and reads the file.
    public static func contents(path: String) throws(SoundFontError) -> SoundFontContents {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let file = try SoundFontFile(try FontSource(path: path, name: name))
        try file.requirePlayableVersion()
        let hydra = try Hydra(pdta: file.pdta, sampleFrameCount: file.smpl.count / 2, smplByteCount: file.smpl.count,
                              compressedSamplesAllowed: file.isSF3)
        let presets = hydra.presets.dropLast()
            .map { SoundFontContents.Preset(bank: $0.bank, program: $0.program, name: $0.name) }
            .enumerated().sorted { ($0.element.bank, $0.element.program, $0.offset) < ($1.element.bank, $1.element.program, $1.offset) }
            .map(\.element)
        let samples = hydra.samples.dropLast()
        return SoundFontContents(info: file.info, presets: presets, instrumentCount: hydra.instruments.count - 1,
                                 sampleCount: samples.count, compressedSampleCount: samples.filter(\.isCompressed).count,
                                 sampleDataBytes: file.smpl.count + (file.sm24?.count ?? 0))
    }
}
