import Engine
import Foundation
import MIDI
import Render
import SoundFont
import TestSupport
import XCTest

/// The sampler's voices are split into work items that do not depend on the thread count, and the
/// items are summed in one fixed order (`VoiceWorkItems`), so a render is bit for bit the same with
/// one thread or many: a render can be checked against another machine's.
final class ThreadCountIndependenceTests: XCTestCase {
    let rate = 48_000.0

    func render(_ song: MIDIFile, bank: SampleBank, threads: Int, blockFrameCount: Int) -> (samples: [Float], summary: MIDIRenderSummary) {
        var configuration = RenderConfiguration(sampleRate: rate)
        configuration.threadCount = threads
        let engine = Engine(configuration: EngineConfiguration(render: configuration))
        XCTAssertTrue(engine.install(bank))
        var samples: [Float] = []
        let summary = engine.render(song, options: MIDIRenderOptions(blockFrameCount: blockFrameCount)) { samples.append(contentsOf: $0) }
        return (samples, summary)
    }

    /// The same with streaming on: each fixture through a bank holding only its song's samples
    /// behind residency cells (`SampleResidency`: every note checks its sample, every voice its
    /// frontier each block), with 1, 2, 3 and 8 threads in blocks of 64 to 4,096 frames, is the
    /// render through the whole font with one thread, bit for bit.
    func testASongsOwnSamplesRenderTheSameBitsWithAnyThreadsAndBlocks() throws {
        let whole = try SoundFontLoader.load(path: BlockSizeIndependenceTests.font, sampleRate: rate)
        for name in BlockSizeIndependenceTests.fixtures {
            let song = try MIDIFile.read(path: BlockSizeIndependenceTests.root.appendingPathComponent("Tests/Fixtures/midi/\(name).mid").path)
            let notes = MIDISequencer(song, sampleRate: rate).playedNotes(kitPlaysPercussion: false)
            let bank = try SoundFontLoader.load(path: BlockSizeIndependenceTests.font, sampleRate: rate, options: .init(selection: .played(notes)))
            XCTAssertNotNil(bank.residency)
            let reference = render(song, bank: whole, threads: 1, blockFrameCount: 1_024)
            for (threads, blockFrameCount) in [(1, 64), (2, 333), (3, 1_024), (8, 4_096)] {
                let other = render(song, bank: bank, threads: threads, blockFrameCount: blockFrameCount)
                XCTAssertEqual(other.summary.statistics.sampleUnderruns, 0, "\(name)")
                XCTAssertTrue(other.samples.elementsEqual(reference.samples) { $0.bitPattern == $1.bitPattern },
                              "\(name) through its own samples with \(threads) threads in blocks of \(blockFrameCount)")
            }
        }
    }

    func testEveryFixtureRendersBitForBitTheSameWith1And2And3And8ThreadsInAnyBlockSize() throws {
        let bank = try SoundFontLoader.load(path: BlockSizeIndependenceTests.font, sampleRate: rate)
        print("font: \(BlockSizeIndependenceTests.font)")
        for name in BlockSizeIndependenceTests.fixtures {
            let song = try MIDIFile.read(path: BlockSizeIndependenceTests.root.appendingPathComponent("Tests/Fixtures/midi/\(name).mid").path)
            let reference = render(song, bank: bank, threads: 1, blockFrameCount: 1_024)
            XCTAssertGreaterThan(reference.summary.peak, 0.01, "\(name) sounds")
            var line = "\(name): \(reference.summary.frameCount) frames, peak \(reference.summary.statistics.peakVoices) voices"
            // Blocks of 64 frames hand the voices out a quantum at a time, blocks of 1,024 and 4,096
            // whole stretches of quanta (`VoiceWorkItems`), and 333 a mix of both.
            for (threads, blockFrameCount) in [(2, 64), (2, 1_024), (3, 333), (8, 4_096)] {
                let other = render(song, bank: bank, threads: threads, blockFrameCount: blockFrameCount)
                XCTAssertEqual(other.samples.count, reference.samples.count, "\(name) with \(threads) threads in blocks of \(blockFrameCount): the same length")
                let firstDifference = other.samples.indices.first { index in index >= reference.samples.count || other.samples[index].bitPattern != reference.samples[index].bitPattern }
                XCTAssertNil(firstDifference.map { $0 / 2 }, "\(name) with \(threads) threads in blocks of \(blockFrameCount): first frame that differs from one thread")
                XCTAssertEqual(other.summary.statistics.noteOns, reference.summary.statistics.noteOns)
                XCTAssertEqual(other.summary.statistics.peakVoices, reference.summary.statistics.peakVoices)
            }
            line += "; bit-identical with 1, 2, 3 and 8 threads, in blocks of 64, 333, 1,024 and 4,096 frames"
            print(line)
        }
    }
}
