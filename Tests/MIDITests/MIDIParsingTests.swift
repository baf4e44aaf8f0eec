import MIDI
import TestSupport
import XCTest

/// The reader on hand-built files: each test says exactly which bytes it feeds in.
final class MIDIParsingTests: XCTestCase {
    func parse(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) throws -> MIDIFile {
        do {
            return try MIDIFile.parse(bytes, name: "test.mid")
        } catch {
            XCTFail("\(error)", file: file, line: line)
            throw error
        }
    }

    func channelMessages(_ file: MIDIFile, track: Int = 0) -> [MIDIMessage] {
        file.tracks[track].compactMap { if case let .channel(message) = $0.kind { message } else { nil } }
    }

    // MARK: Channel messages

    func testEveryChannelMessageKindDecodes() throws {
        let body: [UInt8] = [
            0x00, 0x93, 60, 100, // note-on, channel 3
            0x00, 0x83, 60, 33, // note-off with release velocity
            0x00, 0xB1, 64, 127, // sustain pedal
            0x00, 0xC2, 5, // program change: one data byte
            0x00, 0xE0, 0x00, 0x40, // pitch bend centre: LSB first
            0x00, 0xE0, 0x7F, 0x7F, // pitch bend top
            0x00, 0xE0, 0x00, 0x00, // pitch bend bottom
            0x00, 0xDF, 77, // channel pressure, channel 15
            0x00, 0xA4, 61, 12, // poly pressure
        ] + SMF.endOfTrack
        XCTAssertEqual(channelMessages(try parse(SMF.file(tracks: [body]))), [
            .noteOn(channel: 3, key: 60, velocity: 100),
            .noteOff(channel: 3, key: 60, velocity: 33),
            .controlChange(channel: 1, controller: 64, value: 127),
            .programChange(channel: 2, program: 5),
            .pitchBend(channel: 0, value: 8_192),
            .pitchBend(channel: 0, value: 16_383),
            .pitchBend(channel: 0, value: 0),
            .channelPressure(channel: 15, pressure: 77),
            .polyPressure(channel: 4, key: 61, pressure: 12),
        ])
    }

    func testRunningStatus() throws {
        // One status byte, then data pairs: the status carries over, across a two-byte message too.
        let body: [UInt8] = [0x00, 0x91, 60, 90, 0x10, 62, 91, 0x10, 64, 92, 0x00, 0xC1, 7, 0x00, 8] + SMF.endOfTrack
        let file = try parse(SMF.file(tracks: [body]))
        XCTAssertEqual(channelMessages(file), [
            .noteOn(channel: 1, key: 60, velocity: 90),
            .noteOn(channel: 1, key: 62, velocity: 91),
            .noteOn(channel: 1, key: 64, velocity: 92),
            .programChange(channel: 1, program: 7),
            .programChange(channel: 1, program: 8),
        ])
        XCTAssertEqual(file.tracks[0].map(\.tick), [0, 16, 32, 32, 32, 32])
    }

    func testRunningStatusSurvivesMetaAndSysEx() throws {
        // The spec cancels running status here; real files rely on it surviving, and no
        // well-formed file can be misread by keeping it.
        let body: [UInt8] = [0x00, 0x90, 60, 90, 0x00, 0xFF, 0x01, 0x02, 0x68, 0x69, 0x00, 62, 91,
                             0x00, 0xF0, 0x03, 0x7E, 0x09, 0xF7, 0x00, 64, 92] + SMF.endOfTrack
        let file = try parse(SMF.file(tracks: [body]))
        XCTAssertEqual(file.noteOnCount, 3)
        XCTAssertEqual(file.tracks[0].map(\.kind), [
            .channel(.noteOn(channel: 0, key: 60, velocity: 90)), .meta(type: 0x01),
            .channel(.noteOn(channel: 0, key: 62, velocity: 91)), .sysEx(nil),
            .channel(.noteOn(channel: 0, key: 64, velocity: 92)), .endOfTrack,
        ])
    }

