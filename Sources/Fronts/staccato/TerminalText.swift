import Glibc
import Synchronization

/// Set by SIGWINCH (the terminal was resized); the control loop that draws a screen takes it and
/// redraws at the new size. A signal handler may do no more than this store.
let terminalResized = Atomic<Bool>(false)

/// The size of the terminal the screens are drawn on.
enum TerminalSize {
    /// Columns assumed when neither standard output nor standard input is a terminal.
    static let fallbackColumns = 80

    /// The terminal's width now (`ioctl TIOCGWINSZ` on standard output, else standard input).
    static func columns() -> Int {
        for descriptor in [STDOUT_FILENO, STDIN_FILENO] {
            var size = winsize()
            if ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        }
        return fallbackColumns
    }

    /// Installs the SIGWINCH handler (once is enough; again is harmless).
    static func watchResizes() {
        _ = terminalResized.load(ordering: .relaxed)  // initialise the global before any signal
        signal(SIGWINCH) { _ in terminalResized.store(true, ordering: .relaxed) }
    }

    /// True once after each resize.
    static func takeResize() -> Bool {
        terminalResized.exchange(false, ordering: .relaxed)
    }
}

extension String {
    /// Columns the text takes on a terminal: escape sequences (`ESC [ ... letter`) take none, every
    /// other character one (the screens use no double-width characters).
    var visibleWidth: Int {
        var visible = 0
        var inEscape = false
        for scalar in unicodeScalars {
            if scalar == "\u{1B}" { inEscape = true; continue }
            if inEscape {
                if scalar != "[", (0x40...0x7E).contains(scalar.value) { inEscape = false }
                continue
            }
            visible += 1
        }
        return visible
    }

    /// Pads with spaces to `width` visible columns.
    func padded(to width: Int) -> String {
        let visible = visibleWidth
        return visible >= width ? self : self + String(repeating: " ", count: width - visible)
    }

    /// The first `width` visible columns, escape sequences kept (a cut inside reverse video is
    /// closed with a reset, so the rest of the terminal line is not left highlighted).
    func truncated(to width: Int) -> String {
        guard visibleWidth > width else { return self }
        var result = "", visible = 0, inEscape = false, cut = false
        for character in self {
            let scalar = character.unicodeScalars.first!
            if scalar == "\u{1B}" { inEscape = true; result.append(character); continue }
            if inEscape {
                if scalar != "[", (0x40...0x7E).contains(scalar.value) { inEscape = false }
                result.append(character)
                continue
            }
            guard visible < width else { cut = true; break }
            result.append(character)
            visible += 1
        }
        return cut && result.contains("\u{1B}") ? result + "\u{1B}[0m" : result
    }
}

/// Lines of text fitted to a terminal's width.
enum TextFitting {
    /// Lays `items` out greedily, `separator` between two on a line, no line wider than `columns`.
    /// An item wider than a line is broken at its spaces, and a word wider than a line is cut.
    static func lines(_ items: [String], separator: String = " ", columns: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for item in items {
            if line.isEmpty {
                line = item
            } else if line.visibleWidth + separator.visibleWidth + item.visibleWidth <= columns {
                line += separator + item
            } else {
                lines.append(line)
                line = item
            }
            if line.visibleWidth > columns {
                let words = line.split(separator: " ").map(String.init)
                if words.count > 1 {
                    let broken = Self.lines(words, columns: columns)
                    lines += broken.dropLast()
                    line = broken.last ?? ""
                } else {
                    lines.append(line.truncated(to: columns))
                    line = ""
                }
            }
        }
        if !line.isEmpty || lines.isEmpty { lines.append(line) }
        return lines
    }

    /// A sentence broken at its spaces into lines of at most `columns`.
    static func wrapped(_ text: String, columns: Int) -> [String] {
        lines(text.split(separator: " ").map(String.init), columns: columns)
    }
}
