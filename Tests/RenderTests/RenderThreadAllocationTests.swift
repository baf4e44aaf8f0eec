import CAllocationCounter
import CThreadName
import DSP
import Engine
import Foundation
import Render
import TestSupport
import XCTest

/// The audio thread never allocates or frees: a render thread in steady state, fed commands and
/// volume changes by the control thread, makes zero heap calls, and so does the voice worker it
/// hands voices to. The allocator is interposed in the test binary (Tests/CAllocationCounter) and
/// counts on every thread but the control thread.
final class RenderThreadAllocationTests: XCTestCase {
    override func setUpWithError() throws {
        try XCTSkipIf(staccato_allocation_counting_available() == 0, "allocation counting is off under sanitizers")
    }

    func testSteadyStateRenderThreadMakesNoHeapCalls() {
        // A recording tap and a microphone tap, so the recording paths run too (their rings are
        // drained below), and voice processing with echo cancellation (libspeexdsp) on the microphone.
        var render = RenderConfiguration(sampleRate: 48_000, channelCount: 2, maxFrameCount: 512, voiceCount: 64, songGainDecibels: 0)
        // A voice worker beside the render thread: its rendering is counted too.
        render.threadCount = 2
        render.voiceProcessing = true
        render.echoCancellation = true
        let engine = Engine(configuration: EngineConfiguration(render: render, recordingBufferSeconds: 1,
                                                               microphoneRecordingBufferSeconds: 1))
        let tap = engine.outputTap!
        let microphoneTap = engine.microphoneTap!
        // The third still decoding: its one sample's head alone is in, so notes on it watch the
        // frontier, ask for the rest, and starve.
        let decoding = SampleResidencyTests.ramp(frameCount: 48_000)
        decoding.residency.markWritten(0, below: decoding.start + 6_000)
        // The second with a filter, an equalizer and SFZ 2 flex envelopes and LFOs on every target.
        let banks = [SyntheticBank.sine(frequency: 440),
                     SyntheticBank.sine(frequency: 330, flex: SyntheticBank.everyFlexPart) { region in
                         region.filterCutoffCents = 9_000
                         SyntheticBank.equalize(&region)
                     }, decoding.bank]
        XCTAssertTrue(engine.install(banks[0]))
        let kits = [DrumRenderTests.kit(voices: 2).kit, DrumRenderTests.kit(voices: 3).kit]
        XCTAssertTrue(engine.install(kits[0]))
        let renderer = engine.renderer
        let outcome = HeapCallCounts()
        let warmedUp = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let blockCount = 4_000
        let thread = Thread {
            let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 512 * 2)
            // A microphone too, on odd blocks: the input chain, the howl guard and the meters run.
            let microphone = UnsafeMutablePointer<Float>.allocate(capacity: 512)
            for frame in 0..<512 { microphone[frame] = 0.3 * Float(sineOfTurns(Double(frame) * 0.013)) }
            // Warm-up: first use of any generic metadata may allocate; a device thread does the same
            // before it starts streaming.
            for _ in 0..<100 { renderer.render(input: microphone, inputChannelCount: 1, into: buffer, frameCount: 64) }
            // Paced as live playback paces the worker (it then sleeps once a period): that waiting
            // is counted too.
            renderer.setVoiceWorkersPaced(true)
            warmedUp.signal()
            staccato_allocation_counting_begin_every_thread()
            for block in 0..<blockCount {
                let frameCount = block % 7 == 0 ? 512 : 64
                if block % 2 == 1 {
                    renderer.render(input: microphone, inputChannelCount: 1, into: buffer, frameCount: frameCount)
                } else {
                    renderer.render(into: buffer, frameCount: frameCount)
                }
                renderer.report(.xrun(frameTime: 0))
                usleep(100)  // paced like a device, so the control thread's commands interleave
            }
            staccato_allocation_counting_end()
            outcome.allocations = staccato_allocation_count()
            outcome.frees = staccato_free_count()
            outcome.renderedBlocks = blockCount
            buffer.deallocate()
            microphone.deallocate()
            finished.signal()
        }
        thread.start()
        warmedUp.wait()
        staccato_allocation_counting_ignore_this_thread(1)
        defer { staccato_allocation_counting_ignore_this_thread(0) }
        var frame: FrameTime = 0
        var sent = 0
        let drain = UnsafeMutableBufferPointer<Float>.allocate(capacity: 48_000)
        defer { drain.deallocate() }
        while finished.wait(timeout: .now()) == .timedOut {
            frame = engine.renderedFrameTime + 32
            if engine.send(.toneOn(slot: UInt8(sent % 16), frequency: Float(100 + sent % 900), amplitude: 0.1), at: frame) { sent += 1 }
            engine.send(.toneOff(slot: UInt8((sent + 5) % 16)), at: frame + 10)
            if sent % 200 == 0 { engine.send(.allSoundOff, at: frame + 20) }
            // The sampler: notes (enough to make it steal), pedal, bend, controllers, bank swaps.
            let channel = UInt8(sent % 3)
            for chord in 0..<4 {
                engine.send(midi: .noteOn(channel: channel, key: UInt8(30 + (sent * 4 + chord) % 60), velocity: UInt8(1 + sent % 127)), at: frame)
            }
            engine.send(midi: .noteOff(channel: channel, key: UInt8(30 + (sent + 40) % 60), velocity: 64), at: frame + 5)
            engine.send(midi: .controlChange(channel: channel, controller: 64, value: sent % 7 == 0 ? 127 : 0), at: frame + 7)
            engine.send(midi: .pitchBend(channel: channel, value: UInt16(sent * 37 % 16_384)), at: frame + 9)
            engine.send(midi: .controlChange(channel: channel, controller: 1, value: UInt8(sent % 128)), at: frame + 11)
            if sent % 500 == 0 { engine.install(banks[(sent / 500) % 3], at: frame + 13) }
            // Drums: rolls fast enough to recycle, hi-hats that choke, kit swaps.
            engine.send(midi: .noteOn(channel: 9, key: [38, 42, 46][sent % 3], velocity: UInt8(1 + sent % 127)), at: frame + 3)
            if sent % 700 == 0 { engine.install(kits[(sent / 700) % 2], at: frame + 15) }
            engine.masterVolume.set(Float(sent % 10) / 10)
            // The effects: every knob moves, the reverb switches rooms and mutes come and go.
            engine.effects.bassDecibels.set(Float(sent % 25 - 12))
            engine.effects.trebleDecibels.set(Float(sent % 13 - 6))
            engine.effects.boostDecibels.set(Float(sent % 49 - 24))
            engine.effects.reverbPercent.set(Float(sent % 3 == 0 ? 0 : sent % 101))
            if sent % 50 == 0 { engine.send(.reverbPreset(ReverbPreset.allCases[(sent / 50) % 4]), at: frame + 17) }
            if sent % 90 == 0 { engine.send(.mute(sent % 180 == 0), at: frame + 19) }
            // Voice processing: hum removal, noise suppression and automatic gain switch and move.
            engine.effects.humRemoval.set(sent % 5 == 0 ? 0 : 1)
            engine.effects.noiseSuppressionDecibels.set(sent % 4 == 0 ? 0 : -Float(sent % 40))
            engine.effects.automaticGain.set(Float(sent / 3 % 2))
            engine.effects.gainTargetDecibels.set(-Float(5 + sent % 30))
            _ = tap.read(into: drain)
            _ = microphoneTap.read(into: drain)
            engine.processEvents()
            usleep(50)
        }
        engine.processEvents()
        XCTAssertEqual(outcome.renderedBlocks, blockCount)
        XCTAssertGreaterThan(sent, 100, "the control thread must have kept the render thread busy with commands")
        XCTAssertGreaterThan(renderer.statistics.stolenVoices, 0, "the steal path ran")
        XCTAssertGreaterThan(renderer.statistics.drumRecycles, 0, "the drum recycle path ran")
        XCTAssertGreaterThan(renderer.statistics.drumChokes, 0, "the choke path ran")
        XCTAssertGreaterThan(tap.tappedFrameCount, 0, "the recording tap ran")
        XCTAssertGreaterThan(microphoneTap.tappedFrameCount, 0, "the microphone's tap ran")
        XCTAssertGreaterThan(renderer.voiceItemsRenderedByWorkers, 0, "the voice worker rendered voices")
        XCTAssertGreaterThan(renderer.statistics.sampleUnderruns, 0, "voices on a sample still decoding starved")
        XCTAssertEqual(outcome.allocations, 0, "heap allocations on the render thread and the voice worker")
        XCTAssertEqual(outcome.frees, 0, "heap frees on the render thread and the voice worker")
        print("render thread and voice worker: \(outcome.allocations) allocations, \(outcome.frees) frees over \(blockCount) blocks;"
              + " the worker rendered \(renderer.voiceItemsRenderedByWorkers) work items")
    }

    /// Counting on every thread sees another thread's calls and leaves out a thread that ignores
    /// itself, or the test above could not fail for the worker, nor pass for the control thread.
    func testCountingOnEveryThreadSeesAnotherThreadsCalls() {
        staccato_allocation_counting_begin_every_thread()
        staccato_allocation_counting_ignore_this_thread(1)
        let done = DispatchSemaphore(value: 0)
        Thread {
            // Named as the voice workers are: other threads are not counted.
            _ = staccato_name_this_thread("staccato-test")
            let pointer = malloc(64)
            free(pointer)
            done.signal()
        }.start()
        done.wait()
        let ignored = [Int](repeating: 1, count: 1_000)
        staccato_allocation_counting_ignore_this_thread(0)
        staccato_allocation_counting_end()
        XCTAssertEqual(ignored.count, 1_000)
        XCTAssertGreaterThanOrEqual(staccato_allocation_count(), 1)
        XCTAssertGreaterThanOrEqual(staccato_free_count(), 1)
    }

    /// The counter itself must see allocations, or the test above could not fail.
    func testCounterSeesAnAllocationOnItsThread() {
        staccato_allocation_counting_begin()
        let pointer = malloc(64)
        free(pointer)
        let array = [Int](repeating: 1, count: 1_000)
        staccato_allocation_counting_end()
        XCTAssertEqual(array.count, 1_000)
        XCTAssertGreaterThanOrEqual(staccato_allocation_count(), 2)
        XCTAssertGreaterThanOrEqual(staccato_free_count(), 1)
    }
}
