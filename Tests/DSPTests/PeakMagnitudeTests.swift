import DSP
import XCTest

final class PeakMagnitudeTests: XCTestCase {
    /// The largest magnitude, wherever it lies among the eight lanes or the samples after the last
    /// whole eight, and whatever the count.
    func testThePeakIsTheLargestMagnitudeAtAnyPlaceAndCount() {
        var generator = SystemRandomNumberGenerator()
        for count in [0, 1, 7, 8, 9, 15, 16, 17, 64, 1_000, 1_031] {
            let samples = (0..<count).map { _ in Float.random(in: -0.5...0.5, using: &generator) }
            for place in [0, count / 2, count - 1] where place >= 0 && count > 0 {
                for peak: Float in [0.9, -0.9] {
                    var withPeak = samples
                    withPeak[place] = peak
                    XCTAssertEqual(withPeak.withUnsafeBufferPointer { peakMagnitude($0.baseAddress!, count: count) }, 0.9,
                                   "count \(count), \(peak) at \(place)")
                }
            }
            let expected = samples.map(abs).max() ?? 0
            XCTAssertEqual(samples.withUnsafeBufferPointer { peakMagnitude($0.baseAddress ?? UnsafePointer(bitPattern: 8)!, count: count) },
                           expected, "count \(count)")
        }
    }

    /// A NaN never wins over a number, in the eight lanes or after them.
    func testANaNNeverWins() {
        var samples = [Float](repeating: 0.25, count: 19)
        samples[3] = .nan
        samples[17] = .nan
        XCTAssertEqual(samples.withUnsafeBufferPointer { peakMagnitude($0.baseAddress!, count: 19) }, 0.25)
    }
}
