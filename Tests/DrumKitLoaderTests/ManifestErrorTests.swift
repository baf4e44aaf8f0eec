import AudioFile
import DrumKitLoader
import Foundation
import Render
import TestSupport
import XCTest

/// Every way a kit can be wrong, each reported as one line naming the manifest and the field
/// (and the file, for a pad's file), and never as a crash or a partial kit.
final class ManifestErrorTests: XCTestCase {
    let rate = 48_000.0

    /// A valid pad entry, with `extra` fields added.
    func pad(_ name: String = "kick", file: String = "kick.wav", note: Int = 36, with extra: String = "") -> String {
        "{\"name\": \"\(name)\", \"file\": \"\(file)\", \"note\": \(note)\(extra.isEmpty ? "" : ", " + extra)}"
    }

    /// A folder holding `kick.wav` and a manifest with `pads`.
    func kit(_ pads: [String], top: String = "") throws -> TemporaryFolder {
        let folder = try TemporaryFolder(self)
        try folder.writeHit("kick.wav")
        try folder.writeManifest("{\(top)\"pads\": [\(pads.joined(separator: ", "))]}")
        return folder
    }

    /// The loader's error for `folder`'s manifest, checked to be one line naming the manifest and
    /// containing every one of `expected`; or a failure when it loads.
    @discardableResult
    func assertError(_ folder: TemporaryFolder, _ expected: String..., sampleRate: Double = 48_000,
                     file: StaticString = #filePath, line: UInt = #line) -> DrumKitError? {
        do {
            _ = try DrumKitLoader.load(manifest: folder.manifest, sampleRate: sampleRate)
            XCTFail("loaded, expected an error containing \(expected)", file: file, line: line)
            return nil
        } catch {
            XCTAssertEqual(error.path, folder.manifest, file: file, line: line)
            XCTAssertEqual(error.description, "\(folder.manifest): \(error.reason)", file: file, line: line)
            XCTAssertFalse(error.description.contains("\n"), "one line: \(error)", file: file, line: line)
            for text in expected {
                XCTAssertTrue(error.reason.contains(text), "\"\(error.reason)\" should contain \"\(text)\"", file: file, line: line)
            }
            return error
        }
    }

    func testTheBaselineKitLoads() throws {
        let kit = try DrumKitLoader.load(manifest: try kit([pad()]).manifest, sampleRate: rate)
        XCTAssertEqual(kit.pads.count, 1)
    }

    // MARK: The manifest file

    /// The manifest checks alone, on bytes in memory: the same answers as `load` gives for the
    /// manifest, without touching the pads' files (which need not exist).
    func testManifestCheckedFromMemory() throws {
        let valid = "{\"name\": \"k\", \"pads\": [\(pad()), \(pad("snare", file: "gone.wav", note: 38))]}"
        XCTAssertEqual(try DrumKitLoader.checkManifest(Data(valid.utf8), path: "/nowhere/kit.json"), 2)
        let wrong = "{\"pads\": [\(pad(note: 300))]}"
        XCTAssertThrowsError(try DrumKitLoader.checkManifest(Data(wrong.utf8), path: "/nowhere/kit.json")) { error in
            let line = "\(error)"
            XCTAssertTrue(line.contains("kit.json") && line.contains("pads[0].note") && line.contains("300"), line)
            XCTAssertFalse(line.contains("\n"), line)
        }
    }

    func testMissingManifest() throws {
        let folder = try TemporaryFolder(self)
        assertError(folder, "cannot read")
    }

    func testNotJSON() throws {
        let folder = try TemporaryFolder(self)
        try folder.writeManifest("{\"pads\": [\(pad()),]")
        assertError(folder, "not valid JSON")
        try folder.writeBytes("kit.json", [0xFF, 0xFE, 0x00, 0x12, 0x80])
        assertError(folder, "not valid JSON")
        try folder.writeManifest("")
        assertError(folder, "not valid JSON")
    }

    func testDeepNestingIsAnErrorNotAStackOverflow() throws {
        let folder = try TemporaryFolder(self)
        try folder.writeManifest("{\"pads\": " + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "}")
        assertError(folder)
    }

