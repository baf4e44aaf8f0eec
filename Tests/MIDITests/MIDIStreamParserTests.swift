import MIDI
import TestSupport
import XCTest

/// The live-stream parser: each test says exactly which bytes arrive, then random streams check
/// the guarantees no hand-written case can cover.
final class MIDIStreamParserTests: XCTestCase {
    func parse(_ bytes: [UInt8]) -> (messages: [MIDIMessage], discarded: Int) {
        var parser = MIDIStreamParser()
        var messages: [MIDIMessage] = []
        parser.feed(bytes) { messages.append($0) }
        return (messages, parser.discardedByteCount)
    }

    // MARK: Messages

    func testEveryMessageKindDecodes() {
        let (messages, discarded) = parse([
            0x93, 60, 100, // note-on, channel 3
            0x83, 60, 33, // note-off with release velocity
            0x90, 62, 0, // note-on at velocity 0
            0xA4, 60, 90, // poly pressure
            0xB1, 64, 127, // sustain pedal
            0xC2, 5, // program change: one data byte
            0xDF, 77, // channel pressure, channel 15: one data byte
            0xE0, 0x00, 0x40, // pitch bend centre: LSB first
            0xE0, 0x7F, 0x7F, // pitch bend top
            0xEE, 0x01, 0x00, // pitch bend one step above the bottom
        ])
        XCTAssertEqual(messages, [
            .noteOn(channel: 3, key: 60, velocity: 100),
            .noteOff(channel: 3, key: 60, velocity: 33),
            .noteOff(channel: 0, key: 62, velocity: 64),
            .polyPressure(channel: 4, key: 60, pressure: 90),
            .controlChange(channel: 1, controller: 64, value: 127),
            .programChange(channel: 2, program: 5),
            .channelPressure(channel: 15, pressure: 77),
            .pitchBend(channel: 0, value: 8192),
            .pitchBend(channel: 0, value: 16383),
            .pitchBend(channel: 14, value: 1),
        ])
        XCTAssertEqual(discarded, 0)
    }

    func testFeedingOneByteReturnsTheMessageItsLastByteCompletes() {
        var parser = MIDIStreamParser()
        XCTAssertNil(parser.feed(0x91))
        XCTAssertNil(parser.feed(60))
        XCTAssertEqual(parser.feed(100), .noteOn(channel: 1, key: 60, velocity: 100))
        XCTAssertNil(parser.feed(61))
        XCTAssertEqual(parser.feed(0), .noteOff(channel: 1, key: 61, velocity: 64))
    }

    func testRunningStatus() {
        XCTAssertEqual(parse([0x90, 60, 100, 62, 100, 64, 0]).messages, [
            .noteOn(channel: 0, key: 60, velocity: 100),
            .noteOn(channel: 0, key: 62, velocity: 100),
            .noteOff(channel: 0, key: 64, velocity: 64),
        ])
        XCTAssertEqual(parse([0xC5, 1, 2, 3]).messages, [
            .programChange(channel: 5, program: 1),
            .programChange(channel: 5, program: 2),
            .programChange(channel: 5, program: 3),
        ])
    }

    // MARK: Real-time, SysEx, system common

    func testRealTimeBytesAnywhereChangeNothing() {
        let traffic: [UInt8] = [0x90, 60, 100, 62, 100, 0xC3, 7, 8, 0xE2, 0x12, 0x34, 0x80, 60, 20, 0xD0, 5]
        let expected = parse(traffic)
        XCTAssertEqual(expected.messages.count, 7)
        for realTime: [UInt8] in [[0xF8], [0xFE], [0xF8, 0xFE], [0xFA, 0xFB, 0xFC, 0xFF, 0xF9, 0xFD]] {
            let interleaved = realTime + traffic.flatMap { [$0] + realTime }
            let result = parse(interleaved)
            XCTAssertEqual(result.messages, expected.messages, "\(realTime)")
            XCTAssertEqual(result.discarded, 0, "\(realTime)")
        }
    }

    func testSysExIsSkippedAndCancelsRunningStatus() {
        let sysEx: [UInt8] = [0xF0, 0x7E, 0x7F, 0x06, 0x01, 0xF7] // identity request: nothing to play
        let (messages, discarded) = parse([0x90, 60, 100] + sysEx + [62, 100, 0x90, 64, 100])
        // The 62 100 after the SysEx would have been a note-on under the old running status.
        XCTAssertEqual(messages, [
            .noteOn(channel: 0, key: 60, velocity: 100),
            .noteOn(channel: 0, key: 64, velocity: 100),
        ])
        XCTAssertEqual(discarded, sysEx.count + 2)
    }

