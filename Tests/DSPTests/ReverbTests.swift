import DSP
import Foundation
import XCTest

/// The reverb's decay times, mix law and stability.
final class ReverbTests: XCTestCase {
    let rate = 48_000.0
    let block = 256

    /// Runs `left`/`right` through `reverb` in blocks of `block` frames.
    func run(_ reverb: inout Reverb, left: inout [Float], right: inout [Float]) {
        let count = left.count
        left.withUnsafeMutableBufferPointer { l in
            right.withUnsafeMutableBufferPointer { r in
                var done = 0
                while done < count {
                    let n = min(block, count - done)
                    reverb.process(left: l.baseAddress! + done, right: r.baseAddress! + done, frameCount: n)
                    done += n
                }
            }
        }
    }

    /// T30 of an impulse response's energy (both channels): Schroeder backward integration, a
    /// least-squares line through the decay curve from −5 to −35 dB, extrapolated to −60 dB.
    func t30(left: [Float], right: [Float]) -> Double {
        var decay = [Double](repeating: 0, count: left.count)
        var sum = 0.0
        for index in stride(from: left.count - 1, through: 0, by: -1) {
            sum += Double(left[index]) * Double(left[index]) + Double(right[index]) * Double(right[index])
            decay[index] = sum
        }
        let total = decay[0]
        var n = 0.0, sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0
        for (index, energy) in decay.enumerated() {
            let level = 10 * log10(energy / total)
            guard level <= -5, level >= -35 else { continue }
            let t = Double(index) / rate
            n += 1; sx += t; sy += level; sxx += t * t; sxy += t * level
        }
        let slope = (n * sxy - sx * sy) / (n * sxx - sx * sx)  // dB per second
        return -60 / slope
    }

    func impulseResponse(_ preset: ReverbPreset) -> (left: [Float], right: [Float]) {
        var reverb = Reverb(sampleRate: rate, maxFrameCount: block, preset: preset, mixPercent: 100)
        defer { reverb.deallocate() }
        // Long enough that the truncated integral does not bend the curve above −35 dB.
        let frames = Int(preset.rt60Seconds * 2.5 * rate)
        var left = [Float](repeating: 0, count: frames), right = left
        left[0] = 1; right[0] = 1
        run(&reverb, left: &left, right: &right)
        return (left, right)
    }

    func testEveryPresetDecaysWithinTenPercentOfItsDocumentedRT60() {
        for preset in ReverbPreset.allCases {
            let response = impulseResponse(preset)
            let measured = t30(left: response.left, right: response.right)
            print("\(preset.name): T30 \(String(format: "%.3f", measured)) s, documented \(preset.rt60Seconds) s")
            XCTAssertEqual(measured, preset.rt60Seconds, accuracy: preset.rt60Seconds * 0.1, preset.name)
        }
    }

    func testTheChannelsAreDecorrelated() {
        let response = impulseResponse(.mediumRoom)
        var lr = 0.0, ll = 0.0, rr = 0.0
        for index in 0..<response.left.count {
            let l = Double(response.left[index]), r = Double(response.right[index])
            lr += l * r; ll += l * l; rr += r * r
        }
        XCTAssertLessThan(abs(lr / (ll * rr).squareRoot()), 0.3)
    }