    func testVelocityZeroNoteOnIsNoteOff() throws {
        let body = SMF.noteOn(key: 60, velocity: 100) + [0x60, 60, 0] + SMF.endOfTrack
        let file = try parse(SMF.file(tracks: [body]))
        XCTAssertEqual(channelMessages(file), [.noteOn(channel: 0, key: 60, velocity: 100),
                                               .noteOff(channel: 0, key: 60, velocity: 64)])
        XCTAssertEqual(file.noteOnCount, 1)
    }

    // MARK: Time

    func testTempoChangeMidFileChangesSeconds() throws {
        // 480 ticks a quarter. 120 bpm to tick 960 (1 s), then 240 bpm: a quarter is 0.25 s.
        let conductor = SMF.tempo(500_000) + SMF.tempo(delta: 960, 250_000) + SMF.endOfTrack
        let notes = SMF.noteOn(delta: 480) + SMF.noteOn(delta: 480) + SMF.noteOn(delta: 480) + SMF.endOfTrack
        let file = try parse(SMF.file(tracks: [conductor, notes]))
        XCTAssertEqual(file.tempoMap, [TempoChange(tick: 0, microsecondsPerQuarter: 500_000, seconds: 0),
                                       TempoChange(tick: 960, microsecondsPerQuarter: 250_000, seconds: 1)])
        XCTAssertEqual(file.timedMessages().map(\.seconds), [0.5, 1.0, 1.25])
        XCTAssertEqual(file.seconds(atTick: 960 + 4 * 480), 2, accuracy: 1e-12)
        XCTAssertEqual(file.duration, 1.25, accuracy: 1e-12)
    }

    func testTempoMapDefaultsTo120BeatsPerMinute() throws {
        let file = try parse(SMF.file(division: 96, tracks: [SMF.noteOn(delta: 96) + SMF.tempo(delta: 96, 1_000_000) + SMF.noteOn(delta: 96)]))
        XCTAssertEqual(file.tempoMap, [TempoChange(tick: 0, microsecondsPerQuarter: 500_000, seconds: 0),
                                       TempoChange(tick: 192, microsecondsPerQuarter: 1_000_000, seconds: 1)])
        XCTAssertEqual(file.timedMessages().map(\.seconds), [0.5, 2])
        // No end-of-track: the last event is the end.
        XCTAssertEqual(file.duration, 2, accuracy: 1e-12)
    }

    func testZeroTempoIsLeftOutOfTheMap() throws {
        let file = try parse(SMF.file(tracks: [SMF.tempo(0) + SMF.tempo(delta: 480, 0) + SMF.noteOn(delta: 480)]))
        XCTAssertEqual(file.tracks[0].first?.kind, .tempo(microsecondsPerQuarter: 0), "kept as an event")
        XCTAssertEqual(file.tempoMap, [TempoChange(tick: 0, microsecondsPerQuarter: 500_000, seconds: 0)])
        XCTAssertEqual(file.duration, 1, accuracy: 1e-12)
    }

    func testSMPTEDivisionIgnoresTempo() throws {
        // -25 frames a second (0xE7), 40 ticks a frame: 1000 ticks a second whatever the tempo says.
        // mido disagrees (it reads the field as a signed tick count, -6360); the SMF spec is as here.
        let body = SMF.tempo(250_000) + SMF.noteOn(delta: 1_500) + SMF.noteOn(delta: 500) + SMF.endOfTrack
        let file = try parse(SMF.file(division: 0xE728, tracks: [body]))
        XCTAssertEqual(file.division, .smpte(framesPerSecond: 25, ticksPerFrame: 40))
        XCTAssertEqual(file.ticksPerQuarter, 500)
        XCTAssertEqual(file.timedMessages().map(\.seconds), [1.5, 2.0])

        // 29 is 30 drop-frame, which runs at 29.97 frames a second.
        let dropFrame = try parse(SMF.file(division: 0xE364, tracks: [SMF.noteOn(delta: 3_000)]))
        XCTAssertEqual(dropFrame.division, .smpte(framesPerSecond: 29, ticksPerFrame: 100))
        XCTAssertEqual(dropFrame.duration, 1.001, accuracy: 1e-9)
    }

