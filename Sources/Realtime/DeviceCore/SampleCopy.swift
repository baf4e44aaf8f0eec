/// Copies `count` samples between a planar buffer (stride 1: a JACK port's, a host's channel) and
/// one channel of an interleaved one.
/// - Thread: any. Real-time safe.
@_noAllocation @_noLocks
func copySamples(_ count: Int, from source: UnsafePointer<Float>, stride sourceStride: Int,
                 to target: UnsafeMutablePointer<Float>, stride targetStride: Int) {
    for index in 0..<count { target[index * targetStride] = source[index * sourceStride] }
}
