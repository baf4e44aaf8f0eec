import MIDI

/// The computer keyboard as a piano: two rows of keys per octave, as in trackers (the lower row
/// plays white keys, the row above it the black keys between them), two octaves and a fifth.
enum PianoLayout {
    static let lowerRow = Array("zsxdcvgbhnjm,l.;/")  // C C♯ D D♯ E F F♯ G G♯ A A♯ B C C♯ D D♯ E
    static let upperRow = Array("q2w3er5t6y7ui9o0p[=]")  // C … G an octave up

    /// Semitones above the base C for each key.
    static let semitones: [Character: Int] = Dictionary(uniqueKeysWithValues:
        lowerRow.enumerated().map { ($1, $0) } + upperRow.enumerated().map { ($1, 12 + $0) })

    /// The computer key for each semitone offset, for the legend: where the two rows overlap (the
    /// lower row's , l . ; / repeat the upper row's first notes), the upper row's key is shown.
    static let legend: [Int: Character] = Dictionary(
        lowerRow.enumerated().map { ($0, $1) } + upperRow.enumerated().map { (12 + $0, $1) },
        uniquingKeysWith: { _, upper in upper })

    /// The played and drawn range in semitones: base C up to the G two octaves and a fifth above
    /// (the upper row's last key), 32 keys.
    static let semitoneSpan = 12 + upperRow.count

    /// The computer keys that play each semitone offset, lower row first (both rows play the
    /// offsets where they overlap).
    static let keysBySemitone: [Int: [Character]] = Dictionary(grouping: lowerRow + upperRow, by: { semitones[$0]! })
}

/// One key event from the terminal, decoded from plain bytes or the kitty keyboard protocol.
enum KeyEvent: Equatable {
    case press(Character), repeated(Character), release(Character)
    case arrowUp, arrowDown, arrowLeft, arrowRight
    case tab, backspace, space, backtick, quit
}

/// Turns terminal input into key events. Plain terminals send a character per press (and
/// autorepeat while held, never a release); terminals with the kitty keyboard protocol enabled
/// (`CSI > 11 u`) send `CSI code ; modifiers : event u` for every press, repeat and release.
struct KeyDecoder {
    private var pending: [UInt8] = []

    mutating func decode(_ bytes: [UInt8]) -> [KeyEvent] {
        pending += bytes
        var events: [KeyEvent] = []
        var index = 0
        while index < pending.count {
            let byte = pending[index]
            if byte == 0x1B {
                // An escape sequence: wait for the rest unless it is a lone Esc at the end.
                guard index + 1 < pending.count else { break }
                guard pending[index + 1] == UInt8(ascii: "[") else { index += 1; continue }
                var end = index + 2
                while end < pending.count, !(0x40...0x7E).contains(pending[end]) { end += 1 }
                guard end < pending.count else { break }  // incomplete: keep it for the next read
                if let event = Self.decodeCSI(Array(pending[(index + 2)..<end]), final: pending[end]) { events.append(event) }
                index = end + 1
                continue
            }
            if let event = Self.plain(byte) { events.append(event) }
            index += 1
        }
        pending.removeFirst(index)
        return events
    }

    private static func plain(_ byte: UInt8) -> KeyEvent? {
        switch byte {
        case 3, 4: .quit  // Ctrl-C (when not a signal), Ctrl-D
        case 9: .tab
        case 8, 127: .backspace
        case 32: .space
        case UInt8(ascii: "`"): .backtick
        case 33...126: .press(Character(UnicodeScalar(byte)))
        default: nil
        }
    }

    /// `CSI params final`: arrows (`A`–`D`, kitty adds `1;mods:event`) and kitty key events (`u`).
    private static func decodeCSI(_ parameters: [UInt8], final: UInt8) -> KeyEvent? {
        let fields = String(decoding: parameters, as: UTF8.self).split(separator: ";", omittingEmptySubsequences: false)
        let eventType = fields.count > 1 ? Int(fields[1].split(separator: ":").dropFirst().first ?? "1") ?? 1 : 1
        switch final {
        case UInt8(ascii: "A"): return eventType == 3 ? nil : .arrowUp
        case UInt8(ascii: "B"): return eventType == 3 ? nil : .arrowDown
        case UInt8(ascii: "C"): return eventType == 3 ? nil : .arrowRight
        case UInt8(ascii: "D"): return eventType == 3 ? nil : .arrowLeft
        case UInt8(ascii: "u"):
            guard let first = fields.first, let code = Int(first.split(separator: ":").first ?? "") else { return nil }
            let modifiers = fields.count > 1 ? Int(fields[1].split(separator: ":").first ?? "1") ?? 1 : 1
            if code == 99, modifiers == 5 { return .quit }  // Ctrl-C as a kitty key event
            if code == 100, modifiers == 5 { return .quit }  // Ctrl-D
            let key: KeyEvent? = switch code {
            case 9: .tab
            case 127, 8: .backspace
            case 32: .space
            case 96: .backtick
            case 33...126: .press(Character(UnicodeScalar(UInt8(code))))
            default: nil
            }
            guard case let .press(character)? = key else { return eventType == 3 ? nil : key }
            switch eventType {
            case 2: return .repeated(character)
            case 3: return .release(character)
            default: return .press(character)
            }
        default:
            return nil
        }
    }
}

/// Draws the terminal piano: black keys above white keys, note names under the keys (letters or
/// solfège; black-key names behind a toggle), the computer key for each, and the sounding keys in
/// reverse video. The keys are as wide as the terminal allows: 5 columns (96 in all), 4 (77, for
/// 80-column terminals), then 3 (58); a name that does not fit its key loses its octave (the
/// line above the piano says the octave), then its tail.
struct PianoDrawing {
    var style: NoteName.Style = .letters
    var showBlackNames = false

