import CommandLineSpec
import MIDI
@testable import staccato
import XCTest

/// Options that take one of a few words (`play --release`, `play --names`, `render --interpolation`) read as enum cases, with
/// one usage line that lists every spelling when the word is none of them.
final class CommandLineChoiceTests: XCTestCase {
    private func playOptions(_ arguments: [String]) throws -> ParsedOptions {
        try ParsedOptions(command: Commands.play, arguments: arguments)
    }

    func testEachReleaseModeIsReadAsItsCase() throws {
        for mode in KeyboardPiano.ReleaseMode.allCases {
            XCTAssertEqual(try playOptions(["--release", mode.rawValue]).choice("release", of: KeyboardPiano.ReleaseMode.self), mode)
        }
        XCTAssertEqual(try playOptions([]).choice("release", of: KeyboardPiano.ReleaseMode.self), .auto, "the default")
    }

    func testEachNoteNameStyleIsReadAsItsCase() throws {
        XCTAssertEqual(try playOptions(["--names", "solfege"]).choice("names", of: NoteName.Style.self), .solfege)
        XCTAssertEqual(try playOptions([]).choice("names", of: NoteName.Style.self), .letters, "the default")
    }

    func testEachInterpolationIsReadAsItsCase() throws {
        let linear = try ParsedOptions(command: Commands.render, arguments: ["song.mid", "--out", "song.wav", "--interpolation", "linear"])
        XCTAssertEqual(try linear.choice("interpolation", of: SampleInterpolation.self), .linear)
        let byDefault = try ParsedOptions(command: Commands.render, arguments: ["song.mid", "--out", "song.wav"])
        XCTAssertEqual(try byDefault.choice("interpolation", of: SampleInterpolation.self), .cubic, "the default")
        XCTAssertThrowsError(try ParsedOptions(command: Commands.render, arguments: ["song.mid", "--out", "song.wav", "--interpolation", "sinc"])
            .choice("interpolation", of: SampleInterpolation.self)) {
            XCTAssertEqual("\($0)", "--interpolation must be cubic or linear, got 'sinc'")
        }
    }

    func testAnUnknownWordNamesTheOptionAndEverySpelling() throws {
        XCTAssertThrowsError(try playOptions(["--release", "sometimes"]).choice("release", of: KeyboardPiano.ReleaseMode.self)) {
            XCTAssertEqual("\($0)", "--release must be auto, kitty or hold, got 'sometimes'")
        }
        XCTAssertThrowsError(try playOptions(["--names", "Kitty"]).choice("names", of: NoteName.Style.self)) {
            XCTAssertEqual("\($0)", "--names must be letters or solfege, got 'Kitty'")
        }
        XCTAssertThrowsError(try playOptions(["--release="]).choice("release", of: KeyboardPiano.ReleaseMode.self)) {
            XCTAssertEqual("\($0)", "--release must not be empty")
        }
    }
}
