import DSP
import Foundation
import TestSupport
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
    func t30(left: [Float], right: [Float], rate: Double = 48_000) -> Double {
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

    func impulseResponse(_ preset: ReverbPreset, rate: Double = 48_000) -> (left: [Float], right: [Float]) {
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

    /// Dattorro's lengths are scaled from 29,761 Hz and Freeverb's from 44.1 kHz: the plate decays
    /// at the same rate whatever the engine's.
    func testThePlateDecaysAlikeAtEveryRate() {
        for rate in [44_100.0, 96_000.0] {
            let response = impulseResponse(.plate, rate: rate)
            let measured = t30(left: response.left, right: response.right, rate: rate)
            print("Plate at \(rate) Hz: T30 \(String(format: "%.3f", measured)) s")
            XCTAssertEqual(measured, ReverbPreset.plate.rt60Seconds, accuracy: ReverbPreset.plate.rt60Seconds * 0.1)
        }
    }

    /// The rooms' right channel has longer delay lines than the left; the plate's channels tap
    /// different points of its tank.
    func testTheChannelsAreDecorrelated() {
        for preset in ReverbPreset.allCases {
            let response = impulseResponse(preset)
            var lr = 0.0, ll = 0.0, rr = 0.0
            for index in 0..<response.left.count {
                let l = Double(response.left[index]), r = Double(response.right[index])
                lr += l * r; ll += l * l; rr += r * r
            }
            XCTAssertLessThan(abs(lr / (ll * rr).squareRoot()), 0.3, preset.name)
        }
    }

    /// Switching between the Freeverb tank and the plate while a tail sounds fades the old tail out
    /// across a block: the output has no step. A low tone makes a smooth tail, where a step shows.
    func testSwitchingTanksDoesNotClick() {
        for (from, to) in [(ReverbPreset.largeHall, ReverbPreset.plate), (.plate, .mediumRoom)] {
            var reverb = Reverb(sampleRate: rate, maxFrameCount: block, preset: from, mixPercent: 100)
            defer { reverb.deallocate() }
            let tone = (0..<96_000).map { Float(0.5 * sin(2 * Double.pi * 80 * Double($0) / rate)) }
            var left = Array(tone[..<48_000]), right = left
            run(&reverb, left: &left, right: &right)
            let steadyStep = largestStep(left.suffix(4_800))
            reverb.setPreset(to)
            var after = Array(tone[48_000...]), afterRight = after
            run(&reverb, left: &after, right: &afterRight)
            let switchStep = largestStep([left.last!] + after.prefix(2 * block))
            XCTAssertLessThan(switchStep, steadyStep * 3, "\(from.name) → \(to.name)")
            XCTAssertGreaterThan(SignalAnalysis.rms(after.suffix(4_800)), 0.01, "the new tank sounds")
        }
    }

    /// Switching away and back before the next block leaves the tail alone: nothing was cleared.
    func testSwitchingAwayAndBackKeepsTheTail() {
        // Two reverbs with the same history; only the first switches.
        var reverbs = (0..<2).map { _ in Reverb(sampleRate: rate, maxFrameCount: block, preset: .largeHall, mixPercent: 100) }
        defer { reverbs.forEach { $0.deallocate() } }
        var tails: [[Float]] = []
        for number in 0..<2 {
            var left = [Float](repeating: 0, count: 24_000), right = left
            left[0] = 1; right[0] = 1
            run(&reverbs[number], left: &left, right: &right)
        }
        reverbs[0].setPreset(.plate)
        reverbs[0].setPreset(.largeHall)
        for number in 0..<2 {
            var left = [Float](repeating: 0, count: 4_800), right = left
            run(&reverbs[number], left: &left, right: &right)
            tails.append(left)
        }
        XCTAssertEqual(tails[0], tails[1])
        XCTAssertGreaterThan(SignalAnalysis.rms(tails[0][...]), 1e-4)
    }

    func largestStep<C: Collection>(_ samples: C) -> Float where C.Element == Float {
        zip(samples.dropFirst(), samples).map { abs($0 - $1) }.max()!
    }

    func noise(_ count: Int, seed: UInt64) -> [Float] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(Int32(truncatingIfNeeded: state >> 32)) / Float(Int32.max)
        }
    }

    /// The undamped combs' vector loop gives what the damped loop gives at a vanishing damping.
    func testUndampedCombsMatchTheDampedLoopAtVanishingDamping() {
        var outputs: [[Float]] = []
        for damping: Float in [0, 1e-12] {
            var reverb = Reverb(sampleRate: rate, maxFrameCount: 512, preset: .mediumRoom, mixPercent: 100)
            defer { reverb.deallocate() }
            reverb.setDamping(damping)
            var left = (0..<24_000).map { $0 < 3_000 ? Float(sin(Double($0) * 0.02)) * 0.5 : 0 }
            var right = left
            run(&reverb, left: &left, right: &right)
            outputs.append(left + right)
        }
        XCTAssertGreaterThan(outputs[0][20_000...].map(abs).max()!, 1e-3, "a tail")
        for index in stride(from: 0, to: outputs[0].count, by: 101) { XCTAssertEqual(outputs[0][index], outputs[1][index], accuracy: 1e-6) }
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
        // The plate's shortest path is its 20 ms pre-delay and the first tap, 266 samples at
        // 29,761 Hz (1389 frames at 48 kHz); the rooms' is the shortest comb (1215 at 48 kHz).
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
