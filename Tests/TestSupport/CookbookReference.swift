import DSP
import Foundation

/// The RBJ Audio EQ Cookbook's formulas, computed independently of the DSP module in double
/// precision with libm: what a filter built from `BiquadCoefficients` must measure.
public enum CookbookReference {
    /// |H| at `f` of the cookbook filter `kind` at `f0` with quality `q`.
    public static func magnitude(_ kind: BiquadCoefficients.Kind, frequency f0: Double, q: Double, at f: Double,
                                 sampleRate rate: Double) -> Double {
        let w0 = 2 * Double.pi * f0 / rate, alpha = sin(w0) / (2 * q), c = cos(w0)
        var b = (0.0, 0.0, 0.0), a = (0.0, 0.0, 0.0)
        switch kind {
        case .lowPass: b = ((1 - c) / 2, 1 - c, (1 - c) / 2); a = (1 + alpha, -2 * c, 1 - alpha)
        case .highPass: b = ((1 + c) / 2, -(1 + c), (1 + c) / 2); a = (1 + alpha, -2 * c, 1 - alpha)
        case .bandPass: b = (alpha, 0, -alpha); a = (1 + alpha, -2 * c, 1 - alpha)
        case .notch: b = (1, -2 * c, 1); a = (1 + alpha, -2 * c, 1 - alpha)
        case .allPass: b = (1 - alpha, -2 * c, 1 + alpha); a = (1 + alpha, -2 * c, 1 - alpha)
        case let .peaking(gain):
            let A = pow(10, gain / 40)
            b = (1 + alpha * A, -2 * c, 1 - alpha * A); a = (1 + alpha / A, -2 * c, 1 - alpha / A)
        case let .lowShelf(gain):
            let A = pow(10, gain / 40), r = 2 * sqrt(A) * alpha
            b = (A * ((A + 1) - (A - 1) * c + r), 2 * A * ((A - 1) - (A + 1) * c), A * ((A + 1) - (A - 1) * c - r))
            a = ((A + 1) + (A - 1) * c + r, -2 * ((A - 1) + (A + 1) * c), (A + 1) + (A - 1) * c - r)
        case let .highShelf(gain):
            let A = pow(10, gain / 40), r = 2 * sqrt(A) * alpha
            b = (A * ((A + 1) + (A - 1) * c + r), -2 * A * ((A - 1) + (A + 1) * c), A * ((A + 1) + (A - 1) * c - r))
            a = ((A + 1) - (A - 1) * c + r, 2 * ((A - 1) - (A + 1) * c), (A + 1) - (A - 1) * c - r)
        }
        let w = 2 * Double.pi * f / rate
        let nr = b.0 + b.1 * cos(w) + b.2 * cos(2 * w), ni = -(b.1 * sin(w) + b.2 * sin(2 * w))
        let dr = a.0 + a.1 * cos(w) + a.2 * cos(2 * w), di = -(a.1 * sin(w) + a.2 * sin(2 * w))
        return sqrt((nr * nr + ni * ni) / (dr * dr + di * di))
    }

    /// |H| at `f` of a one-pole DC blocker y = x − x₁ + p·y₁ with corner `cornerHertz`.
    public static func dcBlockerMagnitude(cornerHertz: Double, at f: Double, sampleRate rate: Double) -> Double {
        let p = 1 - 2 * Double.pi * cornerHertz / rate, w = 2 * Double.pi * f / rate
        let numerator = 2 - 2 * cos(w), denominator = 1 + p * p - 2 * p * cos(w)
        return sqrt(numerator / denominator)
    }
}
