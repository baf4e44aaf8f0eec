import Synchronization
@testable import staccato
import XCTest

/// The live line (play's progress, mic's meter) and the lines printed while it is on screen.
final class StatusLineTests: XCTestCase {
    /// Every write, in order, tagged with its stream.
    final class Recorder: Sendable {
        let writes = Mutex<[(StatusLine.Stream, String)]>([])
        var bytes: String { writes.withLock { $0.map { ($0.0 == .error ? "<err>" : "") + $0.1 }.joined() } }
        func statusLine(isTerminal: Bool, columns: Int = 80) -> StatusLine {
            StatusLine(isTerminal: isTerminal, columns: { columns }) { stream, text in self.writes.withLock { $0.append((stream, text)) } }
        }
    }

    func testAMessageClearsTheLiveLineFirstAndTheNextUpdateRedrawsIt() {
        let recorder = Recorder()
        let status = recorder.statusLine(isTerminal: true)
        status.update("0:02.7 / 0:44.8  voices 22  xruns 0")
        status.print("played 144000 frames")
        status.print("a second line")
        status.update("0:02.9 / 0:44.8  voices 20  xruns 0")
        status.printError("staccato: the device vanished")
        status.clear()
        status.clear()
        XCTAssertEqual(recorder.bytes,
                       "\r0:02.7 / 0:44.8  voices 22  xruns 0\u{1B}[K" + "\r\u{1B}[K" + "played 144000 frames\n" + "a second line\n"
                       + "\r0:02.9 / 0:44.8  voices 20  xruns 0\u{1B}[K" + "\r\u{1B}[K" + "<err>staccato: the device vanished\n")
    }

    /// A printed line wider than the terminal is broken at its spaces and continued indented, so
    /// the terminal never wraps it mid-word; narrower lines, and any line off a terminal, pass as
    /// they are.
    func testALineWiderThanTheTerminalIsBrokenAtItsSpaces() {
        let line = "playing on 'default': 44100 Hz, 2 ch, FLOAT_LE, period 294 frames (6.67 ms) x 3, buffer 882 frames (20.00 ms);"
            + " asked for a period of 64 frames: 294 is the nearest the device's 48000 Hz converts exactly"
        let recorder = Recorder()
        let status = recorder.statusLine(isTerminal: true, columns: 80)
        status.print(line)
        status.print("audio thread: SCHED_FIFO priority 70; voices on 1 thread")
        let rows = recorder.bytes.split(separator: "\n").map(String.init)
        XCTAssertEqual(rows, ["playing on 'default': 44100 Hz, 2 ch, FLOAT_LE, period 294 frames (6.67 ms) x",
                              "  3, buffer 882 frames (20.00 ms); asked for a period of 64 frames: 294 is the",
                              "  nearest the device's 48000 Hz converts exactly",
                              "audio thread: SCHED_FIFO priority 70; voices on 1 thread"])
        XCTAssertTrue(rows.allSatisfy { $0.count <= 80 })

        let piped = Recorder()
        piped.statusLine(isTerminal: false, columns: 80).print(line)
        XCTAssertEqual(piped.bytes, line + "\n", "off a terminal, one line for scripts")
    }

    func testTheLiveLineIsClearedAtTheEnd() {
        let recorder = Recorder()
        let status = recorder.statusLine(isTerminal: true)
        status.update("in [####] -12.0 dB")
        status.clear()
        XCTAssertEqual(recorder.bytes, "\rin [####] -12.0 dB\u{1B}[K\r\u{1B}[K")
    }

    func testNothingOfTheLiveLineIsWrittenWhenStandardOutputIsNotATerminal() {
        let recorder = Recorder()
        let status = recorder.statusLine(isTerminal: false)
        status.update("0:02.7 / 0:44.8  voices 22  xruns 0")
        status.print("played 144000 frames")
        status.update("0:02.9 / 0:44.8  voices 20  xruns 0")
        status.printError("staccato: the device vanished")
        status.clear()
        XCTAssertEqual(recorder.bytes, "played 144000 frames\n<err>staccato: the device vanished\n")
    }

    /// A live line wider than the terminal would wrap, and `\r` would then redraw only its last row.
    func testTheLiveLineIsCutToTheTerminalWidth() {
        let recorder = Recorder()
        recorder.statusLine(isTerminal: true, columns: 40).update(String(repeating: "x", count: 100))
        XCTAssertEqual(recorder.bytes, "\r" + String(repeating: "x", count: 39) + "\u{1B}[K")
    }
}
