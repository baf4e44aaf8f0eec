import Foundation
import Render
import SoundFont
import TestSupport
import XCTest

/// Damaged files: every outcome must be a whole `SampleBank` or a `SoundFontError` that names the
/// file, a chunk and a byte offset; a crash fails the whole test run.
final class CorruptionTests: XCTestCase {
    typealias Op = SF2Builder.Op

    func small() throws -> [UInt8] { try [UInt8](Data(contentsOf: URL(fileURLWithPath: ShippedFontTests.drumsPath))) }
    func big() throws -> [UInt8] { try [UInt8](Data(contentsOf: URL(fileURLWithPath: ShippedFontTests.pianoPath))) }

    enum Outcome { case loaded, failed }

    /// Loads `bytes`, checking whichever outcome it is. Returns which it was.
    @discardableResult
    func check(_ bytes: [UInt8], name: String, _ context: @autoclosure () -> String,
               file: StaticString = #filePath, line: UInt = #line) -> Outcome {
        do {
            let bank = try SoundFontLoader.load(bytes: bytes, name: name, sampleRate: 48_000)
            // SampleBank.init has checked the pool and preset bounds already (it traps otherwise).
            XCTAssertEqual(bank.presetNames.count, bank.presets.count, context(), file: file, line: line)
            return .loaded
        } catch {
            let description = error.description
            XCTAssertTrue(description.hasPrefix("\(name): chunk '"), "\(context()): \(description)", file: file, line: line)
            XCTAssertTrue(description.contains(" at byte "), "\(context()): \(description)", file: file, line: line)
            XCTAssertFalse(error.reason.hasPrefix("internal"), "\(context()): \(description)", file: file, line: line)
            XCTAssertGreaterThanOrEqual(error.offset, 0, context(), file: file, line: line)
            XCTAssertLessThanOrEqual(error.offset, bytes.count, context(), file: file, line: line)
            if ProcessInfo.processInfo.environment["SF2_PRINT_ERRORS"] != nil { print("REJECTED", description) }
            return .failed
        }
    }

    /// The error `bytes` must produce.
    func expectError(_ bytes: [UInt8], name: String = "bad.sf2", file: StaticString = #filePath, line: UInt = #line,
                     _ verify: (SoundFontError) -> Void) {
        do {
            _ = try SoundFontLoader.load(bytes: bytes, name: name, sampleRate: 48_000)
            XCTFail("loaded a damaged file", file: file, line: line)
        } catch {
            XCTAssertTrue(error.description.hasPrefix("\(name): chunk '\(error.chunk)' at byte \(error.offset): "),
                          error.description, file: file, line: line)
            verify(error)
        }
    }

    /// Offsets of every chunk header and every chunk's data end in a RIFF file, walked by hand.
    static func chunkBoundaries(_ bytes: [UInt8]) -> [Int] {
        func u32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        var boundaries: [Int] = [0, 8, 12]
        func walk(_ start: Int, _ end: Int) {
            var position = start
            while position + 8 <= end {
                let id = String(decoding: bytes[position..<(position + 4)], as: UTF8.self)
                let size = u32(position + 4)
                boundaries += [position, position + 8, position + 8 + size]
                if id == "LIST" { boundaries.append(position + 12); walk(position + 12, position + 8 + size) }
                position += 8 + size + (size & 1)
            }
        }
        walk(12, 8 + u32(4))
        return boundaries
    }

    /// The file cut to `length` bytes, and the same cut with the RIFF size patched to match, so
    /// parsing goes on past the header check into the damaged chunk.
    func truncations(_ bytes: [UInt8], at length: Int) -> [[UInt8]] {
        var cut = Array(bytes.prefix(length))
        let raw = cut
        if cut.count >= 8 {
            let size = cut.count - 8
            for index in 0..<4 { cut[4 + index] = UInt8((size >> (8 * index)) & 0xff) }
            return [raw, cut]
        }
        return [raw]
    }

    func testTruncationAtEveryChunkBoundary() throws {
        for (bytes, name) in [(try small(), "small.sf2"), (try big(), "big.sf2")] {
            let points = Set(Self.chunkBoundaries(bytes).flatMap { [$0 - 1, $0, $0 + 1] }).filter { $0 >= 0 && $0 < bytes.count }
            XCTAssertGreaterThan(points.count, 60)
            for length in points.sorted() {
                let variants = truncations(bytes, at: length)
                XCTAssertEqual(check(variants[0], name: name, "\(name) cut at \(length)"), .failed, "a cut file has a RIFF size past its end")
                for variant in variants.dropFirst() { check(variant, name: name, "\(name) cut at \(length), size patched") }
            }
        }
    }

