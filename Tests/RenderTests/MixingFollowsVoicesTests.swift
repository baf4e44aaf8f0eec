import Engine
import Foundation
import MIDI
import MIDIVocabulary
@testable import Render
import SoundFont
import TestSupport
import XCTest

/// The renderer mixes a segment of the voices (tones, the item mixes, the song's volume, reverb and
/// chorus) while the workers render the next one, so the mixing may lag the voices by a segment or
/// two; a command that changes what the mixing uses has every segment before it mixed first
/// (`Renderer.advanceInstruments`). These commands, sent between dense chords at frames off the
/// quantum grid, must still take effect on their exact frames: the render is bit for bit the same
/// on one thread in blocks of one quantum (where nothing can lag past a block) as on several
/// threads in long blocks. The mixing lags whether or not a worker takes an item (the audio thread
/// mixes between handing a segment out and claiming its items), so a busy host cannot hide a
/// command applied too early.
final class MixingFollowsVoicesTests: XCTestCase {
    let rate = 48_000.0
    let frameCount = 96_000

    /// Chords of eight notes every 2,400 frames on four channels (so the workers share the
    /// segments), and between them every kind of command that touches the mixing.
    func sendSong(to engine: Engine) {
        var sent = 0
        func send(_ action: RenderCommand.Action, at frame: Int) {
            XCTAssertTrue(engine.send(action, at: FrameTime(frame)))
            sent += 1
        }
        for channel in UInt8(0)..<4 {
            send(.midi(.programChange(channel: channel, program: [0, 19, 48, 73][Int(channel)])), at: 0)
            send(.midi(.controlChange(channel: channel, controller: 91, value: 100)), at: 0)
            send(.midi(.controlChange(channel: channel, controller: 93, value: 80)), at: 0)
        }
        for chord in 0..<38 {
            let start = 211 + chord * 2_400 + (chord % 3) * 17
            for note in 0..<8 {
                let channel = UInt8(note % 4)
                let key = UInt8(48 + (chord * 5 + note * 7) % 36)
                send(.midi(.noteOn(channel: channel, key: key, velocity: 90)), at: start + note)
                send(.midi(.noteOff(channel: channel, key: key, velocity: 0)), at: start + 3_000 + note * 97)
            }
        }
        // Master volume up and down, each off the grid.
        for step in 0..<24 {
            send(.midi(.system(.masterVolume(UInt16(16_383 - (step % 6) * 2_500)))), at: 1_013 + step * 3_877)
        }
        for tone in 0..<6 {
            send(.toneOn(slot: UInt8(tone % 2), frequency: 300 + Float(tone) * 110, amplitude: 0.1), at: 5_555 + tone * 13_331)
            send(.toneOff(slot: UInt8(tone % 2)), at: 9_001 + tone * 13_331)
        }
        send(.reverbPreset(.largeHall), at: 30_031)
        send(.reverbPreset(.plate), at: 61_117)
        send(.allSoundOff, at: 47_999)
        send(.midi(.system(.systemReset(.generalMIDIOn))), at: 70_007)
        XCTAssertLessThan(sent, 4_096, "every command fits the ring")
    }

    /// Renders the song; with `queuedAhead`, every command is declared queued
    /// (`Renderer.declareCommandsQueued(before:)`), so the voices may run past each block's end.
    /// - Returns: the samples, the engine, and how many blocks were delivered with a segment of
    ///   the voices still with the workers.
    func render(bank: SampleBank, threads: Int, blockFrameCount: Int, queuedAhead: Bool = false,
                also extra: (action: RenderCommand.Action, frame: Int)? = nil) -> (samples: [Float], engine: Engine, blocksInFlight: Int) {
        var configuration = RenderConfiguration(sampleRate: rate)
        configuration.threadCount = threads
        let engine = Engine(configuration: EngineConfiguration(render: configuration))
        XCTAssertTrue(engine.install(bank))
        sendSong(to: engine)
        if let extra { XCTAssertTrue(engine.send(extra.action, at: FrameTime(extra.frame))) }
        if queuedAhead { engine.renderer.declareCommandsQueued(before: FrameTime(frameCount)) }
        var samples: [Float] = []
        var blocksInFlight = 0
        engine.renderOffline(frameCount: frameCount, blockFrameCount: blockFrameCount) { block in
            if engine.renderer.segmentInFlight { blocksInFlight += 1 }
            samples.append(contentsOf: block)
        }
        return (samples, engine, blocksInFlight)
    }

