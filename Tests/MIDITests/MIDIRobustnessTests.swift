import Foundation
import MIDI
import TestSupport
import XCTest

/// Damaged input must end in a parse or a `MIDIFileError`: never a trap, never a hang.
final class MIDIRobustnessTests: XCTestCase {
    let fileName = "mozart_turkish_march.mid"

    func loadMozart() throws -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/midi/\(fileName)")
        return try [UInt8](Data(contentsOf: url))
    }

    /// Parses and, on success, exercises everything derived from the parse too.
    func check(_ bytes: [UInt8], _ context: @autoclosure () -> String) -> Bool {
        do throws(MIDIFileError) {
            let file = try MIDIFile.parse(bytes, name: fileName)
            _ = file.timedMessages()
            XCTAssertTrue(file.duration.isFinite && file.duration >= 0, context())
            _ = file.noteOnCount
            return true
        } catch {
            XCTAssertTrue(error.description.hasPrefix("\(fileName): byte "), "\(context()): \(error)")
            XCTAssertTrue((0...bytes.count).contains(error.offset), "\(context()): \(error)")
            return false
        }
    }

    /// Cut anywhere, the file is either refused or parsed with the cut named: never parsed as if
    /// it were whole.
    func testEveryTruncation() throws {
        let bytes = try loadMozart()
        var parsed = 0
        for length in 0..<bytes.count where check(Array(bytes.prefix(length)), "truncated to \(length)") {
            parsed += 1
            let file = try MIDIFile.parse(Array(bytes.prefix(length)), name: fileName)
            XCTAssertEqual(file.problems.count, 1, "truncated to \(length)")
            XCTAssertEqual(file.problems.first?.offset, length, "truncated to \(length)")
            XCTAssertTrue(file.problems.first?.reason.contains("byte \(length)") ?? false, "\(file.problems)")
            XCTAssertTrue(file.problems.first?.reason.contains("track ") ?? false, "\(file.problems)")
        }
        XCTAssertGreaterThan(parsed, bytes.count / 2)
        XCTAssertEqual(try MIDIFile.parse(bytes, name: fileName).problems, [], "the whole file has no problem")
    }

    func testTruncationInsideFirstTrackNamesTheTrackAndTheByte() throws {
        let bytes = try loadMozart()
        let file = try MIDIFile.parse(Array(bytes.prefix(30)), name: fileName)
        XCTAssertEqual(file.problems.count, 1)
        XCTAssertTrue(file.problems[0].reason.hasPrefix("track 1 of "), file.problems[0].reason)
        XCTAssertTrue(file.problems[0].reason.contains(" ends at byte 30, "), file.problems[0].reason)
    }

    func testRandomByteDamage() throws {
        let original = try loadMozart()
        var generator = SeededGenerator(state: 0x5EED_1D1)
        var outcomes = (parsed: 0, rejected: 0)
        let start = Date()
        for iteration in 0..<3_000 {
            var bytes = original
            for _ in 0...Int.random(in: 0..<4, using: &generator) {
                // Bias towards the headers, where one byte changes the most.
                let limit = Bool.random(using: &generator) ? 64 : bytes.count
                bytes[Int.random(in: 0..<limit, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            if Int.random(in: 0..<4, using: &generator) == 0 {
                bytes.removeLast(Int.random(in: 0..<bytes.count, using: &generator))
            }
            if check(bytes, "iteration \(iteration)") { outcomes.parsed += 1 } else { outcomes.rejected += 1 }
        }
        XCTAssertGreaterThan(outcomes.parsed, 0)
        XCTAssertGreaterThan(outcomes.rejected, 0)
        XCTAssertLessThan(Date().timeIntervalSince(start), 60, "no input may make parsing crawl")
    }

    func testRandomBytesAfterAValidHeader() {
        var generator = SeededGenerator(state: 42)
        for iteration in 0..<2_000 {
            let tail = (0..<Int.random(in: 0..<200, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let trackBody = (0..<Int.random(in: 0..<100, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let bytes = SMF.header(trackCount: Int.random(in: 1...3, using: &generator))
                + SMF.chunk("MTrk", trackBody) + tail
            _ = check(bytes, "iteration \(iteration)")
        }
    }
}
