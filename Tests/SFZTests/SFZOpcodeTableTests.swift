import Foundation
@testable import SampleSet
@testable import SFZ
import TestSupport
import XCTest

/// The one table of SFZ opcodes (`SFZOpcodes`): what docs/SFZ.md says is what the loader does,
/// and every opcode the public libraries in the fixtures use is one it knows.
final class SFZOpcodeTableTests: XCTestCase {
    func testNumbersReadAsN() {
        XCTAssertEqual(SFZOpcodes.pattern(of: "ampeg_attack_oncc67"), "ampeg_attack_onccN")
        XCTAssertEqual(SFZOpcodes.pattern(of: "lfo02_eq1gain_oncc115"), "lfoN_eqNgain_onccN")
        XCTAssertEqual(SFZOpcodes.pattern(of: "sample"), "sample")
    }

    func testTheTableSaysWhatTheLoaderDoes() {
        XCTAssertEqual(SFZOpcodes.status(of: "ampeg_sustain_oncc103"), .played)
        XCTAssertEqual(SFZOpcodes.status(of: "pan_curvecc10"), .played)
        XCTAssertEqual(SFZOpcodes.status(of: "sw_label"), .named)
        XCTAssertEqual(SFZOpcodes.status(of: "eg01_time2"), .played)
        XCTAssertEqual(SFZOpcodes.status(of: "lfo1_cutoff2"), .notPlayed, "the second filter's")
        XCTAssertEqual(SFZOpcodes.status(of: "lfo1_pitch_oncc300"), .notPlayed, "a controller above 127")
        XCTAssertEqual(SFZOpcodes.status(of: "eg1_loop"), .notPlayed)
        XCTAssertNil(SFZOpcodes.status(of: "mystery"))
        // A played opcode the table also lists as not played would say two things.
        for pattern in SFZOpcodes.notPlayed.keys {
            XCTAssertFalse(SFZPlan.playedPatterns.contains(pattern), "\(pattern) is both played and not played")
        }
    }

    /// docs/SFZ.md is the table as the loader has it (`scripts/cli-reference` writes it).
    func testTheOpcodePageIsCurrent() throws {
        let page = try String(contentsOf: CommandRunner.repositoryRoot.appendingPathComponent("docs/SFZ.md"), encoding: .utf8)
        XCTAssertEqual(page, SFZOpcodes.markdown, "docs/SFZ.md is stale: run scripts/cli-reference")
    }

    /// Every opcode of every region of the public libraries (their whole text, includes read) is
    /// one the loader knows: played, read for its name, or known and not played yet.
    func testEveryOpcodeThePublicLibrariesUseIsKnown() throws {
        let root = CommandRunner.repositoryRoot.appendingPathComponent("Tests/Fixtures/sfz-libraries").path
        let files = (FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []).filter { $0.lowercased().hasSuffix(".sfz") }
        XCTAssertGreaterThan(files.count, 100)
        var unknown: [String: String] = [:]
        for file in files {
            let path = root + "/" + file, folder = (path as NSString).deletingLastPathComponent
            let text = SFZText(text: SFZPlan.text(of: try Data(contentsOf: URL(fileURLWithPath: path))), path: path) { name in
                SFZPlan.resolve(name, in: folder).flatMap { FileManager.default.contents(atPath: $0) }.map(SFZPlan.text(of:))
            }
            for region in text.regions {
                for opcode in region.opcodes.keys where SFZOpcodes.status(of: opcode) == nil { unknown[opcode] = file }
            }
        }
        XCTAssertEqual(unknown.keys.sorted(), [], "unknown opcodes, with a file that uses each: \(unknown)")
    }
}