    func testNotAnObject() throws {
        let folder = try TemporaryFolder(self)
        try folder.writeManifest("[\(pad())]")
        assertError(folder, "an array is not a kit manifest")
    }

    // MARK: Fields

    func testMissingFields() throws {
        let folder = try TemporaryFolder(self)
        try folder.writeManifest("{\"name\": \"x\"}")
        assertError(folder, "pads: missing")
        assertError(try kit(["{\"file\": \"kick.wav\", \"note\": 36}"]), "pads[0].name: missing")
        assertError(try kit(["{\"name\": \"kick\", \"note\": 36}"]), "pads[0].file: missing")
        assertError(try kit(["{\"name\": \"kick\", \"file\": \"kick.wav\"}"]), "pads[0].note: missing")
        assertError(try kit([pad(), "{\"name\": \"snare\", \"file\": \"kick.wav\", \"note\": null}"]), "pads[1].note: missing")
    }

    func testNoPads() throws {
        assertError(try kit([]), "pads: empty")
        let folder = try TemporaryFolder(self)
        try folder.writeManifest("{\"pads\": {\"kick\": 36}}")
        assertError(folder, "pads: an object is not an array of pads")
        assertError(try kit(["36"]), "pads[0]: 36 is not a pad")
    }

    func testOutOfRangeNote() throws {
        let error = assertError(try kit([pad(), pad("snare", note: 38), pad("high", note: 200)]), "pads[2].note")
        XCTAssertEqual(error?.reason, "pads[2].note: 200 is not a MIDI note (0-127)")
        assertError(try kit([pad(note: -1)]), "pads[0].note: -1 is not a MIDI note")
        assertError(try kit([pad(note: 128)]), "pads[0].note: 128 is not")
        assertError(try kit(["{\"name\": \"kick\", \"file\": \"kick.wav\", \"note\": 36.5}"]), "pads[0].note: 36.5 is not")
        assertError(try kit(["{\"name\": \"kick\", \"file\": \"kick.wav\", \"note\": \"C2\"}"]), "pads[0].note: \"C2\" is not")
        assertError(try kit(["{\"name\": \"kick\", \"file\": \"kick.wav\", \"note\": true}"]), "pads[0].note: true is not")
    }

    func testOutOfRangeGain() throws {
        assertError(try kit([pad(with: "\"gain\": 12.5")]), "pads[0].gain: 12.5 is not a gain in dB")
        assertError(try kit([pad(with: "\"gain\": -61")]), "pads[0].gain: -61 is not")
        assertError(try kit([pad(with: "\"gain\": 1e400")]), "1e400") // too large for a Double: the JSON reader's error
        assertError(try kit([pad(with: "\"gain\": \"loud\"")]), "pads[0].gain: \"loud\" is not")
    }

    func testOutOfRangeVoices() throws {
        assertError(try kit([pad(with: "\"voices\": 0")]), "pads[0].voices: 0 is not a voice count (1-64)")
        assertError(try kit([pad(with: "\"voices\": 65")]), "pads[0].voices: 65 is not")
        assertError(try kit([pad(with: "\"voices\": 2.5")]), "pads[0].voices: 2.5 is not")
    }

    func testBadStrings() throws {
        assertError(try kit([pad(with: "\"chokeGroup\": 1")]), "pads[0].chokeGroup: 1 is not a choke group name")
        assertError(try kit([pad(with: "\"chokeGroup\": \"\"")]), "pads[0].chokeGroup: \"\" is not")
        assertError(try kit(["{\"name\": 5, \"file\": \"kick.wav\", \"note\": 36}"]), "pads[0].name: 5 is not a pad name")
        assertError(try kit(["{\"name\": \"kick\", \"file\": [\"kick.wav\"], \"note\": 36}"]), "pads[0].file: an array is not a file name")
        assertError(try kit([pad()], top: "\"name\": {}, "), "name: an object is not a kit name")
    }

