import Foundation
import ManifestSupport
import XCTest

/// Strict JSON manifests: every mistake is one line naming the manifest and the field's path, in
/// the wording its kind of manifest uses, and a field that is absent or null is not given.
final class ManifestFileTests: XCTestCase {
    struct Pad: Equatable {
        var name: String
        var note: Int?
    }

    func parse(_ json: String, wording: JSONObject.Wording = .expectedFirst) throws(LoadError) -> [Pad] {
        try ManifestFile.decode(Data(json.utf8), path: "kit.json", expected: "a kit {\"pads\": …}", known: ["pads"], wording: wording) {
            kit throws(ManifestProblem) in
            try kit.objects("pads", expected: "a list of pads", each: "a pad {\"name\": …}", known: ["name", "note"]) {
                _, pad throws(ManifestProblem) in
                Pad(name: try pad.requiredString("name", expected: "a name"), note: try pad.integer("note", in: 0...127, expected: "a note 0-127"))
            } ?? []
        }
    }

    func testAGoodManifestReadsAndNullIsNotGiven() throws {
        XCTAssertEqual(try parse(#"{"pads": [{"name": "kick", "note": 36}, {"name": "snare", "note": null}]}"#),
                       [Pad(name: "kick", note: 36), Pad(name: "snare", note: nil)])
    }

    func testEachMistakeNamesTheManifestAndTheField() {
        func reason(_ json: String, wording: JSONObject.Wording = .expectedFirst) -> String {
            do { _ = try parse(json, wording: wording); return "no error" } catch { return error.description }
        }
        XCTAssertEqual(reason(#"{"pads": [{"name": "kick", "note": 128}]}"#), "kit.json: pads[0].note: expected a note 0-127, got 128")
        XCTAssertEqual(reason(#"{"pads": [{"name": "kick", "note": 128}]}"#, wording: .foundFirst), "kit.json: pads[0].note: 128 is not a note 0-127")
        XCTAssertEqual(reason(#"{"pads": [{"note": 36}]}"#), "kit.json: pads[0].name: missing")
        XCTAssertTrue(reason(#"{"pads": [], "voice": 1}"#).hasPrefix("kit.json: voice: unknown field (known fields: pads)"), reason(#"{"pads": [], "voice": 1}"#))
        XCTAssertTrue(reason(#"{"pads": [,]}"#).hasPrefix("kit.json: not valid JSON"), reason(#"{"pads": [,]}"#))
        XCTAssertTrue(reason(#"[1, 2]"#).hasPrefix("kit.json: "), reason(#"[1, 2]"#))
    }

    func testAFileThatIsNoRegularFileIsRefusedBeforeItIsRead() {
        XCTAssertThrowsError(try ManifestFile.read(path: "/tmp", expected: "a kit", known: [], wording: .expectedFirst) {
            _ throws(ManifestProblem) in 0
        }) { error in
            XCTAssertEqual(String(describing: error), "/tmp: is a directory, not a regular file")
        }
    }
}
