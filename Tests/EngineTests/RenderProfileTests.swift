import Engine
import MIDI
import Render
import TestSupport
import XCTest

/// `RenderProfile`: the engine's own timing of each stage of a song's render.
final class RenderProfileTests: XCTestCase {
    let rate = 48_000.0

    func song() throws -> MIDIFile {
        try MIDIFile.read(path: CommandRunner.repositoryRoot.appendingPathComponent("Tests/Fixtures/midi/mozart_turkish_march.mid").path)
    }

    func samples(_ song: MIDIFile, bank: SampleBank, configuration: RenderConfiguration) -> [Float] {
        let engine = Engine(configuration: EngineConfiguration(render: configuration))
        XCTAssertTrue(engine.install(bank))
        var frames: [Float] = []
        engine.render(song) { frames.append(contentsOf: $0) }
        return frames
    }

    /// Every stage of a song with reverb takes time (on the xylophone, whose samples play to
    /// their ends, the reads at those ends too), the stages and the rest make up the render's wall
    /// time on one thread, and the shares add up to the whole.
    func testEveryStageOfASongIsTimedAndTheSharesMakeUpTheRender() throws {
        let bank = try InstrumentLoader.load(path: CommandRunner.shippedSoundFont, sampleRate: rate)
        let xylophone = try XCTUnwrap(bank.presetNames.firstIndex { $0.lowercased().contains("xylo") })
        let profile = RenderProfile.measure(try song(), bank: bank, configuration: RenderConfiguration(sampleRate: rate),
                                            options: MIDIRenderOptions(program: bank.presets[xylophone].program))
        for stage in RenderStage.allCases {
            XCTAssertGreaterThan(profile.stages[stage], 0, "\(stage.name) was timed")
        }
        XCTAssertGreaterThan(profile.audioSeconds, 40, "the whole march rendered")
        XCTAssertLessThanOrEqual(profile.stages.total, UInt64(profile.renderSeconds * 1e9), "no more stage time than wall time on one thread")
        let shares = RenderStage.allCases.map { profile.share(of: $0) }.reduce(0, +) + profile.otherShare
        XCTAssertEqual(shares, 1, accuracy: 1e-9)
        XCTAssertGreaterThan(profile.share(of: .read), profile.share(of: .sends), "a song's voices read more than its reverb runs")
    }

    /// Timing the stages changes nothing the render writes, on one thread or two; without it the
    /// renderer reads no clock and keeps no times.
    func testTimingTheStagesLeavesTheSamplesAsTheyWere() throws {
        let bank = try InstrumentLoader.load(path: CommandRunner.shippedSoundFont, sampleRate: rate)
        let song = try song()
        var plain = RenderConfiguration(sampleRate: rate)
        let reference = samples(song, bank: bank, configuration: plain)
        for threads in [1, 2] {
            var timed = plain
            timed.profilesStages = true
            timed.threadCount = threads
            XCTAssertEqual(samples(song, bank: bank, configuration: timed), reference, "\(threads) thread(s), timed")
        }
        plain.threadCount = 2
        let engine = Engine(configuration: EngineConfiguration(render: plain))
        XCTAssertTrue(engine.install(bank))
        engine.render(song) { _ in }
        XCTAssertEqual(engine.renderer.stageTimes.total, 0, "nothing timed unless asked")
    }

    /// The voice census counts each voice's control blocks, the released ones among them, and
    /// those released ones below hearing: a soft note released into a two-second release (100 dB
    /// over it) falls below -120 dBFS before its envelope ends; a held note is never released; and
    /// no count depends on how many threads render.
    func testTheVoiceCensusCountsReleasedAndInaudibleBlocks() throws {
        func census(release: Bool, threads: Int = 1) -> RenderVoiceCensus {
            var configuration = RenderConfiguration(sampleRate: rate)
            configuration.profilesStages = true
            configuration.threadCount = threads
            let engine = Engine(configuration: EngineConfiguration(render: configuration))
            XCTAssertTrue(engine.install(SyntheticBank.sine { $0.volumeEnvelope.release = 2 }))
            XCTAssertTrue(engine.send(midi: .noteOn(channel: 0, key: 69, velocity: 20)))
            _ = engine.renderOffline(frameCount: 24_000)
            if release { XCTAssertTrue(engine.send(midi: .noteOff(channel: 0, key: 69, velocity: 0))) }
            _ = engine.renderOffline(frameCount: 144_000)
            return engine.renderer.voiceCensus
        }
        let released = census(release: true)
        print("voice census: \(released)")
        // Half a second held, then two seconds of release: 375 and 1,500 blocks of 64 frames.
        XCTAssertEqual(Double(released.voiceBlocks), 1_875, accuracy: 4)
        XCTAssertEqual(Double(released.releasedVoiceBlocks), 1_500, accuracy: 4)
        XCTAssertGreaterThan(released.inaudibleReleasedVoiceBlocks, 0, "the release's quiet end")
        XCTAssertLessThan(released.inaudibleReleasedVoiceBlocks, released.releasedVoiceBlocks / 2, "its audible start")
        let held = census(release: false)
        XCTAssertEqual(Double(held.voiceBlocks), 2_625, accuracy: 4)
        XCTAssertEqual(held.releasedVoiceBlocks, 0)
        XCTAssertEqual(census(release: true, threads: 2), released)

        var plain = RenderConfiguration(sampleRate: rate)
        plain.profilesStages = false
        let engine = Engine(configuration: EngineConfiguration(render: plain))
        XCTAssertTrue(engine.install(SyntheticBank.sine()))
        XCTAssertTrue(engine.send(midi: .noteOn(channel: 0, key: 69, velocity: 100)))
        _ = engine.renderOffline(frameCount: 4_800)
        XCTAssertEqual(engine.renderer.voiceCensus, RenderVoiceCensus(), "nothing counted unless asked")
    }
}
