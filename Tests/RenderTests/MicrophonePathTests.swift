import AudioAnalysis
import DSP
import Engine
import Foundation
import Render
import XCTest

/// `Renderer.microphonePath`: the engine's own account of the microphone's way to the speaker,
/// which the feedback benchmark judges by the Nyquist criterion, is the way the engine's audio
/// takes: around a room, the engine's loop rings down just below the edge the path gives and
/// grows just above it.
final class MicrophonePathTests: XCTestCase {
    static let rate = 48_000.0

    /// Every knob on the path away from neutral, so each stage counts.
    static func makeEngine(boostDecibels: Float, reverbPercent: Float = 0, voiceProcessing: Bool = false) -> Engine {
        var render = RenderConfiguration(sampleRate: rate, maxFrameCount: 64, outputLimiter: false, feedbackSuppression: false)
        render.voiceProcessing = voiceProcessing
        let engine = Engine(configuration: EngineConfiguration(render: render))
        engine.effects.bassDecibels.set(6)
        engine.effects.trebleDecibels.set(-4)
        engine.effects.volume.set(0.5)
        engine.effects.reverbPercent.set(reverbPercent)
        engine.effects.boostDecibels.set(boostDecibels)
        return engine
    }

    func testThePathsEdgeIsWhereTheEnginesLoopStartsToGrow() throws {
        // A direct path and a strong mode at 700 Hz, inside the bass shelf's reach.
        let room = (0..<4_800).map { n -> Float in
            let t = Double(n) / Self.rate
            return Float(0.1 * ((n == 0 ? 0.3 : 0) + 0.02 * exp(-t / 0.02) * sin(2 * Double.pi * 700 * t + 0.4)))
        }
        let stability = LoopStability(response: room, latencyFrameCount: AcousticLoop.latencyFrameCount, sampleRate: Self.rate)
        let path = try XCTUnwrap(Self.makeEngine(boostDecibels: 0).renderer.microphonePath())
        XCTAssertEqual(path.gain, 0.5, accuracy: 1e-6, "boost 0 dB × volume 0.5")
        XCTAssertEqual(path.sections.count, 3, "DC blocker, bass, treble; no notch")
        let edge = stability.margin(chain: LoopStability.Chain(gain: path.gain, sections: path.sections)).decibels
        XCTAssertTrue(EffectsControls.boostRange.contains(edge - 1.5) && EffectsControls.boostRange.contains(edge + 1.5), "edge \(edge) dB")

        var voice = [Float](repeating: 0, count: Int(4 * Self.rate))
        voice[0] = 0.01
        func levels(boostDecibels: Float) -> (early: Float, late: Float) {
            let engine = Self.makeEngine(boostDecibels: boostDecibels)
            let interleaved = UnsafeMutablePointer<Float>.allocate(capacity: 2 * AcousticLoop.blockFrameCount)
            defer { interleaved.deallocate() }
            let output = AcousticLoop(response: room).run(voice: voice) { left, right, frameCount in
                engine.renderer.render(input: left, inputChannelCount: 1, into: interleaved, frameCount: frameCount)
                for frame in 0..<frameCount {
                    left[frame] = interleaved[2 * frame]
                    right[frame] = interleaved[2 * frame + 1]
                }
            }
            let second = Int(Self.rate)
            return (MaximumStableGain.level(output[second..<(2 * second)]), MaximumStableGain.level(output.suffix(second)))
        }
        let below = levels(boostDecibels: edge - 1.5), above = levels(boostDecibels: edge + 1.5)
        print("microphone path: the loop's edge at a boost of \(edge) dB; seconds 1-2 and 3-4 after an impulse: \(below) 1.5 dB below, \(above) 1.5 dB above")
        XCTAssertLessThan(below.late, below.early - 10, "1.5 dB below the edge the engine's loop dies away")
        XCTAssertGreaterThan(above.late, above.early + 10, "1.5 dB above the edge it grows")
    }

    /// Reverb or voice processing in the path: no single linear filter describes it.
    func testNoPathWhereThePathIsNotLinear() {
        XCTAssertNotNil(Self.makeEngine(boostDecibels: 0).renderer.microphonePath())
        XCTAssertNil(Self.makeEngine(boostDecibels: 0, reverbPercent: 20).renderer.microphonePath())
        XCTAssertNil(Self.makeEngine(boostDecibels: 0, voiceProcessing: true).renderer.microphonePath())
    }
}
