import Foundation
import TestSupport
import XCTest

/// The CLI's screens in a real terminal: tmux runs `staccato` in an 80-column pseudo-terminal and
/// the test reads the screen as the terminal shows it (a line wider than the pane is wrapped
/// onto the next row, as a terminal does).
final class TerminalScreenDeviceTests: XCTestCase {
    override func setUpWithError() throws {
        try TestDevices.require()
        try XCTSkipIf((try? CommandRunner.shell("command -v tmux >/dev/null").exitCode) != 0, "tmux is not installed")
    }

    /// A tmux session running one staccato command line.
    struct Pane {
        let session = "staccato-screen-\(getpid())-\(UUID().uuidString.prefix(8))"

        /// Starts `arguments` in a pane `columns` wide; the pane stays open 20 s after it exits.
        init(_ arguments: String, columns: Int) throws {
            let environment = ["ALSA_CONFIG_PATH", "JACK_DEFAULT_SERVER", "JACK_NO_AUDIO_RESERVATION", "STACCATO_AUDIO_STATE"]
                .compactMap { name in ProcessInfo.processInfo.environment[name].map { "\(name)='\($0)'" } }.joined(separator: " ")
            let command = "env \(environment) '\(CommandRunner.staccatoExecutable.path)' \(arguments); sleep 20"
            let started = try CommandRunner.shell("tmux new-session -d -s \(session) -x \(columns) -y 24 \"\(command)\"")
            XCTAssertEqual(started.exitCode, 0, started.standardError)
        }

        /// Every row written, scrollback included, with the rows the terminal wrapped joined: a
        /// line the program wrote as it is (less the trailing spaces -J keeps).
        func writtenLines() throws -> [String] {
            try CommandRunner.shell("tmux capture-pane -p -J -S - -t \(session)").standardOutput
                .split(separator: "\n", omittingEmptySubsequences: false).map { String($0.reversed().drop { $0 == " " }.reversed()) }
        }

        func rows() throws -> [String] {
            try CommandRunner.shell("tmux capture-pane -p -t \(session)").standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }

        /// Waits up to `seconds` for a row that satisfies `condition`; returns the screen.
        @discardableResult
        func waitFor(seconds: Double = 15, _ condition: (String) -> Bool) throws -> [String] {
            let deadline = Date().addingTimeInterval(seconds)
            var screen = try rows()
            while Date() < deadline, !screen.contains(where: condition) {
                usleep(100_000)
                screen = try rows()
            }
            return screen
        }

        func tmux(_ arguments: String) throws {
            _ = try CommandRunner.shell("tmux \(arguments)")
        }

        func close() { _ = try? CommandRunner.shell("tmux kill-session -t \(session) 2>/dev/null") }
    }

    /// `staccato play` with no song: the piano fits 80 columns (every key from C3 to G5 on one
    /// row), a resize to 100 redraws it with wider keys, below 60 one line says the terminal is
    /// too narrow, and Tab twice (piano, xylophone, drums) labels the keys with the kit's pads.
    func testKeyboardPianoFitsTheTerminalRedrawsOnResizeAndNamesTheDrumPads() throws {
        let pane = try Pane("play --device staccato_jack", columns: 80)
        defer { pane.close() }
        var screen = try pane.waitFor { $0.hasPrefix("│C3") }
        XCTAssertTrue(screen.contains { $0.hasPrefix("│C3 │D3 ") && $0.hasSuffix("│F5 │G5 │") }, "all 19 white keys on one row:\n\(screen.joined(separator: "\n"))")

        try pane.tmux("resize-window -t \(pane.session) -x 100")
        screen = try pane.waitFor(seconds: 3) { $0.hasPrefix("│C3  │D3  ") }
        XCTAssertTrue(screen.contains { $0.hasPrefix("│C3  │D3  ") && $0.hasSuffix("│G5  │") }, "redrawn at 100 columns:\n\(screen.joined(separator: "\n"))")

        try pane.tmux("resize-window -t \(pane.session) -x 59")
        screen = try pane.waitFor(seconds: 3) { $0.hasPrefix("terminal too narrow") }
        XCTAssertTrue(screen.contains("terminal too narrow: 59 columns, the piano needs 60"), screen.joined(separator: "\n"))
        XCTAssertFalse(screen.contains { $0.contains("│C3") }, "no piano drawn:\n\(screen.joined(separator: "\n"))")

        try pane.tmux("resize-window -t \(pane.session) -x 80")
        try pane.tmux("send-keys -t \(pane.session) Tab")
        usleep(300_000)
        try pane.tmux("send-keys -t \(pane.session) Tab")
        screen = try pane.waitFor(seconds: 3) { $0.contains("kick: z") }
        let text = screen.joined(separator: "\n")
        XCTAssertTrue(text.contains("staccato play: Drums"), text)
        for entry in ["kick: z", "snare: s x c", "hihat_closed: g h"] {
            XCTAssertTrue(text.contains(entry), "'\(entry)' on the drum screen:\n\(text)")
        }
        XCTAssertFalse(text.contains("C2"), "no note names in drum mode:\n\(text)")

        try pane.tmux("send-keys -t \(pane.session) Q")
        screen = try pane.waitFor { $0.hasPrefix("played ") }
        XCTAssertTrue(screen.contains { $0.hasPrefix("played ") }, "the summary is left below the screen:\n\(screen.joined(separator: "\n"))")
    }