    func testDuplicateNoteNamesBothPads() throws {
        let error = assertError(try kit([pad(), pad("snare", note: 38), pad("kick2", note: 36)]), "pads[2].note", "pads[0]", "kick2", "\"kick\"")
        XCTAssertEqual(error?.reason, "pads[2].note: 36 (\"kick2\") is also pads[0].note (\"kick\"); a note plays one pad")
    }

    func testDuplicateNameNamesBothPads() throws {
        let error = assertError(try kit([pad(), pad("snare", note: 38), pad("snare", note: 40)]), "pads[2].name", "pads[1]", "snare")
        XCTAssertEqual(error?.reason, "pads[2].name: \"snare\" is also pads[1].name; pad names must be unique")
    }

    func testAlsoNotesOutOfRange() throws {
        let error = assertError(try kit([pad(with: "\"alsoNotes\": [35, 128]")]), "pads[0].alsoNotes[1]")
        XCTAssertEqual(error?.reason, "pads[0].alsoNotes[1]: 128 is not a MIDI note (0-127)")
        assertError(try kit([pad(with: "\"alsoNotes\": [-1]")]), "pads[0].alsoNotes[0]: -1 is not a MIDI note")
        assertError(try kit([pad(with: "\"alsoNotes\": [35.5]")]), "pads[0].alsoNotes[0]: 35.5 is not")
        assertError(try kit([pad(with: "\"alsoNotes\": [\"B1\"]")]), "pads[0].alsoNotes[0]: \"B1\" is not")
        assertError(try kit([pad(with: "\"alsoNotes\": [null]")]), "pads[0].alsoNotes[0]: null is not")
        assertError(try kit([pad(with: "\"alsoNotes\": 35")]), "pads[0].alsoNotes: 35 is not an array of MIDI notes")
        assertError(try kit([pad(with: "\"alsoNotes\": {\"kick\": 35}")]), "pads[0].alsoNotes: an object is not an array")
    }

    func testDuplicateAlsoNoteNamesBothPads() throws {
        // An also-note taken by another pad's main note, …
        let taken = assertError(try kit([pad(), pad("snare", note: 38, with: "\"alsoNotes\": [40, 36]")]),
                                "pads[1].alsoNotes[1]", "pads[0].note", "\"snare\"", "\"kick\"")
        XCTAssertEqual(taken?.reason, "pads[1].alsoNotes[1]: 36 (\"snare\") is also pads[0].note (\"kick\"); a note plays one pad")
        // … a main note taken by an earlier pad's also-note, …
        let main = assertError(try kit([pad(with: "\"alsoNotes\": [35]"), pad("kick2", note: 35)]))
        XCTAssertEqual(main?.reason, "pads[1].note: 35 (\"kick2\") is also pads[0].alsoNotes[0] (\"kick\"); a note plays one pad")
        // … and an also-note in two pads.
        let both = assertError(try kit([pad(with: "\"alsoNotes\": [35]"), pad("snare", note: 38, with: "\"alsoNotes\": [35]")]))
        XCTAssertEqual(both?.reason, "pads[1].alsoNotes[0]: 35 (\"snare\") is also pads[0].alsoNotes[0] (\"kick\"); a note plays one pad")
    }

    func testAlsoNotesRepeatingTheirOwnPad() throws {
        let main = assertError(try kit([pad(with: "\"alsoNotes\": [36]")]))
        XCTAssertEqual(main?.reason, "pads[0].alsoNotes[0]: 36 is already pads[0].note; list each note once")
        let twice = assertError(try kit([pad(with: "\"alsoNotes\": [35, 35]")]))
        XCTAssertEqual(twice?.reason, "pads[0].alsoNotes[1]: 35 is already pads[0].alsoNotes[0]; list each note once")
    }

    func testUnknownKeys() throws {
        assertError(try kit([pad(with: "\"volume\": 3")]), "pads[0].volume: unknown field", "chokeGroup")
        assertError(try kit([pad()], top: "\"tempo\": 120, "), "tempo: unknown field")
        // Case matters: a misspelt field is not the field.
        assertError(try kit([pad(with: "\"Gain\": 3")]), "pads[0].Gain: unknown field")
    }

    // MARK: The pads' files

