import CPUFeatures
import DSP
import Foundation
import SamplerKernels
import SamplerKernelsAVX2
import SamplerKernelsAVX512
import XCTest

/// Known answers for the real-time kernels, against libm and the cookbook formulas.
final class KernelTests: XCTestCase {
    func testFastExponentialsAndLogarithm() {
        var worstFloat: Float = 0, worstDouble = 0.0, worstLog: Float = 0
        for step in -4_000...4_000 {
            let x = Double(step) / 100  // -40 … 40
            worstFloat = max(worstFloat, abs(fastExp2(Float(x)) / Float(exp2(x)) - 1))
            worstDouble = max(worstDouble, abs(fastExp2(x) / exp2(x) - 1))
            let y = Float(exp2(x / 4))
            worstLog = max(worstLog, abs(log2Approximation(y) - log2(y)))
        }
        XCTAssertLessThan(worstFloat, 2e-6)
        XCTAssertLessThan(worstDouble, 1e-12)
        XCTAssertLessThan(worstLog, 3e-5)
        XCTAssertEqual(centsToRatio(1_200), 2, accuracy: 1e-12)
        XCTAssertEqual(absoluteCentsToHertz(6_900), 440, accuracy: 0.01)
        XCTAssertEqual(centibelsToAmplitude(200), 0.1, accuracy: 1e-6)
    }

    /// The eight-lane exponentials and sines a group's voices share give each lane exactly the
    /// scalar function's bits, so a voice's pitch, cutoff, level and filter do not depend on its
    /// group.
    func testLaneExponentialsEqualTheScalarOnesBitForBit() {
        var mismatches = 0
        for start in stride(from: -12_000, through: 12_000, by: 8) {
            let cents = SIMD8<Double>((0..<8).map { Double(start + $0) + 0.37 * Double($0) })
            let ratios = centsToRatio(cents)
            let hertz = absoluteCentsToHertz(SIMD8<Float>(cents) + 6_000)
            let levels = centibelsToAmplitude(SIMD8<Float>(cents) * 0.1)
            for lane in 0..<8 {
                if ratios[lane].bitPattern != centsToRatio(cents[lane]).bitPattern { mismatches += 1 }
                if hertz[lane].bitPattern != absoluteCentsToHertz(Float(cents[lane]) + 6_000).bitPattern { mismatches += 1 }
                if levels[lane].bitPattern != centibelsToAmplitude(Float(cents[lane]) * 0.1).bitPattern { mismatches += 1 }
            }
        }
        // The sines a group's two-pole filters are set from, likewise.
        for start in stride(from: 0, to: 45_000, by: 8) {
            let turns = SIMD8<Double>((0..<8).map { Double(start + $0) / 100_000 + 1e-7 * Double($0) })
            let (sine, cosine) = VoiceFilter.twoPoleSines(turns: turns)
            let sines = sineOfTurns(turns)
            for lane in 0..<8 {
                if sines[lane].bitPattern != sineOfTurns(turns[lane]).bitPattern { mismatches += 1 }
                if sine[lane].bitPattern != Float(sineOfTurns(turns[lane])).bitPattern { mismatches += 1 }
                if cosine[lane].bitPattern != Float(sineOfTurns(turns[lane] + 0.25)).bitPattern { mismatches += 1 }
            }
        }
        XCTAssertEqual(mismatches, 0)
        // Beyond the clamps, too.
        XCTAssertEqual(fastExp2(SIMD8<Double>(repeating: 5_000))[3], fastExp2(5_000.0))
        XCTAssertEqual(fastExp2(SIMD8<Float>(repeating: -300))[5], fastExp2(Float(-300)))
    }

