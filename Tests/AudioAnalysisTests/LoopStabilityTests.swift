import AudioAnalysis
import DSP
import Foundation
import XCTest

/// The Nyquist criterion on a feedback loop (`LoopStability`), against loops whose edge is known
/// and against the loop itself, run long enough to see it grow or die.
final class LoopStabilityTests: XCTestCase {
    static let sampleRate = 48_000.0
    static let flat = LoopStability.Chain(gain: 1)

    /// A pure delay with gain g: its phase turns through zero at every multiple of the sample
    /// rate over the delay, so the margin is −20·log10 g whether g is below 1 or above.
    func testAFlatDelayedLoopHowlsExactlyAboveAGainOfOne() {
        for gain: Float in [0.5, 0.9, 1.1, 2] {
            let stability = LoopStability(response: [gain], latencyFrameCount: 100, sampleRate: Self.sampleRate)
            let margin = stability.margin(chain: Self.flat)
            XCTAssertEqual(Double(margin.decibels), -20 * log10(Double(gain)), accuracy: 0.01, "gain \(gain)")
            XCTAssertEqual(margin.isStable, gain < 1)
            XCTAssertEqual(margin.hertz.remainder(dividingBy: Self.sampleRate / 100), 0, accuracy: 1, "a crossing at k·480 Hz")
        }
    }

    /// Magnitude above 1 is not enough to howl: the phase must come round to zero. Negative
    /// feedback without delay never does; one frame of delay brings it round at half the sample
    /// rate, the end of the grid.
    func testAGainAboveOneHowlsOnlyWhereThePhaseIsZero() {
        let inverted = LoopStability(response: [-2], latencyFrameCount: 0, sampleRate: Self.sampleRate)
        XCTAssertEqual(inverted.margin(chain: Self.flat).decibels, .infinity)
        let delayed = LoopStability(response: [-2], latencyFrameCount: 1, sampleRate: Self.sampleRate)
        let margin = delayed.margin(chain: Self.flat)
        XCTAssertEqual(Double(margin.decibels), -20 * log10(2.0), accuracy: 0.01)
        XCTAssertEqual(margin.hertz, Self.sampleRate / 2, accuracy: 1)
        // The chain's response counts: one that inverts makes the loop +2 at 0 Hz.
        let inverting = delayed.margin(chain: LoopStability.Chain(gain: -1))
        XCTAssertEqual(Double(inverting.decibels), -20 * log10(2.0), accuracy: 0.01)
        XCTAssertEqual(inverting.hertz, 0)
        // A chain's sections count as the room's frames do: a section that delays by one frame
        // turns the first loop into the second.
        let oneFrame = BiquadCoefficients(b0: 0, b1: 1, b2: 0, a1: 0, a2: 0)
        let sectionDelayed = inverted.margin(chain: LoopStability.Chain(gain: 1, sections: [oneFrame]))
        XCTAssertEqual(Double(sectionDelayed.decibels), -20 * log10(2.0), accuracy: 0.01)
        XCTAssertEqual(sectionDelayed.hertz, Self.sampleRate / 2, accuracy: 1)
    }

    /// The criterion's edge is the loop's: run around a room with a strong mode, with a chain
    /// 1.5 dB below the edge the loop rings down after an impulse, 1.5 dB above it grows.
    /// The ideal bank places each notch on the crossing the loop would howl at first: the first
    /// goes where the margin says, and every further notch raises the edge or leaves it.
    func testTheIdealBankNotchesTheWorstCrossingsInTurn() {
        let stability = LoopStability(response: RoomImpulse.stage.response(), latencyFrameCount: 128, sampleRate: Self.sampleRate)
        let flat = LoopStability.Chain(gain: 1)
        func notch(_ hertz: Double) -> BiquadCoefficients {
            BiquadCoefficients(.peaking(gain: -30), frequency: hertz, q: 14, sampleRate: Self.sampleRate)
        }
        XCTAssertEqual(stability.idealNotchRise(chain: flat, notchCount: 0, notch: notch).decibels, 0)
        let one = stability.idealNotchRise(chain: flat, notchCount: 1, notch: notch)
        XCTAssertEqual(try XCTUnwrap(one.hertz.first), stability.margin(chain: flat).hertz, accuracy: 0.01)
        var last: Float = 0
        for count in [1, 2, 4, 8] {
            let rise = stability.idealNotchRise(chain: flat, notchCount: count, notch: notch)
            XCTAssertEqual(rise.hertz.count, count)
            XCTAssertGreaterThanOrEqual(rise.decibels, last - 0.01, "\(count) notches")
            last = rise.decibels
        }
        XCTAssertGreaterThan(last, 3, "a room with two strong modes rises with notches on them")
    }

    func testTheEdgeIsWhereTheRunningLoopStartsToGrow() {
        let room = (0..<4_800).map { n -> Float in
            let t = Double(n) / Self.sampleRate
            return Float((n == 0 ? 0.3 : 0) + 0.02 * exp(-t / 0.02) * sin(2 * Double.pi * 700 * t + 0.4))
        }
        let stability = LoopStability(response: room, latencyFrameCount: AcousticLoop.latencyFrameCount, sampleRate: Self.sampleRate)
        let edge = stability.margin(chain: Self.flat).decibels  // the chain's gain at the edge, dB
        XCTAssertTrue(edge.isFinite)
        var voice = [Float](repeating: 0, count: Int(4 * Self.sampleRate))
        voice[0] = 1
        func level(offsetDecibels: Float) -> (early: Float, late: Float) {
            let gain = Float(pow(10, Double(edge + offsetDecibels) / 20))
            let output = AcousticLoop(response: room).run(voice: voice) { left, right, frameCount in
                for frame in 0..<frameCount { left[frame] *= gain; right[frame] *= gain }
            }
            let second = Int(Self.sampleRate)
            return (MaximumStableGain.level(output[second..<(2 * second)]), MaximumStableGain.level(output.suffix(second)))
        }
        let below = level(offsetDecibels: -1.5), at = level(offsetDecibels: 0), above = level(offsetDecibels: 1.5)
        print("loop edge \(edge) dB at \(stability.margin(chain: Self.flat).hertz) Hz; seconds 1-2 and 3-4 after an impulse: "
              + "\(below) 1.5 dB below, \(at) at, \(above) 1.5 dB above")
        XCTAssertLessThan(below.late, below.early - 20, "1.5 dB below the edge the ring dies away")
        XCTAssertEqual(at.late, at.early, accuracy: 1, "at the edge it neither dies away nor grows")
        XCTAssertGreaterThan(above.late, above.early + 20, "1.5 dB above the edge it grows")
    }
}
