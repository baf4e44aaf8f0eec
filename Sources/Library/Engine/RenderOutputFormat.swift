import Foundation

/// What a batch (`BatchRender`, `staccato render --out-dir --format`) writes each song as. The raw
/// values are the spellings and the extensions, which are what choose the encoding, as an output
/// file's extension does.
/// - Thread: any. A plain value.
public enum RenderOutputFormat: String, CaseIterable, Sendable {
    /// 32-bit float WAV, the default: the engine's output unchanged.
    case wav
    case flac
    case ogg
    case mp3

    /// The file name `song`'s audio takes: the song's name without its extension, then this
    /// format's (`songs/A.mid` → `A.wav`).
    /// - Thread: any.
    public func outputName(for song: String) -> String {
        URL(fileURLWithPath: song).deletingPathExtension().lastPathComponent + "." + rawValue
    }
}
