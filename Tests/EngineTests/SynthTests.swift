import CAllocationCounter
import DeviceCore
import Engine
import Foundation
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

    /// A host's render calls (what `staccato_synth_render` runs), in block sizes a host might use,
    /// make no heap call while the control thread sends notes, controllers and a new instrument.
    func testTheHostsRenderCallMakesNoHeapCalls() throws {
        try XCTSkipIf(staccato_allocation_counting_available() == 0, "allocation counting is off under sanitizers")
        let synth = try Synth(sampleRate: rate, maxBlockFrameCount: 256)
        try synth.load(path: CommandRunner.shippedSoundFont)
        let bank = try XCTUnwrap(synth.instrument?.bank)
        let cycle = synth.cycle
        let counts = HeapCallCounts()
        let warmedUp = DispatchSemaphore(value: 0), finished = DispatchSemaphore(value: 0)
        let blockCount = 3_000
        Thread {
            let left = UnsafeMutablePointer<Float>.allocate(capacity: 1_000), right = UnsafeMutablePointer<Float>.allocate(capacity: 1_000)
            // A host's sizes: its period, an odd one, and more than the synth's block (split).
            let sizes = [256, 100, 1_000]
            for _ in 0..<50 { cycle.render(left: left, right: right, frameCount: 256) }
            warmedUp.signal()
            staccato_allocation_counting_begin_every_thread()
            for block in 0..<blockCount {
                cycle.render(left: left, right: right, frameCount: sizes[block % 3])
                usleep(100)
            }
            staccato_allocation_counting_end()
            counts.allocations = staccato_allocation_count()
            counts.frees = staccato_free_count()
            left.deallocate()
            right.deallocate()
            finished.signal()
        }.start()
        warmedUp.wait()
        staccato_allocation_counting_ignore_this_thread(1)
        defer { staccato_allocation_counting_ignore_this_thread(0) }
        var sent = 0
        while finished.wait(timeout: .now()) == .timedOut {
            let key = UInt8(40 + sent % 40)
            try? synth.send(.noteOn(channel: UInt8(sent % 2 == 0 ? 0 : 9), key: key, velocity: 100), frameOffset: sent % 256)
            try? synth.send(.noteOff(channel: 0, key: UInt8(40 + (sent + 20) % 40), velocity: 0), frameOffset: 17)
            try? synth.send(.controlChange(channel: 0, controller: 1, value: UInt8(sent % 128)))
            if sent % 400 == 0 { synth.use(bank, from: CommandRunner.shippedSoundFont) }
            synth.volume = Float(sent % 10) / 10
            sent += 1
            usleep(200)
        }
        synth.processEvents()
        XCTAssertGreaterThan(sent, 100, "the control thread kept the render calls busy")
        XCTAssertEqual(counts.allocations, 0, "heap allocations in the host's render calls")
        XCTAssertEqual(counts.frees, 0, "heap frees in the host's render calls")
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
        // With an instrument playing, a failed load leaves it playing.
        try synth.load(path: CommandRunner.shippedSoundFont)
        try synth.send(.noteOn(channel: 0, key: 60, velocity: 100))
        XCTAssertThrowsError(try synth.load(path: "/nonexistent.sf2"))
        XCTAssertEqual(synth.instrument?.path, CommandRunner.shippedSoundFont)
        var left = [Float](repeating: 0, count: 4_096), right = left
        left.withUnsafeMutableBufferPointer { left in
            right.withUnsafeMutableBufferPointer { right in synth.cycle.render(left: left.baseAddress!, right: right.baseAddress!, frameCount: 4_096) }
        }
        XCTAssertGreaterThan(left.map(abs).max() ?? 0, 0.01, "the note sounds on the old instrument")
    }
}