    func testFastSineAgainstLibm() {
        var worstSingle: Float = 0, worstDouble = 0.0
        for step in 0..<100_000 {
            let turns = Double(step) / 100_000
            worstSingle = max(worstSingle, abs(fastSineOfTurns(Float(turns)) - Float(sin(2 * Double.pi * Double(Float(turns))))))
            worstDouble = max(worstDouble, abs(sineOfTurns(turns) - sin(2 * Double.pi * turns)))
        }
        XCTAssertLessThan(worstSingle, 1e-6)
        XCTAssertLessThan(worstDouble, 1e-7)
        XCTAssertEqual(fastSineOfTurns(0.25), 1, accuracy: 1e-6)
        XCTAssertEqual(fastSineOfTurns(0.75), -1, accuracy: 1e-6)
        XCTAssertEqual(fastSineOfTurns(0), 0, accuracy: 1e-7)
    }

    /// frames, frame count, gains, filtering, filter, sends reverb, sends chorus, left, right, reverb, chorus.
    typealias MixLanes = (UnsafePointer<SIMD8<Float>>, Int, UnsafePointer<LaneGains>, Bool, inout VoiceFilterLanes, Bool, Bool,
                          UnsafeMutablePointer<SIMD8<Float>>, UnsafeMutablePointer<SIMD8<Float>>,
                          UnsafeMutablePointer<SIMD8<Float>>, UnsafeMutablePointer<SIMD8<Float>>) -> Void

    /// Every build of the sampler kernels this CPU runs.
    var mixingKernels: [(name: String, mix: MixLanes)] {
        var kernels: [(name: String, mix: MixLanes)] = [("generic", {
            SamplerKernels.mixLanes($0, frameCount: $1, gains: $2, filtering: $3, filter: &$4, sendsReverb: $5, sendsChorus: $6,
                                    busLeft: $7, busRight: $8, busReverb: $9, busChorus: $10,
                                    leftFrom: $7, rightFrom: $8, reverbFrom: $9, chorusFrom: $10)
        })]
        if staccato_cpu_supports_avx2_fma() != 0 {
            kernels.append(("AVX2+FMA", {
                SamplerKernelsAVX2.mixLanes($0, frameCount: $1, gains: $2, filtering: $3, filter: &$4, sendsReverb: $5, sendsChorus: $6,
                                            busLeft: $7, busRight: $8, busReverb: $9, busChorus: $10,
                                            leftFrom: $7, rightFrom: $8, reverbFrom: $9, chorusFrom: $10)
            }))
        }
        if staccato_cpu_supports_avx512() != 0 {
            kernels.append(("AVX-512", {
                SamplerKernelsAVX512.mixLanes($0, frameCount: $1, gains: $2, filtering: $3, filter: &$4, sendsReverb: $5, sendsChorus: $6,
                                              busLeft: $7, busRight: $8, busReverb: $9, busChorus: $10,
                                              leftFrom: $7, rightFrom: $8, reverbFrom: $9, chorusFrom: $10)
            }))
        }
        return kernels
    }

    /// Filters `frames` in place through the kernel's mixing loop at unity gain: the filter runs
    /// nowhere else.
    func filter(_ frames: UnsafeMutablePointer<SIMD8<Float>>, count: Int, through filter: inout VoiceFilterLanes, _ mix: MixLanes) {
        let gains = UnsafeMutablePointer<LaneGains>.allocate(capacity: 1)
        defer { gains.deallocate() }
        var unity = LaneGains()
        unity.leftStart = SIMD8(repeating: 1)
        gains.initialize(to: unity)
        let left = UnsafeMutablePointer<SIMD8<Float>>.allocate(capacity: count)
        let right = UnsafeMutablePointer<SIMD8<Float>>.allocate(capacity: count)
        defer { left.deallocate(); right.deallocate() }
        left.initialize(repeating: SIMD8(), count: count)
        right.initialize(repeating: SIMD8(), count: count)
        mix(frames, count, gains, true, &filter, false, false, left, right, left, left)
        frames.update(from: left, count: count)
    }

