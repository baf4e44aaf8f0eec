import MIDI
import TestSupport
import XCTest

/// The SysEx messages General MIDI files send, recognised the same from a file and from a stream.
final class SystemExclusiveTests: XCTestCase {
    func recognise(_ message: [UInt8]) -> SystemExclusive? {
        SystemExclusive.recognise(message.dropFirst().dropLast())
    }

    func testRecognisesEveryResetAndSetting() {
        XCTAssertEqual(recognise(SMF.gmSystemOn), .systemReset(.generalMIDIOn))
        XCTAssertEqual(recognise([0xF0, 0x7E, 0x7F, 0x09, 0x03, 0xF7]), .systemReset(.generalMIDI2On))
        XCTAssertEqual(recognise([0xF0, 0x7E, 0x10, 0x09, 0x02, 0xF7]), .systemReset(.generalMIDIOff))
        XCTAssertEqual(recognise(SMF.gsReset), .systemReset(.gsReset))
        XCTAssertEqual(recognise([0xF0, 0x43, 0x10, 0x4C, 0x00, 0x00, 0x7E, 0x00, 0xF7]), .systemReset(.xgSystemOn))
        XCTAssertEqual(recognise([0xF0, 0x7F, 0x7F, 0x04, 0x01, 0x00, 0x40, 0xF7]), .masterVolume(8_192))
        XCTAssertEqual(recognise([0xF0, 0x7F, 0x7F, 0x04, 0x01, 0x7F, 0x7F, 0xF7]), .masterVolume(16_383))
        XCTAssertEqual(recognise(SMF.gsRhythmOnChannel11), .rhythmPart(channel: 10, isDrum: true))
        // Part 0 is channel 10, part 1 channel 1; value 0 makes the part melodic.
        XCTAssertEqual(recognise([0xF0, 0x41, 0x10, 0x42, 0x12, 0x40, 0x10, 0x15, 0x00, 0x1B, 0xF7]), .rhythmPart(channel: 9, isDrum: false))
        XCTAssertEqual(recognise([0xF0, 0x41, 0x10, 0x42, 0x12, 0x40, 0x11, 0x15, 0x02, 0x18, 0xF7]), .rhythmPart(channel: 0, isDrum: true))
    }

    func testMalformedMessagesAreNotRecognised() {
        var badChecksum = SMF.gsReset
        badChecksum[9] = 0x42
        XCTAssertNil(recognise(badChecksum))
        XCTAssertNil(recognise([0xF0, 0x7E, 0x7F, 0x09, 0xF7]))               // too short
        XCTAssertNil(recognise([0xF0, 0x7E, 0x7F, 0x09, 0x01, 0x00, 0xF7]))   // too long
        XCTAssertNil(recognise([0xF0, 0x7E, 0x7F, 0x09, 0x04, 0xF7]))         // no such GM message
        XCTAssertNil(recognise([0xF0, 0x43, 0x10, 0x4C, 0x00, 0x00, 0x7E, 0x01, 0xF7]))
    }

    func testFileKeepsRecognisedSysExOnTheTimeline() throws {
        let body: [UInt8] = SMF.sysEx(SMF.gmSystemOn) + SMF.sysEx(delta: 0x60, SMF.gsRhythmOnChannel11)
            + [0x00, 0xF0, 0x03, 0x7E, 0x09, 0xF7]                             // not recognised
            + SMF.noteOn(delta: 0, channel: 10, key: 60) + SMF.endOfTrack
        let file = try MIDIFile.parse(SMF.file(tracks: [body]), name: "sysex.mid")
        XCTAssertEqual(file.tracks[0].map(\.kind), [
            .sysEx(.systemReset(.generalMIDIOn)), .sysEx(.rhythmPart(channel: 10, isDrum: true)), .sysEx(nil),
            .channel(.noteOn(channel: 10, key: 60, velocity: 100)), .endOfTrack,
        ])
        XCTAssertEqual(file.timedMessages().map(\.message), [
            .system(.systemReset(.generalMIDIOn)), .system(.rhythmPart(channel: 10, isDrum: true)),
            .noteOn(channel: 10, key: 60, velocity: 100),
        ])
    }

    func testStreamDeliversRecognisedSysExWhereverItsBytesFall() {
        var parser = MIDIStreamParser()
        var messages: [MIDIMessage] = []
        // A clock byte inside the message, and running status cancelled by it.
        let bytes: [UInt8] = [0x90, 60, 100] + SMF.gmSystemOn.prefix(3) + [0xF8] + SMF.gmSystemOn.dropFirst(3) + [62, 100]
            + SMF.gsRhythmOnChannel11
        for byte in bytes { if let message = parser.feed(byte) { messages.append(message) } }
        XCTAssertEqual(messages, [.noteOn(channel: 0, key: 60, velocity: 100), .system(.systemReset(.generalMIDIOn)),
                                  .system(.rhythmPart(channel: 10, isDrum: true))])
        XCTAssertEqual(parser.discardedByteCount, 2)  // the 62 100 with no status
    }

    func testStreamDoesNotRecogniseALongOrCutOffSysEx() {
        var parser = MIDIStreamParser()
        var messages: [MIDIMessage] = []
        // A GM On followed by padding is no GM On; one cut off by a status byte is not either.
        let long = Array(SMF.gmSystemOn.dropLast()) + [UInt8](repeating: 0, count: 30) + [0xF7]
        let cut = Array(SMF.gmSystemOn.dropLast()) + [0x90, 60, 100]
        parser.feed(long + cut) { messages.append($0) }
        XCTAssertEqual(messages, [.noteOn(channel: 0, key: 60, velocity: 100)])
        XCTAssertEqual(parser.discardedByteCount, long.count + SMF.gmSystemOn.count - 1)
    }
}
