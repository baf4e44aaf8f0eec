import DeviceCore
import Engine
import MIDI
import Render
import TestSupport
import XCTest

/// The embedding API (`Synth`, what `staccato_synth` is): MIDI sent with frame offsets between
/// host calls of any size renders the same samples as the same song rendered offline.
final class SynthTests: XCTestCase {
    private let rate = 48_000.0

    /// A held C major chord, as a song: 480 ticks a quarter at 120 bpm, so its note-offs are at 1 s.
    private var chord: MIDIFile {
        let keys: [UInt8] = [60, 64, 67]
        return MIDIFile(format: 0, division: .ticksPerQuarter(480), tracks: [
            keys.map { TrackEvent(tick: 0, kind: .channel(.noteOn(channel: 0, key: $0, velocity: 100))) }
                + keys.map { TrackEvent(tick: 960, kind: .channel(.noteOff(channel: 0, key: $0, velocity: 0))) }
                + [TrackEvent(tick: 960, kind: .endOfTrack)],
        ])
    }

    /// Plays `chord` through a synth in host calls of `blockFrameCount` frames, sending each
    /// note-off with its offset in the block that holds it, for `frameCount` frames.
    private func playChord(blockFrameCount: Int, frameCount: Int) throws -> [Float] {
        let synth = try Synth(sampleRate: rate, maxBlockFrameCount: blockFrameCount)
        try synth.load(path: CommandRunner.shippedSoundFont)
        let keys: [UInt8] = [60, 64, 67]
        for key in keys { try synth.send(.noteOn(channel: 0, key: key, velocity: 100)) }
        var left = [Float](repeating: .nan, count: frameCount), right = left
        let noteOff = Int(rate)
        var start = 0
        while start < frameCount {
            let count = min(blockFrameCount, frameCount - start)
            if (start..<start + count).contains(noteOff) {
                for key in keys { try synth.send(.noteOff(channel: 0, key: key, velocity: 0), frameOffset: noteOff - start) }
            }
            left.withUnsafeMutableBufferPointer { left in
                right.withUnsafeMutableBufferPointer { right in
                    synth.cycle.render(left: left.baseAddress! + start, right: right.baseAddress! + start, frameCount: count)
                }
            }
            start += count
        }
        return zip(left, right).flatMap { [$0, $1] }
    }

    func testAChordPlayedLiveEqualsTheSongRenderedOffline() throws {
        let bank = try InstrumentLoader.load(path: CommandRunner.shippedSoundFont, sampleRate: rate)
        let renderer = SongRenderer(configuration: RenderConfiguration(sampleRate: rate), options: MIDIRenderOptions(), bank: bank,
                                    kitPath: nil, kits: DrumKitShelf(sampleRate: rate), warning: { _ in })
        let offline = try renderer.render(chord, from: "chord.mid").samples
        XCTAssertGreaterThan(offline.count, Int(rate) * 2, "the release rings past the note-offs")
        for block in [512, 1_000, 4_096, 8_192] {
            let live = try playChord(blockFrameCount: block, frameCount: offline.count / 2 + 4_800)
            XCTAssertEqual(Array(live[..<offline.count]), offline, "blocks of \(block)")
            XCTAssertTrue(live[offline.count...].allSatisfy { abs($0) < MIDIRenderOptions.tailFloor }, "silence after the song's end")
        }
    }

    func testBadBytesAndRatesAreRefusedWithALine() throws {
        XCTAssertThrowsError(try Synth(sampleRate: 1_000, maxBlockFrameCount: 512)) { error in
            XCTAssertEqual("\(error)", "sample rate 1000.0: must be from 8000 to 384000 Hz")
        }
        let synth = try Synth(sampleRate: rate, maxBlockFrameCount: 512)
        let bytes: [UInt8] = [0x90, 0x80, 0x10]
        XCTAssertThrowsError(try bytes.withUnsafeBufferPointer { try synth.midi($0) }) { error in
            XCTAssertEqual("\(error)", "MIDI bytes [90 80 10]: not a channel message or a known SysEx")
        }
        XCTAssertThrowsError(try synth.load(path: "/nonexistent.sf2")) { error in
            XCTAssertEqual("\(error)", "/nonexistent.sf2: no such file or folder")
        }
        XCTAssertNil(synth.instrument, "a failed load leaves the synth as it was")
    }
}
