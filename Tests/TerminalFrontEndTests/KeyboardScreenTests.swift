import MIDI
@testable import staccato
import XCTest

/// The keyboard piano's screen laid out for a terminal's width, as `staccato play` draws it.
final class KeyboardScreenTests: XCTestCase {
    private func screen(style: NoteName.Style = .letters, blackNames: Bool = false, baseKey: Int = 48,
                        sounding: Set<Int> = [], drumPads: DrumPadLabels? = nil) -> KeyboardScreen {
        var drawing = PianoDrawing(style: style)
        drawing.showBlackNames = blackNames
        return KeyboardScreen(instrumentName: drumPads == nil ? "Piano" : "Drums", bankName: "Staccato GM", device: "staccato_jack",
                              baseKey: baseKey, velocity: 100, sustain: false, usesReleaseEvents: false, holdSeconds: 0.3,
                              sounding: sounding, drawing: drawing, drumPads: drumPads)
    }

    private func assertFits(_ lines: [String], _ columns: Int, file: StaticString = #filePath, line: UInt = #line) {
        for text in lines {
            XCTAssertLessThanOrEqual(text.visibleWidth, columns, "wider than \(columns) columns: '\(text)'", file: file, line: line)
        }
    }

    func testEveryLineFitsTheTerminalAt80_100And60Columns() {
        for columns in [80, 100, 60] {
            for style in [NoteName.Style.letters, .solfege] {
                for blackNames in [false, true] {
                    let lines = screen(style: style, blackNames: blackNames, sounding: [48, 61, 79]).lines(columns: columns)
                    assertFits(lines, columns)
                    XCTAssertTrue(lines.contains { $0.hasPrefix("│") }, "the piano is drawn at \(columns) columns:\n\(lines.joined(separator: "\n"))")
                }
            }
        }
    }

