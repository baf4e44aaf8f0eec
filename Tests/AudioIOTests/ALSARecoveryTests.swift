@testable import AudioIO
import XCTest

/// The ALSA backend's recovery policy, apart from the device calls that carry it out.
final class ALSARecoveryTests: XCTestCase {
    func testEachErrorGetsItsAction() {
        XCTAssertEqual(ALSARecovery(for: .xrun, duplex: false), .prepare)
        XCTAssertEqual(ALSARecovery(for: .xrun, duplex: true), .restartDuplex, "both sides restart, pre-filled again")
        XCTAssertEqual(ALSARecovery(for: .suspended, duplex: false), .resume)
        XCTAssertEqual(ALSARecovery(for: .suspended, duplex: true), .resume)
        XCTAssertEqual(ALSARecovery(for: .wouldBlock, duplex: false), .retry)
        XCTAssertEqual(ALSARecovery(for: .interrupted, duplex: true), .retry)
        for gone in [ALSAError.noDevice, .badState, .io, .busy, .invalid, ALSAError(rawValue: 9999)] {
            XCTAssertEqual(ALSARecovery(for: gone, duplex: false), .fail, "\(gone)")
            XCTAssertEqual(ALSARecovery(for: gone, duplex: true), .fail, "\(gone)")
        }
    }
}
