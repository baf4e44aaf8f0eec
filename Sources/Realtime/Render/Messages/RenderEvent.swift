import DSP

/// What the audio thread tells the control thread, through the return ring. Fixed-size and
/// trivially copyable, like `RenderCommand`.
public enum RenderEvent: Sendable, BitwiseCopyable, Equatable {
    /// The device ran out of frames (playback) or overflowed (capture) at about `frameTime`.
    case xrun(frameTime: FrameTime)
    /// An object the audio thread no longer uses. The control thread releases it: releasing the last
    /// reference frees memory, which the audio thread never does.
    case retired(RetainedObject)
}

/// A retained object reference in a trivially copyable wrapper, so it can cross a ring: a bank
/// going to the audio thread, or one coming back to be freed.
public struct RetainedObject: @unchecked Sendable, BitwiseCopyable, Equatable {
    public let opaque: UnsafeMutableRawPointer

    /// Takes over one retain of `object`.
    /// - Thread: any.
    public init(retaining object: AnyObject) {
        opaque = Unmanaged.passRetained(object).toOpaque()
    }

    /// Gives back the retain this wrapper held; the object may be freed here.
    /// - Thread: control. Not real-time safe: may free.
    public func release() {
        Unmanaged<AnyObject>.fromOpaque(opaque).release()
    }
}
