import Foundation
import TestSupport
import XCTest

/// The background decoding slowed on purpose (`STACCATO_DECODE_DELAY_MS`, a pause before each
/// sample it writes): the audio thread never waits for it. Notes across the keyboard start from
/// their samples' heads, run out of them long before the rest arrives, and are counted as
/// underruns; the paced device sees no xrun, and the command ends as it should.
final class SlowDecodingDeviceTests: XCTestCase {
    override func setUpWithError() throws { try TestDevices.require() }

    func testASlowDecoderCostsNotesNeverDeadlines() throws {
        let report = TestDevices.temporaryFile("slow-decoding.json")
        defer { unlink(report) }
        // 24 notes, every third key from A0 up, held 2 s, then the input ends (everything is
        // released and rings out). With 300 ms before each sample the decoder writes, the bodies
        // take many seconds: the half-second heads run out first.
        let notes = stride(from: 21, to: 93, by: 3).map { String(format: "\\x90\\x%02x\\x64", $0) }.joined()
        let command = "(printf '\(notes)'; sleep 2) | STACCATO_DECODE_DELAY_MS=300 '\(CommandRunner.staccatoExecutable.path)' play --midi-in - "
            + "--device staccato_jack --sample-cache 64 --seconds 20 --report '\(report)'"
        var attempts: [String] = []
        for _ in 1...3 {
            let started = Date()
            let result = try CommandRunner.shell(command, timeout: 60)
            let seconds = Date().timeIntervalSince(started)
            XCTAssertEqual(result.exitCode, 0, result.standardError)
            let read = try XCTUnwrap(try TestDevices.Report.read(report), result.standardOutput + result.standardError)
            let statistics = try XCTUnwrap(read.fields["statistics"] as? [String: Any])
            let underruns = statistics["sampleUnderruns"] as? Int ?? -1
            attempts.append("xruns \(read.xruns), sample underruns \(underruns), notes \(statistics["noteOns"] as? Int ?? -1), \(String(format: "%.1f", seconds)) s")
            XCTAssertEqual(statistics["noteOns"] as? Int, 24)
            XCTAssertGreaterThan(underruns, 0, "the heads ran out before the slowed bodies came")
            XCTAssertTrue(result.standardOutput.contains("sample underruns: \(underruns)"), result.standardOutput)
            // The input's 2 s and the ring-out, not the decoder's many seconds: nothing waited for it.
            XCTAssertLessThan(seconds, 8, "the command waited for the decoder")
            // The dummy clock misses a cycle now and then on a busy host; a run without is wanted.
            if read.xruns == 0 { break }
        }
        print("slow decoding: \(attempts.joined(separator: "; "))")
        XCTAssertTrue(attempts.contains { $0.hasPrefix("xruns 0,") }, "no run without xruns: \(attempts)")
    }
}
