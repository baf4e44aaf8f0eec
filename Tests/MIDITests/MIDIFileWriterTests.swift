import MIDI
import TestSupport
import XCTest

/// `standardMIDIFileBytes()` and `keepingNotes(ofChannel:)`, the solo files of `staccato-bench compare`.
final class MIDIFileWriterTests: XCTestCase {
    /// Two tracks, three channels with notes (1, 2 and the drums), running status, a velocity-0
    /// note-off, every other kind of channel message, tempo, a time signature and a SysEx.
    static let song: [UInt8] = SMF.file(tracks: [
        SMF.tempo(400_000) + [0x00, 0xFF, 0x58, 0x04, 4, 2, 24, 8] // time signature: dropped on writing
            + [0x00, 0xF0, 0x05, 0x7E, 0x7F, 0x09, 0x01, 0xF7] // GM on: recognised, written back
            + [0x00, 0xF0, 0x03, 0x7D, 0x01, 0xF7] // a SysEx Staccato does not know: dropped
            + [0x00, 0xC0, 40, 0x00, 0xC1, 33]
            + [0x00, 0xB0, 7, 90, 0x00, 0xE1, 0x00, 0x50]
            + SMF.noteOn(channel: 0, key: 60) + [0x60, 64, 90] // running status: a second note-on
            + [0x83, 0x60, 0x90, 60, 0] // velocity 0 after a long delta: a note-off
            + [0x00, 0x80, 64, 20]
            + SMF.tempo(delta: 240, 600_000) + [0x00, 0xFF, 0x2F, 0x00],
        SMF.noteOn(delta: 10, channel: 1, key: 40) + [0x05, 0xA1, 40, 70, 0x05, 0xD1, 50]
            + SMF.noteOn(delta: 5, channel: 9, key: 36) + [0x78, 0x81, 40, 0, 0x00, 0x89, 36, 0]
            + [0x00, 0xB9, 64, 127] + [0x00, 0xFF, 0x2F, 0x00],
    ])

    func isNote(_ event: TrackEvent, ofChannelOtherThan channel: UInt8) -> Bool {
        switch event.kind {
        case let .channel(.noteOn(other, _, _)), let .channel(.noteOff(other, _, _)): other != channel
        default: false
        }
    }

    func isWritable(_ event: TrackEvent) -> Bool {
        switch event.kind {
        case .meta, .sysEx(nil): false
        default: true
        }
    }

    func testWrittenFileReadsBackAsTheSameEvents() throws {
        let original = try MIDIFile.parse(Self.song, name: "song.mid")
        XCTAssertEqual(original.unwritableEventCount, 2)
        let written = try MIDIFile.parse(original.standardMIDIFileBytes(), name: "written.mid")
        XCTAssertEqual(written.format, original.format)
        XCTAssertEqual(written.division, original.division)
        XCTAssertEqual(written.tracks, original.tracks.map { $0.filter(isWritable) })
        XCTAssertEqual(written.tempoMap, original.tempoMap)
        XCTAssertEqual(written.timedMessages(), original.timedMessages())
    }

    func testSoloKeepsEveryEventButTheOtherChannelsNotes() throws {
        let original = try MIDIFile.parse(Self.song, name: "song.mid")
        XCTAssertEqual(original.channelsWithNotes, [0, 1, 9])
        for channel in original.channelsWithNotes {
            let solo = try MIDIFile.parse(original.keepingNotes(ofChannel: channel).standardMIDIFileBytes(), name: "solo.mid")
            let expected = original.tracks.map { $0.filter { isWritable($0) && !isNote($0, ofChannelOtherThan: channel) } }
            XCTAssertEqual(solo.tracks, expected, "channel \(channel + 1)")
            XCTAssertEqual(solo.channelsWithNotes, [channel])
            XCTAssertEqual(solo.duration, original.duration, accuracy: 1e-12, "the song keeps its length")
        }
        // The drums solo still holds channel 1's program, volume and bend and channel 2's pressure.
        let drums = try MIDIFile.parse(original.keepingNotes(ofChannel: 9).standardMIDIFileBytes(), name: "solo.mid")
        let messages = drums.timedMessages().map(\.message)
        XCTAssertTrue(messages.contains(.programChange(channel: 0, program: 40)))
        XCTAssertTrue(messages.contains(.controlChange(channel: 0, controller: 7, value: 90)))
        XCTAssertTrue(messages.contains(.pitchBend(channel: 1, value: 0x50 << 7)))
        XCTAssertTrue(messages.contains(.channelPressure(channel: 1, pressure: 50)))
        XCTAssertTrue(messages.contains(.polyPressure(channel: 1, key: 40, pressure: 70)))
        XCTAssertEqual(messages.filter { if case .noteOn = $0 { true } else { false } }, [.noteOn(channel: 9, key: 36, velocity: 100)])
    }

    func testTrackWithoutEndOfTrackGetsOne() throws {
        let original = try MIDIFile.parse(SMF.file(tracks: [SMF.noteOn(delta: 30, channel: 2)]), name: "open.mid")
        let written = try MIDIFile.parse(original.standardMIDIFileBytes(), name: "written.mid")
        XCTAssertEqual(written.tracks[0], original.tracks[0] + [TrackEvent(tick: 30, kind: .endOfTrack)])
        XCTAssertTrue(written.problems.isEmpty)
    }

    func testSMPTEDivisionIsWrittenBack() throws {
        let bytes = SMF.header(format: 0, trackCount: 1, division: 0xE728) + SMF.chunk("MTrk", SMF.noteOn(delta: 7) + SMF.endOfTrack)
        let original = try MIDIFile.parse(bytes, name: "smpte.mid")
        XCTAssertEqual(original.division, .smpte(framesPerSecond: 25, ticksPerFrame: 40))
        XCTAssertEqual(try MIDIFile.parse(original.standardMIDIFileBytes(), name: "written.mid").division, original.division)
    }

    /// Every SysEx message Staccato recognises is written in a form it reads back as the same
    /// message, so a solo file keeps the song's resets and rhythm parts for both engines.
    func testRecognisedSystemExclusiveMessagesRoundTrip() throws {
        let messages: [SystemExclusive] = [
            .systemReset(.generalMIDIOn), .systemReset(.generalMIDIOff), .systemReset(.generalMIDI2On),
            .systemReset(.gsReset), .systemReset(.xgSystemOn), .masterVolume(0), .masterVolume(8_192), .masterVolume(16_383),
        ] + (0..<16).flatMap { channel in [true, false].map { SystemExclusive.rhythmPart(channel: UInt8(channel), isDrum: $0) } }
        for message in messages {
            XCTAssertEqual(SystemExclusive.recognise(message.bodyBytes), message, "\(message.bodyBytes)")
        }
        let file = MIDIFile(format: 1, division: .ticksPerQuarter(480),
                            tracks: [messages.enumerated().map { TrackEvent(tick: $0.offset, kind: .sysEx($0.element)) }], problems: [])
        let written = try MIDIFile.parse(file.standardMIDIFileBytes(), name: "sysex.mid")
        XCTAssertEqual(written.tracks[0].compactMap { if case let .sysEx(message) = $0.kind { message } else { nil } }, messages)
    }
}
