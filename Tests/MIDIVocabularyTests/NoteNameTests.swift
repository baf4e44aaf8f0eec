import MIDIVocabulary
import XCTest

/// Note names both ways (MIDI 60 = C4): keys named for people, and keys read from manifests and
/// sample file names.
final class NoteNameTests: XCTestCase {
    func testLetterNames() {
        XCTAssertEqual(NoteName.name(of: 60), "C4")
        XCTAssertEqual(NoteName.name(of: 61), "C♯4")
        XCTAssertEqual(NoteName.name(of: 61, ascii: true), "C#4")
        XCTAssertEqual(NoteName.name(of: 69), "A4")
        XCTAssertEqual(NoteName.name(of: 21), "A0")
        XCTAssertEqual(NoteName.name(of: 0), "C-1")
        XCTAssertEqual(NoteName.name(of: 11), "B-1")
        XCTAssertEqual(NoteName.name(of: 12), "C0")
        XCTAssertEqual(NoteName.name(of: 127), "G9")
        XCTAssertEqual(NoteName.name(of: 59), "B3", "the octave number changes at C, not at A")
    }

    func testEveryPitchClass() {
        XCTAssertEqual((60..<72).map { NoteName.name(of: $0) },
                       ["C4", "C♯4", "D4", "D♯4", "E4", "F4", "F♯4", "G4", "G♯4", "A4", "A♯4", "B4"])
        XCTAssertEqual((60..<72).map { NoteName.name(of: $0, ascii: true, octave: false) },
                       ["C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"])
        XCTAssertEqual((60..<72).map { NoteName.name(of: $0, style: .solfege, octave: false) },
                       ["Do", "Do♯", "Re", "Re♯", "Mi", "Fa", "Fa♯", "Sol", "Sol♯", "La", "La♯", "Si"])
    }

    func testSolfege() {
        XCTAssertEqual(NoteName.name(of: 60, style: .solfege), "Do4")
        XCTAssertEqual(NoteName.name(of: 67, style: .solfege), "Sol4")
        XCTAssertEqual(NoteName.name(of: 70, style: .solfege), "La♯4")
        XCTAssertEqual(NoteName.name(of: 70, style: .solfege, ascii: true), "La#4")
        XCTAssertEqual(NoteName.name(of: 0, style: .solfege), "Do-1")
    }

    func testWithoutOctave() {
        XCTAssertEqual(NoteName.name(of: 60, octave: false), "C")
        XCTAssertEqual(NoteName.name(of: 0, octave: false), "C")
        XCTAssertEqual(NoteName.name(of: 127, octave: false), "G")
        XCTAssertEqual(NoteName.name(of: 66, ascii: true, octave: false), "F#")
    }

    func testBlackKeys() {
        XCTAssertEqual((60..<72).filter { NoteName.isBlackKey($0) }, [61, 63, 66, 68, 70])
        XCTAssertFalse(NoteName.isBlackKey(0))
        XCTAssertTrue(NoteName.isBlackKey(22), "A♯0")
        XCTAssertFalse(NoteName.isBlackKey(127))
        // Exactly the keys whose names carry a sharp.
        for key in UInt8(0)...127 {
            XCTAssertEqual(NoteName.isBlackKey(key), NoteName.name(of: key, ascii: true).contains("#"), "\(key)")
        }
    }

    func testEveryKeyHasADistinctName() {
        let names = (UInt8(0)...127).map { NoteName.name(of: $0) }
        XCTAssertEqual(Set(names).count, 128)
        XCTAssertEqual(Set((UInt8(0)...127).map { NoteName.name(of: $0, style: .solfege, ascii: true) }).count, 128)
    }

    /// Every letter name printed reads back as its key: one numbering, printed and parsed.
    func testEveryPrintedLetterNameReadsBackAsItsKey() {
        for key in UInt8(0)...127 {
            XCTAssertEqual(NoteName.midiKey(parsing: NoteName.name(of: key, ascii: true)), key, "\(key)")
            XCTAssertEqual(NoteName.midiKey(fromFileName: "piano_\(NoteName.name(of: key, ascii: true)).wav"), key, "\(key)")
        }
    }

    func testReadingNoteNames() {
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

    func testReadingFileNames() {
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
