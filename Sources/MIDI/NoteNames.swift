/// Names for MIDI keys, for people: `C4`, `F♯2`, `Sol4`.
///
/// Octaves are numbered with MIDI 60 = C4 (so key 0 is C-1, 21 is A0 and 127 is G9), the numbering
/// SampleSet's `NoteName` parses; that parser lives in a module MIDI cannot depend on, and this is
/// its inverse for letter names (`name(of: k, ascii: true)` is a name it reads back as `k`).
/// Black keys are always spelled as sharps: a key alone says nothing about the key signature.
///
/// - Thread: any. Pure functions.
public enum NoteNames {
    /// How to name the seven natural notes.
    public enum NoteNameStyle: Sendable {
        /// C D E F G A B, as in English.
        case letters
        /// Do Re Mi Fa Sol La Si, fixed-do, as in French, Italian and Spanish.
        case solfege
    }

    /// The natural note at or just below each pitch class; black keys add a sharp to it.
    private static let letterNames = ["C", "C", "D", "D", "E", "F", "F", "G", "G", "A", "A", "B"]
    private static let solfegeNames = ["Do", "Do", "Re", "Re", "Mi", "Fa", "Fa", "Sol", "Sol", "La", "La", "Si"]

    /// The name of `key`: `C4`, `C♯4` (`C#4` with `ascii`), `Do♯4` in solfège, `C♯` without the
    /// octave. Keys above 127 are not MIDI keys; they get the name the numbering extends to.
    public static func name(of key: UInt8, style: NoteNameStyle = .letters, ascii: Bool = false, octave: Bool = true) -> String {
        let pitchClass = Int(key % 12)
        var name = style == .letters ? letterNames[pitchClass] : solfegeNames[pitchClass]
        if isBlackKey(key) { name += ascii ? "#" : "♯" }
        if octave { name += String(Int(key / 12) - 1) }
        return name
    }

    /// Whether `key` is one of the piano's black keys (C♯, D♯, F♯, G♯, A♯ in any octave).
    public static func isBlackKey(_ key: UInt8) -> Bool {
        switch key % 12 {
        case 1, 3, 6, 8, 10: true
        default: false
        }
    }
}
