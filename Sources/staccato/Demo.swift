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
        let bank = try loadInstrument(path: announceDefaultSoundFont(), sampleRate: sampleRate)
        let song = try MIDIFile.read(path: InstrumentLoader.shippedFile(songPath))
        return (bank, song)
    }
}
