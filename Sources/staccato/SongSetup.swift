import Engine
import MIDI
import Render

/// A failure of a command that is neither a usage error nor a library's: one line, exit code 1.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// What `render` and `play` do alike with a song before it plays: read it, saying what damage was
/// found, and pick what plays the drum channel, saying which presets the font lacks and what plays
/// instead. Each says so in one line on stderr, before the first sound.
enum SongSetup {
    /// Reads the MIDI file at `path`. A damaged file whose notes were read in part plays with one
    /// warning line naming the damage; one with no note left is refused.
    /// - Throws: `MIDIFileError` for a file that cannot be read at all, `CommandFailure` when the
    ///   damage left no note.
    static func readSong(path: String) throws -> MIDIFile {
        let song = try MIDIFile.read(path: path)
        guard let file = song.problems.first?.file else { return song }
        let damage = "\(file): " + song.problems.map(\.reason).joined(separator: "; ")
        guard song.noteOnCount > 0 else { throw CommandFailure("\(damage); no note is left to play") }
        printError("staccato: warning: \(damage); playing what was read")
        return song
    }

    /// The kit that plays the drum channel: `kitPath`'s, else, when `bank` has no drum kit and the
    /// song drums, the shipped kit (silence is never the better guess). Prints one warning line
    /// listing every preset the song asks `bank` for and does not find, with what plays instead.
    static func drumKit(for sequencer: MIDISequencer, bank: SampleBank, kitPath: String?, sampleRate: Double) throws -> DrumKit? {
        try drumKit(for: sequencer, bank: bank, kitPath: kitPath, kits: DrumKitShelf(sampleRate: sampleRate))
    }

    /// `drumKit(for:bank:kitPath:sampleRate:)` with the kit taken from `kits`, so that songs
    /// rendered side by side load a kit once between them. With `song`, the warning line begins
    /// with it: among a batch's lines it says which file lacks what.
    static func drumKit(for sequencer: MIDISequencer, bank: SampleBank, kitPath: String?, kits: DrumKitShelf,
                        naming song: String? = nil) throws -> DrumKit? {
        var kitPath = kitPath
        var kitClause: [String] = []
        let bankHasKit = bank.presets.contains { $0.bank == SampleBank.Preset.percussionBank }
        if kitPath == nil, !bankHasKit, sequencer.playsPercussion {
            let shipped = Commands.shippedKitPath
            kitPath = shipped
            kitClause = ["channel 10 drums: played with the kit \(shipped)"]
        }
        let kit = try kitPath.map { try kits.kit(at: $0) }
        let clauses = PresetSubstitution.clauses(sequencer.presetSubstitutions(in: bank, kitPlaysPercussion: kit != nil)) + kitClause
        if !clauses.isEmpty {
            printError("staccato: warning: " + (song.map { "\($0): " } ?? "") + "\(bank.name) has no preset for " + clauses.joined(separator: "; "))
        }
        return kit
    }
}
