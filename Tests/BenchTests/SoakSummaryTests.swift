import Foundation
import TestSupport
import XCTest

/// `staccato-bench soak` ends with a readable table, and its --json report is unchanged.
final class SoakSummaryTests: XCTestCase {
    override func setUpWithError() throws { try TestDevices.require() }

    func testSoakSummaryIsAnAlignedTableWithUnits() throws {
        let jsonPath = TestDevices.temporaryFile("soak.json")
        defer { unlink(jsonPath) }
        let result = try CommandRunner.bench(["soak", "--seconds", "2", "--json", jsonPath], timeout: 60)
        XCTAssertEqual(result.exitCode, 0, result.standardError)
        XCTAssertFalse(result.standardOutput.contains("(key:"), "no raw Swift dictionary: \(result.standardOutput)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        let heading = try XCTUnwrap(lines.firstIndex(of: "soak summary:"), result.standardOutput)
        let rows = Array(lines[(heading + 1)...])
        XCTAssertGreaterThan(rows.count, 15, result.standardOutput)
        // Values end in one column: the first number on each row ends at the same place.
        let valueEnds = Set(rows.map { row -> Int in
            let digits = row.indices.filter { row[$0].isNumber }
            let lastOfFirstNumber = row[digits.first!...].firstIndex { !$0.isNumber && $0 != "." } ?? row.endIndex
            return row.distance(from: row.startIndex, to: lastOfFirstNumber)
        })
        XCTAssertEqual(valueEnds.count, 1, "values aligned:\n\(rows.joined(separator: "\n"))")
        for (name, unit) in [("frames played", "frames"), ("VmRSS at end", "KiB"), ("VmRSS slope", "KiB/min"), ("duration", "s")] {
            XCTAssertTrue(rows.contains { $0.hasPrefix("  \(name) ") && $0.hasSuffix(" \(unit)") }, "\(name) in \(unit):\n\(rows.joined(separator: "\n"))")
        }
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: jsonPath))) as? [String: Any])
        XCTAssertEqual(report["benchmark"] as? String, "soak")
        XCTAssertNotNil(report["gestures"] as? [String: Int], "gestures stay a JSON object")
        XCTAssertNotNil(report["framesPlayed"] as? Int)
    }
}
