import Render
import XCTest

/// A command is one slot of the ring, copied by value on both threads: carrying MIDI messages as
/// the vocabulary has them must keep it plain data and no larger than the bank install it carries.
final class RenderCommandLayoutTests: XCTestCase {
    func testAMIDIMessageFitsInACommandWithoutGrowingIt() {
        XCTAssertTrue(_isPOD(RenderCommand.self), "no reference counting on the audio thread")
        XCTAssertLessThanOrEqual(MemoryLayout<MIDIMessage>.size, MemoryLayout<(RetainedObject, UnsafePointer<SampleBank.Layout>)>.size,
                                 "no larger than the largest engine-only payload")
        // 25 bytes (a 32-byte slot) before the MIDI cases became one `.midi` case.
        XCTAssertLessThanOrEqual(MemoryLayout<RenderCommand>.stride, 32)
    }
}
