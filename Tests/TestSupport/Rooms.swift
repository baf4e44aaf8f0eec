import AudioAnalysis
import DSP
import Foundation

extension ResonantRoom {
    /// `track` through the room, scaled to `levelDecibels` RMS at the microphone.
    public func echo(of track: [Float], sampleRate: Double, levelDecibels: Float) -> [Float] {
        var echo = Array(convolve(throughSpeaker(track, sampleRate: sampleRate), reverberation(sampleRate: sampleRate)).prefix(track.count))
        let scale = pow(10, levelDecibels / 20) / SignalAnalysis.rms(echo[...])
        for index in echo.indices { echo[index] *= scale }
        return echo
    }
}

/// Convolution by overlap-add of FFT blocks (the analysis module's transform, optimised in debug
/// builds too): seconds of audio through a response of a few hundred milliseconds in a moment.
public func convolve(_ signal: [Float], _ response: [Float]) -> [Float] {
    var size = 2
    while size < 2 * response.count { size *= 2 }
    let block = size - response.count + 1
    let transform = FourierTransform(size: size)
    var responseReal = response.map(Double.init) + [Double](repeating: 0, count: size - response.count)
    var responseImaginary = [Double](repeating: 0, count: size)
    transform.transform(real: &responseReal, imaginary: &responseImaginary)
    var output = [Float](repeating: 0, count: signal.count + response.count - 1)
    for start in stride(from: 0, to: signal.count, by: block) {
        let end = min(start + block, signal.count)
        var real = signal[start..<end].map(Double.init) + [Double](repeating: 0, count: size - (end - start))
        var imaginary = [Double](repeating: 0, count: size)
        transform.transform(real: &real, imaginary: &imaginary)
        // The product, conjugated: a forward transform of the conjugate is the inverse's conjugate.
        for bin in 0..<size {
            let re = real[bin] * responseReal[bin] - imaginary[bin] * responseImaginary[bin]
            let im = real[bin] * responseImaginary[bin] + imaginary[bin] * responseReal[bin]
            real[bin] = re
            imaginary[bin] = -im
        }
        transform.transform(real: &real, imaginary: &imaginary)
        for index in 0..<min(size, output.count - start) { output[start + index] += Float(real[index] / Double(size)) }
    }
    return output
}
