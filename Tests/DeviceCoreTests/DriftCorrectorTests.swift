import DeviceCore
import XCTest

/// `DriftCorrector` on synthetic delay series: what a duplex stream on two clocks measures once a
/// period, and what the stream does with the corrections (a dropped captured frame takes one off
/// the latency, a repeated one adds one).
final class DriftCorrectorTests: XCTestCase {
    static let rate = 48_000, period = 64

    /// Runs `periods` periods of a latency that is `latency(period)` plus the corrections applied
    /// so far, plus a jitter of up to a period; applies each correction one frame a period, as the
    /// ALSA backend does. Returns the latency (corrections included) per period and the frames
    /// dropped and repeated.
    static func simulate(periods: Int, latency: (Int) -> Double) -> (latencies: [Double], dropped: Int, repeated: Int) {
        var corrector = DriftCorrector(sampleRate: rate, periodFrameCount: period)
        var applied = 0.0, pending = 0, dropped = 0, repeated = 0
        var latencies: [Double] = []
        for index in 0..<periods {
            if pending < 0 { applied -= 1; pending += 1; dropped += 1 }
            if pending > 0 { applied += 1; pending -= 1; repeated += 1 }
            let jitter = Double((index * 37) % period)  // 0..<period, repeating
            let measured = latency(index) + applied + jitter
            latencies.append(latency(index) + applied)
            pending += corrector.add(latencyFrameCount: Int(measured.rounded()))
        }
        return (latencies, dropped, repeated)
    }

    func testOneClockNeedsNoCorrection() {
        let run = Self.simulate(periods: 20_000, latency: { _ in 300 })
        XCTAssertEqual(run.dropped + run.repeated, 0)
    }

    func testASlowPlaybackClockIsPulledBackWithinAPeriodByDroppingFrames() {
        // Playback 200 ppm slower: the queue grows by a frame every 5000 frames, ~78 periods.
        let run = Self.simulate(periods: 40_000, latency: { 300 + Double($0 * Self.period) * 200e-6 })
        let settled = run.latencies.suffix(30_000)
        // The drift over the run, 40000 periods x 64 frames x 200e-6 = 512 frames, is dropped, less
        // what is left inside the slack of a period or two.
        XCTAssertEqual(Double(run.dropped), 512, accuracy: Double(2 * Self.period), "about one frame per 78 periods")
        XCTAssertEqual(run.repeated, 0)
        let spread = (settled.max() ?? 0) - (settled.min() ?? 0)
        XCTAssertLessThanOrEqual(spread, Double(2 * Self.period) + 2, "held near the baseline, not left to creep (\(spread) frames)")
    }

    func testAFastPlaybackClockIsHeldByRepeatingFrames() {
        let run = Self.simulate(periods: 40_000, latency: { 300 - Double($0 * Self.period) * 150e-6 })
        XCTAssertEqual(Double(run.repeated), 384, accuracy: Double(2 * Self.period), "40000 x 64 x 150e-6 frames")
        XCTAssertEqual(run.dropped, 0)
        let settled = run.latencies.suffix(30_000)
        XCTAssertLessThanOrEqual((settled.max() ?? 0) - (settled.min() ?? 0), Double(2 * Self.period) + 2)
    }

    func testAStepIsANewBaselineNotDrift() {
        // The devices hiccup once: latency jumps by two periods and stays. Undoing it would eat the
        // playback queue's margin; the corrector takes it as the new level.
        let run = Self.simulate(periods: 20_000, latency: { $0 < 8_000 ? 300 : 428 })
        XCTAssertEqual(run.dropped + run.repeated, 0)
    }

    func testTheSettlingWindowCountsForNothing() {
        var corrector = DriftCorrector(sampleRate: Self.rate, periodFrameCount: Self.period)
        // A first window far off (the devices settling), then a steady one.
        for _ in 0..<corrector.windowPeriods { XCTAssertEqual(corrector.add(latencyFrameCount: 2_000), 0) }
        XCTAssertNil(corrector.averageLatency, "no figure from the settling window")
        for _ in 0..<corrector.windowPeriods { XCTAssertEqual(corrector.add(latencyFrameCount: 300), 0) }
        XCTAssertEqual(corrector.averageLatency, 300)
        for _ in 0..<(5 * corrector.windowPeriods) { XCTAssertEqual(corrector.add(latencyFrameCount: 300), 0) }
        corrector.reset()
        XCTAssertNil(corrector.averageLatency)
    }
}
