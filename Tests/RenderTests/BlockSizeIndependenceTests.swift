import Engine
import Foundation
import MIDI
import Render
import SoundFont
import TestSupport
import XCTest

/// The renderer renders its instruments a quantum at a time on a grid anchored to frame 0
/// (`RenderQuantum`), so an offline render is bit for bit the same whatever its block size, and so
/// is its length: the render ends where the grid says, not where a block happens to.
final class BlockSizeIndependenceTests: XCTestCase {
    let rate = 48_000.0
    static let root = CommandRunner.repositoryRoot
    /// A General MIDI font with a drum kit, reverb and chorus sends and many instruments, when the
    /// system has one; the shipped piano/xylophone font otherwise.
    static let font: String = {
        let system = "/usr/share/sounds/sf2/FluidR3_GM.sf2"
        return FileManager.default.fileExists(atPath: system) ? system
            : root.appendingPathComponent("soundfonts/FluidR3_GM_piano_xylo.sf2").path
    }()
    static let fixtures = ["bach_bwv772_sankey", "converse_what_a_friend_piano_pedal", "joplin_maple_leaf_rag",
                           "mozart_turkish_march", "openmsx_keep_on_rolling_dense", "timidity_test_sample_drums"]

    func makeEngine(_ bank: SampleBank) -> Engine {
        // The defaults a user renders with: limiter, song gain, reverb and chorus.
        let engine = Engine(configuration: EngineConfiguration(render: RenderConfiguration(sampleRate: rate)))
        XCTAssertTrue(engine.install(bank))
        return engine
    }

    /// Renders `song` in blocks of each of `blockSizes` and compares every sample with the render
    /// in blocks of 64.
    func assertBlockSizeIndependent(_ name: String, bank: SampleBank, blockSizes: [Int]) throws {
        let song = try MIDIFile.read(path: Self.root.appendingPathComponent("Tests/Fixtures/midi/\(name).mid").path)
        var reference: [Float] = []
        let referenceSummary = makeEngine(bank).render(song, options: MIDIRenderOptions(blockFrameCount: 64)) {
            reference.append(contentsOf: $0)
        }
        XCTAssertGreaterThan(referenceSummary.peak, 0.01, "\(name) sounds")
        XCTAssertEqual(reference.count, 2 * referenceSummary.frameCount)
        for blockSize in blockSizes {
            var index = 0
            var firstDifference: Int? = nil
            let summary = makeEngine(bank).render(song, options: MIDIRenderOptions(blockFrameCount: blockSize)) { samples in
                for sample in samples {
                    if firstDifference == nil, index >= reference.count || reference[index].bitPattern != sample.bitPattern {
                        firstDifference = index
                    }
                    index += 1
                }
            }
            XCTAssertNil(firstDifference.map { $0 / 2 }, "\(name) in blocks of \(blockSize): first frame that differs from blocks of 64")
            XCTAssertEqual(summary.frameCount, referenceSummary.frameCount, "\(name) in blocks of \(blockSize): the same length")
            XCTAssertEqual(summary.statistics.noteOns, referenceSummary.statistics.noteOns)
        }
        print("\(name): \(referenceSummary.frameCount) frames, bit-identical in blocks of \(blockSizes.map(String.init).joined(separator: ", ")) and 64")
    }

    func testEveryFixtureRendersBitForBitTheSameInBlocksOf7And1000And4096() throws {
        let bank = try SoundFontLoader.load(path: Self.font, sampleRate: rate)
        print("font: \(Self.font)")
        for name in Self.fixtures { try assertBlockSizeIndependent(name, bank: bank, blockSizes: [7, 1_000, 4_096]) }
    }

    /// A block of one frame: every command, every control update and every voice's start falls
    /// between two calls. On the shortest fixture, the drum one and the densest one (a frame a call
    /// costs a call a frame).
    func testRendersInBlocksOfOneFrameAreBitForBitTheSame() throws {
        let bank = try SoundFontLoader.load(path: Self.font, sampleRate: rate)
        for name in ["bach_bwv772_sankey", "timidity_test_sample_drums"] {
            try assertBlockSizeIndependent(name, bank: bank, blockSizes: [1])
        }
    }

    /// Commands sent between blocks for frames inside the quantum already rendered arrive late and
    /// take effect at the next quantum's first frame; those queued as `RenderQuantum.boundary(atOrAfter:)`
    /// says take effect on their frames.
    func testACommandQueuedUpToTheQuantumsEndTakesEffectOnItsFrame() {
        let engine = Engine(configuration: EngineConfiguration(
            render: RenderConfiguration(sampleRate: rate, channelCount: 2, outputLimiter: false, songGainDecibels: 0)))
        _ = engine.renderOffline(frameCount: 100)  // frames 0-99; the instruments are rendered to 128
        XCTAssertEqual(RenderQuantum.boundary(atOrAfter: engine.renderedFrameTime), 128)
        engine.send(.toneOn(slot: 0, frequency: 440, amplitude: 0.5), at: 120)  // inside the rendered quantum: late
        engine.send(.toneOn(slot: 1, frequency: 660, amplitude: 0.5), at: 200)  // queued in time
        let left = SignalAnalysis.channel(0, of: engine.renderOffline(frameCount: 156), channelCount: 2)
        // Frame 100 of the stream is index 0 here: the late tone starts at 128, the other at 200.
        XCTAssertEqual(left.firstIndex { $0 != 0 }, 128 - 100 + 1, "a late command takes effect at the next quantum's first frame")
    }
}