    func testEqualTimesKeepTrackThenFileOrder() throws {
        let first = SMF.noteOn(delta: 10, key: 1) + SMF.noteOn(key: 2) + SMF.endOfTrack
        let second = SMF.noteOn(delta: 5, key: 3) + SMF.noteOn(delta: 5, key: 4) + SMF.noteOn(key: 5)
        let file = try parse(SMF.file(tracks: [second, first]))
        XCTAssertEqual(file.timedMessages().map(\.message), [3, 4, 5, 1, 2].map { .noteOn(channel: 0, key: $0, velocity: 100) })
        XCTAssertEqual(file.timedMessages().map(\.track), [0, 0, 0, 1, 1])
    }

    // MARK: Variable-length quantities

    func deltaTick(_ encoded: [UInt8]) throws -> Int {
        try parse(SMF.file(tracks: [encoded + [0xFF, 0x2F, 0x00]])).tracks[0][0].tick
    }

    func testVariableLengthQuantities() throws {
        XCTAssertEqual(try deltaTick([0x00]), 0)
        XCTAssertEqual(try deltaTick([0x7F]), 127)
        XCTAssertEqual(try deltaTick([0x81, 0x00]), 128)
        XCTAssertEqual(try deltaTick([0x80, 0x00]), 0, "a redundant leading zero group is still a valid quantity")
        XCTAssertEqual(try deltaTick([0xFF, 0x7F]), 16_383)
        XCTAssertEqual(try deltaTick([0xFF, 0xFF, 0xFF, 0x7F]), 0x0FFF_FFFF)
        XCTAssertEqual(try deltaTick([0x80, 0x80, 0x80, 0x00]), 0)
        // Meta lengths are quantities too.
        let longText = [UInt8](repeating: 0x61, count: 200)
        let file = try parse(SMF.file(tracks: [[0x00, 0xFF, 0x01] + SMF.vlq(200) + longText + SMF.endOfTrack]))
        XCTAssertEqual(file.tracks[0].map(\.kind), [.meta(type: 0x01), .endOfTrack])
    }

    func testFiveByteQuantityIsAnError() {
        let bytes = SMF.file(tracks: [[0x81, 0x80, 0x80, 0x80, 0x00] + [0xFF, 0x2F, 0x00]])
        XCTAssertThrowsError(try MIDIFile.parse(bytes, name: "long.mid")) { error in
            let error = error as! MIDIFileError
            XCTAssertEqual(error.offset, SMF.firstEventOffset)
            XCTAssertEqual(error.description, "long.mid: byte 22: delta time is a variable-length quantity longer than 4 bytes")
        }
    }

    // MARK: Real-world quirks

    /// A file that ends early parses to what arrived, and the damage is in `problems`, naming the
    /// track and the byte where the file ends.
    func testAFileCutShortParsesWithTheDamageNamed() throws {
        let good = SMF.noteOn() + SMF.endOfTrack
        func problems(_ bytes: [UInt8]) throws -> [String] { try parse(bytes).problems.map(\.description) }
        let threeNotes = SMF.noteOn() + SMF.noteOn(delta: 5) + SMF.noteOn(delta: 5) + SMF.endOfTrack
        let whole = SMF.file(tracks: [threeNotes, good, good])
        XCTAssertEqual(try problems(whole), [])
        let cut = Array(SMF.file(tracks: [threeNotes, good]).prefix(SMF.firstEventOffset + 8))
        XCTAssertEqual(try parse(cut).noteOnCount, 2, "the whole events before the cut are kept")
        XCTAssertEqual(try problems(cut), ["test.mid: track 1 of 2 ends at byte 30, 8 bytes short of its declared length; track 2 is missing"])
        XCTAssertEqual(try problems(Array(whole.prefix(whole.count - good.count - 8))),
                       ["test.mid: the file ends at byte 54, after track 2 of 3; track 3 is missing"])
        XCTAssertEqual(try problems(Array(whole.prefix(whole.count - good.count - 3))),
                       ["test.mid: the file ends at byte 59, inside the header of track 3 of 3; track 3 is missing"])
        XCTAssertEqual(try problems(SMF.header(trackCount: 2) + SMF.chunk("MTrk", good)),
                       ["test.mid: the file ends at byte 30, after track 1 of 2; track 2 is missing"])
        // A first track claiming more than the file holds swallows the rest: said, not thrown.
        XCTAssertEqual(try problems(SMF.header(trackCount: 2) + SMF.chunk("MTrk", good, length: 100) + SMF.chunk("MTrk", good)),
                       ["test.mid: the file ends at byte 46, after track 1 of 2; track 2 is missing"])
    }

