import AudioFile
import DrumKitLoader
import Foundation
import Render
import SampleSet
import TestSupport
import XCTest

/// The kit the project ships (`samples/drums/kit.json`), loaded at a rate its files were not
/// recorded at, checked against the files read and resampled independently.
final class ShippedKitTests: XCTestCase {
    static let folder = CommandRunner.repositoryRoot.appendingPathComponent("samples/drums")
    static let manifest = folder.appendingPathComponent("kit.json").path
    static let rate = 48_000.0
    /// Loaded once for all the tests: resampling 15 s of stereo takes seconds in a debug build.
    static let loaded = Result { () throws(DrumKitError) in try DrumKitLoader.load(manifest: manifest, sampleRate: rate) }
    var rate: Double { Self.rate }

    /// The General MIDI drum map: each pad's own note first, then the GM neighbours it stands in
    /// for (a second kick, rimshot and electric snare, pedal hi-hat, the toms between ours, and
    /// the ride, splash and china cymbals, which fall back to the crash).
    let expectedNotes: [String: [UInt8]] = ["kick": [36, 35], "snare": [38, 37, 40], "hihat_closed": [42, 44],
                                            "hihat_open": [46], "crash": [49, 51, 52, 53, 55, 57, 59],
                                            "tom_high": [50, 47, 48], "tom_low": [45, 41, 43]]

    func testLoadsAt48kHzWithTheGeneralMIDIMap() throws {
        let kit = try Self.loaded.get()
        XCTAssertEqual(kit.name, "Standard")
        XCTAssertEqual(kit.pads.count, 7)
        XCTAssertEqual(Set(kit.padNames), Set(expectedNotes.keys))
        var expectedTable = [Int16](repeating: -1, count: 128)
        for (name, notes) in expectedNotes {
            for note in notes { expectedTable[Int(note)] = Int16(kit.padNames.firstIndex(of: name)!) }
        }
        XCTAssertEqual(Array(kit.padForNote), expectedTable, "exactly these notes play, each its own pad")

        let pad = { (name: String) in kit.pads[kit.padNames.firstIndex(of: name)!] }
        XCTAssertNotEqual(pad("hihat_closed").chokeGroup, 0)
        XCTAssertEqual(pad("hihat_closed").chokeGroup, pad("hihat_open").chokeGroup, "the closed hi-hat chokes the open one")
        for name in ["kick", "snare", "crash", "tom_high", "tom_low"] {
            XCTAssertEqual(pad(name).chokeGroup, 0, name)
        }
        XCTAssertEqual(pad("kick").gain, 1)
        XCTAssertEqual(pad("hihat_open").gain, 0.794_328, accuracy: 1e-5, "-2 dB")
        XCTAssertTrue(kit.pads.allSatisfy { $0.voiceCount == 4 })
    }

    /// Every channel-10 note of the drum-heavy fixtures (Tests/Fixtures/midi) has a pad, so a GM
    /// file plays without silent hits.
    func testEveryDrumNoteOfTheFixtureSongsHasAPad() throws {
        let kit = try Self.loaded.get()
        let songs: [String: [Int]] = [
            "timidity_test_sample_drums.mid": [36, 38, 42, 46, 55],
            "openmsx_keep_on_rolling_dense.mid": [36, 40, 42, 43, 45, 46, 47, 48, 49, 51, 53, 55],
        ]
        for (song, notes) in songs {
            XCTAssertEqual(notes.filter { kit.padForNote[$0] < 0 }, [], "\(song): notes without a pad")
        }
    }

    func testEveryPadHoldsItsFileAtTheNewRateFollowedBySilence() throws {
        let kit = try Self.loaded.get()
        var poolFrames = 0
        for (pad, name) in zip(kit.pads, kit.padNames) {
            let file = try AudioFileReader.read(Self.folder.appendingPathComponent("\(name).wav").path)
            XCTAssertEqual(file.sampleRate, 44_100)
            XCTAssertEqual(file.channelCount, 2)
            XCTAssertEqual(Double(pad.frameCount), Double(file.frameCount) * rate / 44_100, accuracy: 2, name)
            XCTAssertEqual(pad.start, poolFrames, "\(name): pads follow each other in manifest order")
            let guardFrames = kit.samples[2 * (pad.start + pad.frameCount) ..< 2 * (pad.start + pad.frameCount + DrumKit.guardFrameCount)]
            XCTAssertTrue(guardFrames.allSatisfy { $0 == 0 }, "\(name): guard frames are silent")
            XCTAssertGreaterThan(SignalAnalysis.largestAbs(ArraySlice(kit.samples[2 * pad.start ..< 2 * (pad.start + pad.frameCount)])), 0.05, name)
            poolFrames = pad.start + pad.frameCount + DrumKit.guardFrameCount
        }
        XCTAssertEqual(kit.samples.count, 2 * poolFrames, "nothing else in the pool")
        XCTAssertTrue(kit.samples.allSatisfy(\.isFinite))
    }

    func testKickMatchesTheFileResampledIndependently() throws {
        let kit = try Self.loaded.get()
        let kick = kit.pads[Int(kit.padForNote[36])]
        let file = try AudioFileReader.read(Self.folder.appendingPathComponent("kick.wav").path)
        let frames = 1_000
        for channel in 0..<2 {
            let expected = Resampler.resample(file.channel(channel), from: 44_100, to: rate)
            let loaded = (0..<frames).map { kit.samples[2 * (kick.start + $0) + channel] }
            XCTAssertGreaterThan(correlation(loaded, Array(expected.prefix(frames))), 0.999, "channel \(channel)")
        }
        // The channels differ in the file, so a swap or a mono mix would show.
        XCTAssertNotEqual(file.channel(0), file.channel(1))
    }

    /// Normalised cross-correlation at lag 0: 1 for signals equal up to a positive scale.
    func correlation(_ a: [Float], _ b: [Float]) -> Double {
        var ab = 0.0, aa = 0.0, bb = 0.0
        for (x, y) in zip(a, b) {
            ab += Double(x) * Double(y); aa += Double(x) * Double(x); bb += Double(y) * Double(y)
        }
        return ab / (aa * bb).squareRoot()
    }
}
