/// A manifest field that is missing, unknown, duplicated or holds a wrong value. Thrown while a
/// manifest is checked, where the field's path is known; `ManifestFile.read` turns it into a
/// `LoadError` naming the manifest.
///
/// - Thread: any.
public struct ManifestProblem: Error, Equatable {
    /// `pads[2].note`; empty for the manifest as a whole.
    public var field: String
    public var problem: String

    /// - Thread: any.
    public init(field: String, problem: String) {
        self.field = field
        self.problem = problem
    }

    /// `<field path>: <problem>`, or the problem alone for the manifest as a whole.
    /// - Thread: any.
    public var reason: String { field.isEmpty ? problem : "\(field): \(problem)" }
}
