import Glibc
import Synchronization

/// The one live line of the CLI (play's progress, mic's meter), redrawn in place with `\r`, and
/// everything else printed while it is on screen.
///
/// A line printed while the live line is shown would land at its end (`0:02.7 / 0:44.8  voices 22
/// played 144000 frames ...`). So a message first clears the live line (`\r ESC[K`), then prints;
/// the next update draws the live line again below it. When standard output is not a terminal no
/// byte of the live line is written and messages pass through unchanged.
///
/// - Thread: any. Control in practice; a lock orders the writes.
final class StatusLine: Sendable {
    /// Where a write goes.
    enum Stream: Sendable { case output, error }

    /// The CLI's status line, on standard output, messages on standard output or standard error.
    static let standard = StatusLine(isTerminal: isatty(STDOUT_FILENO) == 1, columns: { TerminalSize.columns() }) { stream, text in
        // Whatever `print` left in stdio's buffer goes first, so lines keep their order.
        fflush(nil)
        _ = text.withCString { Glibc.write(stream == .error ? STDERR_FILENO : STDOUT_FILENO, $0, strlen($0)) }
    }

    /// Whether the live line is drawn: else `update` writes nothing.
    let isTerminal: Bool
    private let columns: @Sendable () -> Int
    private let write: @Sendable (Stream, String) -> Void
    /// Whether the live line is on screen now.
    private let isShown = Mutex(false)

    /// - Parameters:
    ///   - isTerminal: whether standard output is a terminal (else the live line is never drawn).
    ///   - columns: the terminal's width, read at each update (the live line is cut to fit, since a
    ///     wrapped line cannot be redrawn in place).
    ///   - write: writes bytes, unbuffered, to standard output or standard error.
    init(isTerminal: Bool, columns: @escaping @Sendable () -> Int, write: @escaping @Sendable (Stream, String) -> Void) {
        self.isTerminal = isTerminal
        self.columns = columns
        self.write = write
    }

    /// Draws `text` as the live line, in place of the one shown.
    func update(_ text: String) {
        guard isTerminal else { return }
        isShown.withLock { shown in
            // One column short of the width: text in the last column makes some terminals wrap.
            write(.output, "\r" + text.truncated(to: max(1, columns() - 1)) + "\u{1B}[K")
            shown = true
        }
    }

    /// Prints `line` (and a newline) on standard output, below the live line's place. On a
    /// terminal a line wider than it is broken at its spaces and continued indented, so that the
    /// terminal does not wrap it mid-word (the keyboard piano draws over what it printed first).
    func print(_ line: String) { emit(fitted(line) + "\n", to: .output) }

    /// Prints `line` (and a newline) on standard error, unbuffered.
    func printError(_ line: String) { emit(line + "\n", to: .error) }

    /// Takes the live line off the screen (at the end of a live command).
    func clear() {
        isShown.withLock { shown in
            if shown { write(.output, "\r\u{1B}[K") }
            shown = false
        }
    }

    /// `text` as `print` writes it: on a terminal, each line wider than it broken at its spaces.
    private func fitted(_ text: String) -> String {
        guard isTerminal else { return text }
        let width = columns()
        guard width >= Self.narrowestFittedColumns else { return text }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { piece -> String in
            let line = String(piece)
            guard line.visibleWidth > width else { return line }
            let pieces = TextFitting.wrapped(line, columns: width - Self.continuationIndent.count)
            return ([pieces[0]] + pieces.dropFirst().map { Self.continuationIndent + $0 }).joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// Where a printed line continues on the next row.
    private static let continuationIndent = "  "
    /// Below this width lines are left to the terminal: broken so short they would read worse.
    private static let narrowestFittedColumns = 20

    private func emit(_ text: String, to stream: Stream) {
        isShown.withLock { shown in
            if shown { write(.output, "\r\u{1B}[K") }
            shown = false
            write(stream, text)
        }
    }
}

/// Prints to standard error, unbuffered: error lines must survive a crash or an abrupt exit. A
/// live line on screen (play's progress, mic's meter) is cleared first, so the error starts its
/// own line.
func printError(_ line: String) {
    StatusLine.standard.printError(line)
}
