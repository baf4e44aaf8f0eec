import Foundation
@testable import SoundFont
import XCTest

/// A font is read from its file part by part (`FontSource`), never mapped: a file that changes
/// under the loader is an error naming it, where a mapping would end the process with SIGBUS.
final class FontSourceTests: XCTestCase {
    func testAFileThatShrinksWhileLoadingIsAnErrorNamingIt() throws {
        let path = NSTemporaryDirectory() + "staccato-shrinking-\(UUID().uuidString).sf2"
        defer { try? FileManager.default.removeItem(atPath: path) }
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(SF2Builder.simple().build())))
        let source = try FontSource(path: path, name: "shrinking.sf2")
        let size = source.count
        XCTAssertEqual(truncate(path, off_t(size / 2)), 0)
        var buffer = [UInt8](repeating: 0, count: 16)
        XCTAssertThrowsError(try buffer.withUnsafeMutableBytes { try source.read(size - 16, 16, into: $0.baseAddress!, chunk: "sdta/smpl") }) {
            XCTAssertEqual("\($0)", "shrinking.sf2: chunk 'sdta/smpl' at byte \(size - 16): the file has shrunk while loading (it had \(size) bytes): byte \(size - 16) is gone")
        }
        // What is still there reads as it was.
        let head = try source.bytes(0, 4, chunk: "RIFF")
        XCTAssertEqual(head, Array("RIFF".utf8))
    }
}
