/// MIDI keys from note names (`C4`, `Db3`, `F#2`, `c#-1`) and from sample file names.
///
/// Scientific pitch notation with MIDI 60 = C4: a letter A–G in either case, an optional accidental
/// (`#` or `s` for sharp, `b` for flat), and an octave from -1 to 9. Enharmonic spellings across an
/// octave boundary count the way they sound (`Cb4` = 59, `B#3` = 60); anything outside 0…127
/// (`G#9`, `Cb-1`) is not a key.
///
/// - Thread: any. Pure functions.
public enum NoteName {
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
