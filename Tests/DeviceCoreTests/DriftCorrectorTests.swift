import DeviceCore
import XCTest

/// `DriftCorrector` with `CaptureResampler` on synthetic delay series: what a duplex ALSA stream
/// on two clocks measures once a period (the playback queue plus what waits in capture), and the
/// frames it then writes (what the resampler makes of a captured period at the corrector's ratio).
final class DriftCorrectorTests: XCTestCase {
    static let rate = 48_000, period = 64

    struct Run {
        var latencies: [Double] = []
        var ratios: [Double] = []
    }

    /// `periods` periods of a stream whose playback consumes `period * (1 + playbackDrift(i))`
    /// frames a period while it writes what the resampler makes of `period` captured frames, with
    /// a step of `step(i)` frames added by the devices; the measurement jitters by up to a period.
    static func simulate(periods: Int, playbackDrift: Double, step: (Int) -> Double = { _ in 0 }) -> Run {
        var corrector = DriftCorrector(sampleRate: rate, periodFrameCount: period)
        var resampler = CaptureResampler(channelCount: 1, maxInputFrameCount: period)
        defer { resampler.deallocate() }
        let silence = [Float](repeating: 0, count: period)
        var block = [Float](repeating: 0, count: CaptureResampler.maxOutputFrameCount(forInput: period))
        var latency = 300.0
        var run = Run()
        for index in 0..<periods {
            let written = silence.withUnsafeBufferPointer { input in
                block.withUnsafeMutableBufferPointer {
                    resampler.resample(input.baseAddress!, inputFrameCount: period, ratio: corrector.ratio, into: $0.baseAddress!)
                }
            }
            latency += Double(written) - Double(period) * (1 + playbackDrift) + step(index)
            let jitter = Double((index * 37) % period)
            corrector.add(latencyFrameCount: Int((latency + jitter).rounded()))
            run.latencies.append(latency)
            run.ratios.append(corrector.ratio)
        }
        return run
    }

    func testOneClockIsNeverResampled() {
        let run = Self.simulate(periods: 20_000, playbackDrift: 0)
        XCTAssertEqual(Set(run.ratios), [1], "exactly 1: the signal passes untouched")
    }

    func testASlowPlaybackClockIsHeldByWritingLess() {
        // Playback 200 ppm slow: left alone, the queue would grow by 512 frames over the run.
        let run = Self.simulate(periods: 40_000, playbackDrift: -200e-6)
        let settled = run.latencies.suffix(30_000)
        let spread = (settled.max() ?? 0) - (settled.min() ?? 0)
        XCTAssertLessThanOrEqual(spread, Double(Self.period), "held within a period (\(spread) frames)")
        XCTAssertEqual((run.ratios.last! - 1) * 1e6, 200, accuracy: 20, "the ratio learns the drift: +200 ppm")
    }

    func testAFastPlaybackClockIsHeldByWritingMore() {
        let run = Self.simulate(periods: 40_000, playbackDrift: 150e-6)
        let settled = run.latencies.suffix(30_000)
        XCTAssertLessThanOrEqual((settled.max() ?? 0) - (settled.min() ?? 0), Double(Self.period))
        XCTAssertEqual((run.ratios.last! - 1) * 1e6, -150, accuracy: 20)
    }

    func testAStepIsANewBaselineNotDrift() {
        // The devices hiccup once: the latency jumps by two periods and stays. Undoing it would eat
        // the playback queue's margin; the corrector takes it as the new level.
        let run = Self.simulate(periods: 20_000, playbackDrift: 0, step: { $0 == 8_000 ? 128 : 0 })
        XCTAssertEqual(Set(run.ratios), [1])
    }

    func testAThousandPartsPerMillionAreHeldWithinTheLimit() {
        // Five times what two ordinary crystals drift apart; the ratio never leaves its range.
        let run = Self.simulate(periods: 40_000, playbackDrift: -1_000e-6)
        let settled = run.latencies.suffix(30_000)
        XCTAssertLessThanOrEqual((settled.max() ?? 0) - (settled.min() ?? 0), Double(Self.period))
        XCTAssertEqual((run.ratios.last! - 1) * 1e6, 1_000, accuracy: 50)
        XCTAssertTrue(run.ratios.allSatisfy { abs($0 - 1) <= DriftCorrector.maximumDeviation })
    }

    func testTheSettlingWindowCountsForNothing() {
        var corrector = DriftCorrector(sampleRate: Self.rate, periodFrameCount: Self.period)
        // A first window far off (the devices settling), then a steady one.
        for _ in 0..<corrector.windowPeriods { corrector.add(latencyFrameCount: 2_000) }
        XCTAssertNil(corrector.averageLatency, "no figure from the settling window")
        for _ in 0..<corrector.windowPeriods { corrector.add(latencyFrameCount: 300) }
        XCTAssertEqual(corrector.averageLatency, 300)
        for _ in 0..<(5 * corrector.windowPeriods) { corrector.add(latencyFrameCount: 300) }
        XCTAssertEqual(corrector.ratio, 1)
        corrector.reset()
        XCTAssertNil(corrector.averageLatency)
    }
}
