import SampleSet
import XCTest

/// Note names and file names to MIDI keys (MIDI 60 = C4).
final class NoteNameTests: XCTestCase {
    func testNoteNames() {
        let table: [(String, UInt8?)] = [
            ("C4", 60), ("A0", 21), ("C-1", 0), ("G9", 127), ("Db3", 49), ("F#2", 42), ("Fs2", 42),
            ("Bb-1", 10), ("c#-1", 1), ("bb3", 58), ("a4", 69), ("Cb4", 59), ("B#3", 60), ("E#4", 65),
            ("60", 60), ("060", 60), ("0", 0), ("127", 127),
            // Not keys: unknown letter, octave out of -1…9, key out of 0…127, malformed.
            ("H4", nil), ("C10", nil), ("C-2", nil), ("G#9", nil), ("Ab9", nil), ("Cb-1", nil), ("128", nil),
            ("C", nil), ("#4", nil), ("", nil), ("C4 ", nil), (" C4", nil), ("C#b4", nil), ("4C", nil),
            ("Cx4", nil), ("C4.wav", nil), ("-1", nil),
        ]
        for (text, key) in table {
            XCTAssertEqual(NoteName.midiKey(parsing: text), key, "\"\(text)\"")
        }
    }

    func testFileNames() {
        let table: [(String, UInt8?)] = [
            ("C4.wav", 60), ("Db3.flac", 49), ("F#2.ogg", 42), ("c#-1.wav", 1), ("A0.wav", 21), ("C4", 60),
            ("piano_60.flac", 60), ("060.wav", 60), ("/samples/grand/G4.wav", 67), ("A4.mp3", 69),
            ("Steinway-F#2-mf.flac", 42), ("Piano_C4_v2.wav", 60), ("PianoC4.wav", 60), ("Grand A0 soft.wav", 21),
            // The last note name wins, as the last number does.
            ("Organ_B3_C4.wav", 60), ("kit 12 take 36.wav", 36),
            // Letters inside words are not notes: "take" is not followed by E2, "piano" holds no A.
            ("Piano take2 - 061.wav", 61), ("bass.wav", nil),
            // Nothing usable, or something that is almost a key: no guess.
            ("strings.wav", nil), ("G#9.wav", nil), ("C10.wav", nil), ("piano_200.wav", nil), (".wav", nil),
        ]
        for (name, key) in table {
            XCTAssertEqual(NoteName.midiKey(fromFileName: name), key, "\"\(name)\"")
        }
    }
}
