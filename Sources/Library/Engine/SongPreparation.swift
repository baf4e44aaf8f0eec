import DrumKitLoader
import MIDI
import Render

/// What a front end does with a song before it plays, alike for rendering and playing: read it,
/// saying what damage was found, and pick what plays the drum channel, saying which presets the
/// instrument lacks and what plays instead. Each says so through `warning`, in one line without
/// the program's name, before the first sound.
public enum SongPreparation {
    /// Reads the MIDI file at `path`. A damaged file whose notes were read in part plays, with one
    /// warning naming the damage; one with no note left is refused.
    /// - Throws: `MIDIFileError` for a file that cannot be read at all, `RenderFailure` when the
    ///   damage left no note.
    /// - Thread: control.
    public static func readSong(path: String, warning: (String) -> Void) throws -> MIDIFile {
        try accept(MIDIFile.read(path: path), warning: warning)
    }

    /// `readSong(path:warning:)` for a file's bytes, already read; `name` stands for the file in
    /// messages.
    /// - Thread: control.
    public static func readSong(bytes: [UInt8], name: String, warning: (String) -> Void) throws -> MIDIFile {
        try accept(MIDIFile.parse(bytes, name: name), warning: warning)
    }

    /// `song` as read, with a warning naming its damage, or refused when the damage left no note.
    private static func accept(_ song: MIDIFile, warning: (String) -> Void) throws -> MIDIFile {
        guard let file = song.problems.first?.file else { return song }
        let damage = "\(file): " + song.problems.map(\.reason).joined(separator: "; ")
        guard song.noteOnCount > 0 else { throw RenderFailure("\(damage); no note is left to play") }
        warning("\(damage); playing what was read")
        return song
    }

    /// The kit that plays the drum channel: `kitPath`'s, else, when `bank` has no drum kit and the
    /// song drums, the shipped kit (silence is never the better guess), taken from `kits` so that
    /// songs rendered side by side load a kit once between them. Warns once, listing every preset
    /// the song asks `bank` for and does not find, with what plays instead; with `song`, the line
    /// begins with it, so that among a batch's lines it says which file lacks what.
    /// - Throws: the kit's `DrumKitError`.
    /// - Thread: control.
    public static func drumKit(for sequencer: MIDISequencer, bank: SampleBank, kitPath: String?, kits: DrumKitShelf,
                               naming song: String? = nil, warning: (String) -> Void) throws -> DrumKit? {
        var kitPath = kitPath
        var kitClause: [String] = []
        if kitPath == nil, !bank.hasDrumKit, sequencer.playsPercussion {
            let shipped = InstrumentLoader.shippedKitPath
            kitPath = shipped
            kitClause = ["channel 10 drums: played with the kit \(shipped)"]
        }
        let kit = try kitPath.map { try kits.kit(at: $0) }
        let clauses = PresetSubstitution.clauses(sequencer.presetSubstitutions(in: bank, kitPlaysPercussion: kit != nil)) + kitClause
        if !clauses.isEmpty {
            warning((song.map { "\($0): " } ?? "") + "\(bank.name) has no preset for " + clauses.joined(separator: "; "))
        }
        return kit
    }
}
