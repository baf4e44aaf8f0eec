import Glibc
import ProcessLimits
import XCTest

/// How much more memory the process can be given, which a loader asks before it allocates a font's
/// sample memory: Linux always tells (MemAvailable), and a shortfall reads as whole megabytes that
/// never look equal when the load is refused.
final class MemoryHeadroomTests: XCTestCase {
    func testLinuxSaysHowMuchMemoryCanBeHad() throws {
        let available = try XCTUnwrap(MemoryHeadroom.availableBytes(), "MemAvailable is in /proc/meminfo")
        XCTAssertGreaterThan(available, 0)
        // No more than the machine has.
        let pages = sysconf(Int32(_SC_PHYS_PAGES)), pageBytes = sysconf(Int32(_SC_PAGESIZE))
        XCTAssertLessThanOrEqual(available, pages * pageBytes)
        // The address-space figure is nil unless a limit is set, and never below the touched-page one
        // by more than what the process already maps.
        if let addressSpace = MemoryHeadroom.addressSpaceBytes() { XCTAssertGreaterThanOrEqual(addressSpace, 0) }
    }

    func testAShortfallRoundsWhatIsNeededUpAndWhatCanBeHadDown() {
        let megabyte = 1 << 20
        XCTAssertEqual(MemoryHeadroom.shortfall(needed: megabyte + 1, available: megabyte + 1).neededMB, 2)
        XCTAssertEqual(MemoryHeadroom.shortfall(needed: megabyte + 1, available: megabyte + 1).availableMB, 1)
        XCTAssertEqual(MemoryHeadroom.shortfall(needed: 1, available: megabyte - 1).neededMB, 1)
        XCTAssertEqual(MemoryHeadroom.shortfall(needed: 1, available: megabyte - 1).availableMB, 0)
        XCTAssertEqual(MemoryHeadroom.shortfall(needed: 0, available: -5).availableMB, 0, "never a negative figure")
    }
}
