import Foundation
import TestSupport
import XCTest

/// Missing, busy and dying devices: a clear one-line message naming the device, a non-zero exit,
/// and never a hang.
final class DeviceFailureTests: XCTestCase {
    override func setUpWithError() throws { try TestDevices.require() }

    func assertOneLineError(_ result: CommandRunner.Result, mentioning words: [String],
                            file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(result.timedOut, "hung", file: file, line: line)
        XCTAssertEqual(result.exitCode, 1, result.standardError, file: file, line: line)
        XCTAssertEqual(result.errorLines.count, 1, "one line on stderr, got: \(result.standardError)", file: file, line: line)
        for word in words {
            XCTAssertTrue(result.standardError.contains(word), "'\(word)' missing from: \(result.standardError)", file: file, line: line)
        }
    }

    func testMissingDevice() throws {
        let result = try CommandRunner.staccato(["tone", "--device", "no_such_pcm", "--frequency", "440", "--seconds", "1"], timeout: 10)
        assertOneLineError(result, mentioning: ["no_such_pcm", "not found"])
    }

    func testRateTheDeviceCannotRunIsAClearError() throws {
        // The raw jack PCM (no plug above it) runs at the server's 48 kHz only.
        let result = try CommandRunner.staccato(["tone", "--device", "staccato_jack_raw", "--rate", "44100",
                                                 "--frequency", "440", "--seconds", "1"], timeout: 10)
        assertOneLineError(result, mentioning: ["staccato_jack_raw", "runs at 48000 Hz", "--rate 48000"])
    }

    func testNoServerBehindTheDevice() throws {
        let result = try CommandRunner.staccato(["tone", "--device", "staccato_jack", "--frequency", "440", "--seconds", "1"],
                                                environment: ["JACK_DEFAULT_SERVER": "staccato_nobody_home"], timeout: 10)
        assertOneLineError(result, mentioning: ["staccato_jack", "no JACK server"])
    }

    func testBusyDevice() throws {
        let holder = try CommandRunner.start(CommandRunner.staccatoExecutable,
                                             ["tone", "--device", "staccato_exclusive", "--frequency", "440", "--seconds", "3"], timeout: 15)
        usleep(800_000)
        let second = try CommandRunner.staccato(["tone", "--device", "staccato_exclusive", "--frequency", "440", "--seconds", "1"], timeout: 10)
        assertOneLineError(second, mentioning: ["staccato_exclusive", "busy"])
        let first = holder.wait()
        XCTAssertEqual(first.exitCode, 0, "the holder plays on undisturbed: \(first.standardError)")
    }

    func testKilledServerStopsThePlayerWithAMessage() throws {
        let (result, secondsAfterKill, _) = try TestDevices.runKillingTheServer(
            ["tone", "--device", "staccato_jack", "--frequency", "440", "--seconds", "30"], after: 1)
        assertOneLineError(result, mentioning: ["staccato_jack", "sound server died"])
        XCTAssertLessThan(secondsAfterKill, 3, "stops promptly after the server dies")
        print("killed server: player stopped \(String(format: "%.3f", secondsAfterKill)) s after SIGKILL")
    }
}