    /// The send buses get each lane through its own ramped send gain, the same signal the dry buses
    /// get, and only when asked: a group that sends nothing leaves the send buses untouched.
    func testSendBusesGetEachLaneThroughItsRampedSendGain() {
        for kernel in mixingKernels {
            let count = 64
            let frames = UnsafeMutablePointer<SIMD8<Float>>.allocate(capacity: count)
            let buses = (0..<4).map { _ in UnsafeMutablePointer<SIMD8<Float>>.allocate(capacity: count) }
            let gains = UnsafeMutablePointer<LaneGains>.allocate(capacity: 1)
            defer { frames.deallocate(); buses.forEach { $0.deallocate() }; gains.deallocate() }
            for frame in 0..<count { frames[frame] = SIMD8((0..<8).map { Float(frame + 1) * Float($0 + 1) * 0.001 }) }
            var setting = LaneGains()
            setting.leftStart = SIMD8(repeating: 0.5)
            setting.rightStart = SIMD8(repeating: 0.25)
            setting.reverbStart = SIMD8((0..<8).map { Float($0) * 0.1 })
            setting.reverbStep = SIMD8(repeating: 0.001)
            setting.chorusStart = SIMD8(repeating: 0.2)
            setting.chorusStep = SIMD8(repeating: -0.002)
            gains.initialize(to: setting)
            for (reverb, chorus) in [(false, false), (true, false), (true, true)] {
                for bus in buses { bus.initialize(repeating: SIMD8(repeating: 7), count: count) }
                var filter = VoiceFilterLanes()
                kernel.mix(frames, count, gains, false, &filter, reverb, chorus, buses[0], buses[1], buses[2], buses[3])
                for frame in [0, 31, 63] {
                    for lane in 0..<8 {
                        let value = frames[frame][lane]
                        XCTAssertEqual(buses[0][frame][lane], 7 + value * 0.5, accuracy: 1e-5, kernel.name)
                        let reverbGain = Float(lane) * 0.1 + 0.001 * Float(frame + 1)
                        let chorusGain = 0.2 - 0.002 * Float(frame + 1)
                        XCTAssertEqual(buses[2][frame][lane], reverb ? 7 + value * reverbGain : 7, accuracy: 1e-5, "\(kernel.name) reverb")
                        XCTAssertEqual(buses[3][frame][lane], chorus ? 7 + value * chorusGain : 7, accuracy: 1e-5, "\(kernel.name) chorus")
                    }
                }
            }
        }
    }

    /// The eight-lane filter's measured magnitude matches the RBJ low-pass formula in every lane,
    /// and a lane given a fresh `VoiceFilter` passes its input through unchanged, in both builds.
    func testLowPassLanesMatchTheCookbookResponse() {
        for kernel in mixingKernels { checkLowPassLanes(kernel.name, kernel.mix) }
    }

