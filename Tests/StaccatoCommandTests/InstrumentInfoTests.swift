import Foundation
import TestSupport
import XCTest

/// `staccato info` on the instruments that are not SoundFonts: a sample set (its folder or its
/// samples.json) and a drum kit (its kit.json), told apart by what the file holds.
final class InstrumentInfoTests: XCTestCase {
    var folder = ""

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: CommandRunner.staccatoExecutable.path) else {
            XCTFail("build the staccato executable first (swift build)")
            throw XCTSkip("no staccato executable")
        }
        folder = TestDevices.temporaryFile("info")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: folder) }

    static let drums = CommandRunner.repositoryRoot.appendingPathComponent("samples/drums")

    /// A sample set of two of the shipped drum recordings (44100 Hz stereo), one named by its
    /// root and one placed by the manifest.
    func makeSampleSet() throws -> String {
        let set = folder + "/set"
        try FileManager.default.createDirectory(atPath: set, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.drums.appendingPathComponent("kick.wav").path, toPath: set + "/C2.wav")
        try FileManager.default.copyItem(atPath: Self.drums.appendingPathComponent("snare.wav").path, toPath: set + "/snare.wav")
        try Data(#"{"name": "Two", "samples": [{"file": "snare.wav", "root": "G4", "lowVelocity": 10}]}"#.utf8)
            .write(to: URL(fileURLWithPath: set + "/samples.json"))
        return set
    }

    func testASampleSetListsItsNotesWithTheirFiles() throws {
        let set = try makeSampleSet()
        for path in [set, set + "/samples.json"] {
            let result = try CommandRunner.staccato(["info", path])
            XCTAssertEqual(result.exitCode, 0, result.standardError)
            let lines = result.standardOutput.split(separator: "\n").map(String.init)
            XCTAssertEqual(lines.first, "\(path): sample set \"Two\" (manifest \(set)/samples.json)")
            XCTAssertTrue(lines.contains("notes: 2"), result.standardOutput)
            XCTAssertTrue(lines.contains("  C2 (36)  keys 0-51, velocities 0-127  C2.wav: 12462 frames, 44100 Hz, stereo"), result.standardOutput)
            XCTAssertTrue(lines.contains("  G4 (67)  keys 52-127, velocities 10-127  snare.wav: 20640 frames, 44100 Hz, stereo"), result.standardOutput)
            XCTAssertTrue(lines.contains { $0.hasPrefix("sample data: 33102 frames in 2 files, ") && $0.hasSuffix(" bytes on disk") }, result.standardOutput)
            // Mixed to mono at 48 kHz: 12462 and 20640 frames at 44100 Hz become about 36000.
            XCTAssertTrue(lines.contains { $0.hasPrefix("loaded: ") && $0.contains(" mono sample frames as float at 48000 Hz, 2 regions)") },
                          result.standardOutput)
        }

        let json = try CommandRunner.staccato(["info", set, "--json"])
        XCTAssertEqual(json.exitCode, 0, json.standardError)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        XCTAssertEqual(object["format"] as? String, "sample set")
        XCTAssertEqual(object["name"] as? String, "Two")
        let notes = try XCTUnwrap(object["notes"] as? [[String: Any]])
        XCTAssertEqual(notes.map { $0["name"] as? String }, ["C2", "G4"])
        XCTAssertEqual(notes.map { $0["number"] as? Int }, [36, 67])
        XCTAssertEqual(notes.map { $0["frames"] as? Int }, [12462, 20640])
        XCTAssertEqual(notes.map { $0["sample_rate"] as? Int }, [44100, 44100])
        XCTAssertEqual(notes.map { $0["channels"] as? Int }, [2, 2])
        XCTAssertEqual(notes.map { $0["file"] as? String }, [set + "/C2.wav", set + "/snare.wav"])
        XCTAssertEqual(object["sample_frames"] as? Int, 33102)
        let loadedFrames = try XCTUnwrap(object["loaded_sample_frames"] as? Int)
        XCTAssertEqual(Double(loadedFrames), 33102 * 48_000 / 44_100, accuracy: 100, "resampled to 48 kHz, with guard frames")
        XCTAssertGreaterThanOrEqual(object["loaded_bytes"] as? Int ?? 0, loadedFrames * 4)
    }

    func testADrumKitListsItsPadsWithTheirNotesAndFiles() throws {
        let kit = Self.drums.appendingPathComponent("kit.json").path
        let result = try CommandRunner.staccato(["info", kit])
        XCTAssertEqual(result.exitCode, 0, result.standardError)
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "\(kit): drum kit \"Standard\"")
        XCTAssertTrue(lines.contains("pads: 7"), result.standardOutput)
        XCTAssertTrue(lines.contains("  kick  notes C2 (36), B1 (35)  gain 0.0 dB, 4 voices  kick.wav: 12462 frames, 44100 Hz, stereo"), result.standardOutput)
        XCTAssertTrue(lines.contains { $0.hasPrefix("  hihat_open  notes A#2 (46)  gain -2.0 dB, 4 voices, choke group 1  hihat_open.wav: ") },
                      result.standardOutput)
        XCTAssertTrue(lines.contains { $0.hasPrefix("loaded: ") && $0.hasSuffix(" stereo sample frames as float at 48000 Hz)") }, result.standardOutput)

        let json = try CommandRunner.staccato(["info", kit, "--json"])
        XCTAssertEqual(json.exitCode, 0, json.standardError)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        XCTAssertEqual(object["format"] as? String, "drum kit")
        let pads = try XCTUnwrap(object["pads"] as? [[String: Any]])
        XCTAssertEqual(pads.count, 7)
        XCTAssertEqual(pads[0]["name"] as? String, "kick")
        XCTAssertEqual((pads[0]["notes"] as? [[String: Any]])?.map { $0["number"] as? Int }, [36, 35])
        XCTAssertEqual(pads[0]["frames"] as? Int, 12462)
        XCTAssertEqual(pads[0]["channels"] as? Int, 2)
        XCTAssertEqual(object["files"] as? Int, 7)
        let loadedFrames = try XCTUnwrap(object["loaded_sample_frames"] as? Int)
        XCTAssertGreaterThan(loadedFrames, object["sample_frames"] as? Int ?? .max, "resampled up to 48 kHz")
        XCTAssertEqual(object["loaded_bytes"] as? Int ?? 0, loadedFrames * 2 * 4, accuracy: 7 * 256)
    }

    /// Every kind of bad input: one line naming the file and what is wrong, exit 1.
    func testBadInstrumentsAreOneLineErrors() throws {
        func write(_ name: String, _ text: String) throws -> String {
            let path = folder + "/" + name
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            return path
        }
        let neither = try write("neither.json", #"{"name": "x"}"#)
        let broken = try write("broken.json", #"{"pads": [}"#)
        let renamed = try write("grand.json", #"{"samples": []}"#)
        let missingPad = try write("kit.json", #"{"pads": [{"name": "kick", "file": "nowhere.wav", "note": 36}]}"#)
        let notAudio = try write("not-audio.wav", "text")
        let badPad = try write("bad-kit.json", #"{"pads": [{"name": "kick", "file": "not-audio.wav", "note": 36}]}"#)
        let empty = folder + "/empty"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let cases: [(String, String)] = [
            (neither, "\(neither): JSON, but neither a drum kit (no \"pads\") nor a sample set manifest (no \"samples\")"),
            (broken, "\(broken): not valid JSON: "),
            (renamed, "\(renamed): a sample set manifest (it has \"samples\"), but a sample set reads it only as samples.json in its folder"),
            (missingPad, "\(missingPad): pads[0].file: nowhere.wav: no such file"),
            (badPad, "\(badPad): pads[0].file: not-audio.wav: "),
            (empty, "\(empty): no audio files (.wav, .flac, .ogg)"),
        ]
        _ = notAudio
        for (path, start) in cases {
            let result = try CommandRunner.staccato(["info", path])
            XCTAssertEqual(result.exitCode, 1, "\(path): \(result.standardOutput)\(result.standardError)")
            XCTAssertEqual(result.errorLines.count, 1, result.standardError)
            XCTAssertTrue(result.errorLines.first?.hasPrefix("staccato: " + start) ?? false, "\(start) in \(result.standardError)")
            XCTAssertEqual(result.standardOutput, "", path)
        }
    }
}
