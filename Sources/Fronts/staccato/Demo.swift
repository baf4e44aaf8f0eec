import DSP
import Engine
import MIDI
import Render

/// The demo: Mozart's Turkish March on the default font (the system's General MIDI font when
/// installed, else the shipped piano), played from the MIDI file with every
/// note stamped with its frame (sample-accurate, live or offline alike).
enum Demo {
    static let songPath = "samples/midi/mozart_turkish_march.mid"
    /// Time after the last note for the release to ring out.
    static let tailSeconds = 2.0

    /// The demo's engine input: the loaded piano and the song.
    static func load(sampleRate: Double) throws -> (bank: SampleBank, song: MIDIFile) {
        let song = try MIDIFile.read(path: InstrumentLoader.shippedFile(songPath))
        // The song's own samples: the system's General MIDI font is not decoded whole for a piano piece.
        let notes = MIDISequencer(song, sampleRate: sampleRate).playedNotes(kitPlaysPercussion: false)
        let bank = try loadInstrument(path: announceDefaultSoundFont(), sampleRate: sampleRate, notes: notes)
        return (bank, song)
    }
}
