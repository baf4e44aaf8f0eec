import DSP
import Foundation
import XCTest

/// The chorus's sweep, as a known answer: a single voice delays an impulse by the minimum delay
/// plus its sine-swept depth at that moment; and the send reverb is the mix reverb, wet only.
final class ChorusTests: XCTestCase {
    let rate = 48_000.0

    /// Feeds one impulse at `frame` through a one-voice chorus (centre: √½ to each side, at
    /// level 1) and returns where the echo's centroid lands, in frames after the impulse.
    func measuredDelay(at frame: Int, rateHertz: Double, depthMilliseconds: Double) -> Double {
        let chorus = Chorus(sampleRate: rate, voiceCount: 1, rateHertz: rateHertz, depthMilliseconds: depthMilliseconds)
        defer { chorus.deallocate() }
        let count = 1_024
        var input = [Float](repeating: 0, count: count)
        input[0] = 1
        var left = [Float](repeating: 0, count: count), right = left
        input.withUnsafeBufferPointer { i in left.withUnsafeMutableBufferPointer { l in right.withUnsafeMutableBufferPointer { r in
            chorus.process(i.baseAddress!, addingTo: l.baseAddress!, right: r.baseAddress!, frameCount: count, frameTime: UInt64(frame))
        } } }
        XCTAssertEqual(left, right, "one voice sits in the centre")
        let total = left.reduce(0, +)
        XCTAssertEqual(Double(total), 0.5.squareRoot(), accuracy: 0.01, "the echo keeps the impulse's weight")
        return left.enumerated().reduce(0) { $0 + Double($1.offset) * Double($1.element) } / Double(total)
    }

    func testOneVoiceDelaysByTheMinimumPlusItsSweptDepth() {
        let rateHertz = 0.3, depth = 8.0
        let depthFrames = depth / 1_000 * rate
        for frame in [0, 20_000, 40_000, 80_000, 123_456] {
            // The tap reads at the delay of the moment it reads: the echo comes out τ frames after
            // the impulse where τ = delay(frame + τ), found by iterating (the sweep is slow).
            var expected = 0.0
            for _ in 0..<20 {
                let phase = (Double(frame) + expected) * rateHertz / rate
                expected = Chorus.minimumDelayFrames + depthFrames / 2 * (1 + sin(2 * Double.pi * phase))
            }
            // Within one echo the sweep moves the delay by under 0.01 frame: the centroid is exact to that.
            XCTAssertEqual(measuredDelay(at: frame, rateHertz: rateHertz, depthMilliseconds: depth), expected, accuracy: 0.05, "frame \(frame)")
        }
    }

    /// Three voices sweep out of phase: hard left, centre and hard right each hear their own delay.
    func testVoicesSpreadAcrossTheStereoField() {
        let chorus = Chorus(sampleRate: rate)
        defer { chorus.deallocate() }
        var input = [Float](repeating: 0, count: 2_048)
        input[0] = 1
        var left = [Float](repeating: 0, count: 2_048), right = left
        input.withUnsafeBufferPointer { i in left.withUnsafeMutableBufferPointer { l in right.withUnsafeMutableBufferPointer { r in
            chorus.process(i.baseAddress!, addingTo: l.baseAddress!, right: r.baseAddress!, frameCount: 2_048, frameTime: 0)
        } } }
        XCTAssertNotEqual(left, right)
        // The three voices at 1/√3 each, panned at constant power (left: 1, √½, 0; right: 0, √½, 1):
        // each side's echoes weigh (1 + √½)/√3 together.
        let weight = (1 + 0.5.squareRoot()) / 3.0.squareRoot()
        XCTAssertEqual(Double(left.reduce(0, +)), weight, accuracy: 0.01, "the sweep stretches an echo by under 1 %")
        XCTAssertEqual(Double(right.reduce(0, +)), weight, accuracy: 0.01)
    }

    /// `processSend` is the reverb at a full mix, fed the send as both sides: the same wet output.
    func testTheSendReverbIsTheFullMixReverbWetOnly() {
        var mixed = Reverb(sampleRate: rate, maxFrameCount: 512, preset: .largeHall, mixPercent: 100)
        var sent = Reverb(sampleRate: rate, maxFrameCount: 512, preset: .largeHall, mixPercent: 100)
        defer { mixed.deallocate(); sent.deallocate() }
        let input = (0..<4_800).map { Float(sin(Double($0) * 0.01)) * (($0 < 2_000) ? 0.5 : 0) }
        var left = input, right = input
        var sentLeft = [Float](repeating: 0, count: input.count), sentRight = sentLeft
        left.withUnsafeMutableBufferPointer { l in right.withUnsafeMutableBufferPointer { r in
            mixed.process(left: l.baseAddress!, right: r.baseAddress!, frameCount: l.count)
        } }
        input.withUnsafeBufferPointer { i in sentLeft.withUnsafeMutableBufferPointer { l in sentRight.withUnsafeMutableBufferPointer { r in
            sent.processSend(i.baseAddress!, addingTo: l.baseAddress!, right: r.baseAddress!, level: 1, frameCount: i.count)
        } } }
        for frame in stride(from: 0, to: input.count, by: 97) {
            XCTAssertEqual(sentLeft[frame], left[frame], accuracy: 1e-6)
            XCTAssertEqual(sentRight[frame], right[frame], accuracy: 1e-6)
        }
        XCTAssertGreaterThan(sentLeft[3_000...].map(abs).max()!, 0.01, "a tail after the input stops")
    }
}
