import AudioFile
import Foundation
import Render
import SampleSet
import TestSupport
import XCTest

/// Whole folders through the loader: formats and rates, key mapping, the manifest, and every
/// error naming what is at fault.
final class SampleSetLoaderTests: XCTestCase {
    let rate = 48_000.0

    /// The frames of `region`'s sample in the pool.
    func frames(of region: SamplerRegion, in bank: SampleBank) -> [Float] {
        Array(bank.samples[region.start ..< region.end])
    }

    func region(rootKey: Double, in bank: SampleBank) -> SamplerRegion? {
        bank.regions.first { $0.rootKey == rootKey }
    }

    /// The loader's error for `directory`, or a failure when it loads.
    func loadError(_ directory: String, file: StaticString = #filePath, line: UInt = #line) -> SampleSetError? {
        do {
            _ = try SampleSetLoader.load(directory: directory, sampleRate: rate)
            XCTFail("loaded, expected an error", file: file, line: line)
            return nil
        } catch {
            XCTAssertFalse(error.description.contains("\n"), "one line: \(error)", file: file, line: line)
            XCTAssertEqual(error.description, "\(error.path): \(error.reason)", file: file, line: line)
            return error
        }
    }

    // MARK: Formats, rates and key mapping

    func testMixedFormatsRatesAndChannelsLoadIntoOneBank() throws {
        let folder = try TemporaryFolder(self)
        try folder.writeSine("A4.wav", frequency: 440, sampleRate: 44_100)
        try folder.writeSine("C5.flac", frequency: 523.251_130_6, sampleRate: 22_050)
        try folder.writeSine("piano_48.ogg", frequency: 130.812_782_7, sampleRate: 48_000)
        try folder.writeSine("E2.wav", frequency: 82.406_889, sampleRate: 32_000, channelCount: 2, rightScale: 0.5)
        try folder.writeText("notes.txt", "not audio, ignored")
        let bank = try SampleSetLoader.load(directory: folder.path, sampleRate: rate)

        XCTAssertEqual(bank.regions.map(\.rootKey), [40, 48, 69, 72], "one mono region per file, sorted by root")
        // Nearest root: 40|48 split at 44, 48|69 at 58.5, 69|72 at 70.5; the ends reach 0 and 127.
        XCTAssertEqual(bank.regions.map { $0.lowKey...$0.highKey }, [0...44, 45...58, 59...70, 71...127])
        XCTAssertEqual(bank.presets.count, 1)
        XCTAssertEqual(bank.presets[0], SampleBank.Preset(bank: 0, program: 0, firstRegion: 0, regionCount: 4))
        XCTAssertEqual(bank.presetNames, [URL(fileURLWithPath: folder.path).lastPathComponent])
        XCTAssertEqual(bank.name, folder.path)

        let sourceRates: [Double] = [32_000, 48_000, 44_100, 22_050]
        for (region, sourceRate) in zip(bank.regions, sourceRates) {
            XCTAssertEqual(region.sampleRate, rate)
            XCTAssertEqual(Double(region.end - region.start), sourceRate * rate / sourceRate, accuracy: 1, "one second at any source rate")
            XCTAssertEqual(region.lowVelocity...region.highVelocity, 0...127)
            XCTAssertEqual(region.loopMode, .none)
            XCTAssertEqual(region.loopStart, region.start)
            XCTAssertEqual(region.loopEnd, region.end)
            XCTAssertEqual(region.tuneCents, 0)
            XCTAssertEqual(region.attenuationCentibels, 0)
            XCTAssertEqual(region.pan, 0)
            XCTAssertEqual(region.volumeEnvelope.attack, 0.002)
            XCTAssertEqual(region.volumeEnvelope.sustainLevel, 1)
            XCTAssertEqual(region.volumeEnvelope.release, 0.25)
            let guardFrames = SampleBank.guardFrameCount
            XCTAssertTrue(bank.samples[region.start - guardFrames ..< region.start].allSatisfy { $0 == 0 }, "guard before")
            XCTAssertTrue(bank.samples[region.end ..< region.end + guardFrames].allSatisfy { $0 == 0 }, "guard after")
        }
        XCTAssertEqual(bank.regions[0].start, SampleBank.guardFrameCount)
        XCTAssertEqual(bank.samples.frameCount, bank.regions.last!.end + SampleBank.guardFrameCount)
    }