    /// At 80 columns every key the computer keyboard plays is on the piano: its note name and its
    /// computer key, the key under (white) or above (black) the name, in the same column.
    func testAt80ColumnsEveryPlayableKeyShowsItsNoteAndItsComputerKey() throws {
        let lines = screen(blackNames: true).lines(columns: 80)
        let top = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("│") }) - 2
        let (blackKeys, blackNames, whiteNames, whiteKeys) = (Array(lines[top]), Array(lines[top + 1]), Array(lines[top + 2]), Array(lines[top + 3]))
        for (character, semitone) in PianoLayout.semitones {
            let key = UInt8(48 + semitone)
            let isBlack = NoteName.isBlackKey(key)
            let name = NoteName.name(of: key, octave: !isBlack)
            let (names, keys) = isBlack ? (blackNames, blackKeys) : (whiteNames, whiteKeys)
            // Black-key names have no octave: the name of the n-th octave's key is the n-th one.
            let label = isBlack ? name : "│" + name
            let starts = (0...(names.count - label.count)).filter { String(names[$0..<($0 + label.count)]) == label }
            let occurrence = isBlack ? semitone / 12 : 0
            XCTAssertGreaterThan(starts.count, occurrence, "\(name) (key \(character)) is drawn:\n\(lines.joined(separator: "\n"))")
            // The legend shows one computer key per note (the upper row's where the rows overlap).
            guard PianoLayout.legend[semitone] == character, starts.count > occurrence else { continue }
            let start = starts[occurrence]
            let span = (start - 1)...(start + label.count)
            XCTAssertTrue(span.contains { $0 >= 0 && $0 < keys.count && keys[$0] == character },
                          "computer key \(character) next to \(name):\n\(lines.joined(separator: "\n"))")
        }
    }

    func testSolfegeNamesAtSixtyColumnsStayFindable() {
        let lines = screen(style: .solfege).lines(columns: 60)
        assertFits(lines, 60)
        let whiteRow = lines.first { $0.hasPrefix("│") } ?? ""
        for name in ["Do", "Re", "Mi", "Fa", "So", "La", "Si"] {
            XCTAssertTrue(whiteRow.contains("│" + name), "\(name) on a white key: \(whiteRow)")
        }
    }

    func testBelowSixtyColumnsOneLineSaysTheTerminalIsTooNarrow() {
        let lines = screen().lines(columns: 59)
        XCTAssertEqual(lines, ["terminal too narrow: 59 columns, the piano needs 60"])
        assertFits(lines, 59)
    }

    func testTheFrameRedrawsInPlaceAndLeavesTheCursorBelow() {
        XCTAssertEqual(KeyboardScreen.frame(["a", "b"]), "\u{1B}[H" + "a\u{1B}[K\r\nb\u{1B}[K" + "\r\n\u{1B}[J")
    }

    // MARK: drum mode

    /// The shipped kit's pads and notes (samples/drums/kit.json).
    static let shippedKit: [(name: String, notes: [Int])] = [
        ("kick", [36, 35]), ("hihat_closed", [42, 44]), ("hihat_open", [46]), ("snare", [38, 37, 40]),
        ("tom_low", [45, 41, 43]), ("tom_high", [50, 47, 48]), ("crash", [49, 51, 52, 53, 55, 57, 59]),
    ]

    static func labels(_ kit: [(name: String, notes: [Int])]) -> DrumPadLabels {
        var padForNote = [Int16](repeating: -1, count: 128)
        for (pad, entry) in kit.enumerated() { for note in entry.notes { padForNote[note] = Int16(pad) } }
        return DrumPadLabels(padNames: kit.map(\.name), padForNote: padForNote)
    }

    func testDrumModeLabelsTheKeysWithThePadNames() {
        let drums = screen(baseKey: KeyboardPiano.drumBaseKey, sounding: [38], drumPads: Self.labels(Self.shippedKit))
        for columns in [80, 60] {
            let lines = drums.lines(columns: columns)
            assertFits(lines, columns)
            let text = lines.joined(separator: "\n")
            // The General MIDI notes from C2: z 36 kick, s x c 37 38 40 snare, g h 42 44 closed hi-hat
            // ...; where the rows overlap both keys play (l and 2 are both 49, a crash).
            for entry in ["kick: z", "snare: s x c", "hihat_closed: g h", "hihat_open: j", "tom_low: v b n",
                          "tom_high: m , q . w", "crash: l 2 ; 3 / e r t y u"] {
                XCTAssertTrue(text.contains(entry), "'\(entry)' at \(columns) columns:\n\(text)")
            }
            XCTAssertTrue(text.contains("\u{1B}[7msnare: s x c\u{1B}[0m"), "the sounding pad is lit:\n\(text)")
            XCTAssertTrue(text.contains("sounding: snare"), text)
            for noteName in ["C2", "D2", "E2"] {
                XCTAssertFalse(text.contains(noteName), "no note names in drum mode:\n\(text)")
            }
        }
    }

    func testDrumModeNamesPadsNoKeyReaches() {
        let text = screen(baseKey: KeyboardPiano.drumBaseKey, drumPads: Self.labels(Self.shippedKit + [("ride_bell", [30])])).lines(columns: 80).joined(separator: "\n")
        XCTAssertTrue(text.contains("not on the keyboard: ride_bell"), text)
    }

    // MARK: staccato drums

    func testDrumsScreenFitsEightyColumns() {
        let pads = [(pad: " a  kick (36) ", lit: false), (pad: " s  " + String(repeating: "long_pad_name_", count: 8) + " (42) ", lit: true)]
        let lines = Commands.drumsScreen(kit: "Standard", device: "staccato_record:FILE=/tmp/some/long/path/recording.raw",
                                         granted: "48000 Hz, 2 channels, period 64 frames × 3 (buffer 192 frames, 4.00 ms)",
                                         scheduling: "SCHED_FIFO priority 70 (real-time), locked memory", pads: pads, columns: 80)
        assertFits(lines, 80)
        XCTAssertTrue(lines.contains(" a  kick (36) "), lines.joined(separator: "\n"))
        XCTAssertTrue(lines.last!.hasPrefix("\u{1B}[7m") && lines.last!.hasSuffix("\u{1B}[0m"), lines.last!)
    }

    func testDrumModeBeforeTheKitIsInSaysItIsLoading() {
        var loading = screen()
        loading.instrumentName = "Drums"
        loading.drumKitLoading = true
        let text = loading.lines(columns: 80).joined(separator: "\n")
        XCTAssertTrue(text.contains("loading the drum kit..."), text)
        XCTAssertFalse(text.contains("│C3"), "no piano drawn for the drums:\n\(text)")
        XCTAssertFalse(text.contains("octave 3,"), "no octave for the drums:\n\(text)")
    }
}

/// The terminal's answers to the kitty keyboard question, picked out of the keys typed around them.
final class TerminalRepliesTests: XCTestCase {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    func testAKittyTerminalsAnswerLeavesTheKeysTypedAroundIt() {
        let replies = TerminalReplies(bytes("zx\u{1B}[?1u\u{1B}[?62;22cq"))
        XCTAssertEqual(replies.kittyFlags, 1)
        XCTAssertTrue(replies.hasDeviceAttributes)
        XCTAssertEqual(replies.typed, bytes("zxq"))
    }

    func testATerminalWithoutTheProtocolAnswersOnlyTheDeviceAttributes() {
        let replies = TerminalReplies(bytes("\u{1B}[?1;2c"))
        XCTAssertNil(replies.kittyFlags)
        XCTAssertTrue(replies.hasDeviceAttributes)
        XCTAssertEqual(replies.typed, [])
    }

    func testKeysAndEscapesThatAreNoRepliesAreKept() {
        // An arrow key (CSI D), a half-arrived reply and a lone escape are input, not answers.
        let input = bytes("a\u{1B}[D\u{1B}[?6\u{1B}")
        let replies = TerminalReplies(input)
        XCTAssertNil(replies.kittyFlags)
        XCTAssertFalse(replies.hasDeviceAttributes)
        XCTAssertEqual(replies.typed, input)
    }
}
