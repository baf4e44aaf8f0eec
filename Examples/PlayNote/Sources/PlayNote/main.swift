// Plays a C major chord (C4, E4, G4) through a SoundFont with Staccato's public API and writes it
// to a sound file: the smallest complete use of the engine.
//
//     swift run --package-path Examples/PlayNote PlayNote FONT.sf2 chord.wav
import Engine
import Foundation
import MIDIVocabulary
import Render

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 2, let fontPath = arguments.first, let outputPath = arguments.last else {
    FileHandle.standardError.write(Data("usage: PlayNote FONT.sf2 OUT.wav\n".utf8))
    exit(2)
}

/// Renders C4, E4 and G4 through the font at `fontPath` into the sound file at `outputPath`.
func playChord(fontPath: String, outputPath: String) throws {
    // An engine with the default configuration: 48 kHz stereo, the limiter and effects on.
    let engine = Engine()
    // Loaded and decoded whole before it can sound; the install is queued to the audio thread.
    let bank = try InstrumentLoader.load(path: fontPath, sampleRate: engine.sampleRate)
    engine.install(bank)

    // The chord starts at frame 0 and is released after a second; every message is stamped with
    // the frame it takes effect on.
    let chord = ["C4", "E4", "G4"].compactMap(NoteName.midiKey(parsing:))
    let second = FrameTime(engine.sampleRate)
    for key in chord {
        engine.send(midi: .noteOn(channel: 0, key: key, velocity: 100))
        engine.send(midi: .noteOff(channel: 0, key: key, velocity: 0), at: second)
    }

    // Rendered offline on this thread (a device stream would run the same renderer in real
    // time), a second and a half: the chord and its release.
    try engine.renderOffline(frameCount: Int(1.5 * engine.sampleRate), to: outputPath)
    print("wrote \(outputPath): C4 E4 G4 through \(bank.name)")
}

do {
    try playChord(fontPath: fontPath, outputPath: outputPath)
} catch {
    FileHandle.standardError.write(Data("PlayNote: \(error)\n".utf8))
    exit(1)
}
