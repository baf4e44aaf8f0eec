import AudioFile
import DSP
import Engine
import Render
import TestSupport
import XCTest

/// The test-tone instrument through the whole render core, offline: pitch, click-free starts and
/// stops, sample-accurate command timing and the master volume.
final class ToneRenderTests: XCTestCase {
    let rate = 48_000.0

    func makeEngine(volume: Float = 1) -> Engine {
        Engine(configuration: EngineConfiguration(render: RenderConfiguration(sampleRate: rate, channelCount: 2, outputLimiter: false, songGainDecibels: 0),
                                                  initialMasterVolume: volume))
    }

    func testPitchIsExact() {
        for frequency in [27.5, 440, 1_000, 4_186.01] {
            let engine = makeEngine()
            engine.send(.toneOn(slot: 0, frequency: Float(frequency), amplitude: 0.5))
            let left = SignalAnalysis.channel(0, of: engine.renderOffline(frameCount: Int(rate)), channelCount: 2)
            let measured = SignalAnalysis.frequency(of: left[2_000...], sampleRate: rate)!
            let cents = 1_200 * log2(measured / frequency)
            XCTAssertLessThan(abs(cents), 0.05, "\(frequency) Hz rendered as \(measured) Hz")
        }
    }

    func testSineKernelMatchesLibm() {
        var worst = 0.0
        for step in 0..<10_000 {
            let turns = Double(step) / 10_000
            worst = max(worst, abs(sineOfTurns(turns) - sin(2 * .pi * turns)))
        }
        XCTAssertLessThan(worst, 1e-7)
    }

    func testStartAndStopDoNotClick() {
        let engine = makeEngine()
        let frequency: Float = 1_000
        engine.send(.toneOn(slot: 0, frequency: frequency, amplitude: 1), at: 0)
        engine.send(.toneOff(slot: 0), at: 24_000)
        let left = SignalAnalysis.channel(0, of: engine.renderOffline(frameCount: 30_000), channelCount: 2)
        // A full-scale sine's own largest step is 2π·f/rate; a click is a step well beyond it.
        let ownStep = Float(2 * Double.pi * Double(frequency) / rate)
        XCTAssertLessThanOrEqual(abs(left[0]), ownStep, "starts from silence")
        XCTAssertLessThanOrEqual(SignalAnalysis.largestStep(left[...]), ownStep * 1.01)
        XCTAssertEqual(SignalAnalysis.rms(left[24_000 + 240 ..< 30_000]), 0, "silent after the 5 ms fade")
        XCTAssertGreaterThan(SignalAnalysis.rms(left[24_000 ..< 24_100]), 0.1, "fades rather than cuts")
    }

    func testCommandsTakeEffectAtTheirFrameNotTheBlock() {
        for onset in [0, 1, 63, 64, 100, 1_000] {
            let engine = makeEngine()
            engine.send(.toneOn(slot: 0, frequency: 440, amplitude: 1), at: FrameTime(onset))
            let left = SignalAnalysis.channel(0, of: engine.renderOffline(frameCount: 2_048, blockFrameCount: 64), channelCount: 2)
            let first = left.firstIndex { $0 != 0 }
            // The sine starts at phase 0 (value 0) on the onset frame; the next frame is the first non-zero.
            XCTAssertEqual(first, onset + 1, "tone scheduled at frame \(onset)")
        }
    }

    func testMasterVolumeScalesSmoothly() {
        let engine = makeEngine(volume: 1)
        engine.send(.toneOn(slot: 0, frequency: 500, amplitude: 1))
        let loud = SignalAnalysis.channel(0, of: engine.renderOffline(frameCount: 9_600), channelCount: 2)
        engine.masterVolume.set(0.25)
        let quiet = SignalAnalysis.channel(0, of: engine.renderOffline(frameCount: 9_600), channelCount: 2)
        XCTAssertEqual(SignalAnalysis.rms(quiet[1_000...]) / SignalAnalysis.rms(loud[1_000...]), 0.25, accuracy: 0.01)
        let ownStep = Float(2 * Double.pi * 500 / rate)
        XCTAssertLessThanOrEqual(SignalAnalysis.largestStep((loud + quiet)[...]), ownStep * 1.01, "no zipper step at the change")
    }

    func testAllSoundOffSilencesEverySlot() {
        let engine = makeEngine()
        for slot in 0..<4 { engine.send(.toneOn(slot: UInt8(slot), frequency: Float(200 + 100 * slot), amplitude: 0.2)) }
        engine.send(.allSoundOff, at: 4_800)
        let left = SignalAnalysis.channel(0, of: engine.renderOffline(frameCount: 9_600), channelCount: 2)
        XCTAssertGreaterThan(SignalAnalysis.rms(left[..<4_800]), 0.1)
        XCTAssertEqual(SignalAnalysis.rms(left[5_100...]), 0)
    }

    func testOutOfRangeSlotsAndNaNAreIgnored() {
        let engine = makeEngine()
        engine.send(.toneOn(slot: 200, frequency: 440, amplitude: 1))
        engine.send(.toneOn(slot: 1, frequency: .nan, amplitude: 1))
        engine.send(.toneOn(slot: 2, frequency: 440, amplitude: .infinity))
        let samples = engine.renderOffline(frameCount: 1_024)
        XCTAssertEqual(SignalAnalysis.rms(samples[...]), 0)
    }

    func testFullCommandRingRefusesAndCounts() {
        let engine = Engine(configuration: EngineConfiguration(commandCapacity: 16))
        var accepted = 0
        for _ in 0..<20 where engine.send(.toneOn(slot: 0, frequency: 440, amplitude: 0.5)) { accepted += 1 }
        XCTAssertEqual(accepted, 16)
        XCTAssertEqual(engine.refusedCommandCount, 4)
        _ = engine.renderOffline(frameCount: 64)
        XCTAssertTrue(engine.send(.toneOn(slot: 0, frequency: 440, amplitude: 0.5)), "room again after the audio thread drained the ring")
    }

    func testRetainedObjectsAreReleasedOnTheControlThread() {
        final class Payload {
            let onDeinit: () -> Void
            init(onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
            deinit { onDeinit() }
        }
        let engine = makeEngine()
        var freed = false
        do {
            let payload = Payload { freed = true }
            engine.renderer.report(.retired(RetainedObject(retaining: payload)))
        }
        XCTAssertFalse(freed, "the return ring holds a reference until the control thread drains it")
        engine.processEvents()
        XCTAssertTrue(freed)
    }

    func testRendersToAFileThroughLibsndfile() throws {
        let engine = makeEngine()
        engine.send(.toneOn(slot: 0, frequency: 440, amplitude: 0.5))
        let path = NSTemporaryDirectory() + "staccato-tone-\(getpid()).wav"
        defer { unlink(path) }
        try engine.renderOffline(frameCount: 48_000, to: path)
        let decoded = try AudioFileReader.read(path)
        XCTAssertEqual(decoded.frameCount, 48_000)
        XCTAssertEqual(decoded.sampleRate, 48_000)
        XCTAssertEqual(SignalAnalysis.frequency(of: decoded.channel(1)[1_000...], sampleRate: rate)!, 440, accuracy: 0.01)
    }
}
