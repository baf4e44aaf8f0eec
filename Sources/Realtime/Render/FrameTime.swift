/// A position on the engine's timeline, in frames since the renderer started. 64 bits last
/// millions of years at any audio rate, so it never wraps.
public typealias FrameTime = UInt64