    func checkLowPassLanes(_ kernel: String, _ mix: MixLanes) {
        let rate: Float = 48_000
        let cutoffs: [Float] = [500, 2_000, 8_000, 15_000, 1_000, 5_000, 11_000, 19_000]
        let qs: [Float] = [0.707, 2, 0.5, 4, 1, 0.707, 3, 0.6]
        let filters = UnsafeMutablePointer<VoiceFilter>.allocate(capacity: 9)
        defer { filters.deallocate() }
        filters.initialize(repeating: VoiceFilter(), count: 9)
        let lanes = UnsafeMutablePointer<UnsafeMutablePointer<VoiceFilter>>.allocate(capacity: 8)
        defer { lanes.deallocate() }
        for lane in 0..<8 {
            filters[lane].set(cutoff: cutoffs[lane], q: qs[lane], sampleRate: rate)
            lanes[lane] = filters + lane
        }
        for probe: Float in [100, 1_000, 4_000, 12_000] {
            let frames = 48_000
            let buffer = UnsafeMutablePointer<SIMD8<Float>>.allocate(capacity: frames)
            defer { buffer.deallocate() }
            for frame in 0..<frames { buffer[frame] = SIMD8(repeating: Float(sin(2 * Double.pi * Double(probe) * Double(frame) / Double(rate)))) }
            var filtering = VoiceFilterLanes(lanes)
            filter(buffer, count: frames, through: &filtering, mix)
            for lane in 0..<8 {
                // RMS over the last half second (a whole number of cycles of every probe) against
                // the input's 1/√2: a sampled peak would miss the true peak at high frequencies.
                var energy: Double = 0
                for frame in 24_000..<frames { energy += Double(buffer[frame][lane] * buffer[frame][lane]) }
                let gain = (energy / 24_000).squareRoot() * 2.0.squareRoot()
                // |H| of the RBJ low-pass at `probe`.
                let w0 = 2 * Double.pi * Double(cutoffs[lane]) / Double(rate)
                let alpha = sin(w0) / (2 * Double(qs[lane]))
                let b0 = (1 - cos(w0)) / 2, b1 = 1 - cos(w0), a0 = 1 + alpha, a1 = -2 * cos(w0), a2 = 1 - alpha
                let w = 2 * Double.pi * Double(probe) / Double(rate)
                let numerator = hypot(b0 + b1 * cos(w) + b0 * cos(2 * w), -(b1 * sin(w) + b0 * sin(2 * w)))
                let denominator = hypot(a0 + a1 * cos(w) + a2 * cos(2 * w), -(a1 * sin(w) + a2 * sin(2 * w)))
                let expectedDecibels = 20 * log10(numerator / denominator)
                XCTAssertEqual(20 * log10(gain), expectedDecibels, accuracy: 0.05, "\(kernel): lane \(lane) at \(probe) Hz")
            }
        }
        lanes[3] = filters + 8
        let frames = UnsafeMutablePointer<SIMD8<Float>>.allocate(capacity: 64)
        defer { frames.deallocate() }
        for frame in 0..<64 { frames[frame] = SIMD8(repeating: Float(sin(Double(frame)))) }
        var filtering = VoiceFilterLanes(lanes)
        filter(frames, count: 64, through: &filtering, mix)
        for frame in 0..<64 { XCTAssertEqual(frames[frame][3], Float(sin(Double(frame))), "\(kernel): passthrough lane, frame \(frame)") }
    }

    /// Every build sums each frame's lanes in the one pairwise order, `((l0 + l4) + (l1 + l5)) +
    /// ((l2 + l6) + (l3 + l7))`, bit for bit, in the eight-frame steps and the frames left over, and
    /// writes no frame past the count, on values whose sums round apart in other orders.
    func testLaneSumsAddInTheOnePairwiseOrderInEveryBuild() {
        typealias SumLanes = (UnsafePointer<SIMD8<Float>>, UnsafeMutablePointer<Float>, Int) -> Void
        var builds: [(name: String, sum: SumLanes)] = [("generic", { SamplerKernels.sumLanes($0, into: $1, frameCount: $2) })]
        if staccato_cpu_supports_avx2_fma() != 0 { builds.append(("AVX2+FMA", { SamplerKernelsAVX2.sumLanes($0, into: $1, frameCount: $2) })) }
        if staccato_cpu_supports_avx512() != 0 { builds.append(("AVX-512", { SamplerKernelsAVX512.sumLanes($0, into: $1, frameCount: $2) })) }
        let frameCount = 64
        let bus = UnsafeMutablePointer<SIMD8<Float>>.allocate(capacity: frameCount)
        let output = UnsafeMutablePointer<Float>.allocate(capacity: frameCount + 1)
        defer { bus.deallocate(); output.deallocate() }
        var generator = SystemRandomNumberGenerator()
        for frame in 0..<frameCount {
            // Magnitudes from 1e-4 to 1e4 and both signs, so that most orders of adding them round
            // apart (checked below for the plain left-to-right one).
            for lane in 0..<8 { bus[frame][lane] = Float.random(in: -1...1, using: &generator) * powf(10, Float(Int.random(in: -4...4, using: &generator))) }
        }
        func pairwise(_ l: SIMD8<Float>) -> Float { ((l[0] + l[4]) + (l[1] + l[5])) + ((l[2] + l[6]) + (l[3] + l[7])) }
        let inOrder = (0..<frameCount).map { frame in (0..<8).reduce(Float(0)) { $0 + bus[frame][$1] } }
        XCTAssertNotEqual(inOrder, (0..<frameCount).map { pairwise(bus[$0]) }, "the values tell the orders apart")
        for build in builds {
            for count in [0, 1, 7, 8, 9, 15, 16, 17, 63, 64] {
                for frame in 0...count { output[frame] = .nan }
                build.sum(bus, output, count)
                for frame in 0..<count {
                    XCTAssertEqual(output[frame].bitPattern, pairwise(bus[frame]).bitPattern, "\(build.name), \(count) frames: frame \(frame)")
                }
                XCTAssertTrue(output[count].isNaN, "\(build.name), \(count) frames: the frame after the last is untouched")
            }
        }
    }

