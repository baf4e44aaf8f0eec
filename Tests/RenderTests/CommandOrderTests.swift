import DSP
import Engine
import Render
import TestSupport
import XCTest

/// Commands take effect at their frames in frame order (equal frames in the order sent), whatever
/// order they were sent in: the renderer keeps what it has read from the ring in a pending store,
/// so a command for now is never held behind one sent earlier for later.
final class CommandOrderTests: XCTestCase {
    let rate = 48_000.0
    /// A frame no test renders up to: a command stamped there stays pending throughout.
    let farFuture: FrameTime = 100_000_000

    func makeToneEngine(commandCapacity: Int = 4_096) -> Engine {
        Engine(configuration: EngineConfiguration(
            render: RenderConfiguration(sampleRate: rate, channelCount: 2, outputLimiter: false, songGainDecibels: 0),
            commandCapacity: commandCapacity))
    }

    /// The left channel of `frameCount` frames rendered in blocks of `blockFrameCount`.
    func renderLeft(_ engine: Engine, frameCount: Int, blockFrameCount: Int = 64) -> [Float] {
        SignalAnalysis.channel(0, of: engine.renderOffline(frameCount: frameCount, blockFrameCount: blockFrameCount), channelCount: 2)
    }

    /// The frame each tone started on: a tone starts at phase 0 (value 0) on its frame, so the
    /// first non-zero sample after silence is the frame after it.
    func onsets(in left: [Float]) -> [Int] {
        var onsets: [Int] = []
        var silentRun = 0
        for (frame, sample) in left.enumerated() {
            if sample == 0 {
                silentRun += 1
            } else {
                if silentRun >= 100 || (onsets.isEmpty && silentRun == frame) { onsets.append(frame - 1) }
                silentRun = 0
            }
        }
        return onsets
    }

    func testAnImmediateCommandSentAfterAFarFutureOneTakesEffectInTheSameBlock() {
        for immediateStamp in [FrameTime(0), 64, 100] {  // 0, the block's first frame, and in the past
            let engine = makeToneEngine()
            _ = renderLeft(engine, frameCount: 128)
            engine.send(.toneOff(slot: 3), at: farFuture)
            engine.send(.toneOn(slot: 0, frequency: 440, amplitude: 0.5), at: immediateStamp)
            let left = renderLeft(engine, frameCount: 64)
            XCTAssertEqual(left.firstIndex { $0 != 0 }, 1, "a tone stamped \(immediateStamp) starts on the block's first frame")
        }
    }

    func testCommandsSentOutOfFrameOrderTakeEffectInFrameOrderAtTheirFrames() {
        // Each tone sounds 300 frames and fades out within 240, so every start follows silence.
        let starts: [FrameTime] = [3_000, 1_000, 5_037, 2_001, 4_063, 64]
        func send(_ engine: Engine, startingAt starts: [FrameTime]) {
            for start in starts {
                // Slot and pitch follow the tone's place in time, whatever the order sent.
                let rank = starts.sorted().firstIndex(of: start)!
                engine.send(.toneOn(slot: UInt8(rank % 4), frequency: 440 + 110 * Float(rank), amplitude: 0.5), at: start)
                engine.send(.toneOff(slot: UInt8(rank % 4)), at: start + 300)
            }
        }
        let shuffled = makeToneEngine()
        send(shuffled, startingAt: starts)
        let left = renderLeft(shuffled, frameCount: 6_000)
        XCTAssertEqual(onsets(in: left), starts.sorted().map(Int.init))

        // The same commands sent in frame order, rendered in other blocks: the same output.
        let inOrder = makeToneEngine()
        send(inOrder, startingAt: starts.sorted())
        let reference = renderLeft(inOrder, frameCount: 6_000, blockFrameCount: 37)
        XCTAssertEqual(onsets(in: reference), starts.sorted().map(Int.init))
        XCTAssertEqual(SignalAnalysis.largestAbs(zip(left, reference).map { $0 - $1 }[...]), 0, "bit-identical")
    }

    func testCommandsAtTheSameFrameKeepTheOrderSent() {
        // Many commands at one frame, among others sent for earlier and later frames, so that the
        // store's order is rebuilt many times: the last one sent for the frame decides.
        for lastIsOn in [true, false] {
            let engine = makeToneEngine()
            let frame: FrameTime = 1_000
            engine.send(.toneOff(slot: 3), at: farFuture)
            for step in 0..<40 {
                let isOn = (step % 2 == 1) == lastIsOn
                engine.send(isOn ? .toneOn(slot: 0, frequency: 500, amplitude: 0.5) : .toneOff(slot: 0), at: frame)
                engine.send(.toneOff(slot: 2), at: frame + FrameTime(step * 7 % 13) - 6)
            }
            let left = renderLeft(engine, frameCount: 4_000)
            XCTAssertEqual(left[...Int(frame)].allSatisfy { $0 == 0 }, true, "silent up to the frame")
            if lastIsOn {
                XCTAssertEqual(left.firstIndex { $0 != 0 }, Int(frame) + 1, "the tone starts on the frame")
                XCTAssertGreaterThan(SignalAnalysis.rms(left[2_000...]), 0.3, "the last command sent was a tone-on")
            } else {
                XCTAssertEqual(SignalAnalysis.rms(left[...]), 0, "the last command sent was a tone-off")
            }
        }
    }

