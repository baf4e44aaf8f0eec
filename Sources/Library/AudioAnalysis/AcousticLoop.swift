import Foundation

/// A simulated acoustic feedback loop: the microphone hears the voice plus the speaker through a
/// room, mic[n] = voice[n] + (response ∗ speaker)[n], closed block by block (64 frames) around a
/// chain that turns the microphone's block into the speaker's.
///
/// The room's response is put behind `latencyFrameCount` frames of device latency (two blocks),
/// so the loop is causal at block granularity: block t's microphone signal depends only on the
/// speaker's blocks up to t − 1. The convolution is uniformly partitioned in the frequency domain
/// (overlap-save, 64-frame partitions, 128-point transforms), so a 0.5 s response costs a few
/// hundred spectrum multiply-adds per block instead of 24,000 multiply-adds per frame.
///
/// - Thread: control.
public final class AcousticLoop {
    public static let blockFrameCount = 64
    public static let latencyFrameCount = 128
    let transform = FourierTransform(size: 2 * AcousticLoop.blockFrameCount)
    let binCount = AcousticLoop.blockFrameCount + 1
    let partitionCount: Int
    /// The response's partitions' spectra, partition-major: [p][bin].
    var partitionReal: [Double], partitionImaginary: [Double]
    /// The last `partitionCount` speaker spectra, a ring: slot (newest − q) holds X_{t−q}.
    var historyReal: [Double], historyImaginary: [Double]
    var newest = 0
    var previousSpeaker = [Float](repeating: 0, count: AcousticLoop.blockFrameCount)
    /// What the room delivers to the microphone in the next block.
    var nextRoom = [Float](repeating: 0, count: AcousticLoop.blockFrameCount)

    /// - Parameter response: the room's impulse response (without the device latency).
    /// - Thread: control.
    public init(response: [Float]) {
        let block = Self.blockFrameCount
        let full = [Float](repeating: 0, count: Self.latencyFrameCount) + response
        partitionCount = (full.count + block - 1) / block
        partitionReal = [Double](repeating: 0, count: partitionCount * binCount)
        partitionImaginary = partitionReal
        historyReal = partitionReal
        historyImaginary = partitionReal
        for partition in 0..<partitionCount {
            var real = (0..<(2 * block)).map { n -> Double in
                let index = partition * block + n
                return n < block && index < full.count ? Double(full[index]) : 0
            }
            var imaginary = [Double](repeating: 0, count: 2 * block)
            transform.transform(real: &real, imaginary: &imaginary)
            for bin in 0..<binCount {
                partitionReal[partition * binCount + bin] = real[bin]
                partitionImaginary[partition * binCount + bin] = imaginary[bin]
            }
        }
    }

    /// Runs the loop over `voice` (mono). `chain` gets the microphone's block (the same signal on
    /// both channels) and processes it in place into the speaker's; returns the speaker signal
    /// (mono: the channels' mean), as many whole blocks as `voice` holds.
    /// - Thread: control.
    public func run(voice: [Float], chain: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, Int) -> Void) -> [Float] {
        let block = Self.blockFrameCount
        let blockCount = voice.count / block
        var speaker = [Float](repeating: 0, count: blockCount * block)
        var left = [Float](repeating: 0, count: block), right = left
        for t in 0..<blockCount {
            for n in 0..<block {
                left[n] = voice[t * block + n] + nextRoom[n]
                right[n] = left[n]
            }
            left.withUnsafeMutableBufferPointer { l in right.withUnsafeMutableBufferPointer { r in
                chain(l.baseAddress!, r.baseAddress!, block)
            } }
            for n in 0..<block { speaker[t * block + n] = (left[n] + right[n]) * 0.5 }
            advance(speakerBlock: Array(speaker[(t * block)..<((t + 1) * block)]))
        }
        return speaker
    }

    /// Takes the speaker's block t and computes what the room delivers in block t + 1:
    /// Σ_{q ≥ 0} X_{t−q}·H_{q+1} (partition 0 is silent: the device latency).
    func advance(speakerBlock: [Float]) {
        let block = Self.blockFrameCount
        var real = (previousSpeaker + speakerBlock).map(Double.init)
        var imaginary = [Double](repeating: 0, count: 2 * block)
        previousSpeaker = speakerBlock
        transform.transform(real: &real, imaginary: &imaginary)
        newest = (newest + 1) % partitionCount
        for bin in 0..<binCount {
            historyReal[newest * binCount + bin] = real[bin]
            historyImaginary[newest * binCount + bin] = imaginary[bin]
        }
        var sumReal = [Double](repeating: 0, count: binCount), sumImaginary = sumReal
        for q in 0..<(partitionCount - 1) {
            let x = ((newest - q + partitionCount) % partitionCount) * binCount, h = (q + 1) * binCount
            for bin in 0..<binCount {
                let xr = historyReal[x + bin], xi = historyImaginary[x + bin]
                let hr = partitionReal[h + bin], hi = partitionImaginary[h + bin]
                sumReal[bin] += xr * hr - xi * hi
                sumImaginary[bin] += xr * hi + xi * hr
            }
        }
        // Back to time through the forward transform of the conjugate (the inverse's conjugate),
        // from the full spectrum: a real signal's is conjugate-symmetric.
        for bin in 0..<(2 * block) {
            let mirrored = bin < binCount ? bin : 2 * block - bin
            real[bin] = sumReal[mirrored]
            imaginary[bin] = bin < binCount ? -sumImaginary[mirrored] : sumImaginary[mirrored]
        }
        transform.transform(real: &real, imaginary: &imaginary)
        // Overlap-save: the second half is this block's; scale by 1/size.
        for n in 0..<block { nextRoom[n] = Float(real[block + n] / Double(2 * block)) }
    }
}
