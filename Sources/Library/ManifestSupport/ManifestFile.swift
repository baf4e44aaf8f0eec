import FileChecks
import Foundation

/// Reading a JSON manifest: the file, the JSON, and the checks of its top-level object, with
/// every failure as a `LoadError` naming the manifest (and, from the checks, the field).
///
/// - Thread: control. Not real-time safe: reads a file and allocates.
public enum ManifestFile {
    /// Reads the manifest at `path` and hands its top-level object, checked against `known`, to
    /// `parse`.
    /// - Parameters:
    ///   - expected: what the document is, for the message when it is not an object.
    ///   - wording: how `parse`'s readers report wrong values.
    /// - Throws: `LoadError` at `path`: the file can't be read, is not JSON, or `parse` (or the
    ///   top-level check) found a problem, whose field path starts the reason.
    /// - Thread: control.
    public static func read<Manifest>(path: String, expected: String, known: [String], wording: JSONObject.Wording,
                                      _ parse: (JSONObject) throws(ManifestProblem) -> Manifest) throws(LoadError) -> Manifest {
        if let reason = FileKind.notRegularFileReason(path) { throw LoadError(path: path, reason: reason) }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw LoadError(path: path, reason: "cannot read: \(error.localizedDescription)")
        }
        return try decode(data, path: path, expected: expected, known: known, wording: wording, parse)
    }

    /// The same checks on a manifest already in memory; `path` names it in messages and is what
    /// relative file names in it are resolved against.
    /// - Thread: control.
    public static func decode<Manifest>(_ data: Data, path: String, expected: String, known: [String], wording: JSONObject.Wording,
                                       _ parse: (JSONObject) throws(ManifestProblem) -> Manifest) throws(LoadError) -> Manifest {
        let root: JSONValue
        do {
            root = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            // JSONDecoder only says that the syntax is broken; JSONSerialization also says where.
            var detail = "\(error)"
            do { _ = try JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed) } catch {
                detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? detail
            }
            throw LoadError(path: path, reason: "not valid JSON: \(detail)")
        }
        do {
            return try parse(try JSONObject(root, path: "", expected: expected, known: known, wording: wording))
        } catch {
            throw LoadError(path: path, reason: error.reason)
        }
    }
}
