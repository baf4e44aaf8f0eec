import DSP
import Engine
@testable import Render
import TestSupport
import XCTest

/// The reverb and chorus buses: what each voice sends (CC91/CC93 through the default modulators,
/// plus the region's send generators), that a bus nobody sends to changes nothing, that the
/// returns ring on after the notes, and that the buses run frame-exactly whatever the block size.
final class EffectsSendTests: XCTestCase {
    let rate = SyntheticBank.rate

    func renderer(effects: Bool = true, bank: SampleBank = SyntheticBank.sine()) -> Engine {
        let engine = Engine(configuration: EngineConfiguration(render: RenderConfiguration(
            sampleRate: rate, outputLimiter: false, effects: effects, songGainDecibels: 0)))
        XCTAssertTrue(engine.install(bank))
        return engine
    }

    func cc(_ controller: MIDIController, _ value: UInt8) -> RenderCommand.Action {
        .midi(.controlChange(channel: 0, controller: controller.rawValue, value: value))
    }

    /// Renders `blocks` blocks of 64 frames, returning the left output and the two send buses of
    /// the last block.
    func lastBlock(_ engine: Engine, blocks: Int) -> (left: [Float], reverb: [Float], chorus: [Float]) {
        let output = UnsafeMutablePointer<Float>.allocate(capacity: 128)
        defer { output.deallocate() }
        for _ in 0..<blocks { engine.renderer.render(into: output, frameCount: 64) }
        let sends = engine.renderer.sends
        return ((0..<64).map { output[2 * $0] }, Array(UnsafeBufferPointer(start: sends.reverbInput, count: 64)),
                Array(UnsafeBufferPointer(start: sends.chorusInput, count: 64)))
    }

    /// A centred voice reaches the dry left side at cos(π/4) of its level and each send at its send
    /// share: CC91 127 → 200/1000 × 127/128 (the default modulator's amount; a 7-bit controller is
    /// normalised over its 128 values, SF2 2.04 §8.2.1, as FluidSynth does), CC93 64 → 200/1000 ×
    /// 64/128, the region's generators added. The dry side is measured with the effects off, where it is alone.
    func testEachVoiceSendsItsShareOfTheSignalToEachBus() {
        for regionReverb: Float in [0, 0.1] {
            let bank = SyntheticBank.sine { $0.reverbSend = regionReverb; $0.chorusSend = 0.05 }
            let wet = renderer(bank: bank), dry = renderer(effects: false, bank: bank)
            for engine in [wet, dry] {
                engine.send(cc(.reverbSend, 127))
                engine.send(cc(.chorusSend, 64))
                engine.send(midi: .noteOn(channel: 0, key: 69, velocity: 127))
            }
            let sent = lastBlock(wet, blocks: 20), alone = lastBlock(dry, blocks: 20)
            let reverbShare = 0.2 * 127 / 128 + Double(regionReverb), chorusShare = 0.2 * 64 / 128 + 0.05
            let centreGain = 0.5.squareRoot()
            for frame in stride(from: 0, to: 64, by: 7) where abs(alone.left[frame]) > 0.01 {
                XCTAssertEqual(Double(sent.reverb[frame] / alone.left[frame]), reverbShare / centreGain, accuracy: 1e-4, "reverb, region \(regionReverb)")
                XCTAssertEqual(Double(sent.chorus[frame] / alone.left[frame]), chorusShare / centreGain, accuracy: 1e-4, "chorus, region \(regionReverb)")
            }
            XCTAssertEqual(alone.reverb, [Float](repeating: 0, count: 64), "effects off: nothing is sent")
        }
    }

    /// With every send at 0 (CC91 and CC93 at 0, no send generators) the buses stay idle and the
    /// output is exactly the dry render.
    func testNothingSentChangesNothing() {
        let wet = renderer(), dry = renderer(effects: false)
        for engine in [wet, dry] {
            engine.send(cc(.reverbSend, 0))
            engine.send(midi: .noteOn(channel: 0, key: 69, velocity: 100))
            engine.send(midi: .noteOff(channel: 0, key: 69, velocity: 64), at: 9_600)
        }
        XCTAssertEqual(wet.renderOffline(frameCount: 48_000), dry.renderOffline(frameCount: 48_000))
    }

