import Foundation
import Render
import SoundFont
import XCTest

/// The two fonts the project ships, loaded whole. Expected numbers come from an independent
/// reading of the files, `Tests/SoundFontTests/Scripts/shipped_font_facts.py` (it walks the RIFF
/// chunks, reads phdr/pbag/pgen/inst/ibag/igen/shdr with `struct.unpack`, treats a first zone
/// without its link generator as global, intersects key and velocity ranges, counts zones and
/// prints what key 60 at velocity 100 plays): `python3 Tests/SoundFontTests/Scripts/shipped_font_facts.py soundfonts/*.sf2`.
final class ShippedFontTests: XCTestCase {
    static let soundfonts = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("soundfonts")
    static let pianoPath = soundfonts.appendingPathComponent("FluidR3_GM_piano_xylo.sf2").path
    static let drumsPath = soundfonts.appendingPathComponent("sf_GMbank_piano_xylo_drums.sf2").path

    func presetList(_ bank: SampleBank) -> [String] {
        zip(bank.presets, bank.presetNames).map { "\($0.bank):\($0.program) \($1)" }
    }

    func regions(_ bank: SampleBank, bank midiBank: UInt16, program: UInt8) throws -> [SamplerRegion] {
        let preset = bank.presets[try XCTUnwrap(bank.presetIndex(bank: midiBank, program: program))]
        return Array(bank.regions[preset.firstRegion..<(preset.firstRegion + preset.regionCount)])
    }

    func sounding(_ regions: [SamplerRegion], key: UInt8, velocity: UInt8) -> [SamplerRegion] {
        regions.filter { $0.contains(key: key, velocity: velocity) }
    }

    /// Every region's sample range, loop and guard frames: the pool is zero for `guardFrameCount`
    /// frames before the earliest start and after the end of every sample slot (regions sharing an
    /// end share a slot; neither font moves sample ends), and loops lie inside the played range.
    func checkPoolLayout(_ bank: SampleBank, file: StaticString = #filePath, line: UInt = #line) {
        let guardFrames = SampleBank.guardFrameCount
        var slotStart: [Int: Int] = [:]
        for region in bank.regions {
            slotStart[region.end] = min(slotStart[region.end] ?? .max, region.start)
            XCTAssertLessThanOrEqual(region.start, region.end, file: file, line: line)
            XCTAssertGreaterThanOrEqual(region.loopStart, region.start, file: file, line: line)
            XCTAssertLessThanOrEqual(region.loopEnd, region.end, file: file, line: line)
            if region.loopMode != .none { XCTAssertLessThan(region.loopStart, region.loopEnd, file: file, line: line) }
        }
        XCTAssertTrue(bank.samples[0..<guardFrames].allSatisfy { $0 == 0 }, file: file, line: line)
        XCTAssertTrue(bank.samples[(bank.samples.frameCount - guardFrames)..<bank.samples.frameCount].allSatisfy { $0 == 0 }, file: file, line: line)
        for (end, start) in slotStart {
            XCTAssertGreaterThanOrEqual(start, guardFrames, file: file, line: line)
            XCTAssertLessThanOrEqual(end + guardFrames, bank.samples.frameCount, file: file, line: line)
            XCTAssertTrue(bank.samples[(start - guardFrames)..<start].allSatisfy { $0 == 0 }, "guard before \(start)", file: file, line: line)
            XCTAssertTrue(bank.samples[end..<(end + guardFrames)].allSatisfy { $0 == 0 }, "guard after \(end)", file: file, line: line)
        }
    }