    /// The keyboard piano at 80 x 24 writes no line wider than 80 columns: what it prints before
    /// the piano is drawn (the granted configuration, the audio thread), the piano, the summary.
    func testTheKeyboardPianoWritesNoLineWiderThanTheTerminal() throws {
        let pane = try Pane("play --device staccato_jack --rate 44100", columns: 80)
        defer { pane.close() }
        try pane.waitFor { $0.hasPrefix("│C3") }
        let drawn = try pane.writtenLines()
        try pane.tmux("send-keys -t \(pane.session) Q")
        try pane.waitFor { $0.hasPrefix("played ") }
        let ended = try pane.writtenLines()
        for (moment, lines) in [("with the piano drawn", drawn), ("after Q", ended)] {
            let widest = lines.max { $0.count < $1.count } ?? ""
            print("keyboard piano at 80 x 24, \(moment): widest line \(widest.count) columns: \(widest)")
            XCTAssertLessThanOrEqual(widest.count, 80, "\(moment):\n\(lines.joined(separator: "\n"))")
        }
        XCTAssertTrue(ended.contains { $0.hasPrefix("played ") }, ended.joined(separator: "\n"))
    }

    /// The keyboard piano on Debian's default font (488 MB decoded), its first key pressed 0.3 s
    /// after launch without waiting for anything on screen: it sounds in full, at its pitch, with
    /// no sample underrun. Only the piano's heads are decoded before it plays; the rest of the
    /// font streams behind it and the drum kit loads after it. (A key pressed before the piano is
    /// in waits in the terminal and plays once it is.)
    func testTheKeyboardsFirstKeyOnALargeFontSoundsInFull() throws {
        let font = "/usr/share/sounds/sf3/MuseScore_General_Full.sf3"
        try XCTSkipUnless(FileManager.default.fileExists(atPath: font), "no \(font) (apt install musescore-general-soundfont)")
        let recordPath = TestDevices.temporaryFile("large-keyboard.raw"), report = TestDevices.temporaryFile("large-keyboard.json")
        defer { unlink(recordPath); unlink(report) }
        let launched = Date()
        let pane = try Pane("play --soundfont \(font) --release hold --hold 500 --device staccato_record:FILE=\(recordPath) --report \(report) --seconds 5",
                            columns: 80)
        defer { pane.close() }
        usleep(UInt32(max(0, 0.3 - Date().timeIntervalSince(launched)) * 1_000_000))
        // z: the lowest white key on the keyboard's bottom row.
        try pane.tmux("send-keys -t \(pane.session) z")
        let pressedAfter = Date().timeIntervalSince(launched)
        let screen = try pane.waitFor { $0.hasPrefix("│C3") }
        XCTAssertTrue(screen.contains { $0.hasPrefix("│C3") }, screen.joined(separator: "\n"))
        let shownBy = Date().timeIntervalSince(launched)
        _ = try pane.waitFor(seconds: 10) { $0.hasPrefix("played ") }
        let left = SignalAnalysis.channel(0, of: try TestDevices.readRaw(recordPath), channelCount: 2)
        let onset = try XCTUnwrap(PlayDeviceTests.onsets(in: left).first, "the key sounded")
        let pitch = PlayDeviceTests.pitch(of: left[(onset + 2_000)..<min(left.count, onset + 12_000)])
        print("large font keyboard: key pressed \(String(format: "%.2f", pressedAfter)) s after launch, piano on screen by \(String(format: "%.2f", shownBy)) s; onset at frame \(onset), \(Int(pitch.rounded())) Hz")
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any])
        let statistics = try XCTUnwrap(object["statistics"] as? [String: Any])
        XCTAssertEqual(statistics["noteOns"] as? Int, 1)
        XCTAssertEqual(statistics["sampleUnderruns"] as? Int, 0, "the key found its sample's head, and the rest in time")
        // Held half a second: at its pitch, and still sounding well after the head's first block.
        XCTAssertGreaterThan(SignalAnalysis.rms(left[(onset + 12_000)..<min(left.count, onset + 20_000)]), 0.001, "still sounding at 0.3 s")
        XCTAssertGreaterThan(pitch, 60)
    }

    /// A song's progress line is redrawn in place; the lines printed while it is shown (the
    /// audio thread's scheduling, the closing summary) each start a row of their own instead of
    /// being appended to it.
    func testLinesPrintedDuringASongStartTheirOwnRow() throws {
        let song = CommandRunner.repositoryRoot.appendingPathComponent("Tests/Fixtures/midi/mozart_turkish_march.mid").path
        let pane = try Pane("play '\(song)' --device staccato_jack --seconds 2", columns: 80)
        defer { pane.close() }
        let screen = try pane.waitFor(seconds: 20) { $0.contains("played ") }
        let text = screen.joined(separator: "\n")
        XCTAssertTrue(screen.contains { $0.hasPrefix("audio thread: ") }, text)
        XCTAssertTrue(screen.contains { $0.hasPrefix("played ") }, text)
        XCTAssertFalse(screen.contains { $0.contains("voices") && $0.contains("played") }, text)
    }
}
