/// What a render thread counted of its heap calls, read on the test's thread once it is done: the
/// allocation tests of the renderer and of the C ABI's render call fill one each.
public final class HeapCallCounts: @unchecked Sendable {
    public var allocations = -1
    public var frees = -1
    public var renderedBlocks = 0

    public init() {}
}
