/// Note names and MIDI keys, both ways: the names printed for people (`C4`, `F♯2`, `Sol4`) and
/// the keys read from manifests and sample file names (`C4`, `Db3`, `F#2`, `c#-1`).
///
/// Scientific pitch notation with MIDI 60 = C4, so key 0 is C-1, 21 is A0 and 127 is G9. Reading
/// takes a letter A–G in either case, an optional accidental (`#` or `s` for sharp, `b` for flat),
/// and an octave from -1 to 9. Enharmonic spellings across an octave boundary count the way they
/// sound (`Cb4` = 59, `B#3` = 60); anything outside 0…127 (`G#9`, `Cb-1`) is not a key. Printing
/// spells black keys as sharps (a key alone says nothing about the key signature), and reading
/// takes back every letter name it prints: `midiKey(parsing: name(of: k, ascii: true))` is `k`.
///
/// - Thread: any. Pure functions.
public enum NoteName {
    /// How to name the seven natural notes. The raw values are the spellings `--names` takes.
    /// - Thread: any.
    public enum Style: String, Sendable, CaseIterable {
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
    /// - Thread: any.
    public static func name(of key: UInt8, style: Style = .letters, ascii: Bool = false, octave: Bool = true) -> String {
        let pitchClass = Int(key % 12)
        var name = style == .letters ? letterNames[pitchClass] : solfegeNames[pitchClass]
        if isBlackKey(key) { name += ascii ? "#" : "♯" }
        if octave { name += String(Int(key / 12) - 1) }
        return name
    }

    /// Whether `key` is one of the piano's black keys (C♯, D♯, F♯, G♯, A♯ in any octave).
    /// - Thread: any.
    public static func isBlackKey(_ key: UInt8) -> Bool {
        switch key % 12 {
        case 1, 3, 6, 8, 10: true
        default: false
        }
    }

    /// The key a sample's file name gives as its root.
    ///
    /// The directory and extension are ignored. The last note name in the name wins
    /// (`Piano_C4.wav`, `steinway-F#2-mf.flac`). A note name starts a word: it must not follow a
    /// letter, except as an upper-case letter after a lower-case one (`PianoC4`), so `take2` is not
    /// read as E2. When there is no note name, the last run of digits is the key (`piano_60.flac`,
    /// `060.wav`).
    ///
    /// - Returns: `nil` when the name has neither, or when the part it has is out of range
    ///   (`G#9.wav`, `piano_200.wav`): a wrong root would play every key out of tune, so a name that
    ///   almost says something does not fall back to a guess.
    /// - Thread: any.
    public static func midiKey(fromFileName fileName: String) -> UInt8? {
        var name = Substring(fileName)
        if let slash = name.lastIndex(of: "/") { name = name[name.index(after: slash)...] }
        if let dot = name.lastIndex(of: "."), dot != name.startIndex { name = name[..<dot] }
        let bytes = Array(name.utf8)

        var lastNote: NoteToken?
        var lastDigits: Range<Int>?
        var index = 0
        while index < bytes.count {
            if startsWord(bytes, at: index), let token = NoteToken(scanning: bytes, at: index) {
                lastNote = token
                index = token.end
            } else if isDigit(bytes[index]) {
                let start = index
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
                lastDigits = start..<index
            } else {
                index += 1
            }
        }
        if let lastNote { return lastNote.key }
        return lastDigits.flatMap { keyNumber(bytes[$0]) }
    }

    /// The key `text` names as a whole: a note name (`C4`, `Bb-1`) or a decimal MIDI key number
    /// (`60`). Used for manifest fields, where a string must be exactly one of the two.
    /// - Thread: any.
    public static func midiKey(parsing text: String) -> UInt8? {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return nil }
        if bytes.allSatisfy(isDigit) { return keyNumber(bytes[...]) }
        guard let token = NoteToken(scanning: bytes, at: 0), token.end == bytes.count else { return nil }
        return token.key
    }

    /// Something shaped like a note name: letter, optional accidental, optional minus, digits. It
    /// is recognised by shape first and checked for range second, so `G#10` is an invalid note
    /// rather than `G#1` followed by a stray `0`.
    private struct NoteToken {
        /// The key, or nil when the octave or the resulting key is out of range.
        let key: UInt8?
        /// One past the token's last byte.
        let end: Int

        init?(scanning bytes: [UInt8], at start: Int) {
            let pitchClass: Int  // semitones above C
            switch bytes[start] {
            case UInt8(ascii: "C"), UInt8(ascii: "c"): pitchClass = 0
            case UInt8(ascii: "D"), UInt8(ascii: "d"): pitchClass = 2
            case UInt8(ascii: "E"), UInt8(ascii: "e"): pitchClass = 4
            case UInt8(ascii: "F"), UInt8(ascii: "f"): pitchClass = 5
            case UInt8(ascii: "G"), UInt8(ascii: "g"): pitchClass = 7
            case UInt8(ascii: "A"), UInt8(ascii: "a"): pitchClass = 9
            case UInt8(ascii: "B"), UInt8(ascii: "b"): pitchClass = 11
            default: return nil
            }
            var index = start + 1
            var accidental = 0
            if index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "#"), UInt8(ascii: "s"): accidental = 1; index += 1
                case UInt8(ascii: "b"): accidental = -1; index += 1
                default: break
                }
            }
            var negative = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") { negative = true; index += 1 }
            let digitsStart = index
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            guard index > digitsStart else { return nil }
            end = index

            let digits = bytes[digitsStart..<index]
            guard digits.count == 1 else { key = nil; return }
            let octave = (negative ? -1 : 1) * Int(digits.first! - UInt8(ascii: "0"))
            let value = 12 * (octave + 1) + pitchClass + accidental
            key = (-1...9).contains(octave) && (0...127).contains(value) ? UInt8(value) : nil
        }
    }

    /// A run of decimal digits as a key 0…127 (leading zeros allowed, as in `060`).
    private static func keyNumber(_ digits: ArraySlice<UInt8>) -> UInt8? {
        var value = 0
        for digit in digits {
            value = value * 10 + Int(digit - UInt8(ascii: "0"))
            if value > 127 { return nil }
        }
        return UInt8(value)
    }

    /// Whether a word can start at `index`: at the start, after a non-letter, or at a camel-case
    /// step from lower to upper case.
    private static func startsWord(_ bytes: [UInt8], at index: Int) -> Bool {
        guard index > 0 else { return true }
        let previous = bytes[index - 1]
        return !(isUpper(previous) || isLower(previous)) || (isLower(previous) && isUpper(bytes[index]))
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
    private static func isUpper(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) }
    private static func isLower(_ byte: UInt8) -> Bool { (0x61...0x7A).contains(byte) }
}