    /// At General MIDI's default CC91 (40) a note's reverb rings on after the voice has ended;
    /// dry, the output after the voice is exact silence.
    func testTheReverbRingsOnAfterTheNote() {
        let wet = renderer(), dry = renderer(effects: false)
        for engine in [wet, dry] {
            engine.send(midi: .noteOn(channel: 0, key: 69, velocity: 127))
            engine.send(midi: .noteOff(channel: 0, key: 69, velocity: 64), at: 4_800)
        }
        let wetOutput = SignalAnalysis.channel(0, of: wet.renderOffline(frameCount: 48_000), channelCount: 2)
        let dryOutput = SignalAnalysis.channel(0, of: dry.renderOffline(frameCount: 48_000), channelCount: 2)
        XCTAssertEqual(wet.renderer.statistics.activeVoices, 0, "the voice has ended (release 0.3 s)")
        XCTAssertEqual(SignalAnalysis.largestAbs(dryOutput[26_400...]), 0)
        let tail = SignalAnalysis.rms(wetOutput[26_400 ..< 36_000])
        XCTAssertGreaterThan(tail, 1e-4, "a reverb tail after the voice")
        XCTAssertLessThan(tail, SignalAnalysis.rms(dryOutput[0 ..< 4_800]) * 0.3, "below the note itself")
    }

    /// All sound off (the panic, the stop path) fades the returns out with the voices, over 5 ms
    /// from its frame: exact silence after that, whatever the block size. (CC120 on one channel
    /// leaves the buses ringing, as in FluidSynth: the other channels' sends are in them too.)
    func testAllSoundOffFadesTheTailsOutWithTheVoices() {
        for block in [64, 1_000] {
            let engine = renderer()
            engine.send(cc(.reverbSend, 127))
            engine.send(cc(.chorusSend, 127))
            engine.send(midi: .noteOn(channel: 0, key: 69, velocity: 127))
            engine.send(.allSoundOff, at: 24_017)
            let output = SignalAnalysis.channel(0, of: engine.renderOffline(frameCount: 36_000, blockFrameCount: block), channelCount: 2)
            XCTAssertGreaterThan(SignalAnalysis.largestAbs(output[23_000 ..< 24_017]), 0.1)
            // 5 ms, which the voices round up to their 64-frame control blocks.
            XCTAssertEqual(SignalAnalysis.largestAbs(output[(24_017 + 320)...]), 0, "block \(block)")
            XCTAssertFalse(engine.renderer.sends.reverbGate.isRunning)
        }
    }

    /// The buses stop and start on exact frames (a silent input for long enough, then a new
    /// sound), with the chorus's LFO and delay line placed by the absolute frame: blocks of 1, 37
    /// and 4,096 frames give the same returns to the last bit.
    func testTheBusesRunFrameExactlyWhateverTheBlockSize() {
        let frameCount = 48_000 * 8  // longer than the reverb's idle time (2.4 s), twice over
        var input = [Float](repeating: 0, count: frameCount)
        for burst in [1_000, 200_000] { for frame in burst ..< burst + 2_000 { input[frame] = Float(sin(Double(frame) * 0.05)) * 0.3 } }
        var outputs: [[Float]] = []
        for block in [1, 37, 4_096] {
            var sends = EffectsSends(sampleRate: rate, maxFrameCount: 4_096)
            defer { sends.deallocate() }
            var left = [Float](repeating: 0, count: frameCount), right = left
            var done = 0
            while done < frameCount {
                let count = min(block, frameCount - done)
                for frame in 0..<count {
                    sends.reverbInput[frame] = input[done + frame]
                    sends.chorusInput[frame] = input[done + frame]
                }
                left.withUnsafeMutableBufferPointer { l in
                    right.withUnsafeMutableBufferPointer { r in
                        sends.process(addingTo: l.baseAddress! + done, right: r.baseAddress! + done, frameCount: count, frameTime: FrameTime(done))
                    }
                }
                done += count
            }
            XCTAssertFalse(sends.reverbGate.isRunning, "idle again at the end (block \(block))")
            outputs.append(left + right)
        }
        XCTAssertGreaterThan(SignalAnalysis.largestAbs(outputs[0][200_000 ..< 210_000]), 0.01, "the second burst sounds")
        // (Compared as a count: XCTAssertEqual would print both arrays.)
        XCTAssertEqual(zip(outputs[0], outputs[1]).filter { $0 != $1 }.count, 0, "blocks of 1 and 37 frames")
        XCTAssertEqual(zip(outputs[0], outputs[2]).filter { $0 != $1 }.count, 0, "blocks of 1 and 4,096 frames")
    }
}
