/// A render that did not happen or did not sound, or a request an engine refused, in one line that
/// names the file or the thing at fault and what is wrong (`A.mid: 12 notes, but nothing sounded
/// in A.wav (...)`), as a front end shows it.
/// - Thread: any. A plain value.
public struct RenderFailure: Error, CustomStringConvertible, Sendable {
    public let description: String

    /// - Thread: any.
    public init(_ description: String) { self.description = description }
}