    func testRealTimeInsideSysExDoesNotEndIt() {
        let (messages, discarded) = parse([0xF0, 0x43, 0xF8, 0x10, 0xFE, 0x4C, 0xF7, 0x90, 60, 1])
        XCTAssertEqual(messages, [.noteOn(channel: 0, key: 60, velocity: 1)])
        XCTAssertEqual(discarded, 5)
    }

    func testSysExWithoutEndIsEndedByTheNextStatusByte() {
        let (messages, discarded) = parse([0xF0, 0x41, 0x10, 0x42, 0x80, 60, 0, 61, 0])
        XCTAssertEqual(messages, [
            .noteOff(channel: 0, key: 60, velocity: 0),
            .noteOff(channel: 0, key: 61, velocity: 0),
        ])
        XCTAssertEqual(discarded, 4)
    }

    func testSystemCommonCancelsRunningStatus() {
        // Song position pointer, then data meant for the old status; then a stray end of SysEx.
        let (messages, discarded) = parse([0xB0, 7, 100, 0xF2, 0x00, 0x10, 7, 90, 0xB0, 7, 80, 0xF7, 7, 70])
        XCTAssertEqual(messages, [
            .controlChange(channel: 0, controller: 7, value: 100),
            .controlChange(channel: 0, controller: 7, value: 80),
        ])
        XCTAssertEqual(discarded, 3 + 2 + 1 + 2)
    }

    // MARK: Resynchronisation

    func testStatusByteInterruptingAMessageDiscardsThePartialOne() {
        XCTAssertEqual(parse([0x90, 60, 0xB0, 7, 100]).messages, [.controlChange(channel: 0, controller: 7, value: 100)])
        XCTAssertEqual(parse([0x90, 60, 0xB0, 7, 100]).discarded, 2)
        // Under running status only the data byte was cut short; the status byte was used.
        let result = parse([0x90, 60, 100, 62, 0x80, 62, 0])
        XCTAssertEqual(result.messages, [.noteOn(channel: 0, key: 60, velocity: 100), .noteOff(channel: 0, key: 62, velocity: 0)])
        XCTAssertEqual(result.discarded, 1)
    }

    func testGarbageDataBytesAtTheStartAreDiscardedAndCounted() {
        let (messages, discarded) = parse([0x01, 0x7F, 60, 100, 0x00, 0x90, 60, 100])
        XCTAssertEqual(messages, [.noteOn(channel: 0, key: 60, velocity: 100)])
        XCTAssertEqual(discarded, 5)
    }

    func testResetForgetsRunningStatusAndThePartialMessage() {
        var parser = MIDIStreamParser()
        XCTAssertEqual(parser.feed(0x90), nil)
        XCTAssertEqual(parser.feed(60), nil)
        parser.reset()
        XCTAssertNil(parser.feed(100))
        XCTAssertNil(parser.feed(62))
        XCTAssertNil(parser.feed(100))
        XCTAssertEqual(parser.discardedByteCount, 5)
        XCTAssertNil(parser.feed(0xF0))
        parser.reset()
        // Not still inside the SysEx, yet with no running status.
        XCTAssertNil(parser.feed(1))
        XCTAssertNil(parser.feed(0x95))
        XCTAssertNil(parser.feed(1))
        XCTAssertEqual(parser.feed(2), .noteOn(channel: 5, key: 1, velocity: 2))
        XCTAssertEqual(parser.discardedByteCount, 7)
    }

    // MARK: Random streams

