import AudioFile
import DrumKitLoader
import Engine
import Foundation
import MIDI
import Render
import SampleSet
import TestSupport
import XCTest

/// The shipped kit (samples/drums/kit.json) through the renderer: the snare-roll known answer
/// against the WAV file itself, and a drum-heavy MIDI file where every channel-10 note-on is a hit.
final class ShippedKitRenderTests: XCTestCase {
    static let root = CommandRunner.repositoryRoot
    static let rate = 48_000.0
    static let kit = Result { try DrumKitLoader.load(manifest: root.appendingPathComponent("samples/drums/kit.json").path, sampleRate: rate) }

    func testFourSnareHitsTwentyMillisecondsApartAreFourShiftedCopiesOfTheSample() throws {
        let engine = Engine(configuration: EngineConfiguration(render: RenderConfiguration(sampleRate: Self.rate, songGainDecibels: 0)))
        XCTAssertTrue(engine.install(try Self.kit.get()))
        let spacing = Int(0.020 * Self.rate)
        for hit in 0..<4 { engine.send(midi: .noteOn(channel: 9, key: 38, velocity: 127), at: FrameTime(hit * spacing)) }
        let rendered = SignalAnalysis.channel(0, of: engine.renderOffline(frameCount: 48_000), channelCount: 2)
        XCTAssertEqual(engine.renderer.statistics.drumHits, 4)
        XCTAssertEqual(engine.renderer.statistics.drumRecycles, 0, "four voices: none recycled")

        // The reference comes from the WAV file, resampled independently of the kit loader.
        let file = try AudioFileReader.read(Self.root.appendingPathComponent("samples/drums/snare.wav").path)
        let snare = Resampler.resample(file.channel(0), from: Double(file.sampleRate), to: Self.rate)
        var reference = [Float](repeating: 0, count: rendered.count)
        for hit in 0..<4 {
            for (index, value) in snare.enumerated() where hit * spacing + index < reference.count {
                reference[hit * spacing + index] += value
            }
        }
        let correlation = DrumRenderTests.correlation(rendered, reference)
        print("shipped snare, four hits 20 ms apart: normalised correlation with four shifted copies \(String(format: "%.5f", correlation))")
        XCTAssertGreaterThan(correlation, 0.99)
    }

    func testEveryChannelTenNoteOnOfADrumHeavyFileIsAHit() throws {
        for song in ["timidity_test_sample_drums", "openmsx_keep_on_rolling_dense"] {
            let path = Self.root.appendingPathComponent("Tests/Fixtures/midi/\(song).mid").path
            let file = try MIDIFile.read(path: path)
            let drumNotes = file.timedMessages().filter {
                if case let .noteOn(channel, _, velocity) = $0.message { channel == 9 && velocity > 0 } else { false }
            }.count
            let engine = Engine(configuration: EngineConfiguration(render: RenderConfiguration(sampleRate: Self.rate, songGainDecibels: 0)))
            engine.install(try SoundFontLoaderProxy.piano(sampleRate: Self.rate))
            XCTAssertTrue(engine.install(try Self.kit.get()))
            let summary = engine.render(file) { _ in }
            print("\(song): \(drumNotes) channel-10 note-ons, \(summary.statistics.drumHits) drum hits, "
                  + "\(summary.statistics.drumRecycles) recycled, \(summary.statistics.drumChokes) choked")
            XCTAssertEqual(summary.statistics.drumHits, drumNotes, song)
            XCTAssertEqual(summary.statistics.unmappedHits, 0, "\(song): channel-10 notes no pad plays")
        }
    }
}

/// The shipped piano, for the melodic channels of the drum files.
enum SoundFontLoaderProxy {
    static func piano(sampleRate: Double) throws -> SampleBank {
        try InstrumentLoader.load(path: CommandRunner.repositoryRoot.appendingPathComponent("soundfonts/FluidR3_GM_piano_xylo.sf2").path,
                                  sampleRate: sampleRate)
    }
}
