import Engine
import MIDI
import Render
import Synchronization
import TestSupport
import XCTest

/// `BatchRender` into memory (what the C ABI's and Python's batches use): each song's frames are
/// handed over as it ends, equal to its render alone; a bad song is a failure of its own; the
/// outcomes `run` returns keep no samples.
final class MemoryBatchTests: XCTestCase {
    func testEachSongsFramesAreItsRenderAndTheOutcomesKeepNone() throws {
        let rate = 48_000.0
        let fixtures = CommandRunner.repositoryRoot.appendingPathComponent("Tests/Fixtures/midi")
        let good = ["mozart_turkish_march.mid", "bach_bwv772_sankey.mid"].map { fixtures.appendingPathComponent($0).path }
        let songs = [good[0], "/nonexistent/song.mid", good[1], good[0]]
        let bank = try InstrumentLoader.load(path: CommandRunner.shippedSoundFont, sampleRate: rate)
        let renderer = SongRenderer(configuration: RenderConfiguration(sampleRate: rate), options: MIDIRenderOptions(), bank: bank,
                                    kitPath: nil, kits: DrumKitShelf(sampleRate: rate), namesSongInWarnings: true, warning: { _ in })
        let handed = Mutex<[Int: [Float]]>([:])
        let outcomes = BatchRender(songsIntoMemory: songs).run(with: renderer, threadCount: 2, finished: { job, outcome in
            if case .rendered(let render) = outcome { handed.withLock { $0[job.index] = render.samples } }
        })
        XCTAssertEqual(outcomes.count, 4)
        guard case .failed(let failure) = outcomes[1] else { return XCTFail("the missing song fails") }
        XCTAssertEqual("\(failure.song): \(failure.reason)", "/nonexistent/song.mid: no such file")
        let frames = handed.withLock { $0 }
        XCTAssertEqual(Set(frames.keys), [0, 2, 3], "each good song, the same one twice included, by its own index")
        for index in [0, 2, 3] {
            let alone = try renderer.render(MIDIFile.read(path: songs[index]), from: songs[index]).samples
            XCTAssertEqual(frames[index], alone, songs[index])
            guard case .rendered(let render) = outcomes[index] else { return XCTFail("\(songs[index]) renders") }
            XCTAssertNil(render.output)
            XCTAssertTrue(render.samples.isEmpty, "the outcomes keep no samples")
            XCTAssertEqual(render.summary.frameCount * 2, alone.count)
        }
    }
}