    func testResampledSinesKeepTheirPitch() throws {
        let folder = try TemporaryFolder(self)
        try folder.writeSine("A4.wav", frequency: 440, sampleRate: 44_100)
        try folder.writeSine("C5.flac", frequency: 523.251_130_6, sampleRate: 22_050)
        try folder.writeSine("piano_48.ogg", frequency: 130.812_782_7, sampleRate: 44_100)
        let bank = try SampleSetLoader.load(directory: folder.path, sampleRate: rate)

        // (root, frequency written, tolerance): the lossless files exactly; Vorbis is lossy.
        for (root, frequency, tolerance) in [(69.0, 440.0, 0.01), (72, 523.251_130_6, 0.01), (48, 130.812_782_7, 0.05)] {
            let samples = frames(of: try XCTUnwrap(region(rootKey: root, in: bank)), in: bank)
            let measured = try XCTUnwrap(SignalAnalysis.frequency(of: samples[1_000 ..< samples.count - 1_000], sampleRate: rate))
            XCTAssertEqual(measured, frequency, accuracy: tolerance, "root \(root)")
        }
    }

    func testStereoIsMixedToMono() throws {
        let folder = try TemporaryFolder(self)
        try folder.writeSine("E2.wav", frequency: 82.406_889, sampleRate: 48_000, amplitude: 0.5, channelCount: 2, rightScale: 0.5)
        let bank = try SampleSetLoader.load(directory: folder.path, sampleRate: rate)
        XCTAssertEqual(bank.regions.count, 1)
        let samples = frames(of: bank.regions[0], in: bank)
        XCTAssertEqual(samples.count, 48_000, "48 kHz in, 48 kHz out: not resampled")
        XCTAssertEqual(amplitude(of: samples[...], frequency: 82.406_889, sampleRate: rate), 0.375, accuracy: 1e-4,
                       "(0.5 + 0.25) / 2")
    }

    func testAKeyMidwayBetweenRootsPlaysTheLowerSample() throws {
        let folder = try TemporaryFolder(self)
        for name in ["C4.wav", "D4.wav", "E4.wav", "G4.wav"] {
            try folder.writeSine(name, frequency: 300, sampleRate: 48_000, seconds: 0.05)
        }
        let bank = try SampleSetLoader.load(directory: folder.path, sampleRate: rate)
        // 61 is midway between 60 and 62: C4. 65.5 is midway between 64 and 67: 65 → E4, 66 → G4.
        XCTAssertEqual(bank.regions.map { $0.lowKey...$0.highKey }, [0...61, 62...63, 64...65, 66...127])
    }

    func testSamplesSharingARootShareItsRange() throws {
        let folder = try TemporaryFolder(self)
        for name in ["C4_soft.wav", "C4_loud.wav", "C5.wav"] {
            try folder.writeSine(name, frequency: 300, sampleRate: 48_000, seconds: 0.05)
        }
        let bank = try SampleSetLoader.load(directory: folder.path, sampleRate: rate)
        XCTAssertEqual(bank.regions.map(\.rootKey), [60, 60, 72])
        XCTAssertEqual(bank.regions.map { $0.lowKey...$0.highKey }, [0...66, 0...66, 67...127])
    }

    // MARK: Manifest