    func testTruncationAtRandomPoints() throws {
        var generator = SeededGenerator(state: 0x5F2_C0DE)
        for (bytes, name) in [(try small(), "small.sf2"), (try big(), "big.sf2")] {
            for _ in 0..<200 {
                let length = Int.random(in: 0..<bytes.count, using: &generator)
                for variant in truncations(bytes, at: length) { check(variant, name: name, "\(name) cut at \(length)") }
            }
        }
    }

    func testRandomByteFlipsMostlyInPdta() throws {
        var generator = SeededGenerator(state: 2_004)
        let bytes = try small()
        // The pdta list: the last LIST in the file (python: at 1021886 in the shipped font).
        let pdta = try XCTUnwrap(Self.chunkBoundaries(bytes).filter { bytes[$0..<min(bytes.count, $0 + 4)].elementsEqual("LIST".utf8) }.max())
        var outcomes = (loaded: 0, failed: 0)
        for iteration in 0..<2_000 {
            var damaged = bytes
            let flips = Int.random(in: 1...4, using: &generator)
            var flipped: [Int] = []
            for _ in 0..<flips {
                // Three in four in pdta (where the structure is), the rest anywhere (RIFF and
                // INFO headers included).
                let offset = Int.random(in: 0..<4, using: &generator) == 0
                    ? Int.random(in: 0..<bytes.count, using: &generator)
                    : Int.random(in: pdta..<bytes.count, using: &generator)
                damaged[offset] ^= UInt8.random(in: 1...255, using: &generator)
                flipped.append(offset)
            }
            switch check(damaged, name: "flipped.sf2", "iteration \(iteration), bytes \(flipped)") {
            case .loaded: outcomes.loaded += 1
            case .failed: outcomes.failed += 1
            }
        }
        // Both outcomes must be exercised for the test to mean anything.
        XCTAssertGreaterThan(outcomes.loaded, 100)
        XCTAssertGreaterThan(outcomes.failed, 100)
        print("byte flips: \(outcomes.loaded) loaded, \(outcomes.failed) rejected")
    }

    func testSyntheticFontFuzz() {
        // Every byte of a small synthetic font set to a few values: a denser search of pdta.
        let builder = SF2Builder.simple(instrumentGlobal: [SF2Builder.gen(Op.pan, 100)],
                                        instrumentZones: [[SF2Builder.range(Op.keyRange, 0, 60)], [SF2Builder.gen(Op.sampleModes, 1)]],
                                        presetGlobal: [SF2Builder.gen(Op.initialAttenuation, 10)], presetZones: [[]])
        let bytes = builder.build()
        for offset in 0..<bytes.count {
            for value: UInt8 in [0x00, 0x01, 0x7F, 0x80, 0xFF] where bytes[offset] != value {
                var damaged = bytes
                damaged[offset] = value
                check(damaged, name: "synthetic.sf2", "byte \(offset) set to \(value)")
            }
        }
    }

    // MARK: Specific damage

    func testEmptyFile() {
        expectError([]) { XCTAssertEqual($0.chunk, "RIFF"); XCTAssertEqual($0.offset, 0) }
    }

    func testNotRIFF() {
        expectError(Array("MThd\u{0}\u{0}\u{0}\u{6}\u{0}\u{1}\u{0}\u{2}".utf8)) { XCTAssertTrue($0.reason.contains("not a RIFF file"), $0.reason) }
    }

    func testRIFFButNotSfbk() {
        var bytes = SF2Builder.simple().build()
        bytes.replaceSubrange(8..<12, with: Array("WAVE".utf8))
        expectError(bytes) { XCTAssertEqual($0.offset, 8); XCTAssertTrue($0.reason.contains("'WAVE'"), $0.reason) }
    }

    func testChunkSizePastEndOfFile() {
        var bytes = SF2Builder.simple().build()
        bytes += [0, 0] // room for the RIFF size to grow while the LIST inside lies
        bytes[4] &+= 2
        let info = 12
        bytes[info + 4] = 0xFF
        bytes[info + 5] = 0xFF
        expectError(bytes) { error in
            XCTAssertEqual(error.chunk, "LIST")
            XCTAssertEqual(error.offset, info)
            XCTAssertTrue(error.reason.contains("runs past the end"), error.reason)
        }
        var riff = SF2Builder.simple().build()
        riff[5] = 0x7F
        expectError(riff) { XCTAssertEqual($0.chunk, "RIFF"); XCTAssertTrue($0.reason.contains("past the end of the file"), $0.reason) }
    }

    func testShdrSizeNotAMultipleOf46() {
        let bytes = SF2Builder.simple().build { chunks in
            chunks[8].data += [0, 0, 0, 0]
        }
        expectError(bytes) { error in
            XCTAssertEqual(error.chunk, "pdta/shdr")
            XCTAssertEqual(error.reason, "size 96 is not a multiple of 46")
            XCTAssertEqual(Array(bytes[error.offset..<(error.offset + 4)]), Array("shdr".utf8), "points at the chunk header")
        }
    }

