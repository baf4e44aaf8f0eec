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
            XCTAssertEqual(summary.statistics.peakVoices, referenceSummary.statistics.peakVoices, "\(name) in blocks of \(blockSize): the same peak")
        }
        print("\(name): \(referenceSummary.frameCount) frames, bit-identical in blocks of \(blockSizes.map(String.init).joined(separator: ", ")) and 64")
    }

    func testEveryFixtureRendersBitForBitTheSameInBlocksOf7And1000And4096() throws {
        let bank = try SoundFontLoader.load(path: Self.font, sampleRate: rate)
        print("font: \(Self.font)")
        for name in Self.fixtures { try assertBlockSizeIndependent(name, bank: bank, blockSizes: [7, 1_000, 4_096]) }
    }

    /// SFZ 2 flex envelopes and LFOs (the sample-and-hold wave's draws among them) and the
    /// equalizer run a control block at a time on the same grid: a dense song through them is bit
    /// for bit the same too.
    func testFlexModulationRendersBitForBitTheSameInAnyBlockSize() throws {
        let bank = SyntheticBank.sine(frequency: 330, flex: SyntheticBank.everyFlexPart) { region in
            region.filterCutoffCents = 9_000
            SyntheticBank.equalize(&region)
        }
        try assertBlockSizeIndependent("openmsx_keep_on_rolling_dense", bank: bank, blockSizes: [7, 1_000])
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

    /// The peak voice count is counted where voices start: three one-shot notes of 654 frames, which
    /// end within the first 16-quantum stretch of a render in large blocks, count as three in every
    /// block size. (Counted after each segment, they were three in blocks of 64 and none in 4,096.)
    func testThePeakVoiceCountDoesNotDependOnTheBlockSize() {
        let oneShot = SyntheticBank.sine(cycles: 2) { region in region.loopMode = .none }
        let song = MIDIFile(format: 0, division: .ticksPerQuarter(480), tracks: [[
            TrackEvent(tick: 0, kind: .channel(.noteOn(channel: 0, key: 69, velocity: 100))),
            TrackEvent(tick: 0, kind: .channel(.noteOn(channel: 0, key: 70, velocity: 100))),
            TrackEvent(tick: 0, kind: .channel(.noteOn(channel: 0, key: 71, velocity: 100))),
            TrackEvent(tick: 480, kind: .channel(.noteOff(channel: 0, key: 69, velocity: 0))),
            TrackEvent(tick: 480, kind: .channel(.noteOff(channel: 0, key: 70, velocity: 0))),
            TrackEvent(tick: 480, kind: .channel(.noteOff(channel: 0, key: 71, velocity: 0))),
            TrackEvent(tick: 480, kind: .endOfTrack),
        ]])
        for blockSize in [64, 1_000, 4_096] {
            for threads in [1, 2] {
                var configuration = RenderConfiguration(sampleRate: rate)
                configuration.threadCount = threads
                let engine = Engine(configuration: EngineConfiguration(render: configuration))
                XCTAssertTrue(engine.install(oneShot))
                var sounding = 0
                let summary = engine.render(song, options: MIDIRenderOptions(blockFrameCount: blockSize)) { samples in
                    sounding += samples.filter { $0 != 0 }.count
                }
                XCTAssertGreaterThan(sounding, 0, "the notes sound")
                XCTAssertEqual(summary.statistics.peakVoices, 3, "blocks of \(blockSize) on \(threads) threads")
            }
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
