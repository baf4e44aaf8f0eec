import DSP
import XCTest

/// The ramp behind every gain change: a straight line that arrives, however often the target is
/// asked for again along the way (the effects chain re-reads its knobs every block).
final class SmoothedValueTests: XCTestCase {
    func testARampAskedForAgainEveryBlockStillArrivesOnTime() {
        var value = SmoothedValue(0.3, rampFrameCount: 240)
        var frames: [Float] = []
        for _ in 0..<8 {
            value.move(to: 0)  // once per 64-frame block, as updateParameters does
            for _ in 0..<64 { frames.append(value.next()) }
        }
        XCTAssertEqual(frames[239], 0, "at the target after exactly 240 frames")
        XCTAssertEqual(frames[119], 0.15, accuracy: 1e-4, "half way after half the frames: a line, not a curve")
        XCTAssertTrue(frames[240...].allSatisfy { $0 == 0 })
    }

    func testANewTargetMidRampStartsAFreshLineFromWhereItIs() {
        var value = SmoothedValue(0, rampFrameCount: 100)
        value.move(to: 1)
        for _ in 0..<50 { _ = value.next() }
        value.move(to: 0)
        XCTAssertEqual(value.next(), 0.5 - 0.005, accuracy: 1e-5)
        for _ in 0..<99 { _ = value.next() }
        XCTAssertEqual(value.current, 0)
    }
}