    func firstDifferentFrame(_ one: [Float], _ other: [Float]) -> Int? {
        XCTAssertEqual(one.count, other.count)
        return one.indices.first { one[$0].bitPattern != other[$0].bitPattern }.map { $0 / 2 }
    }

    /// A group computes its lanes' flex envelope levels and LFO waves together (`LaneFlexMath`):
    /// a voice sounds the same whichever voices share its group, so the song through every flex
    /// part renders the same bits on any number of threads, where the voices fall into other groups.
    func testFlexModulationRendersTheSameBitsOnAnyThreadCount() {
        let bank = SyntheticBank.sine(frequency: 330, flex: SyntheticBank.everyFlexPart) { region in
            region.filterCutoffCents = 9_000
            SyntheticBank.equalize(&region)
        }
        let reference = render(bank: bank, threads: 1, blockFrameCount: 64)
        XCTAssertGreaterThan(reference.engine.renderer.statistics.peakVoices, 32, "enough voices that the workers share the segments")
        XCTAssertGreaterThan(SignalAnalysis.channel(0, of: reference.samples, channelCount: 2).map(abs).max() ?? 0, 0.01, "it sounds")
        for (threads, blockFrameCount) in [(2, 1_000), (3, 333)] {
            let other = render(bank: bank, threads: threads, blockFrameCount: blockFrameCount)
            XCTAssertNil(firstDifferentFrame(other.samples, reference.samples),
                         "\(threads) threads in blocks of \(blockFrameCount): the first frame that differs from one thread in blocks of 64")
        }
    }

    func testCommandsThatChangeTheMixingTakeEffectOnTheirFramesWhileTheVoicesRunAhead() throws {
        let bank = try SoundFontLoader.load(path: BlockSizeIndependenceTests.font, sampleRate: rate)
        let reference = render(bank: bank, threads: 1, blockFrameCount: 64)
        XCTAssertGreaterThan(reference.engine.renderer.statistics.peakVoices, 32, "enough voices that the workers share the segments")
        let left = SignalAnalysis.channel(0, of: reference.samples, channelCount: 2)
        XCTAssertGreaterThan(left.map(abs).max() ?? 0, 0.01, "it sounds")
        for (threads, blockFrameCount) in [(2, 4_096), (3, 333), (2, 1_000), (8, 4_096)] {
            let other = render(bank: bank, threads: threads, blockFrameCount: blockFrameCount)
            XCTAssertNil(firstDifferentFrame(other.samples, reference.samples),
                         "\(threads) threads in blocks of \(blockFrameCount): the first frame that differs from one thread in blocks of 64")
        }
        // One more command of each kind, 7 frames after a chord's notes split its quantum: the
        // segment before it is rendered and waits to be mixed when it comes. It changes nothing
        // before its frame, and the output from its frame on.
        let frame = 211 + 20 * 2_400 + 2 * 17 + 7 + 7
        let extras: [(name: String, action: RenderCommand.Action)] = [
            ("master volume", .midi(.system(.masterVolume(4_000)))),
            ("tone on", .toneOn(slot: 3, frequency: 1_000, amplitude: 0.2)),
            ("reverb preset", .reverbPreset(.smallRoom)),
            ("all sound off", .allSoundOff),
            ("system reset", .midi(.system(.systemReset(.generalMIDIOn)))),
        ]
        for (threads, blockFrameCount) in [(1, 64), (2, 4_096), (3, 333)] {
            let without = render(bank: bank, threads: threads, blockFrameCount: blockFrameCount)
            for extra in extras {
                let with = render(bank: bank, threads: threads, blockFrameCount: blockFrameCount, also: (extra.action, frame))
                let first = firstDifferentFrame(with.samples, without.samples)
                XCTAssertNotNil(first, "\(extra.name) on \(threads) threads in blocks of \(blockFrameCount) changes the output")
                XCTAssertGreaterThanOrEqual(first ?? frame, frame,
                                            "\(extra.name) on \(threads) threads in blocks of \(blockFrameCount): nothing changes before its frame")
                XCTAssertLessThan(first ?? 0, frame + RenderQuantum.frameCount,
                                  "\(extra.name) on \(threads) threads in blocks of \(blockFrameCount): it takes effect on its frame")
            }
        }
    }

