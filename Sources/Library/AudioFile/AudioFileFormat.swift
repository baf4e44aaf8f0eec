import CSndFile

/// A container and sample encoding that libsndfile writes, chosen from a file name's extension.
public struct AudioFileFormat: RawRepresentable, Hashable, Sendable {
    /// libsndfile's `SF_FORMAT_*` major format or'ed with its subtype.
    public let rawValue: Int32
    /// - Thread: any.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// WAV with 32-bit float samples (`SF_FORMAT_WAV | SF_FORMAT_FLOAT`): lossless for the engine.
    public static let wavFloat = AudioFileFormat(rawValue: Int32(SF_FORMAT_WAV | SF_FORMAT_FLOAT))
    /// WAV with 16-bit integer samples (`SF_FORMAT_WAV | SF_FORMAT_PCM_16`): what every player opens.
    public static let wav16 = AudioFileFormat(rawValue: Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16))
    /// FLAC, 24-bit (`SF_FORMAT_FLAC | SF_FORMAT_PCM_24`).
    public static let flac = AudioFileFormat(rawValue: Int32(SF_FORMAT_FLAC | SF_FORMAT_PCM_24))
    /// Ogg Vorbis (`SF_FORMAT_OGG | SF_FORMAT_VORBIS`).
    public static let oggVorbis = AudioFileFormat(rawValue: Int32(SF_FORMAT_OGG | SF_FORMAT_VORBIS))

    /// MPEG-1/2 Audio Layer III (`SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III`): libsndfile 1.1 and
    /// later write it through LAME and read it through mpg123.
    public static let mp3 = AudioFileFormat(rawValue: Int32(SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III))

    /// The extensions `init(path:)` knows, as a sentence's list: for messages and help texts.
    public static let extensionList = ".wav, .flac, .ogg or .mp3"

    /// The format a path's extension asks for (`.wav` is float WAV), or `nil` for an unknown one.
    /// - Thread: any.
    public init?(path: String) {
        let lowered = path.lowercased()
        if lowered.hasSuffix(".wav") { self = .wavFloat }
        else if lowered.hasSuffix(".flac") { self = .flac }
        else if lowered.hasSuffix(".ogg") || lowered.hasSuffix(".oga") { self = .oggVorbis }
        else if lowered.hasSuffix(".mp3") { self = .mp3 }
        else { return nil }
    }
}
