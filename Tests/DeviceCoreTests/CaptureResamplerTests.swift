import DeviceCore
import Foundation
import XCTest

/// `CaptureResampler`: what a duplex stream on two clocks does to the microphone instead of
/// dropping or repeating a frame.
final class CaptureResamplerTests: XCTestCase {
    static let period = 64

    /// Feeds `signal` (mono) a period at a time at `ratio`; returns the output and its per-period counts.
    static func run(_ signal: [Float], ratio: (Int) -> Double) -> (output: [Float], counts: [Int]) {
        var resampler = CaptureResampler(channelCount: 1, maxInputFrameCount: period)
        defer { resampler.deallocate() }
        var output: [Float] = [], counts: [Int] = []
        var block = [Float](repeating: 0, count: CaptureResampler.maxOutputFrameCount(forInput: period))
        signal.withUnsafeBufferPointer { input in
            for (index, start) in stride(from: 0, to: signal.count - period + 1, by: period).enumerated() {
                let made = block.withUnsafeMutableBufferPointer {
                    resampler.resample(input.baseAddress! + start, inputFrameCount: period, ratio: ratio(index), into: $0.baseAddress!)
                }
                counts.append(made)
                output += block[..<made]
            }
        }
        return (output, counts)
    }

    func testAtARatioOfOneTheInputPassesUntouchedTwoFramesLater() {
        let signal = (0..<6_400).map { _ in Float.random(in: -1...1) }
        let (output, counts) = Self.run(signal, ratio: { _ in 1 })
        XCTAssertEqual(Set(counts), [Self.period], "a period out for a period in, from the first")
        XCTAssertEqual(CaptureResampler.delayFrameCount, 2)
        XCTAssertEqual(Array(output.prefix(2)), [0, 0])
        XCTAssertEqual(Array(output.dropFirst(2)), Array(signal.prefix(output.count - 2)), "bit for bit")
    }

    func testAStretchedSineKeepsItsShapeAndChangesItsPitchByTheRatio() {
        // 1000 ppm: a 1 kHz sine comes out at 1/1.001 of it, and what is made is what was taken.
        let rate = 48_000.0, ratio = 1.001
        let signal = (0..<96_000).map { Float(sin(2 * Double.pi * 1_000 * Double($0) / rate)) * 0.5 }
        let (output, counts) = Self.run(signal, ratio: { _ in ratio })
        let taken = counts.count * Self.period
        XCTAssertEqual(Double(output.count), Double(taken) / ratio, accuracy: 4, "made = taken / ratio")
        // Against the ideal stretch of the same sine, past the start.
        var worst: Float = 0
        for index in 1_000..<output.count {
            let ideal = Float(sin(2 * Double.pi * 1_000 * ((Double(index) - 2) * ratio) / rate)) * 0.5
            worst = max(worst, abs(output[index] - ideal))
        }
        XCTAssertLessThan(worst, 0.002, "cubic interpolation of a 1 kHz sine: under -48 dB of error")
    }

    func testARatioThatMovesLeavesNoStepInTheSignal() {
        // The ratio swings every period across the whole allowed range: the output stays as
        // smooth as the sine itself (a dropped or repeated frame would step by up to 0.065).
        let rate = 48_000.0
        let signal = (0..<48_000).map { Float(sin(2 * Double.pi * 500 * Double($0) / rate)) * 0.5 }
        let (output, _) = Self.run(signal, ratio: { $0 % 2 == 0 ? 1 + DriftCorrector.maximumDeviation : 1 - DriftCorrector.maximumDeviation })
        let largestSineStep = Float(2 * Double.pi * 500 / rate) * 0.5
        var largest: Float = 0
        for index in 3..<output.count { largest = max(largest, abs(output[index] - output[index - 1])) }
        XCTAssertLessThan(largest, largestSineStep * 1.01)
    }
}
