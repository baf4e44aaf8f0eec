import MIDI
import XCTest

// Not `NoteNameTests`: SampleSetTests has a class of that name, for SampleSet's note-name parser.
final class NoteNamesTests: XCTestCase {
    func testLetterNames() {
        XCTAssertEqual(NoteNames.name(of: 60), "C4")
        XCTAssertEqual(NoteNames.name(of: 61), "C♯4")
        XCTAssertEqual(NoteNames.name(of: 61, ascii: true), "C#4")
        XCTAssertEqual(NoteNames.name(of: 69), "A4")
        XCTAssertEqual(NoteNames.name(of: 21), "A0")
        XCTAssertEqual(NoteNames.name(of: 0), "C-1")
        XCTAssertEqual(NoteNames.name(of: 11), "B-1")
        XCTAssertEqual(NoteNames.name(of: 12), "C0")
        XCTAssertEqual(NoteNames.name(of: 127), "G9")
        XCTAssertEqual(NoteNames.name(of: 59), "B3", "the octave number changes at C, not at A")
    }

    func testEveryPitchClass() {
        XCTAssertEqual((60..<72).map { NoteNames.name(of: $0) },
                       ["C4", "C♯4", "D4", "D♯4", "E4", "F4", "F♯4", "G4", "G♯4", "A4", "A♯4", "B4"])
        XCTAssertEqual((60..<72).map { NoteNames.name(of: $0, ascii: true, octave: false) },
                       ["C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"])
        XCTAssertEqual((60..<72).map { NoteNames.name(of: $0, style: .solfege, octave: false) },
                       ["Do", "Do♯", "Re", "Re♯", "Mi", "Fa", "Fa♯", "Sol", "Sol♯", "La", "La♯", "Si"])
    }

    func testSolfege() {
        XCTAssertEqual(NoteNames.name(of: 60, style: .solfege), "Do4")
        XCTAssertEqual(NoteNames.name(of: 67, style: .solfege), "Sol4")
        XCTAssertEqual(NoteNames.name(of: 70, style: .solfege), "La♯4")
        XCTAssertEqual(NoteNames.name(of: 70, style: .solfege, ascii: true), "La#4")
        XCTAssertEqual(NoteNames.name(of: 0, style: .solfege), "Do-1")
    }

    func testWithoutOctave() {
        XCTAssertEqual(NoteNames.name(of: 60, octave: false), "C")
        XCTAssertEqual(NoteNames.name(of: 0, octave: false), "C")
        XCTAssertEqual(NoteNames.name(of: 127, octave: false), "G")
        XCTAssertEqual(NoteNames.name(of: 66, ascii: true, octave: false), "F#")
    }

    func testBlackKeys() {
        XCTAssertEqual((60..<72).filter { NoteNames.isBlackKey($0) }, [61, 63, 66, 68, 70])
        XCTAssertFalse(NoteNames.isBlackKey(0))
        XCTAssertTrue(NoteNames.isBlackKey(22), "A♯0")
        XCTAssertFalse(NoteNames.isBlackKey(127))
        // Exactly the keys whose names carry a sharp.
        for key in UInt8(0)...127 {
            XCTAssertEqual(NoteNames.isBlackKey(key), NoteNames.name(of: key, ascii: true).contains("#"), "\(key)")
        }
    }

    func testEveryKeyHasADistinctName() {
        let names = (UInt8(0)...127).map { NoteNames.name(of: $0) }
        XCTAssertEqual(Set(names).count, 128)
        XCTAssertEqual(Set((UInt8(0)...127).map { NoteNames.name(of: $0, style: .solfege, ascii: true) }).count, 128)
    }
}
