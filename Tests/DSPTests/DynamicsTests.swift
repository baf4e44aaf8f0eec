import DSP
import Foundation
import XCTest

final class DynamicsTests: XCTestCase {
    let rate = 48_000.0

    func noise(_ count: Int, level: Float, seed: UInt64) -> [Float] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (Float(state >> 40) / Float(1 << 24) * 2 - 1) * level
        }
    }

    func testLimiterNeverLetsASamplePastTheCeiling() {
        var limiter = SafetyLimiter(sampleRate: rate)
        var left = noise(48_000, level: 4, seed: 1)  // +12 dBFS peaks
        var right = noise(48_000, level: 4, seed: 2)
        left.withUnsafeMutableBufferPointer { l in right.withUnsafeMutableBufferPointer { r in
            limiter.process(left: l.baseAddress!, right: r.baseAddress!, frameCount: 48_000)
        } }
        let ceiling = Float(pow(10, -1.0 / 20))
        XCTAssertLessThanOrEqual((left + right).map(abs).max()!, ceiling * 1.000_01)
        XCTAssertLessThan(limiter.deepestGain, 0.3)
    }

    func testLimiterLeavesQuietSignalUntouchedAndRecovers() {
        var limiter = SafetyLimiter(sampleRate: rate)
        var left = (0..<9_600).map { Float(sin(2 * Double.pi * 440 * Double($0) / rate)) * 0.5 }
        var right = left
        let original = left
        left.withUnsafeMutableBufferPointer { l in right.withUnsafeMutableBufferPointer { r in
            limiter.process(left: l.baseAddress!, right: r.baseAddress!, frameCount: 9_600)
        } }
        XCTAssertEqual(left, original, "below the ceiling the limiter is exactly transparent")
        // A burst, then quiet: gain comes back within a few release time constants.
        var burst = [Float](repeating: 3, count: 10) + [Float](repeating: 0.1, count: 24_000)
        var copy = burst
        burst.withUnsafeMutableBufferPointer { l in copy.withUnsafeMutableBufferPointer { r in
            limiter.process(left: l.baseAddress!, right: r.baseAddress!, frameCount: l.count)
        } }
        XCTAssertEqual(burst.last!, 0.1, accuracy: 0.001, "recovered after 0.5 s (10 release time constants)")
    }

    /// The limiter counts the frames it turned down by more than 0.01 dB: none for a signal
    /// below the ceiling, the burst and its recovery for one above it, and none again after a reset.
    func testLimiterCountsTheFramesItTurnsDown() {
        var limiter = SafetyLimiter(sampleRate: rate)
        func run(_ samples: [Float]) {
            var left = samples, right = samples
            left.withUnsafeMutableBufferPointer { l in right.withUnsafeMutableBufferPointer { r in
                limiter.process(left: l.baseAddress!, right: r.baseAddress!, frameCount: l.count)
            } }
        }
        run((0..<9_600).map { Float(sin(Double($0) * 0.06)) * 0.8 })
        XCTAssertEqual(limiter.reducedFrameCount, 0)
        XCTAssertEqual(limiter.deepestGain, 1)
        run([Float](repeating: 1.8, count: 480) + [Float](repeating: 0.1, count: 48_000))
        // 480 frames held at 0.89/1.8, then the release (50 ms time constant) from −6.1 dB to
        // −0.01 dB: ln(0.506 / 0.00115) × 2,400 frames ≈ 14,600 frames.
        XCTAssertEqual(Double(limiter.reducedFrameCount), 480 + 14_600, accuracy: 300)
        XCTAssertEqual(limiter.deepestGain, Float(pow(10, -1.0 / 20)) / 1.8, accuracy: 1e-4)
        limiter.resetReduction()
        run((0..<9_600).map { Float(sin(Double($0) * 0.06)) * 0.8 })
        XCTAssertEqual(limiter.reducedFrameCount, 0)
    }

    func testDCBlockerRemovesOffsetAndPassesAudio() {
        var blocker = DCBlocker(sampleRate: rate)
        var samples = (0..<96_000).map { Float(sin(2 * Double.pi * 1_000 * Double($0) / rate)) * 0.5 + 0.3 }
        samples.withUnsafeMutableBufferPointer { blocker.process($0.baseAddress!, frameCount: $0.count) }
        let tail = samples[48_000...]
        XCTAssertEqual(tail.reduce(0, +) / Float(tail.count), 0, accuracy: 0.001, "offset removed")
        let rms = (tail.reduce(0) { $0 + $1 * $1 } / Float(tail.count)).squareRoot()
        XCTAssertEqual(20 * log10(Double(rms) * 2.0.squareRoot() / 0.5), 0, accuracy: 0.01, "1 kHz untouched")
    }

    func testGainStageRampsToItsTargetWithoutAStep() {
        var stage = GainStage(decibels: 0, rampFrameCount: 480)
        stage.set(decibels: 6)
        var left = [Float](repeating: 0.25, count: 1_000), right = left
        left.withUnsafeMutableBufferPointer { l in right.withUnsafeMutableBufferPointer { r in
            stage.process(left: l.baseAddress!, right: r.baseAddress!, frameCount: 1_000)
        } }
        XCTAssertEqual(left.last!, 0.25 * Float(pow(10, 6.0 / 20)), accuracy: 1e-4)
        var largest: Float = 0
        for index in 1..<left.count { largest = max(largest, abs(left[index] - left[index - 1])) }
        XCTAssertLessThan(largest, 0.001, "10 ms ramp: each step tiny")
    }
}
