/// The largest magnitude among `count` samples, 0 for none: a meter's peak, a render's peak and
/// its tail test. Eight samples at a time: a scalar running maximum does not vectorise (its order
/// of comparisons is fixed), and offline it ran three times over every output sample.
/// - Thread: any. Real-time safe.
@inlinable @_noAllocation @_noLocks
public func peakMagnitude(_ samples: UnsafePointer<Float>, count: Int) -> Float {
    let raw = UnsafeRawPointer(samples)
    var peaks = SIMD8<Float>(repeating: 0)
    var index = 0
    while index + 8 <= count {
        let block = raw.loadUnaligned(fromByteOffset: index * MemoryLayout<Float>.stride, as: SIMD8<Float>.self)
        peaks = pointwiseMax(peaks, pointwiseMax(block, -block))
        index += 8
    }
    var peak = peaks.max()
    while index < count {
        peak = max(peak, abs(samples[index]))
        index += 1
    }
    return peak
}