    func testManifestSetsRootsRangesLevelsLoopsAndName() throws {
        let folder = try TemporaryFolder(self)
        try folder.writeSine("C4.wav", frequency: 261.63, sampleRate: 44_100)
        try folder.writeSine("soft.wav", frequency: 392, sampleRate: 44_100)
        try folder.writeSine("E5.wav", frequency: 659.26, sampleRate: 44_100)  // not listed: root from its name
        try folder.writeText("samples.json", """
            {"name": "Test Piano", "release": 0.5, "samples": [
              {"file": "soft.wav", "root": "G4", "lowVelocity": 1, "highVelocity": 63, "tune": -12.5, "gain": -6,
               "loopStart": 4410, "loopEnd": 8820},
              {"file": "C4.wav", "root": 60, "lowKey": "C-1", "highKey": 64}
            ]}
            """)
        let bank = try SampleSetLoader.load(directory: folder.path, sampleRate: rate)
        XCTAssertEqual(bank.presetNames, ["Test Piano"])
        XCTAssertEqual(bank.regions.map(\.rootKey), [60, 67, 76])
        XCTAssertTrue(bank.regions.allSatisfy { $0.volumeEnvelope.release == 0.5 })

        let c4 = bank.regions[0], g4 = bank.regions[1], e5 = bank.regions[2]
        XCTAssertEqual(c4.lowKey...c4.highKey, 0...64, "explicit range")
        XCTAssertEqual(g4.lowKey...g4.highKey, 64...71, "computed from the roots 60, 67, 76")
        XCTAssertEqual(e5.lowKey...e5.highKey, 72...127)

        XCTAssertEqual(g4.lowVelocity...g4.highVelocity, 1...63)
        XCTAssertEqual(g4.tuneCents, -12.5)
        XCTAssertEqual(g4.attenuationCentibels, 60, "-6 dB is 60 cB of attenuation")
        XCTAssertEqual(g4.loopMode, .continuous)
        XCTAssertEqual(g4.loopStart - g4.start, 4_800, "0.1 s at 44.1 kHz is 4800 frames at 48 kHz")
        XCTAssertEqual(g4.loopEnd - g4.start, 9_600)
        XCTAssertEqual(c4.loopMode, .none)
        XCTAssertEqual(c4.lowVelocity...c4.highVelocity, 0...127)
    }

