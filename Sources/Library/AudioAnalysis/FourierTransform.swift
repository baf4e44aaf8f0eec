#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A radix-2 fast Fourier transform of one fixed power-of-two size, its twiddle factors and
/// bit-reversal permutation computed once, since a spectrogram runs thousands of frames through it.
///
/// - Thread: any. Immutable after `init`; `powerSpectrum` allocates (control-thread analysis only).
public struct FourierTransform: Sendable {
    /// Points per transform: a power of two, at least 2.
    public let size: Int
    private let cosines: [Double]
    private let sines: [Double]
    private let bitReversed: [Int]

    /// A transform of `size` points; `size` must be a power of two, at least 2.
    /// - Thread: any.
    public init(size: Int) {
        precondition(size >= 2 && size & (size - 1) == 0, "an FFT size is a power of two, got \(size)")
        self.size = size
        cosines = (0 ..< size / 2).map { cos(-2 * Double.pi * Double($0) / Double(size)) }
        sines = (0 ..< size / 2).map { sin(-2 * Double.pi * Double($0) / Double(size)) }
        let bits = size.trailingZeroBitCount
        bitReversed = (0 ..< size).map { index in
            var reversed = 0
            for bit in 0 ..< bits where index & (1 << bit) != 0 { reversed |= 1 << (bits - 1 - bit) }
            return reversed
        }
    }

    /// The discrete Fourier transform of `real` + i `imaginary` (both `size` long), in place:
    /// X[k] = sum over n of x[n] e^(-2 pi i k n / size), unscaled.
    /// - Thread: any.
    public func transform(real: inout [Double], imaginary: inout [Double]) {
        precondition(real.count == size && imaginary.count == size, "the FFT has \(size) points")
        for index in 0 ..< size {
            let partner = bitReversed[index]
            if partner > index {
                real.swapAt(index, partner)
                imaginary.swapAt(index, partner)
            }
        }
        var half = 1
        while half < size {
            let twiddleStride = size / (2 * half)
            for start in stride(from: 0, to: size, by: 2 * half) {
                for offset in 0 ..< half {
                    let twiddle = offset * twiddleStride
                    let c = cosines[twiddle], s = sines[twiddle]
                    let upper = start + offset, lower = upper + half
                    let productReal = real[lower] * c - imaginary[lower] * s
                    let productImaginary = real[lower] * s + imaginary[lower] * c
                    real[lower] = real[upper] - productReal
                    imaginary[lower] = imaginary[upper] - productImaginary
                    real[upper] += productReal
                    imaginary[upper] += productImaginary
                }
            }
            half *= 2
        }
    }

    /// |X[k]|^2 for k = 0 ... size/2 (DC to Nyquist) of a real frame of `size` samples.
    /// - Thread: any.
    public func powerSpectrum(_ frame: [Double]) -> [Double] {
        var real = frame
        var imaginary = [Double](repeating: 0, count: size)
        transform(real: &real, imaginary: &imaginary)
        return (0 ... size / 2).map { real[$0] * real[$0] + imaginary[$0] * imaginary[$0] }
    }
}