    func testMissingFile() throws {
        let folder = try kit([pad(), pad("snare", file: "snare.wav", note: 38)])
        let error = assertError(folder, "pads[1].file: snare.wav: no such file")
        XCTAssertNotNil(error)
        try FileManager.default.createDirectory(atPath: folder.file("snare.wav"), withIntermediateDirectories: false)
        assertError(folder, "pads[1].file: snare.wav: is a folder")
    }

    func testGarbageBytesInAWav() throws {
        let folder = try kit([pad(), pad("snare", file: "snare.wav", note: 38)])
        var generator = SeededGenerator(state: 38)
        try folder.writeBytes("snare.wav", (0..<4_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let error = assertError(folder, "pads[1].file: snare.wav: ")
        // libsndfile's own reason follows the file name.
        XCTAssertGreaterThan(error?.reason.count ?? 0, "pads[1].file: snare.wav: ".count + 5)
    }

    func testATruncatedWav() throws {
        let folder = try kit([pad("snare", file: "snare.wav", note: 38)])
        try folder.writeHit("whole.wav")
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: folder.file("whole.wav"))))
        try folder.writeBytes("snare.wav", Array(bytes.prefix(30)))
        assertError(folder, "pads[0].file: snare.wav: ")
    }

    func testThreeChannels() throws {
        let folder = try kit([pad("surround", file: "surround.wav", note: 38)])
        try folder.writeAudio("surround.wav", channelCount: 3, [Float](repeating: 0.1, count: 3 * 100))
        assertError(folder, "pads[0].file: surround.wav: 3 channels")
    }

    func testZeroLength() throws {
        let folder = try kit([pad("empty", file: "empty.wav", note: 38)])
        try folder.writeAudio("empty.wav", [])
        assertError(folder, "pads[0].file: empty.wav: no audio frames")
    }

    func testTooShortForTheNewRate() throws {
        let folder = try kit([pad("tick", file: "tick.wav", note: 38)])
        try folder.writeAudio("tick.wav", sampleRate: 96_000, [0.5])
        assertError(folder, "pads[0].file: tick.wav: 1 frame at 96000 Hz is less than one frame at 8000 Hz", sampleRate: 8_000)
    }

    func testNonFiniteSampleValues() throws {
        for (value, text) in [(Float.nan, "nan"), (Float.infinity, "inf"), (-Float.infinity, "-inf")] {
            let folder = try kit([pad("bad", file: "bad.wav", note: 38)])
            var samples = hit(sampleRate: 48_000)
            samples[100] = value
            try folder.writeAudio("bad.wav", samples)
            assertError(folder, "pads[0].file: bad.wav: sample value \(text) at frame 100")
        }
    }

    func testValuesThatOverflowTheResampler() throws {
        let folder = try kit([pad("huge", file: "huge.wav", note: 38)])
        try folder.writeAudio("huge.wav", sampleRate: 44_100, [Float](repeating: .greatestFiniteMagnitude, count: 400))
        assertError(folder, "pads[0].file: huge.wav: sample values too large")
    }

    func testBadSampleRate() throws {
        let folder = try kit([pad()])
        for rate in [0, -48_000, .nan, .infinity] {
            assertError(folder, "the sample rate must be finite and positive", sampleRate: rate)
        }
    }

    /// Every truncation of a valid manifest is an error or a kit, never a crash.
    func testEveryTruncationOfAManifestFailsCleanly() throws {
        let folder = try kit([])
        try folder.writeHit("hat.wav")
        let text = "{\"name\": \"k\", \"pads\": [\(pad(with: "\"gain\": -3, \"voices\": 2")), \(pad("hat", file: "hat.wav", note: 42, with: "\"chokeGroup\": \"h\""))]}"
        let bytes = Array(text.utf8)
        for length in 0..<bytes.count {
            try folder.writeBytes("kit.json", Array(bytes.prefix(length)))
            assertError(folder)
        }
        try folder.writeBytes("kit.json", bytes)
        XCTAssertEqual(try DrumKitLoader.load(manifest: folder.manifest, sampleRate: rate).pads.count, 2)
    }
}