    func testSampleEndPastSmpl() {
        let bytes = SF2Builder.simple().build { chunks in
            chunks[8].data[24] = 0xFF // end, low byte...
            chunks[8].data[26] = 0x01 // ...and third byte: far past the 1046 frames of smpl
        }
        expectError(bytes) { error in
            XCTAssertEqual(error.chunk, "pdta/shdr")
            XCTAssertTrue(error.reason.contains("'Ramp'"), error.reason)
            XCTAssertTrue(error.reason.contains("smpl"), error.reason)
        }
    }

    func testLoopStartAfterLoopEnd() {
        var sample = SF2Builder.rampSample()
        sample.loopStart = 900
        sample.loopEnd = 100
        expectError(SF2Builder.simple(sample: sample).build()) { XCTAssertTrue($0.reason.contains("loop start 900 is after loop end 100"), $0.reason) }
    }

    func testBagIndicesDecreasing() {
        let builder = SF2Builder.simple(instrumentZones: [[SF2Builder.range(Op.keyRange, 0, 10)], [SF2Builder.range(Op.keyRange, 11, 20)]])
        let bytes = builder.build { chunks in
            // ibag records: zone 0 at generator 0, zone 1 at 2, terminal at 4; make the end point back.
            chunks[5].data[8] = 1
        }
        expectError(bytes) { error in
            XCTAssertEqual(error.chunk, "pdta/ibag")
            XCTAssertTrue(error.reason.contains("below the previous"), error.reason)
        }
        let presetBags = builder.build { chunks in chunks[0].data[38 + 24] = 9 } // EOP's bag index past pbag
        expectError(presetBags) { XCTAssertEqual($0.chunk, "pdta/phdr"); XCTAssertTrue($0.reason.contains("past the last 'pbag'"), $0.reason) }
    }

    func testInstrumentIndexOutOfRange() {
        let bytes = SF2Builder.simple().build { chunks in
            chunks[3].data[2] = 3 // the preset zone's instrument generator amount
        }
        expectError(bytes) { error in
            XCTAssertEqual(error.chunk, "pdta/pgen")
            XCTAssertTrue(error.reason.contains("instrument index 3 is out of range (1 instruments)"), error.reason)
        }
    }

    func testSampleIDOutOfRange() {
        let bytes = SF2Builder.simple().build { chunks in chunks[7].data[2] = 1 }
        expectError(bytes) { XCTAssertEqual($0.chunk, "pdta/igen"); XCTAssertTrue($0.reason.contains("sample index 1"), $0.reason) }
    }

    func testMissingTablesAndTerminals() {
        expectError(SF2Builder.simple().build { $0.remove(at: 2) }) { XCTAssertTrue($0.reason.contains("no 'pmod'"), $0.reason) }
        expectError(SF2Builder.simple().build { $0[0].data.removeLast(38) }) { error in
            XCTAssertEqual(error.chunk, "pdta/phdr")
            XCTAssertTrue(error.reason.contains("at least 2"), error.reason)
        }
        expectError(SF2Builder.simple().build { $0[3].data.removeLast(4) }) { XCTAssertEqual($0.chunk, "pdta/pbag") }
    }

    func testVersionChecks() throws {
        var builder = SF2Builder.simple()
        // SF2 (2.x) and SF3 (3.x) load; SF3Tests covers version 3.
        builder.version = (4, 0)
        expectError(builder.build()) { error in
            XCTAssertEqual(error.chunk, "INFO/ifil")
            XCTAssertEqual(error.offset, 24, "the ifil header, first in INFO")
            XCTAssertTrue(error.reason.contains("neither 2.x (SF2) nor 3.x (SF3)"), error.reason)
        }
        XCTAssertEqual(try SoundFontLoader.info(bytes: builder.build(), name: "v4.sf2").version.major, 4, "info still reads it")
        var bytes = SF2Builder.simple().build()
        let ifil = 12 + 12
        bytes.replaceSubrange(ifil..<(ifil + 4), with: Array("xfil".utf8))
        expectError(bytes) { XCTAssertEqual($0.chunk, "INFO"); XCTAssertTrue($0.reason.contains("'ifil'"), $0.reason) }
    }

    func testProgramOutOfMIDIRange() {
        var builder = SF2Builder.simple()
        builder.presets[0].program = 200
        expectError(builder.build()) { XCTAssertEqual($0.chunk, "pdta/phdr"); XCTAssertTrue($0.reason.contains("program 200"), $0.reason) }
    }

    func testTrailingBytesAfterRIFFAreIgnored() throws {
        let bytes = SF2Builder.simple().build() + [1, 2, 3]
        XCTAssertEqual(try SoundFontLoader.load(bytes: bytes, name: "t.sf2", sampleRate: 48_000).regions.count, 1)
    }
}
