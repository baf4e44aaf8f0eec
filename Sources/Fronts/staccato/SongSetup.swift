import CommandLineSpec
import Engine
import MIDI
import Render

/// A failure of a command that is neither a usage error nor a library's: one line, exit code 1.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// What `render`, `play` and `mic` do alike with a song before it plays (`SongPreparation`), each
/// warning printed as one line on stderr before the first sound.
enum SongSetup {
    /// `SongPreparation.readSong`, its warning printed.
    static func readSong(path: String) throws -> MIDIFile {
        try SongPreparation.readSong(path: path, warning: printWarning)
    }

    /// `SongPreparation.drumKit`, the kit loaded for this song alone, its warning printed.
    static func drumKit(for sequencer: MIDISequencer, bank: SampleBank, kitPath: String?, sampleRate: Double) throws -> DrumKit? {
        try SongPreparation.drumKit(for: sequencer, bank: bank, kitPath: kitPath, kits: DrumKitShelf(sampleRate: sampleRate), warning: printWarning)
    }
}

/// `staccato: warning: LINE` on stderr: how the CLI shows the library's warnings.
@Sendable func printWarning(_ line: String) {
    printError("staccato: warning: " + line)
}
