/// The INFO list of a SoundFont: which version of the format it claims and the text fields the
/// author filled in. Only `version` is required by the loader; every other field is optional and
/// may be empty in real files. Read with `SoundFontLoader.info(path:)`.
///
/// - Thread: any. A plain value.
public struct SoundFontInfo: Sendable, Equatable {
    /// A version tag (ifil, iver): `major.minor`, e.g. 2.04 is `major 2, minor 4`.
    public struct Version: Sendable, Equatable, CustomStringConvertible {
        public var major: Int
        public var minor: Int
        /// - Thread: any.
        public init(major: Int, minor: Int) {
            self.major = major
            self.minor = minor
        }
        /// - Thread: any.
        public var description: String { minor < 10 ? "\(major).0\(minor)" : "\(major).\(minor)" }
    }

    /// ifil: the SoundFont specification version the file follows.
    public var version: Version
    /// isng: the sound engine the bank was made for (usually "EMU8000").
    public var soundEngine: String?
    /// INAM: the bank's name.
    public var name: String?
    /// irom / iver: the sound ROM the bank refers to, and its version.
    public var romName: String?
    public var romVersion: Version?
    /// ICRD: creation date, free text.
    public var creationDate: String?
    /// IENG: sound designers and engineers.
    public var engineers: String?
    /// IPRD: the product the bank was made for.
    public var product: String?
    /// ICOP: copyright.
    public var copyright: String?
    /// ICMT: comments.
    public var comments: String?
    /// ISFT: tools that created and edited the file.
    public var software: String?

    /// - Thread: any.
    public init(version: Version) {
        self.version = version
    }
}

extension SoundFontInfo {
    /// Reads the INFO list, returning also the file offset of the ifil chunk (for version errors).
    /// ifil must be present and 4 bytes (SF2 §5.1); unknown sub-chunks are ignored as the
    /// specification asks.
    static func read(list: ByteReader) throws(SoundFontError) -> (info: SoundFontInfo, versionOffset: Int) {
        var version: Version?
        var versionOffset = list.fileOffset(0)
        var fields: [String: String] = [:]
        var romVersion: Version?
        for chunk in try list.chunks(prefix: "INFO") {
            switch chunk.id {
            case "ifil", "iver":
                guard chunk.data.count == 4 else {
                    throw chunk.data.error(at: 0, "size \(chunk.data.count) is not 4 (a version tag)")
                }
                let tag = Version(major: Int(try chunk.data.u16(0)), minor: Int(try chunk.data.u16(2)))
                if chunk.id == "ifil" {
                    version = tag
                    versionOffset = chunk.headerOffset
                } else {
                    romVersion = tag
                }
            default:
                fields[chunk.id] = try chunk.data.string(0, length: chunk.data.count)
            }
        }
        guard let version else { throw list.error(at: 0, "the INFO list has no 'ifil' version chunk") }
        var info = SoundFontInfo(version: version)
        info.romVersion = romVersion
        info.soundEngine = fields["isng"]
        info.name = fields["INAM"]
        info.romName = fields["irom"]
        info.creationDate = fields["ICRD"]
        info.engineers = fields["IENG"]
        info.product = fields["IPRD"]
        info.copyright = fields["ICOP"]
        info.comments = fields["ICMT"]
        info.software = fields["ISFT"]
        return (info, versionOffset)
    }
}
