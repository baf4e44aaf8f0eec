/// The largest magnitude among `count` samples, 0 for none: a meter's peak, a render's peak and
/// its tail test. Eight running maxima side by side, each over every eighth sample: a single
/// running maximum does not vectorise (its order of comparisons is fixed), and offline it ran three
/// times over every output sample. Written as a loop over the eight lanes' floats, which the
/// optimiser turns into vector instructions: `pointwiseMax` on a generic vector stays a call that
/// visits the lanes one at a time, and was a fiftieth of a song's render. A NaN never wins.
/// - Thread: any. Real-time safe.
@inlinable @_noAllocation @_noLocks
public func peakMagnitude(_ samples: UnsafePointer<Float>, count: Int) -> Float {
    var peaks = SIMD8<Float>(repeating: 0)
    var index = 0
    withUnsafeMutableBytes(of: &peaks) { raw in
        let lanes = raw.baseAddress!.assumingMemoryBound(to: Float.self)
        while index + 8 <= count {
            for lane in 0..<8 {
                let magnitude = abs(samples[index + lane])
                lanes[lane] = magnitude > lanes[lane] ? magnitude : lanes[lane]
            }
            index += 8
        }
    }
    var peak: Float = 0
    for lane in 0..<8 where peaks[lane] > peak { peak = peaks[lane] }
    while index < count {
        let magnitude = abs(samples[index])
        if magnitude > peak { peak = magnitude }
        index += 1
    }
    return peak
}
