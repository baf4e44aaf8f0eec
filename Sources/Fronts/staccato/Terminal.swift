import AudioIO
import Foundation
import Glibc
import Render

/// The controlling terminal in raw, non-echoing mode for key-by-key play, restored on every exit
/// path (normal return, Ctrl-C, SIGTERM, SIGHUP), so the shell is never left broken.
enum Terminal {
    nonisolated(unsafe) private static var saved = termios()
    nonisolated(unsafe) private static var isRaw = false
    nonisolated(unsafe) private static var kittyPushed = false
    /// A question asked (`askKittyKeyboard`) whose answer has not been read: `restore` reads it,
    /// so that it does not reach the shell as text when a command ends before asking for it.
    nonisolated(unsafe) private static var answerPending = false

    /// True when standard input is a terminal (false for pipes and files, which are read as they are).
    static var isInteractive: Bool { isatty(STDIN_FILENO) == 1 }

    /// Whether standard input can bring keys other than from a terminal: a pipe, a socket or a
    /// file (a script feeding the keyboard piano). /dev/null, another device or a closed input
    /// brings none.
    static var inputIsAStream: Bool {
        var status = stat()
        guard fstat(STDIN_FILENO, &status) == 0 else { return false }
        let kind = status.st_mode & S_IFMT
        return kind == S_IFIFO || kind == S_IFSOCK || kind == S_IFREG
    }

    /// Switches standard input to raw mode (no line buffering, no echo). Call `restore` to undo;
    /// an `atexit` hook undoes it too.
    static func enterRawMode() {
        guard isInteractive, !isRaw, tcgetattr(STDIN_FILENO, &saved) == 0 else { return }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { bytes in
            bytes[Int(VMIN)] = 0
            bytes[Int(VTIME)] = 0
        }
        guard tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0 else { return }
        isRaw = true
        atexit { Terminal.restore() }
        write("\u{1B}[?25l")  // hide the cursor while the pads are drawn
    }

    /// Puts the terminal back as it was.
    static func restore() {
        guard isRaw else { return }
        if answerPending { _ = kittyKeyboardAnswer(timeoutMilliseconds: 200) }
        if kittyPushed {
            write("\u{1B}[<u")  // pop our keyboard mode: the shell gets the terminal as it was
            kittyPushed = false
        }
        tcsetattr(STDIN_FILENO, TCSANOW, &saved)
        isRaw = false
        write("\u{1B}[?25h\n")
    }

    /// Asks the terminal whether it speaks the kitty keyboard protocol (`CSI ? u`), followed by a
    /// device-attributes request that every terminal answers, so a terminal that stays silent on
    /// the first is known at once. `kittyKeyboardAnswer` reads the replies; in between, the
    /// command can load (the answer waits in the input).
    static func askKittyKeyboard() {
        write("\u{1B}[?u\u{1B}[c")
        answerPending = true
    }

    /// The answer to `askKittyKeyboard`, waited for up to `timeoutMilliseconds`: whether the
    /// terminal speaks the protocol, and the bytes around the replies: keys typed meanwhile,
    /// which are input like any other.
    static func kittyKeyboardAnswer(timeoutMilliseconds: Int32 = 300) -> (supported: Bool, typed: [UInt8]) {
        answerPending = false
        var input: [UInt8] = []
        let deadline = MonotonicClock.seconds() + Double(timeoutMilliseconds) / 1_000
        while MonotonicClock.seconds() < deadline, !TerminalReplies.containsDeviceAttributes(input) {
            var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 20) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 64)
            let count = read(STDIN_FILENO, &buffer, buffer.count)
            if count > 0 { input += buffer[..<count] }
        }
        let replies = TerminalReplies(input)
        return (replies.kittyFlags != nil, replies.typed)
    }

    /// Turns on kitty key events (disambiguate, event types, all keys as escapes: flags 1|2|8),
    /// pushed so `restore` can pop it.
    static func enableKittyKeyReleases() {
        write("\u{1B}[>11u")
        kittyPushed = true
    }

    /// Bytes waiting on standard input right now, without blocking; nil at end of input.
    static func pendingBytes() -> [UInt8]? {
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 0) > 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(STDIN_FILENO, &buffer, buffer.count)
        if count == 0 { return nil }
        return count < 0 ? [] : Array(buffer[..<count])
    }

    static func write(_ text: String) {
        _ = text.withCString { Glibc.write(STDOUT_FILENO, $0, strlen($0)) }
    }
}
