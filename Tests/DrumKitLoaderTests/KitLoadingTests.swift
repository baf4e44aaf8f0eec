import AudioFile
import DrumKitLoader
import Foundation
import Render
import SampleSet
import TestSupport
import XCTest

/// Kits written by the tests: formats, rates and channel layouts into the stereo pool, defaults,
/// choke group numbering, and the note table.
final class KitLoadingTests: XCTestCase {
    let rate = 48_000.0

    /// The frames of `pad` in the pool, one channel.
    func channel(_ channel: Int, of pad: DrumKit.Pad, in kit: DrumKit) -> [Float] {
        (0..<pad.frameCount).map { kit.samples[2 * (pad.start + $0) + channel] }
    }

    func testMonoFileAtAnotherRatePlaysOnBothChannelsResampled() throws {
        let folder = try TemporaryFolder(self)
        let source = hit(sampleRate: 22_050)
        try folder.writeAudio("snare.wav", sampleRate: 22_050, source)
        try folder.writeManifest(#"{"pads": [{"name": "snare", "file": "snare.wav", "note": 38}]}"#)
        let kit = try DrumKitLoader.load(manifest: folder.manifest, sampleRate: rate)

        let pad = kit.pads[0]
        XCTAssertEqual(pad.start, 0)
        XCTAssertEqual(Double(pad.frameCount), Double(source.count) * rate / 22_050, accuracy: 1)
        let expected = Resampler.resample(source, from: 22_050, to: rate)
        XCTAssertEqual(channel(0, of: pad, in: kit), expected)
        XCTAssertEqual(channel(1, of: pad, in: kit), expected)
        XCTAssertEqual(kit.samples.count, 2 * (pad.frameCount + DrumKit.guardFrameCount))
        XCTAssertTrue(kit.samples[(2 * pad.frameCount)...].allSatisfy { $0 == 0 })
    }

    func testStereoFileAtTheEngineRateIsCopiedExactly() throws {
        let folder = try TemporaryFolder(self)
        let left = hit(sampleRate: rate), right = left.map { -0.5 * $0 }
        try folder.writeAudio("tom.wav", channelCount: 2, Array(zip(left, right).map { [$0, $1] }.joined()))
        try folder.writeManifest(#"{"pads": [{"name": "tom", "file": "tom.wav", "note": 45}]}"#)
        let kit = try DrumKitLoader.load(manifest: folder.manifest, sampleRate: rate)
        XCTAssertEqual(channel(0, of: kit.pads[0], in: kit), left)
        XCTAssertEqual(channel(1, of: kit.pads[0], in: kit), right, "left stays left, right stays right")
    }

    func testFormatsSubfoldersDefaultsAndGains() throws {
        let folder = try TemporaryFolder(self)
        try FileManager.default.createDirectory(atPath: folder.file("one shots"), withIntermediateDirectories: false)
        try folder.writeHit("one shots/kick.flac", sampleRate: 44_100)
        try folder.writeHit("crash.ogg", sampleRate: 32_000)
        try folder.writeHit("tick.wav")
        try folder.writeManifest("""
            {"name": "Test kit", "pads": [
              {"name": "kick", "file": "one shots/kick.flac", "note": 36},
              {"name": "crash", "file": "crash.ogg", "note": 49, "gain": -6.02, "voices": 64},
              {"name": "quiet", "file": "tick.wav", "note": 0, "gain": -60, "voices": 1},
              {"name": "loud", "file": "tick.wav", "note": 127, "gain": 12}
            ]}
            """)
        let kit = try DrumKitLoader.load(manifest: folder.manifest, sampleRate: rate)
        XCTAssertEqual(kit.name, "Test kit")
        XCTAssertEqual(kit.padNames, ["kick", "crash", "quiet", "loud"])
        XCTAssertEqual(kit.pads.map(\.voiceCount), [DrumKitLoader.defaultVoiceCount, 64, 1, 4])
        XCTAssertEqual(kit.voiceCount, 4 + 64 + 1 + 4, "voice storage for every pad")
        XCTAssertEqual(kit.pads[0].gain, 1, "0 dB by default")
        XCTAssertEqual(kit.pads[1].gain, 0.5, accuracy: 1e-4)
        XCTAssertEqual(kit.pads[2].gain, 0.001, accuracy: 1e-7)
        XCTAssertEqual(kit.pads[3].gain, 3.981_07, accuracy: 1e-4)
        XCTAssertEqual(kit.pads.map(\.chokeGroup), [0, 0, 0, 0])
        for (pad, sourceRate) in zip(kit.pads, [44_100.0, 32_000, 48_000, 48_000]) {
            XCTAssertEqual(Double(pad.frameCount), 0.05 * rate, accuracy: 2, "50 ms from \(sourceRate) Hz")
            XCTAssertGreaterThan(SignalAnalysis.largestAbs(ArraySlice(channel(0, of: pad, in: kit))), 0.5)
        }
        // Pads naming one file share its frames.
        XCTAssertEqual(kit.pads[2].start, kit.pads[3].start)
        XCTAssertEqual(kit.pads[2].frameCount, kit.pads[3].frameCount)
        let lastStart = kit.pads[2].start + kit.pads[2].frameCount + DrumKit.guardFrameCount
        XCTAssertEqual(kit.samples.count, 2 * lastStart, "three files in the pool, not four")

        var notes = [Int16](repeating: -1, count: 128)
        notes[36] = 0; notes[49] = 1; notes[0] = 2; notes[127] = 3
        XCTAssertEqual(Array(kit.padForNote), notes)
    }

    func testChokeGroupsAreNumberedInOrderOfFirstUse() throws {
        let folder = try TemporaryFolder(self)
        try folder.writeHit("hit.wav")
        let groups = ["\"pedal\"", "null", "\"hats\"", "\"pedal\"", nil, "\"hats\"", "\"cymbals\""]
        let pads = groups.enumerated().map { index, group in
            "{\"name\": \"pad\(index)\", \"file\": \"hit.wav\", \"note\": \(40 + index)\(group.map { ", \"chokeGroup\": \($0)" } ?? "")}"
        }
        try folder.writeManifest("{\"pads\": [\(pads.joined(separator: ", "))]}")
        let kit = try DrumKitLoader.load(manifest: folder.manifest, sampleRate: rate)
        XCTAssertEqual(kit.pads.map(\.chokeGroup), [1, 0, 2, 1, 0, 2, 3])
    }

    func testAlsoNotesPlayTheirPad() throws {
        let folder = try TemporaryFolder(self)
        try folder.writeHit("hit.wav")
        try folder.writeManifest("""
            {"pads": [
              {"name": "kick", "file": "hit.wav", "note": 36, "alsoNotes": [35]},
              {"name": "snare", "file": "hit.wav", "note": 38, "alsoNotes": [40, 37]},
              {"name": "hat", "file": "hit.wav", "note": 42, "alsoNotes": []},
              {"name": "crash", "file": "hit.wav", "note": 49, "alsoNotes": null},
              {"name": "edges", "file": "hit.wav", "note": 127, "alsoNotes": [0]}
            ]}
            """)
        let kit = try DrumKitLoader.load(manifest: folder.manifest, sampleRate: rate)
        var notes = [Int16](repeating: -1, count: 128)
        notes[36] = 0; notes[35] = 0
        notes[38] = 1; notes[40] = 1; notes[37] = 1
        notes[42] = 2
        notes[49] = 3
        notes[127] = 4; notes[0] = 4
        XCTAssertEqual(Array(kit.padForNote), notes)
        XCTAssertEqual(kit.pads.count, 5, "further notes share their pad's voices, not new pads")
    }

    func testKitIsNamedAfterItsFolderWithoutAName() throws {
        let folder = try TemporaryFolder(self)
        try folder.writeHit("hit.wav")
        try folder.writeManifest(#"{"pads": [{"name": "hit", "file": "hit.wav", "note": 60}]}"#)
        let kit = try DrumKitLoader.load(manifest: folder.manifest, sampleRate: rate)
        XCTAssertEqual(kit.name, URL(fileURLWithPath: folder.path).lastPathComponent)
    }
}
