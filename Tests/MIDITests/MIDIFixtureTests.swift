import Foundation
import MIDI
import XCTest

/// The reader against mido on real files. Expected values come from
/// scripts/midi-expectations.py (mido 1.3.3), committed as Tests/Fixtures/midi/expected/expected.json,
/// so the check is independent of our own parsing and needs no Python at test time.
final class MIDIFixtureTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/midi")

    struct Expectations: Decodable {
        var generator: String
        var files: [String: Expected]
    }

    struct Expected: Decodable {
        struct Tempo: Decodable { var tick: Int; var microsecondsPerQuarter: Int }
        var format: Int
        var trackCount: Int
        var ticksPerQuarter: Int
        var noteOnCount: Int
        var noteOnsPerChannel: [String: Int]
        var tempoChangeCount: Int
        var firstTempoChanges: [Tempo]
        var durationSeconds: Double
        var firstNoteOnSeconds: Double
        var hundredthNoteOnSeconds: Double
        var lastNoteOnSeconds: Double
    }

    /// Times may differ by rounding (mido sums float deltas; we multiply from the last tempo change).
    let tolerance = 0.001

    func loadExpectations() throws -> Expectations {
        let data = try Data(contentsOf: Self.fixtures.appendingPathComponent("expected/expected.json"))
        return try JSONDecoder().decode(Expectations.self, from: data)
    }

    func testEveryFixtureIsCovered() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.fixtures.path).filter { $0.hasSuffix(".mid") }
        XCTAssertEqual(Set(names), Set(try loadExpectations().files.keys))
        XCTAssertEqual(names.count, 6)
    }

    func testReaderMatchesMido() throws {
        for (name, expected) in try loadExpectations().files.sorted(by: { $0.key < $1.key }) {
            let file = try MIDIFile.read(path: Self.fixtures.appendingPathComponent(name).path)
            XCTAssertEqual(file.format, expected.format, name)
            XCTAssertEqual(file.tracks.count, expected.trackCount, name)
            XCTAssertEqual(file.ticksPerQuarter, expected.ticksPerQuarter, name)
            XCTAssertEqual(file.division, .ticksPerQuarter(expected.ticksPerQuarter), name)
            XCTAssertEqual(file.noteOnCount, expected.noteOnCount, name)

            let noteOns = file.timedMessages().filter { if case .noteOn = $0.message { true } else { false } }
            XCTAssertEqual(noteOns.count, expected.noteOnCount, name)
            let perChannel = Dictionary(grouping: noteOns, by: { String($0.message.channel) }).mapValues(\.count)
            XCTAssertEqual(perChannel, expected.noteOnsPerChannel, name)

            // mido lists the file's tempo events; our map adds 120 bpm at tick 0 when the file has none there.
            let addsDefault = expected.firstTempoChanges.first?.tick != 0
            let fileTempos = Array(file.tempoMap.dropFirst(addsDefault ? 1 : 0))
            XCTAssertEqual(fileTempos.count, expected.tempoChangeCount, name)
            XCTAssertEqual(fileTempos.prefix(5).map(\.tick), expected.firstTempoChanges.map(\.tick), name)
            XCTAssertEqual(fileTempos.prefix(5).map(\.microsecondsPerQuarter),
                           expected.firstTempoChanges.map(\.microsecondsPerQuarter), name)
            if addsDefault {
                XCTAssertEqual(file.tempoMap.first, TempoChange(tick: 0, microsecondsPerQuarter: 500_000, seconds: 0), name)
            }

            XCTAssertEqual(file.duration, expected.durationSeconds, accuracy: tolerance, name)
            XCTAssertEqual(noteOns.first?.seconds ?? -1, expected.firstNoteOnSeconds, accuracy: tolerance, name)
            XCTAssertEqual(noteOns.dropFirst(99).first?.seconds ?? -1, expected.hundredthNoteOnSeconds, accuracy: tolerance, name)
            XCTAssertEqual(noteOns.last?.seconds ?? -1, expected.lastNoteOnSeconds, accuracy: tolerance, name)
        }
    }

    /// The facts the fixtures were chosen for, so a regenerated expected.json cannot drift unnoticed.
    func testKnownFacts() throws {
        let facts: [(String, notes: Int, seconds: Double?)] = [
            ("joplin_maple_leaf_rag.mid", 2_563, 197), ("mozart_turkish_march.mid", 599, 45),
            ("converse_what_a_friend_piano_pedal.mid", 4_926, 303), ("bach_bwv772_sankey.mid", 508, nil),
            ("timidity_test_sample_drums.mid", 1_094, nil), ("openmsx_keep_on_rolling_dense.mid", 6_094, nil),
        ]
        for (name, notes, seconds) in facts {
            let file = try MIDIFile.read(path: Self.fixtures.appendingPathComponent(name).path)
            XCTAssertEqual(file.noteOnCount, notes, name)
            if let seconds { XCTAssertEqual(file.duration, seconds, accuracy: 1, name) }
        }
        let bach = try MIDIFile.read(path: Self.fixtures.appendingPathComponent("bach_bwv772_sankey.mid").path)
        let bachNoteChannels = bach.timedMessages().compactMap { if case let .noteOn(channel, _, _) = $0.message { channel } else { nil } }
        XCTAssertEqual(Set(bachNoteChannels).count, 11)
        let drums = try MIDIFile.read(path: Self.fixtures.appendingPathComponent("timidity_test_sample_drums.mid").path)
        XCTAssertTrue(drums.timedMessages().contains { if case .noteOn(channel: 9, _, _) = $0.message { true } else { false } })
    }

    func testMergedMessagesAreInTimeOrder() throws {
        let file = try MIDIFile.read(path: Self.fixtures.appendingPathComponent("openmsx_keep_on_rolling_dense.mid").path)
        let messages = file.timedMessages()
        XCTAssertEqual(messages.count, file.tracks.joined().filter { if case .channel = $0.kind { true } else { false } }.count)
        for (earlier, later) in zip(messages, messages.dropFirst()) {
            XCTAssertLessThanOrEqual(earlier.seconds, later.seconds)
            if earlier.seconds == later.seconds { XCTAssertLessThanOrEqual(earlier.track, later.track) }
        }
    }

    /// A dense 50 KB file parses to its notes every time; the best of ten parses is printed. It takes
    /// about a millisecond in release, far below what rendering the song costs, so no benchmark
    /// times it alone; the bound only catches a parse that has gone quadratic, far beyond what a loaded
    /// CI host adds.
    func testParsesInBoundedTime() throws {
        let path = Self.fixtures.appendingPathComponent("openmsx_keep_on_rolling_dense.mid").path
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        XCTAssertGreaterThan(bytes.count, 50_000)
        var best = Double.infinity
        for _ in 0..<10 {
            let start = Date()
            let file = try MIDIFile.parse(bytes, name: "dense.mid")
            best = min(best, Date().timeIntervalSince(start))
            XCTAssertEqual(file.noteOnCount, 6_094)
        }
        XCTAssertLessThan(best, 2, "best of 10 parses took \(best * 1_000) ms")
        print("MIDI parse of \(bytes.count) bytes: \(String(format: "%.2f", best * 1_000)) ms (best of 10)")
    }
}
