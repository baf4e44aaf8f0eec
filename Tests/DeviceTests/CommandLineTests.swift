import AudioFile
import Foundation
import TestSupport
import XCTest

/// The CLI contract: help everywhere, one-line usage errors with exit code 2, the device list,
/// and the demo's fallback to a file.
final class CommandLineTests: XCTestCase {
    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: CommandRunner.staccatoExecutable.path) else {
            XCTFail("build the staccato executable first (swift build)")
            throw XCTSkip("no staccato executable")
        }
    }

    func testEverySubcommandHasHelp() throws {
        let top = try CommandRunner.staccato(["--help"])
        XCTAssertEqual(top.exitCode, 0)
        for command in ["devices", "tone", "demo"] {
            XCTAssertTrue(top.standardOutput.contains(command))
            let help = try CommandRunner.staccato([command, "--help"])
            XCTAssertEqual(help.exitCode, 0, command)
            XCTAssertTrue(help.standardOutput.hasPrefix("usage: staccato \(command)"), help.standardOutput)
        }
    }

    func testBadFlagsAndValuesAreOneLineUsageErrors() throws {
        let cases: [([String], String)] = [
            (["tone", "--device", "x", "--frequency", "abc", "--seconds", "1"], "--frequency expects a number, got 'abc'"),
            (["tone", "--device", "x", "--frequency", "440"], "--seconds is required"),
            (["tone", "--device", "x", "--frequency", "30000", "--seconds", "1"], "--frequency must be within 1...24000"),
            (["tone", "--device", "x", "--frequency", "440", "--seconds", "1", "--period", "7"], "--period must be within 16...8192"),
            (["tone", "--device", "x", "--frequency", "440", "--seconds", "1", "--volume", "2"], "--volume must be within 0...1"),
            (["tone", "--device", "x", "--frequency", "440", "--seconds", "1", "--bogus"], "unknown option '--bogus'"),
            (["tone", "--device"], "--device needs a value"),
            (["tone", "stray"], "unexpected argument 'stray'"),
            (["frobnicate"], "unknown command 'frobnicate'"),
            ([], "usage: staccato"),
        ]
        for (arguments, expected) in cases {
            let result = try CommandRunner.staccato(arguments)
            XCTAssertEqual(result.exitCode, 2, "\(arguments)")
            XCTAssertTrue(result.standardError.contains(expected), "\(arguments): \(result.standardError)")
            if !arguments.isEmpty { XCTAssertEqual(result.errorLines.count, 1, "\(arguments): \(result.standardError)") }
        }
    }

    func testDevicesSaysThereIsNoSoundCardAndListsTheTestDevices() throws {
        try TestDevices.require()
        let result = try CommandRunner.staccato(["devices"])
        XCTAssertEqual(result.exitCode, 0)
        XCTAssertTrue(result.standardOutput.contains("No sound card found"), result.standardOutput)
        XCTAssertTrue(result.standardOutput.contains("staccato_record"), result.standardOutput)
        XCTAssertTrue(result.standardError.isEmpty, "library noise leaked: \(result.standardError)")
    }

    func testDemoRendersToAFileWhenNothingCanPlay() throws {
        let path = TestDevices.temporaryFile("demo.wav")
        defer { unlink(path) }
        let result = try CommandRunner.staccato(["demo", "--device", "no_such_pcm", "--out", path], timeout: 30)
        XCTAssertEqual(result.exitCode, 0, result.standardError)
        XCTAssertTrue(result.standardOutput.contains("No playback device"), result.standardOutput)
        let decoded = try AudioFileReader.read(path)
        XCTAssertEqual(Double(decoded.frameCount) / Double(decoded.sampleRate), 6.25, accuracy: 0.01)
        XCTAssertGreaterThan(SignalAnalysis.rms(decoded.samples[...]), 0.01)
    }
}