    func testManifestMistakesNameTheField() throws {
        let cases: [(manifest: String, reason: String)] = [
            (#"{"samples": [{"file": "C4.wav", "root": 200}]}"#,
             "samples[0].root: expected a MIDI key 0-127 or a note name, got 200"),
            (#"{"samples": [{"file": "C4.wav"}, {"file": "C4.wav", "root": "H4"}]}"#,
             #"samples[1].root: expected a MIDI key 0-127 or a note name, got "H4""#),
            (#"{"nmae": "Piano"}"#, "nmae: unknown field (known fields: name, release, samples)"),
            (#"{"samples": [{"file": "C4.wav", "hiKey": 70}]}"#, "samples[0].hiKey: unknown field"),
            (#"{"samples": [{"file": "C9.wav"}]}"#, #"samples[0].file: no file "C9.wav""#),
            (#"{"samples": [{"root": 60}]}"#, "samples[0].file: missing"),
            (#"{"release": -1}"#, "release: expected a number of seconds ≥ 0, got -1"),
            (#"{"name": 3}"#, "name: expected a non-empty string, got 3"),
            (#"{"samples": {"file": "C4.wav"}}"#, "samples: expected an array of sample entries, got an object"),
            (#"{"samples": [5]}"#, "samples[0]: expected an object {…}, got 5"),
            (#"[]"#, "expected an object {…}, got an array"),
            (#"{"samples": [{"file": "C4.wav", "lowKey": 70, "highKey": 60}]}"#, "samples[0].highKey: 60 is below lowKey 70"),
            (#"{"samples": [{"file": "C4.wav", "lowKey": 70}]}"#, "samples[0].lowKey: key range 70...66"),
            (#"{"samples": [{"file": "C4.wav"}, {"file": "C5.wav", "highKey": 40}]}"#, "samples[1].highKey: key range 67...40"),
            (#"{"samples": [{"file": "C4.wav", "highVelocity": 128}]}"#, "samples[0].highVelocity: expected a velocity 0-127, got 128"),
            (#"{"samples": [{"file": "C4.wav", "tune": "sharp"}]}"#, #"samples[0].tune: expected a number of cents, got "sharp""#),
            (#"{"samples": [{"file": "C4.wav", "loopStart": 10}]}"#, "samples[0].loopEnd: missing"),
            (#"{"samples": [{"file": "C4.wav", "loopStart": 10, "loopEnd": 10}]}"#, "samples[0].loopEnd: 10 is not after loopStart 10"),
            (#"{"samples": [{"file": "C4.wav", "loopStart": 1.5, "loopEnd": 10}]}"#, "samples[0].loopStart: expected a frame number ≥ 0, got 1.5"),
            (#"{"samples": [{"file": "C4.wav", "loopStart": 0, "loopEnd": 4801}]}"#, "samples[0].loopEnd: 4801 is past the end of C4.wav (4800 frames)"),
            (#"{"samples": [{"file": "C4.wav"}"#, "not valid JSON"),
        ]
        for (manifest, reason) in cases {
            let folder = try TemporaryFolder(self)
            try folder.writeSine("C4.wav", frequency: 261.63, sampleRate: 48_000, seconds: 0.1)
            try folder.writeSine("C5.wav", frequency: 523.25, sampleRate: 48_000, seconds: 0.1)
            try folder.writeText("samples.json", manifest)
            guard let error = loadError(folder.path) else { continue }
            XCTAssertEqual(error.path, folder.file("samples.json"), manifest)
            XCTAssertTrue(error.reason.hasPrefix(reason), "\(manifest)\n  got:      \(error.reason)\n  expected: \(reason)…")
        }
    }

    // MARK: Errors naming the culprit

    func testAFileWithoutARootIsNamed() throws {
        let folder = try TemporaryFolder(self)
        try folder.writeSine("C4.wav", frequency: 261.63, sampleRate: 48_000, seconds: 0.1)
        try folder.writeSine("strings.wav", frequency: 261.63, sampleRate: 48_000, seconds: 0.1)
        let error = try XCTUnwrap(loadError(folder.path))
        XCTAssertEqual(error.path, folder.file("strings.wav"))
        XCTAssertTrue(error.reason.contains("root key"), error.reason)

        // Listed in the manifest without a root, the manifest field is suggested too.
        try folder.writeText("samples.json", #"{"samples": [{"file": "strings.wav"}]}"#)
        let listed = try XCTUnwrap(loadError(folder.path))
        XCTAssertEqual(listed.path, folder.file("strings.wav"))
        XCTAssertTrue(listed.reason.contains("samples[0].root"), listed.reason)
    }

    func testAFolderWithoutAudioIsAnError() throws {
        let folder = try TemporaryFolder(self)
        XCTAssertEqual(loadError(folder.path), SampleSetError(path: folder.path, reason: "no audio files (.wav, .flac, .ogg)"))
        try folder.writeText("README.txt", "no samples here")
        try folder.writeText(".hidden.wav", "not even audio")
        XCTAssertEqual(loadError(folder.path)?.reason, "no audio files (.wav, .flac, .ogg)")
        XCTAssertEqual(loadError(folder.file("missing")), SampleSetError(path: folder.file("missing"), reason: "no such folder"))
    }

    func testACorruptFileIsNamed() throws {
        let folder = try TemporaryFolder(self)
        try folder.writeSine("C4.wav", frequency: 261.63, sampleRate: 48_000, seconds: 0.1)
        try Data((0..<4_096).map { UInt8(truncatingIfNeeded: $0 &* 7_919 &+ 13) }).write(to: URL(fileURLWithPath: folder.file("E4.wav")))
        let error = try XCTUnwrap(loadError(folder.path))
        XCTAssertEqual(error.path, folder.file("E4.wav"))
        XCTAssertFalse(error.reason.isEmpty)
    }
}