    /// Offline, where every command is queued ahead (`Engine.render` sends a block ahead and says
    /// so), the voices' segment after a block's end is handed to the workers while the block's last
    /// segments are mixed, and stays with them while the block is delivered. The output is the
    /// same bits; and a command due right at the block's end keeps the voices at the block, so
    /// `mute`, which acts on a whole block, is not applied a block early.
    func testVoicesRunPastTheBlockWhereTheCommandsAreQueuedForTheSameOutput() throws {
        let bank = try SoundFontLoader.load(path: BlockSizeIndependenceTests.font, sampleRate: rate)
        let reference = render(bank: bank, threads: 1, blockFrameCount: 64)
        XCTAssertEqual(reference.blocksInFlight, 0)
        for (threads, blockFrameCount) in [(2, 4_096), (1, 4_096), (3, 1_000), (2, 333), (2, 64)] {
            let other = render(bank: bank, threads: threads, blockFrameCount: blockFrameCount, queuedAhead: true)
            XCTAssertNil(firstDifferentFrame(other.samples, reference.samples),
                         "\(threads) threads in blocks of \(blockFrameCount), commands queued ahead: the first frame that differs")
            if threads > 1 {
                XCTAssertGreaterThan(other.blocksInFlight, 0, "\(threads) threads in blocks of \(blockFrameCount): some blocks go out while the workers render on")
            }
        }
        let notDeclared = render(bank: bank, threads: 2, blockFrameCount: 4_096)
        XCTAssertEqual(notDeclared.blocksInFlight, 0, "without the promise the voices stop at the block, as live")

        // Mute on the first frame after a block: the block before it is not faded.
        let muteFrame = 10 * 4_096
        let muted = render(bank: bank, threads: 2, blockFrameCount: 4_096, also: (.mute(true), muteFrame))
        let mutedAhead = render(bank: bank, threads: 2, blockFrameCount: 4_096, queuedAhead: true, also: (.mute(true), muteFrame))
        XCTAssertEqual(firstDifferentFrame(muted.samples, reference.samples), muteFrame, "the mute fades from its block on")
        XCTAssertNil(firstDifferentFrame(mutedAhead.samples, muted.samples), "queued ahead, the mute is applied with its own block")
    }

    struct OutputFailed: Error {}

    /// A render whose output fails stops, but first plays on, unheard, to where its voices
    /// reached past the block: no segment is left with the workers, and a later render's first
    /// commands find the voices at its own start.
    func testARenderThatStopsOnAnErrorLeavesNoVoicesAheadOfIt() throws {
        let bank = try SoundFontLoader.load(path: BlockSizeIndependenceTests.font, sampleRate: rate)
        let song = try MIDIFile.read(path: BlockSizeIndependenceTests.root.appendingPathComponent("Tests/Fixtures/midi/openmsx_keep_on_rolling_dense.mid").path)
        var configuration = RenderConfiguration(sampleRate: rate)
        configuration.threadCount = 2
        let engine = Engine(configuration: EngineConfiguration(render: configuration))
        XCTAssertTrue(engine.install(bank))
        var blocks = 0
        XCTAssertThrowsError(try engine.render(song, options: MIDIRenderOptions(blockFrameCount: 4_096)) { (_: UnsafeBufferPointer<Float>) throws(OutputFailed) in
            blocks += 1
            if blocks == 40 { throw OutputFailed() }
        })
        XCTAssertEqual(blocks, 40)
        XCTAssertFalse(engine.renderer.segmentInFlight)
        XCTAssertEqual(engine.renderer.framesRenderedAhead, 0)
        XCTAssertEqual(engine.renderer.queuedCommandsEnd.load(ordering: .relaxed), 0, "the promise is taken back")
    }
}