    /// Random channel traffic mixed with random bytes: nothing traps, and a stream ending in
    /// all-notes-off on every channel leaves nothing held, whatever came before.
    func testRandomBytesInValidTrafficNeverLeaveNotesHeld() {
        struct Held: Hashable { var channel: UInt8; var key: UInt8 }
        for seed: UInt64 in [1, 2, 3, 0xDEAD_BEEF] {
            var generator = SeededGenerator(state: seed)
            var stream: [UInt8] = []
            stream.reserveCapacity(110_000)
            var status: UInt8?
            while stream.count < 100_000 {
                if Int.random(in: 0..<4, using: &generator) == 0 {
                    for _ in 0..<Int.random(in: 1...8, using: &generator) {
                        stream.append(UInt8.random(in: 0...255, using: &generator))
                    }
                    // Whatever the garbage did to running status, the encoder cannot know.
                    status = nil
                } else {
                    let message = randomMessage(using: &generator)
                    stream += encode(message, after: &status, runningStatus: Bool.random(using: &generator))
                }
            }
            for channel: UInt8 in 0..<16 { stream += [0xB0 | channel, 123, 0] }

            var parser = MIDIStreamParser()
            var held = Set<Held>()
            var messages: [MIDIMessage] = []
            parser.feed(stream) { message in
                messages.append(message)
                switch message {
                case let .noteOn(channel, key, _): held.insert(Held(channel: channel, key: key))
                case let .noteOff(channel, key, _): held.remove(Held(channel: channel, key: key))
                case let .controlChange(channel, controller, _) where [.allNotesOff, .allSoundOff].contains(MIDIController.named(controller)):
                    held = held.filter { $0.channel != channel }
                default: break
                }
            }
            XCTAssertEqual(held, [], "seed \(seed)")
            XCTAssertEqual(Array(messages.suffix(16)), (0..<16).map { .controlChange(channel: $0, controller: 123, value: 0) }, "seed \(seed)")
            XCTAssertGreaterThan(messages.count, 10_000, "seed \(seed): the valid traffic mostly survives")
            XCTAssertGreaterThan(parser.discardedByteCount, 0, "seed \(seed)")
            XCTAssertLessThan(parser.discardedByteCount, stream.count, "seed \(seed)")
            XCTAssertTrue(messages.allSatisfy { $0.channel < 16 }, "seed \(seed)")
        }
    }

    /// Valid traffic, encoded with running status used at random and real-time bytes dropped in
    /// anywhere, parses back to exactly the messages encoded.
    func testValidTrafficRoundTrips() {
        for seed: UInt64 in [7, 8, 9] {
            var generator = SeededGenerator(state: seed)
            var messages: [MIDIMessage] = []
            var stream: [UInt8] = []
            var status: UInt8?
            for _ in 0..<5_000 {
                let message = randomMessage(using: &generator)
                messages.append(message)
                for byte in encode(message, after: &status, runningStatus: Bool.random(using: &generator)) {
                    while Int.random(in: 0..<5, using: &generator) == 0 {
                        stream.append(UInt8.random(in: 0xF8...0xFF, using: &generator))
                    }
                    stream.append(byte)
                }
            }
            let result = parse(stream)
            XCTAssertEqual(result.messages, messages, "seed \(seed)")
            XCTAssertEqual(result.discarded, 0, "seed \(seed)")
        }
    }

    /// A message as the parser returns it: note-ons have a velocity above 0, since 0 reads back
    /// as a note-off.
    func randomMessage(using generator: inout SeededGenerator) -> MIDIMessage {
        let channel = UInt8.random(in: 0..<16, using: &generator)
        func data() -> UInt8 { UInt8.random(in: 0...127, using: &generator) }
        switch Int.random(in: 0..<7, using: &generator) {
        case 0: return .noteOn(channel: channel, key: data(), velocity: UInt8.random(in: 1...127, using: &generator))
        case 1: return .noteOff(channel: channel, key: data(), velocity: data())
        case 2: return .controlChange(channel: channel, controller: data(), value: data())
        case 3: return .programChange(channel: channel, program: data())
        case 4: return .pitchBend(channel: channel, value: UInt16.random(in: 0...16383, using: &generator))
        case 5: return .channelPressure(channel: channel, pressure: data())
        default: return .polyPressure(channel: channel, key: data(), pressure: data())
        }
    }

    /// The wire bytes of `message`, leaving out the status byte when `runningStatus` allows and
    /// the last status sent (`status`) is the same.
    func encode(_ message: MIDIMessage, after status: inout UInt8?, runningStatus: Bool) -> [UInt8] {
        let kind: UInt8
        let data: [UInt8]
        switch message {
        case let .noteOff(_, key, velocity): (kind, data) = (0x80, [key, velocity])
        case let .noteOn(_, key, velocity): (kind, data) = (0x90, [key, velocity])
        case let .polyPressure(_, key, pressure): (kind, data) = (0xA0, [key, pressure])
        case let .controlChange(_, controller, value): (kind, data) = (0xB0, [controller, value])
        case let .programChange(_, program): (kind, data) = (0xC0, [program])
        case let .channelPressure(_, pressure): (kind, data) = (0xD0, [pressure])
        case let .pitchBend(_, value): (kind, data) = (0xE0, [UInt8(value & 0x7F), UInt8(value >> 7)])
        case .system: preconditionFailure("randomMessage makes channel messages only")
        }
        let messageStatus = kind | message.channel
        defer { status = messageStatus }
        return runningStatus && status == messageStatus ? data : [messageStatus] + data
    }
}
