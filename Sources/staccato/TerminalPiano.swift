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

    /// The drawn range: base C up to the G two octaves and a fifth above.
    static let semitoneSpan = 31
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
/// reverse video.
struct PianoDrawing {
    var style: NoteNames.NoteNameStyle = .letters
    var showBlackNames = false

    func draw(baseKey: Int, sounding: Set<Int>) -> String {
        let whiteWidth = 5
        var blackRow = "", blackKeysRow = "", whiteRow = "", whiteKeysRow = ""
        var column = 0
        for semitone in 0..<PianoLayout.semitoneSpan {
            let key = baseKey + semitone
            guard (0...127).contains(key) else { continue }
            let lit = sounding.contains(key)
            if NoteNames.isBlackKey(UInt8(key)) {
                // Without the octave: the white key below says it, and "Sol♯3La♯3" would touch.
                let name = NoteNames.name(of: UInt8(key), style: style, octave: false)
                // Centred on the boundary between the two white keys.
                let label = showBlackNames ? name : "▌▐"
                let start = max(0, column - label.count / 2 - 1)
                blackRow = blackRow.padded(to: start) + (lit ? "\u{1B}[7m\(label)\u{1B}[0m" : label)
                blackKeysRow = blackKeysRow.padded(to: column - 1) + String(PianoLayout.legend[semitone] ?? " ")
            } else {
                let name = NoteNames.name(of: UInt8(key), style: style)
                let cell = String(name.prefix(whiteWidth - 1)).padded(to: whiteWidth - 1)
                whiteRow += "│" + (lit ? "\u{1B}[7m\(cell)\u{1B}[0m" : cell)
                whiteKeysRow = whiteKeysRow.padded(to: column + 2) + String(PianoLayout.legend[semitone] ?? " ")
                column += whiteWidth
            }
        }
        return [blackKeysRow, blackRow, whiteRow + "│", whiteKeysRow].joined(separator: "\n")
    }
}

extension String {
    /// Pads with spaces to `width` visible columns (escape sequences do not count).
    func padded(to width: Int) -> String {
        var visible = 0
        var inEscape = false
        for scalar in unicodeScalars {
            if scalar == "\u{1B}" { inEscape = true; continue }
            if inEscape { if scalar == "m" { inEscape = false }; continue }
            visible += 1
        }
        return visible >= width ? self : self + String(repeating: " ", count: width - visible)
    }
}
