import DSP
import FileChecks
import Foundation
import MIDIVocabulary
import Render
import SampleSet

// Controller curves: ARIA's built-in ones, a file's `<curve>`s, and the tables modulators read.
extension SFZPlan {
    /// A controller curve as a modulator reads it: the SFZ curve (`curve_index`, or a built-in
    /// one), and for an amplitude its percentage, which turns the curve's gains into centibels of
    /// attenuation (`SFZPlan.table(for:)`).
    struct CurveUse: Hashable {
        var curve: Int
        var amplitudePercent: Double? = nil
    }

    /// ARIA's built-in curves (sfz.github.io, `<curve>`): 0 linear 0…1, 1 bipolar -1…1, 2 and 3
    /// the same inverted, 4 concave (x²), 5 and 6 the crossfades' power curves in and out.
    static let builtInCurves: [Int: [Float]] = {
        func curve(_ value: (Double) -> Double) -> [Float] { (0...127).map { Float(value(Double($0) / 127)) } }
        return [0: curve { $0 }, 1: curve { 2 * $0 - 1 }, 2: curve { 1 - $0 }, 3: curve { 1 - 2 * $0 },
                4: curve { $0 * $0 }, 5: curve { $0.squareRoot() }, 6: curve { (1 - $0).squareRoot() }]
    }()

    /// 128 values from `points` (0…127 → value), straight lines between them.
    static func interpolated(_ points: [Int: Float]) -> [Float] {
        let known = points.keys.sorted()
        var values = [Float](repeating: 0, count: SampleBank.Layout.curveLength)
        for (low, high) in zip(known, known.dropFirst()) {
            for at in low...high {
                values[at] = points[low]! + (points[high]! - points[low]!) * Float(at - low) / Float(high - low)
            }
        }
        return values
    }

    /// The table a modulator reads for `use`: the curve itself, or for an amplitude the share of
    /// 144 dB of attenuation its gains (times the percentage) come to, so that the modulator's
    /// 1,440 cB reach exactly the curve's level. Nil for a curve the file does not define.
    func table(for use: CurveUse) -> [Float]? {
        guard let curve = curves[use.curve] else { return nil }
        guard let percent = use.amplitudePercent else { return curve }
        return curve.map { gain in
            let level = max(Double(gain) * percent / 100, 1e-7)
            return Float(min(1, max(0, -200 * log10(level) / 1_440)))
        }
    }
}