    func noise(_ count: Int, seed: UInt64) -> [Float] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(Int32(truncatingIfNeeded: state >> 32)) / Float(Int32.max)
        }
    }

    func testZeroMixPassesTheInputThroughExactly() {
        for preset in ReverbPreset.allCases {
            var reverb = Reverb(sampleRate: rate, maxFrameCount: block, preset: preset, mixPercent: 0)
            defer { reverb.deallocate() }
            let inputLeft = noise(48_000, seed: 1), inputRight = noise(48_000, seed: 2)
            var left = inputLeft, right = inputRight
            run(&reverb, left: &left, right: &right)
            XCTAssertEqual(left, inputLeft, preset.name)
            XCTAssertEqual(right, inputRight, preset.name)
        }
    }

    /// At 100 % the output holds no dry signal: nothing comes out before the shortest delay, and
    /// the output is uncorrelated with the input at lag 0.
    func testFullMixHasNoDrySignal() {
        var reverb = Reverb(sampleRate: rate, maxFrameCount: block, preset: .plate, mixPercent: 100)
        defer { reverb.deallocate() }
        let inputLeft = noise(48_000, seed: 3), inputRight = noise(48_000, seed: 4)
        var left = inputLeft, right = inputRight
        run(&reverb, left: &left, right: &right)
        // The shortest path is the shortest comb (1116 samples at 44.1 kHz → 1215 at 48 kHz).
        XCTAssertLessThan(left[0..<1_200].map { abs($0) }.max()!, 1e-12)
        XCTAssertLessThan(right[0..<1_200].map { abs($0) }.max()!, 1e-12)
        var cross = 0.0, inputEnergy = 0.0, outputEnergy = 0.0
        for index in 0..<left.count {
            cross += Double(left[index]) * Double(inputLeft[index])
            inputEnergy += Double(inputLeft[index]) * Double(inputLeft[index])
            outputEnergy += Double(left[index]) * Double(left[index])
        }
        XCTAssertGreaterThan(outputEnergy, inputEnergy * 0.05)  // the wet signal is there
        XCTAssertLessThan(abs(cross / (inputEnergy * outputEnergy).squareRoot()), 0.05)
    }

    /// Moving the mix ramps across a block: no output step larger than the signal's own steps.
    func testMixChangesAreSmoothed() {
        var reverb = Reverb(sampleRate: rate, maxFrameCount: block, preset: .mediumRoom, mixPercent: 0)
        defer { reverb.deallocate() }
        var left = [Float](repeating: 0.5, count: block), right = left
        run(&reverb, left: &left, right: &right)  // settle at 0 %
        reverb.setMix(100)
        left = [Float](repeating: 0.5, count: block); right = left
        run(&reverb, left: &left, right: &right)
        // Dry 0.5 fades to wet over 256 frames: each frame's change stays small.
        var previous: Float = 0.5, worst: Float = 0
        for sample in left { worst = max(worst, abs(sample - previous)); previous = sample }
        XCTAssertLessThan(worst, 0.02)
        XCTAssertEqual(reverb.mixPercent, 100)
    }

    func testTheTailStaysFiniteOverTenSecondsOfFullLevelNoise() {
        for preset in ReverbPreset.allCases {
            var reverb = Reverb(sampleRate: rate, maxFrameCount: 512, preset: preset, mixPercent: 100)
            defer { reverb.deallocate() }
            var left = noise(480_000, seed: 5), right = noise(480_000, seed: 6)
            run(&reverb, left: &left, right: &right)
            XCTAssertTrue(left.allSatisfy { $0.isFinite } && right.allSatisfy { $0.isFinite }, preset.name)
            XCTAssertLessThan(left.map { abs($0) }.max()!, 10, preset.name)
            // …and then decays to silence (not to denormals) in the quiet that follows.
            var quietLeft = [Float](repeating: 0, count: Int(preset.rt60Seconds * 3 * rate)), quietRight = quietLeft
            run(&reverb, left: &quietLeft, right: &quietRight)
            XCTAssertLessThan(quietLeft.suffix(1_000).map { abs($0) }.max()!, 1e-6, preset.name)
            XCTAssertTrue(quietLeft.allSatisfy { $0 == 0 || abs($0) >= Float.leastNormalMagnitude }, preset.name)
        }
    }

    func testPresetsAndKnobs() {
        XCTAssertEqual(Set(ReverbPreset.allCases.map(\.name)).count, 4)
        var reverb = Reverb(sampleRate: 44_100, maxFrameCount: 64)
        defer { reverb.deallocate() }
        reverb.setRoomSize(0.5)
        XCTAssertEqual(reverb.decaySeconds, 1.24, accuracy: 0.02)
        reverb.setDamping(2)
        XCTAssertEqual(reverb.damping, 1)
        reverb.setMix(-5)
        XCTAssertEqual(reverb.mixPercent, 0)
        // Blocks longer than maxFrameCount are split.
        reverb.setMix(50)
        var left = [Float](repeating: 0, count: 1_000), right = left
        left[0] = 1
        left.withUnsafeMutableBufferPointer { l in
            right.withUnsafeMutableBufferPointer { r in
                reverb.process(left: l.baseAddress!, right: r.baseAddress!, frameCount: 1_000)
            }
        }
        XCTAssertTrue(left.allSatisfy { $0.isFinite })
    }
}