    /// Every build's eight-lane low-pass terms are, lane by lane and bit for bit, what one
    /// filter's `setTwoPole` sets from the same cutoff, Q (below `leastQ` too) and passband gain,
    /// and the sine and cosine are the scalar functions'.
    func testLaneLowPassTermsEqualOneFiltersInEveryBuild() {
        typealias Terms = (sine: SIMD8<Float>, cosine: SIMD8<Float>, b0: SIMD8<Float>, b1: SIMD8<Float>, a1: SIMD8<Float>, a2: SIMD8<Float>)
        var builds: [(name: String, terms: (SIMD8<Double>, SIMD8<Float>, SIMD8<Float>) -> Terms)] = [
            ("generic", { SamplerKernels.twoPoleLowPassLanes(turns: $0, q: $1, passbandGain: $2) })]
        if staccato_cpu_supports_avx2_fma() != 0 {
            builds.append(("AVX2+FMA", { SamplerKernelsAVX2.twoPoleLowPassLanes(turns: $0, q: $1, passbandGain: $2) }))
        }
        if staccato_cpu_supports_avx512() != 0 {
            builds.append(("AVX-512", { SamplerKernelsAVX512.twoPoleLowPassLanes(turns: $0, q: $1, passbandGain: $2) }))
        }
        let qs: [Float] = [0.707, 0, 0.004, 1, 12.5, -3, 0.01, 96]
        let filters = UnsafeMutablePointer<VoiceFilter>.allocate(capacity: 8)
        let lanes = UnsafeMutablePointer<UnsafeMutablePointer<VoiceFilter>>.allocate(capacity: 8)
        defer { filters.deallocate(); lanes.deallocate() }
        filters.initialize(repeating: VoiceFilter(), count: 8)
        for lane in 0..<8 { lanes[lane] = filters + lane }
        var mismatches = 0, compared = 0
        for start in stride(from: 0, to: 45_000, by: 40) {
            var turns = SIMD8<Double>(), gains = SIMD8<Float>()
            for lane in 0..<8 {
                turns[lane] = Double(start + 5 * lane) / 100_000 + 1e-7 * Double(lane)
                gains[lane] = 0.25 + Float((lane + start) % 5) * 0.3
            }
            let q = SIMD8<Float>(qs)
            var sines = SIMD8<Float>(), cosines = SIMD8<Float>()
            for lane in 0..<8 {
                sines[lane] = Float(sineOfTurns(turns[lane]))
                cosines[lane] = Float(cosineOfTurns(turns[lane]))
                filters[lane].setTwoPole(.lowPass2, sine: sines[lane], cosine: cosines[lane], q: q[lane], passbandGain: gains[lane])
            }
            // One filter each, as the mixing kernel reads them.
            let one = VoiceFilterLanes(lanes)
            XCTAssertEqual(one.b2, one.b0, "a two-pole low-pass's b2 is its b0")
            let expected: [SIMD8<Float>] = [sines, cosines, one.b0, one.b1, one.a1, one.a2]
            for build in builds {
                let terms = build.terms(turns, q, gains)
                let got: [SIMD8<Float>] = [terms.sine, terms.cosine, terms.b0, terms.b1, terms.a1, terms.a2]
                for lane in 0..<8 {
                    compared += 1
                    guard expected.map({ $0[lane].bitPattern }) != got.map({ $0[lane].bitPattern }) else { continue }
                    mismatches += 1
                    if mismatches < 4 { XCTFail("\(build.name): turns \(turns[lane]), q \(q[lane]): lane \(lane) differs") }
                }
            }
        }
        XCTAssertEqual(mismatches, 0, "of \(compared) lanes")
    }