    /// A command stamped in the past is due when it is read, after those sent before it: a release
    /// sent "now" with stamp 0 follows the note sent a moment earlier stamped with the frame now.
    func testLateCommandsKeepTheOrderSent() {
        let engine = makeToneEngine()
        _ = renderLeft(engine, frameCount: 640)
        engine.send(.toneOff(slot: 3), at: farFuture)
        engine.send(.toneOn(slot: 0, frequency: 440, amplitude: 0.5), at: engine.renderedFrameTime)
        engine.send(.toneOff(slot: 0), at: 0)
        let left = renderLeft(engine, frameCount: 4_800)
        XCTAssertEqual(SignalAnalysis.rms(left[1_000...]), 0, "the tone-off sent last ended the tone")
    }

    /// When the pending store (as large as the ring) is full, the ring is read no further until a
    /// pending command is applied: what waits in the ring waits, and senders find the ring full.
    func testAFullStoreLeavesTheRingUnreadUntilACommandIsApplied() {
        let capacity = 8
        let engine = makeToneEngine(commandCapacity: capacity)
        let due: FrameTime = 10_000
        for _ in 0..<capacity { XCTAssertTrue(engine.send(.toneOff(slot: 1), at: due)) }
        XCTAssertEqual(engine.freeCommandSlots(), 0)
        _ = renderLeft(engine, frameCount: 64)
        XCTAssertEqual(engine.freeCommandSlots(), capacity, "the renderer took the ring's commands into its store")

        XCTAssertTrue(engine.send(.toneOn(slot: 0, frequency: 440, amplitude: 0.5)))
        for _ in 1..<capacity { XCTAssertTrue(engine.send(.toneOff(slot: 1), at: due + 1)) }
        let held = renderLeft(engine, frameCount: 1_024)
        XCTAssertEqual(SignalAnalysis.rms(held[...]), 0, "the store is full: the tone-on waits in the ring")
        XCTAssertEqual(engine.freeCommandSlots(), 0, "the ring stays unread")
        XCTAssertFalse(engine.send(.toneOn(slot: 2, frequency: 660, amplitude: 0.5)), "a note is refused")
        XCTAssertEqual(engine.refusedCommandCount, 1)
        XCTAssertTrue(engine.send(.toneOff(slot: 2)), "a release is kept")
        XCTAssertEqual(engine.pendingReleaseCount, 1)

        // At `due` the store applies its first command, and the ring flows again.
        let rendered = Int(engine.renderedFrameTime)
        let left = renderLeft(engine, frameCount: Int(due) + 1_000 - rendered)
        XCTAssertEqual(left.firstIndex { $0 != 0 }.map { $0 + rendered }, Int(due) + 1, "the waiting tone starts at the first free slot")
        XCTAssertEqual(engine.freeCommandSlots(), capacity)
        XCTAssertEqual(engine.pendingReleaseCount, 0)
    }

    /// An install that must wait for a free bank slot keeps its place: the note sent after it
    /// waits with it and plays on the new bank, never on the old one.
    func testANoteAfterAWaitingBankInstallPlaysOnTheNewBank() {
        let engine = Engine(configuration: EngineConfiguration(
            render: RenderConfiguration(sampleRate: SyntheticBank.rate, outputLimiter: false, effects: false, songGainDecibels: 0)))
        engine.send(.toneOff(slot: 3), at: farFuture)
        // Every bank slot holds a bank with a voice sounding, so the next install has to wait.
        for key in 0..<8 {
            XCTAssertTrue(engine.install(SyntheticBank.sine(frequency: 220)))
            engine.send(midi: .noteOn(channel: 0, key: UInt8(40 + key), velocity: 100))
        }
        _ = engine.renderOffline(frameCount: 4_800)
        XCTAssertEqual(engine.renderer.statistics.activeVoices, 8)
        engine.send(.allSoundOff)
        XCTAssertTrue(engine.install(SyntheticBank.sine(frequency: 880)))
        engine.send(midi: .noteOn(channel: 0, key: 69, velocity: 100))
        let left = SignalAnalysis.channel(0, of: engine.renderOffline(frameCount: 24_000), channelCount: 2)
        let measured = SignalAnalysis.frequency(of: left[12_000...], sampleRate: SyntheticBank.rate)
        XCTAssertEqual(measured ?? 0, 880, accuracy: 1, "key 69 on the new bank (on the old one it would be 220 Hz)")
        XCTAssertEqual(engine.renderer.statistics.activeVoices, 1)
    }

    /// Banks sent but never installed are not leaked when the engine goes away.
    func testABankStillPendingIsReleasedWithTheEngine() {
        weak var pendingBank: SampleBank?
        do {
            let engine = makeToneEngine()
            let bank = SyntheticBank.sine(frequency: 330)
            pendingBank = bank
            XCTAssertTrue(engine.install(bank, at: farFuture))
            _ = engine.renderOffline(frameCount: 64)
        }
        XCTAssertNil(pendingBank, "the renderer gave back the install's retain")
    }
}
