import Engine
import Render
import TestSupport
import XCTest

/// A command ring the audio thread is not emptying: sends never wait, what cannot fit is refused
/// and counted, and no refusal leaves a note sounding.
final class FullCommandRingTests: XCTestCase {
    let capacity = 8

    /// An engine with a tiny ring, the sine bank installed (and taken by one rendered block).
    func engineWithFullRing() -> Engine {
        // Dry and at unity gain: these tests look at the voices alone.
        let engine = Engine(configuration: EngineConfiguration(
            render: RenderConfiguration(sampleRate: SyntheticBank.rate, outputLimiter: false, effects: false, songGainDecibels: 0), commandCapacity: capacity))
        XCTAssertTrue(engine.install(SyntheticBank.sine()))
        _ = engine.renderOffline(frameCount: 64)
        for key in 0..<capacity {
            XCTAssertTrue(engine.send(midi: .noteOn(channel: 0, key: UInt8(60 + key), velocity: 100)), "room for \(capacity) commands")
        }
        XCTAssertEqual(engine.freeCommandSlots(), 0)
        return engine
    }

    /// The commands kept when the ring is full are exactly those whose loss would leave sound: the
    /// same controller meanings the sampler acts on.
    func testWhatCountsAsEndingSound() {
        typealias Action = RenderCommand.Action
        let endingMessages: [MIDIMessage] = [.noteOff(channel: 0, key: 60, velocity: 64), .noteOn(channel: 0, key: 60, velocity: 0),
                                             .controlChange(channel: 3, controller: 64, value: 63), .system(.systemReset(.gsReset))]
            + [120, 121, 123, 124, 125, 126, 127].map { .controlChange(channel: 0, controller: $0, value: 0) }
        let ending: [Action] = [.toneOff(slot: 0), .allSoundOff, .mute(true)] + endingMessages.map { .midi($0) }
        let otherMessages: [MIDIMessage] = [.noteOn(channel: 0, key: 60, velocity: 1), .programChange(channel: 0, program: 1),
                                            .controlChange(channel: 3, controller: 64, value: 64), .pitchBend(channel: 0, value: 0),
                                            .channelPressure(channel: 0, pressure: 0), .polyPressure(channel: 0, key: 60, pressure: 0),
                                            .system(.rhythmPart(channel: 0, isDrum: true)), .system(.masterVolume(0))]
            + [0, 1, 7, 10, 11, 91, 122, 128, 255].map { .controlChange(channel: 0, controller: $0, value: 0) }
        let notEnding: [Action] = [.mute(false)] + otherMessages.map { .midi($0) }
        for action in ending { XCTAssertTrue(action.endsSound, "\(action)") }
        for action in notEnding { XCTAssertFalse(action.endsSound, "\(action)") }
        XCTAssertEqual(MIDIController.named(64), .sustainPedal)
        XCTAssertNil(MIDIController.named(122))
    }

    func testNoteOnsThatDoNotFitAreRefusedAndCounted() {
        let engine = engineWithFullRing()
        for key in 0..<100 {
            XCTAssertFalse(engine.send(midi: .noteOn(channel: 1, key: UInt8(key), velocity: 100)))
        }
        XCTAssertFalse(engine.send(midi: .programChange(channel: 1, program: 5)))
        XCTAssertEqual(engine.refusedCommandCount, 101)
        XCTAssertEqual(engine.pendingReleaseCount, 0)
        // The eight that fitted play; the refused ones never do.
        _ = engine.renderOffline(frameCount: 64)
        XCTAssertEqual(engine.renderer.statistics.activeVoices, capacity)
        XCTAssertEqual(engine.renderer.statistics.noteOns, capacity)
    }

    func testRefusedNoteOffsAreRetriedInOrderSoNoNoteSticks() {
        let engine = engineWithFullRing()
        for key in 0..<capacity {
            XCTAssertTrue(engine.send(midi: .noteOff(channel: 0, key: UInt8(60 + key), velocity: 64)), "a release is kept, not refused")
        }
        engine.send(midi: .noteOff(channel: 0, key: 60, velocity: 64))  // already waiting: not queued twice
        XCTAssertEqual(engine.pendingReleaseCount, capacity)
        XCTAssertEqual(engine.deferredReleaseCount, capacity + 1)
        XCTAssertEqual(engine.refusedCommandCount, 0)
        // While releases wait, a note-on may not overtake them.
        XCTAssertFalse(engine.send(midi: .noteOn(channel: 0, key: 90, velocity: 100)))
        XCTAssertEqual(engine.refusedCommandCount, 1)

        // The audio thread takes the note-ons; the releases follow as soon as there is room.
        _ = engine.renderOffline(frameCount: 64)
        XCTAssertEqual(engine.renderer.statistics.noteOns, capacity)
        XCTAssertEqual(engine.pendingReleaseCount, 0, "processEvents retried them")
        let tail = engine.renderOffline(frameCount: 48_000)  // release is 0.3 s
        XCTAssertEqual(engine.renderer.statistics.activeVoices, 0, "no stuck note")
        XCTAssertLessThan(SignalAnalysis.largestAbs(tail[(tail.count - 4_800)...]), 1e-5, "the last 50 ms are silent")
    }

    func testPedalUpAndAllNotesOffAreKeptToo() {
        let engine = engineWithFullRing()
        XCTAssertTrue(engine.send(midi: .controlChange(channel: 0, controller: 64, value: 127)) == false, "pedal down is refused")
        engine.releaseAllNotes()  // 16 pedal-ups and 16 all-notes-offs, none fits now
        XCTAssertEqual(engine.pendingReleaseCount, 32)
        _ = engine.renderOffline(frameCount: 64 * 8)  // each block frees room for the next eight
        XCTAssertEqual(engine.pendingReleaseCount, 0)
        _ = engine.renderOffline(frameCount: 48_000)
        XCTAssertEqual(engine.renderer.statistics.activeVoices, 0)
    }

    func testReleaseKindsAreTheOnesThatEndSound() {
        let releases: [RenderCommand.Action] = [
            .midi(.noteOff(channel: 0, key: 1, velocity: 64)), .midi(.noteOn(channel: 0, key: 1, velocity: 0)), .toneOff(slot: 0), .allSoundOff,
            .midi(.controlChange(channel: 0, controller: 64, value: 0)), .midi(.controlChange(channel: 0, controller: 123, value: 0)),
            .midi(.controlChange(channel: 0, controller: 120, value: 0)), .mute(true),
        ]
        let others: [RenderCommand.Action] = [
            .midi(.noteOn(channel: 0, key: 1, velocity: 1)), .midi(.controlChange(channel: 0, controller: 64, value: 127)),
            .midi(.controlChange(channel: 0, controller: 7, value: 0)), .midi(.programChange(channel: 0, program: 0)), .mute(false),
        ]
        for action in releases {
            let engine = engineWithFullRing()
            XCTAssertTrue(engine.send(action), "\(action) is kept")
            XCTAssertEqual(engine.pendingReleaseCount, 1, "\(action)")
        }
        for action in others {
            let engine = engineWithFullRing()
            XCTAssertFalse(engine.send(action), "\(action) is refused")
            XCTAssertEqual(engine.refusedCommandCount, 1, "\(action)")
        }
    }
}
