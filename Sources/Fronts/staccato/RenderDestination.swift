import CommandLineSpec
import Engine

/// Where `staccato render` writes: one MIDI file to `--out FILE`, or any number of them into
/// `--out-dir DIR`, one file each. Read from the options before anything loads, so a mistake
/// costs nothing.
enum RenderDestination: Equatable {
    /// The one song's audio goes to this file; its extension names the format.
    case file(String)
    /// Each song's audio goes into this folder, named after the song, in `format`.
    case folder(String, format: RenderOutputFormat)

    /// The destination `options` ask for. The parser has already checked that exactly one of
    /// `--out` and `--out-dir` is given.
    /// - Throws: `UsageError` for no MIDI file, `--out` with several, `--format` with `--out`, and
    ///   a bad `--out` extension or `--format` word.
    init(_ options: ParsedOptions) throws {
        let songCount = options.positionals.count
        guard songCount > 0 else {
            throw UsageError(description: "which MIDI file? (staccato render SONG.mid --out OUT.wav, or SONG.mid... --out-dir DIR)")
        }
        guard options.values["out-dir"] == nil else {
            self = .folder(try options.string("out-dir"), format: try options.choice("format", of: RenderOutputFormat.self))
            return
        }
        guard songCount == 1 else {
            throw UsageError(description: "--out FILE is for one MIDI file, got \(songCount): --out-dir DIR renders several")
        }
        guard options.values["format"] == nil else {
            throw UsageError(description: "--format is for --out-dir; --out takes the format from its extension")
        }
        self = .file(try options.soundFilePath("out"))
    }
}
