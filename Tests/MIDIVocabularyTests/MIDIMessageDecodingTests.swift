import MIDIVocabulary
import XCTest

/// `MIDIMessage.decoding`: one whole event's bytes, as a JACK MIDI port delivers them.
final class MIDIMessageDecodingTests: XCTestCase {
    func decode(_ bytes: [UInt8]) -> MIDIMessage? { bytes.withUnsafeBufferPointer { MIDIMessage.decoding($0) } }

    func testChannelMessages() {
        XCTAssertEqual(decode([0x90, 60, 100]), .noteOn(channel: 0, key: 60, velocity: 100))
        XCTAssertEqual(decode([0x9F, 60, 0]), .noteOff(channel: 15, key: 60, velocity: 64), "velocity 0 is a note-off")
        XCTAssertEqual(decode([0x83, 61, 12]), .noteOff(channel: 3, key: 61, velocity: 12))
        XCTAssertEqual(decode([0xA1, 62, 5]), .polyPressure(channel: 1, key: 62, pressure: 5))
        XCTAssertEqual(decode([0xB2, 64, 127]), .controlChange(channel: 2, controller: 64, value: 127))
        XCTAssertEqual(decode([0xC9, 3]), .programChange(channel: 9, program: 3))
        XCTAssertEqual(decode([0xD0, 77]), .channelPressure(channel: 0, pressure: 77))
        XCTAssertEqual(decode([0xE0, 0x00, 0x40]), .pitchBend(channel: 0, value: 8_192))
    }

    func testSystemExclusive() {
        XCTAssertEqual(decode([0xF0, 0x7E, 0x7F, 0x09, 0x01, 0xF7]), .system(.systemReset(.generalMIDIOn)))
        XCTAssertNil(decode([0xF0, 0x7E, 0x7F, 0x09, 0x01]), "no F7")
        XCTAssertNil(decode([0xF0, 0x43, 0x12, 0x00, 0xF7]), "not one Staccato knows")
    }

    func testWhatIsNoMessageIsNil() {
        XCTAssertNil(decode([]))
        XCTAssertNil(decode([0x90, 60]), "cut short")
        XCTAssertNil(decode([0x90, 60, 0x80]), "a data byte with the top bit set")
        XCTAssertNil(decode([0xF8]), "clock")
        XCTAssertNil(decode([0xFE]), "active sensing")
        XCTAssertNil(decode([0x3C, 0x40]), "no status (running status has no place in a JACK event)")
        XCTAssertNil(decode([0xF2, 0x00, 0x00]), "system common")
    }
}