    func testQuirksAreTolerated() throws {
        let keySignatureWithBadMode: [UInt8] = [0x00, 0xFF, 0x59, 0x02, 0x00, 0x07]
        let garbageAfterEnd: [UInt8] = [0x00, 0x3C]
        let noEndOfTrack = SMF.noteOn(delta: 7)
        let bytes = SMF.header(trackCount: 3)
            + SMF.chunk("MTrk", keySignatureWithBadMode + SMF.noteOn() + SMF.endOfTrack + garbageAfterEnd)
            + SMF.chunk("XFIH", [1, 2, 3]) // an unknown chunk between tracks
            + SMF.chunk("MTrk", noEndOfTrack)
            + SMF.chunk("MTrk", SMF.noteOn(delta: 3) + SMF.noteOn(delta: 3) + SMF.noteOn(delta: 3), length: 1_000)
            .dropLast(2) // the last track claims 1000 bytes and is cut mid-event: what is there counts
        let file = try parse(Array(bytes))
        XCTAssertEqual(file.tracks.count, 3)
        XCTAssertEqual(file.tracks[0].map(\.kind), [.meta(type: 0x59), .channel(.noteOn(channel: 0, key: 60, velocity: 100)), .endOfTrack])
        XCTAssertEqual(file.tracks[1].map(\.tick), [7])
        XCTAssertEqual(file.tracks[2].map(\.tick), [3, 6])
        XCTAssertEqual(file.noteOnCount, 4)
    }

    func testRIFFWrappedFile() throws {
        let smf = SMF.file(format: 0, tracks: [SMF.noteOn(delta: 480) + SMF.endOfTrack])
        let file = try parse(SMF.riff(smf))
        XCTAssertEqual(file.format, 0)
        XCTAssertEqual(file.timedMessages().map(\.seconds), [0.5])

        // Offsets stay file offsets: the SMF starts 34 bytes in (RIFF and its form: 12, the padded
        // LIST chunk: 14, the data chunk header: 8).
        let broken = SMF.riff(SMF.file(tracks: [[0x00, 0x3C, 0x40]]))
        XCTAssertThrowsError(try MIDIFile.parse(broken, name: "x.rmi")) { error in
            XCTAssertEqual((error as! MIDIFileError).offset, 34 + SMF.firstEventOffset + 1)
        }
        XCTAssertThrowsError(try MIDIFile.parse(Array("RIFF".utf8) + [4, 0, 0, 0] + Array("WAVE".utf8), name: "x.rmi")) { error in
            XCTAssertEqual(error as? MIDIFileError, MIDIFileError(file: "x.rmi", offset: 8, reason: "RIFF form 'WAVE' is not 'RMID'"))
        }
    }

    // MARK: Malformed files

