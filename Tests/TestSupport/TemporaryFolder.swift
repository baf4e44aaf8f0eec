import Foundation
import XCTest

/// A fresh folder under the system temporary directory, removed when the test ends, for files
/// the tests write themselves (no binary fixtures to keep in the repository).
///
/// Audio writers stay in the test targets: this target depends on nothing, so it cannot use
/// `AudioFile`.
///
/// - Thread: the test's.
public final class TemporaryFolder {
    public let path: String

    /// Creates the folder, named after `test`'s class, and removes it in `test`'s teardown.
    public init(_ test: XCTestCase) throws {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(type(of: test))-\(UUID().uuidString)", isDirectory: true).path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        test.addTeardownBlock { [path] in try? FileManager.default.removeItem(atPath: path) }
    }

    /// The path of `name` inside the folder.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Writes `text` as UTF-8.
    public func writeText(_ name: String, _ text: String) throws {
        try writeBytes(name, Array(text.utf8))
    }

    public func writeBytes(_ name: String, _ bytes: [UInt8]) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: file(name)))
    }
}