    /// Columns per white key, widest first.
    static let whiteKeyWidths = [5, 4, 3]
    /// Narrower than this, the screen is one line saying so: the narrowest piano (3-column keys)
    /// takes 58 columns, and the help text below it needs a few more to stay readable.
    static let minimumColumns = 60

    /// White keys in the drawn range (the base is always a C, so the pattern is the same).
    static let whiteKeyCount = (0..<PianoLayout.semitoneSpan).filter { !NoteName.isBlackKey(UInt8($0)) }.count

    /// Columns of the piano drawn with `whiteWidth`-column white keys.
    static func columns(whiteWidth: Int) -> Int { whiteKeyCount * whiteWidth + 1 }

    /// The widest white key that fits `columns`, or nil when even the narrowest does not.
    static func whiteWidth(fitting columns: Int) -> Int? {
        whiteKeyWidths.first { Self.columns(whiteWidth: $0) <= columns }
    }

    /// The four rows of the piano (computer keys of the black keys, the black keys, the white
    /// keys with their names, computer keys of the white keys), with keys `whiteWidth` wide.
    func draw(baseKey: Int, sounding: Set<Int>, whiteWidth: Int) -> [String] {
        var blackRow = "", blackKeysRow = "", whiteRow = "", whiteKeysRow = ""
        var column = 0
        for semitone in 0..<PianoLayout.semitoneSpan {
            let key = baseKey + semitone
            guard (0...127).contains(key) else { continue }
            let lit = sounding.contains(key)
            if NoteName.isBlackKey(UInt8(key)) {
                // Without the octave: the white key below says it, and "Sol♯3La♯3" would touch.
                // Two neighbouring black keys are one white key apart: a label a column narrower
                // keeps a space between them.
                let name = NoteName.name(of: UInt8(key), style: style, octave: false)
                let fitted = name.count < whiteWidth ? name : String(name.dropLast().prefix(whiteWidth - 2)) + "♯"
                // Centred on the boundary between the two white keys.
                let label = showBlackNames ? fitted : "▌▐"
                let start = max(0, column - label.count / 2 - 1)
                blackRow = blackRow.padded(to: start) + (lit ? "\u{1B}[7m\(label)\u{1B}[0m" : label)
                blackKeysRow = blackKeysRow.padded(to: column - 1) + String(PianoLayout.legend[semitone] ?? " ")
            } else {
                let cell = Self.whiteLabel(UInt8(key), style: style, width: whiteWidth - 1).padded(to: whiteWidth - 1)
                whiteRow += "│" + (lit ? "\u{1B}[7m\(cell)\u{1B}[0m" : cell)
                whiteKeysRow = whiteKeysRow.padded(to: column + whiteWidth / 2) + String(PianoLayout.legend[semitone] ?? " ")
                column += whiteWidth
            }
        }
        return [blackKeysRow, blackRow, whiteRow + "│", whiteKeysRow]
    }

    /// A white key's name in `width` columns: with its octave if that fits, else without, else cut.
    static func whiteLabel(_ key: UInt8, style: NoteName.Style, width: Int) -> String {
        let full = NoteName.name(of: key, style: style)
        if full.count <= width { return full }
        return String(NoteName.name(of: key, style: style, octave: false).prefix(width))
    }
}

/// The kit's pads as the keyboard piano's drum mode shows them: the pad each General MIDI note
/// plays, by name (a kit answers to several notes per pad: a snare on 37, 38 and 40).
struct DrumPadLabels {
    /// Pad names in the kit's order.
    let padNames: [String]
    /// The pad each MIDI note (0-127) plays, or nil.
    let padForNote: [Int?]

    init(padNames: [String], padForNote: [Int16]) {
        self.padNames = padNames
        self.padForNote = (0..<128).map { note in
            note < padForNote.count && padForNote[note] >= 0 && Int(padForNote[note]) < padNames.count ? Int(padForNote[note]) : nil
        }
    }

    /// The name of the pad `note` plays, or nil when it plays none.
    func padName(forNote note: Int) -> String? {
        guard (0..<128).contains(note), let pad = padForNote[note] else { return nil }
        return padNames[pad]
    }

    /// One entry per pad in the kit's order, `name: keys` (the computer keys that play it from
    /// `baseKey`), in reverse video while one of its notes sounds; pads no key reaches are listed
    /// last, as `not on the keyboard: ...`.
    func entries(baseKey: Int, sounding: Set<Int>) -> [String] {
        var keys = [[Character]](repeating: [], count: padNames.count)
        var lit = [Bool](repeating: false, count: padNames.count)
        for semitone in 0..<PianoLayout.semitoneSpan {
            guard (0..<128).contains(baseKey + semitone), let pad = padForNote[baseKey + semitone] else { continue }
            keys[pad] += PianoLayout.keysBySemitone[semitone] ?? []
            if sounding.contains(baseKey + semitone) { lit[pad] = true }
        }
        var entries: [String] = []
        for (pad, name) in padNames.enumerated() where !keys[pad].isEmpty {
            let entry = "\(name): " + keys[pad].map(String.init).joined(separator: " ")
            entries.append(lit[pad] ? "\u{1B}[7m\(entry)\u{1B}[0m" : entry)
        }
        let unreachable = padNames.indices.filter { keys[$0].isEmpty }.map { padNames[$0] }
        if !unreachable.isEmpty { entries.append("not on the keyboard: " + unreachable.joined(separator: ", ")) }
        return entries
    }
}
