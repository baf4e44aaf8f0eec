import FileChecks
import Foundation
import XCTest

/// What a path names, checked before a loader opens it: a FIFO would block the open, a directory
/// would fail it with a less helpful word, and each is refused with the kind named.
final class FileKindTests: XCTestCase {
    var folder: String!

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "file-kind-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    func testEachKindIsToldApartAndNamed() throws {
        let regular = folder + "/song.mid", fifo = folder + "/pipe"
        XCTAssertTrue(FileManager.default.createFile(atPath: regular, contents: Data([0x4D])))
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        XCTAssertEqual(FileKind(path: regular), .regular)
        XCTAssertEqual(FileKind(path: folder), .directory)
        XCTAssertEqual(FileKind(path: fifo), .fifo)
        XCTAssertEqual(FileKind(path: "/dev/null"), .characterDevice)
        XCTAssertEqual(FileKind(path: folder + "/absent"), .missing)
        XCTAssertEqual(FileKind(path: fifo).noun, "a FIFO")
        XCTAssertEqual(FileKind(path: folder).noun, "a directory")
    }

    /// A regular file passes, and so does a missing one (the opener's errno says that best); every
    /// other kind has its one-line reason, and asking does not open, so a FIFO cannot block it.
    func testOnlyWhatIsNotARegularFileHasAReason() throws {
        let regular = folder + "/kit.json", fifo = folder + "/pipe"
        XCTAssertTrue(FileManager.default.createFile(atPath: regular, contents: Data("{}".utf8)))
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        XCTAssertNil(FileKind.notRegularFileReason(regular))
        XCTAssertNil(FileKind.notRegularFileReason(folder + "/absent"))
        XCTAssertEqual(FileKind.notRegularFileReason(fifo), "is a FIFO, not a regular file")
        XCTAssertEqual(FileKind.notRegularFileReason(folder), "is a directory, not a regular file")
        XCTAssertEqual(FileKind.notRegularFileReason("/dev/null"), "is a character device, not a regular file")
    }
}