    /// Storing the lanes back flushes each lane's state as one filter's `flushDenormals` does
    /// (within ±`denormalThreshold` to +0, anything else kept), each lane into its own filter.
    func testStoringTheLanesFlushesEachLanesTinyStateAsOneFilterDoes() {
        let states: [Float] = [1e-21, -1e-21, 2e-20, -0.5, 0, -0, 1e-20, .leastNonzeroMagnitude]
        let filters = UnsafeMutablePointer<VoiceFilter>.allocate(capacity: 8)
        let lanes = UnsafeMutablePointer<UnsafeMutablePointer<VoiceFilter>>.allocate(capacity: 8)
        defer { filters.deallocate(); lanes.deallocate() }
        filters.initialize(repeating: VoiceFilter(), count: 8)
        for lane in 0..<8 { lanes[lane] = filters + lane }
        var filtering = VoiceFilterLanes(lanes)
        filtering.z1 = SIMD8(states)
        filtering.z2 = SIMD8(states.reversed())
        filtering.store(into: lanes)
        let stored = VoiceFilterLanes(lanes)
        func flushed(_ state: Float) -> Float { abs(state) < VoiceFilter.denormalThreshold ? 0 : state }
        for lane in 0..<8 {
            XCTAssertEqual(stored.z1[lane].bitPattern, flushed(states[lane]).bitPattern, "lane \(lane)")
            XCTAssertEqual(stored.z2[lane].bitPattern, flushed(states[7 - lane]).bitPattern, "lane \(lane)")
        }
        XCTAssertEqual(stored.z1[3], -0.5)
        XCTAssertEqual(stored.z1[2], 2e-20)
        XCTAssertEqual(stored.z1[5].bitPattern, Float(0).bitPattern, "-0 is stored as +0")
    }

    func testEnvelopeStagesAndShapes() {
        var envelope = EnvelopeGenerator(linear: false)
        envelope.start(delay: 0.01, attack: 0.02, hold: 0.01, decay: 1, sustainLevel: 0.1, release: 0.5, sampleRate: 1_000)
        XCTAssertEqual(envelope.advance(by: 10), 0, "delay")
        XCTAssertEqual(envelope.advance(by: 10), 0.5, accuracy: 1e-6, "linear attack, halfway")
        XCTAssertEqual(envelope.advance(by: 10), 1, accuracy: 1e-6, "attack done")
        _ = envelope.advance(by: 10)  // hold
        // Decay falls 100 dB per second: 20 dB to the sustain level takes 200 ms; 10 dB at 100 ms.
        XCTAssertEqual(20 * log10(envelope.advance(by: 100)), -10, accuracy: 0.1)
        XCTAssertEqual(envelope.advance(by: 500), 0.1, accuracy: 1e-4, "sustain")
        envelope.release()
        XCTAssertEqual(20 * log10(envelope.advance(by: 100)), -40, accuracy: 0.1, "release: 20 dB more in 100 ms")
        _ = envelope.advance(by: 1_000)
        XCTAssertTrue(envelope.isFinished)
    }
}