    func testFluidPianoFont() throws {
        let bank = try SoundFontLoader.load(path: Self.pianoPath, sampleRate: 48_000)
        XCTAssertEqual(bank.name, "FluidR3_GM_piano_xylo.sf2")
        XCTAssertEqual(presetList(bank), ["0:0 Yamaha Grand Piano", "0:13 Xylophone"])
        // Python count: piano 10 preset zones (9 velocity layers after a global zone) × 40
        // instrument zones = 360; xylophone 180.
        XCTAssertEqual(bank.presets.map(\.regionCount), [360, 180])
        checkPoolLayout(bank)

        // Key 60, velocity 100: the velocity layer 97…104 of the piano plays 'P200 Piano D5(L)'
        // and '(R)' (overridingRootKey 62, sampleModes 1, pans -500/+500, 32 kHz).
        let piano = sounding(try regions(bank, bank: 0, program: 0), key: 60, velocity: 100)
        XCTAssertEqual(piano.count, 2)
        XCTAssertEqual(piano.map(\.pan), [-1, 1])
        for region in piano {
            XCTAssertEqual(region.rootKey, 62)
            XCTAssertEqual(region.sampleRate, 32_000)
            XCTAssertEqual(region.loopMode, .continuous)
            XCTAssertLessThan(region.loopStart, region.loopEnd)
            XCTAssertEqual([region.lowVelocity, region.highVelocity], [97, 104])
            XCTAssertEqual(region.end - region.start, 103_887, "shdr end - start of the D5 samples")
        }
        // The first frames of the left sample at +1000, as int16 read by the script.
        let left = piano[0]
        XCTAssertEqual(Array(bank.samples[(left.start + 1_000)..<(left.start + 1_005)]),
                       [-22_453, -23_789, -23_623, -20_227, -16_048].map { Float($0) / 32_768 })

        let xylophone = sounding(try regions(bank, bank: 0, program: 13), key: 60, velocity: 100)
        XCTAssertEqual(xylophone.count, 2)
        XCTAssertEqual(xylophone.map(\.rootKey), [60, 60])
        XCTAssertEqual(xylophone.map(\.sampleRate), [44_100, 44_100])
        XCTAssertEqual(xylophone.map(\.pan), [-1, 1])
    }

    func testGMBankFontWithDrums() throws {
        let bank = try SoundFontLoader.load(path: Self.drumsPath, sampleRate: 48_000)
        XCTAssertEqual(presetList(bank), ["0:0 Piano 1", "0:13 Xylophone", "128:0 Standard"])
        XCTAssertEqual(bank.presets.map(\.regionCount), [22, 12, 62])
        checkPoolLayout(bank)
        XCTAssertTrue(bank.regions.allSatisfy { $0.sampleRate == 44_100 })

        let piano = sounding(try regions(bank, bank: 0, program: 0), key: 60, velocity: 100)
        XCTAssertEqual(piano.map(\.rootKey), [76])
        XCTAssertEqual(piano.map(\.loopMode), [.continuous])
        XCTAssertEqual(piano[0].end - piano[0].start, 26_499)
        XCTAssertEqual(piano[0].loopEnd - piano[0].loopStart, 26_491 - 25_387)
        XCTAssertEqual(Array(bank.samples[(piano[0].start + 1_000)..<(piano[0].start + 1_005)]),
                       [-300, -3_147, -2_072, 2_826, 1_767].map { Float($0) / 32_768 })

        XCTAssertEqual(sounding(try regions(bank, bank: 0, program: 13), key: 60, velocity: 100).map(\.rootKey), [79, 79])

        let drum = sounding(try regions(bank, bank: 128, program: 0), key: 60, velocity: 100)
        XCTAssertEqual(drum.count, 1, "E Bongo Rim")
        XCTAssertEqual(drum[0].rootKey, 74)
        XCTAssertEqual(drum[0].loopMode, .none)
        XCTAssertEqual(drum[0].pan, 256.0 / 500, accuracy: 1e-6)
        XCTAssertTrue(try regions(bank, bank: 128, program: 0).contains { $0.exclusiveClass != 0 }, "hi-hats share a class")
    }

    func testInfoOfShippedFonts() throws {
        let piano = try SoundFontLoader.info(path: Self.pianoPath)
        XCTAssertEqual(piano.version.major, 2)
        XCTAssertNotNil(piano.name)
        XCTAssertNotNil(piano.copyright)
        let drums = try SoundFontLoader.info(path: Self.drumsPath)
        XCTAssertEqual(drums.version.major, 2)
    }

    func testMissingFileIsAnError() {
        XCTAssertThrowsError(try SoundFontLoader.load(path: "/nonexistent/dir/absent.sf2", sampleRate: 48_000)) { error in
            let description = String(describing: error)
            // The file as a whole: named by the path given, with no chunk or byte inside it.
            XCTAssertEqual(description, "/nonexistent/dir/absent.sf2: cannot open: No such file or directory")
        }
    }

    /// The 9.6 MB font loads; its time is printed, and measured where it means something, in a
    /// release build beside FluidSynth (`staccato-bench fonts`). The bound only catches a load that
    /// has gone pathological, far beyond what a loaded CI host adds.
    func testBigFontLoadsInBoundedTime() throws {
        let start = Date()
        _ = try SoundFontLoader.load(path: Self.pianoPath, sampleRate: 48_000)
        let seconds = Date().timeIntervalSince(start)
        print("FluidR3_GM_piano_xylo.sf2 loaded in \(String(format: "%.3f", seconds)) s")
        XCTAssertLessThan(seconds, 60)
    }
}