    func assertError(_ bytes: [UInt8], offset: Int, _ reason: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try MIDIFile.parse(bytes, name: "bad.mid"), file: file, line: line) { error in
            XCTAssertEqual(error as? MIDIFileError, MIDIFileError(file: "bad.mid", offset: offset, reason: reason), file: file, line: line)
        }
    }

    func testMalformedFilesReportExactOffsets() {
        let good = SMF.noteOn() + SMF.endOfTrack
        let header = SMF.header(trackCount: 1)
        assertError([], offset: 0, "header chunk 'MThd' expected, found end of file")
        assertError(Array("MThx".utf8) + header.dropFirst(4), offset: 0, "header chunk 'MThd' expected, found 'MThx'")
        assertError(Array(header.prefix(6)), offset: 6, "header chunk length runs past the end of the file")
        assertError(Array(header.prefix(7)) + [5] + header.dropFirst(8), offset: 4, "header chunk length 5 is less than 6")
        assertError(SMF.file(format: 3, tracks: [good]), offset: 8, "format 3 is not 0, 1 or 2")
        assertError(SMF.header(trackCount: 0), offset: 10, "the header declares no tracks")
        assertError(SMF.file(division: 0, tracks: [good]), offset: 12, "division is 0 ticks per quarter note")
        assertError(SMF.file(division: 0xE500, tracks: [good]), offset: 12, "SMPTE division with 27 frames per second (not 24, 25, 29 or 30)")
        assertError(SMF.file(division: 0xE700, tracks: [good]), offset: 13, "SMPTE division with 0 ticks per frame")
        assertError(SMF.header(trackCount: 1_000) + SMF.chunk("MTrk", good), offset: 10,
                    "1000 tracks cannot fit in the 16 bytes after the header")
        assertError(header + SMF.chunk("MTrk", [0x81]), offset: 23, "delta time runs past the end of the track chunk")
        assertError(header + SMF.chunk("MTrk", [0x00, 0x90, 0x3C]), offset: 25, "channel message 0x90 runs past the end of the track chunk")
        assertError(header + SMF.chunk("MTrk", [0x00, 0x3C, 0x40]), offset: 23, "data byte 0x3C with no running status")
        assertError(header + SMF.chunk("MTrk", [0x00, 0x90, 0x3C, 0x90]), offset: 25,
                    "status byte 0x90 where channel message 0x90 needs a data byte")
        assertError(header + SMF.chunk("MTrk", [0x00, 0xF4]), offset: 23, "status byte 0xF4 is not allowed in a MIDI file")
        assertError(header + SMF.chunk("MTrk", [0x00, 0xFF, 0x01, 0x05, 0x61]), offset: 27, "meta event runs past the end of the track chunk")
        assertError(header + SMF.chunk("MTrk", [0x00, 0xF0, 0x05, 0x61]), offset: 26, "SysEx event runs past the end of the track chunk")
        // A damaged track type is skipped as an unknown chunk, then blamed when tracks run out.
        assertError(header + SMF.chunk("XXXX", good), offset: 14, "track chunk 'MTrk' expected, found 'XXXX'")
        assertError(header + [0x4D, 0x00, 0xFF, 0x27, 0, 0, 0, 99], offset: 14, "track chunk 'MTrk' expected, found 'M\\x00\\xFF\\x27'")
    }

    func testErrorDescriptionAndMissingFile() {
        XCTAssertEqual(MIDIFileError(file: "song.mid", offset: 14, reason: "track chunk 'MTrk' expected, found 'XXXX'").description,
                       "song.mid: byte 14: track chunk 'MTrk' expected, found 'XXXX'")
        XCTAssertThrowsError(try MIDIFile.read(path: "/nonexistent/dir/song.mid")) { error in
            XCTAssertEqual(error as? MIDIFileError, MIDIFileError(file: "/nonexistent/dir/song.mid", reason: "no such file"))
            XCTAssertEqual("\(error)", "/nonexistent/dir/song.mid: no such file")
        }
        XCTAssertThrowsError(try MIDIFile.read(path: "/tmp")) { error in
            XCTAssertEqual("\(error)", "/tmp: is a directory, not a regular file")
        }
    }
}
