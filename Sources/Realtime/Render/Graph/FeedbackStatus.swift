/// What the feedback suppressor has done, as last published by the audio thread
/// (`Renderer.feedback`).
public struct FeedbackStatus: Sendable, Equatable {
    /// Times a new feedback frequency was found and notched.
    public var notchedFrequencies = 0
    /// The frequency of the last one, in hertz (0 before the first).
    public var lastNotchedHertz: Float = 0
    /// Times the whole output was ducked, the last resort.
    public var ducks = 0
    /// The notches in place now, in slot order.
    public var notches: [FeedbackNotch] = []
    /// Notches in place now.
    /// - Thread: any.
    public var activeNotches: Int { notches.count }
    /// The deepest notch's gain now, in dB (0 when none is placed).
    /// - Thread: any.
    public var deepestNotchDecibels: Float { notches.map(\.depthDecibels).min() ?? 0 }

    /// - Thread: any.
    public init(notchedFrequencies: Int = 0, lastNotchedHertz: Float = 0, ducks: Int = 0, notches: [FeedbackNotch] = []) {
        self.notchedFrequencies = notchedFrequencies
        self.lastNotchedHertz = lastNotchedHertz
        self.ducks = ducks
        self.notches = notches
    }
}

/// One notch of the feedback suppressor: its centre, and its gain there (0 dB or below).
public struct FeedbackNotch: Sendable, Equatable {
    public var hertz: Float
    public var depthDecibels: Float

    /// - Thread: any.
    public init(hertz: Float, depthDecibels: Float) {
        self.hertz = hertz
        self.depthDecibels = depthDecibels
    }
}
