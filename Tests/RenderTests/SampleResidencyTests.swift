import Engine
import Foundation
import MIDI
import Render
import Synchronization
import TestSupport
import XCTest

/// A bank installed before its samples are all decoded: the audio thread reads only what its
/// sample's frontier says is written, never waits, and counts what it could not play.
final class SampleResidencyTests: XCTestCase {
    static let rate = SyntheticBank.rate

    /// An unlooped ramp of `frameCount` frames played by 0:0, its region naming sample 0 of a
    /// residency the caller moves.
    static func ramp(frameCount: Int) -> (bank: SampleBank, residency: SampleResidency, start: Int) {
        let guardFrames = SampleBank.guardFrameCount
        var pool = [Float](repeating: 0, count: guardFrames)
        let start = pool.count
        for frame in 0..<frameCount { pool.append(0.25 + 0.5 * Float(frame % 100) / 100) }
        pool += [Float](repeating: 0, count: guardFrames)
        var region = SamplerRegion()
        region.start = start
        region.end = start + frameCount
        region.loopStart = region.start
        region.loopEnd = region.end
        region.sampleStart = region.start
        region.sampleEnd = region.end
        region.sampleRate = rate
        region.rootKey = 60
        region.sampleIndex = 0
        region.volumeEnvelope.release = 0.01
        let residency = SampleResidency(sampleCount: 1)
        let regions = UnsafeMutableBufferPointer<SamplerRegion>.allocate(capacity: 1)
        _ = regions.initialize(from: [region])
        let bank = SampleBank(name: "ramp", takingSamples: SamplePool.copying(pool), takingRegions: regions,
                              presets: [SampleBank.Preset(bank: 0, program: 0, firstRegion: 0, regionCount: 1)], presetNames: ["Ramp"],
                              residency: residency)
        return (bank, residency, start)
    }

    /// An engine without effects (a reverb tail would ring past a voice's end).
    static func engine() -> Engine {
        var configuration = RenderConfiguration(sampleRate: rate, songGainDecibels: 0)
        configuration.effects = false
        return Engine(configuration: EngineConfiguration(render: configuration))
    }

    /// One note of key 60 (the ramp's own pitch) for `frames` frames, rendered in 64-frame blocks.
    static func play(_ bank: SampleBank, frames: Int) -> (samples: [Float], statistics: RenderStatistics) {
        let engine = engine()
        engine.install(bank)
        engine.send(midi: .noteOn(channel: 0, key: 60, velocity: 127))
        var left: [Float] = []
        var block = [Float](repeating: 0, count: 128)
        while left.count < frames {
            block.withUnsafeMutableBufferPointer { engine.renderer.render(into: $0.baseAddress!, frameCount: 64) }
            left += stride(from: 0, to: 128, by: 2).map { block[$0] }
        }
        return (left, engine.renderer.statistics)
    }

    /// Nothing written: the note starts no voice, counted, and the output is silence.
    func testANoteOnASampleWithNothingWrittenIsCountedAndSilent() {
        let (bank, _, _) = Self.ramp(frameCount: 20_000)
        let played = Self.play(bank, frames: 4_096)
        XCTAssertEqual(played.statistics.sampleUnderruns, 1)
        XCTAssertEqual(played.statistics.peakVoices, 0)
        XCTAssertTrue(played.samples.allSatisfy { $0 == 0 })
    }

    /// A head of 4,000 frames: the voice plays it exactly as with the whole sample in, then ends
    /// at the first block that would read past it, counted once, and reads nothing after.
    func testAVoiceOnAHeadPlaysItThenEndsWhereTheWrittenFramesEnd() {
        let whole = Self.ramp(frameCount: 20_000)
        whole.residency.markResident(0)
        let expected = Self.play(whole.bank, frames: 8_192)
        XCTAssertEqual(expected.statistics.sampleUnderruns, 0)

        let head = Self.ramp(frameCount: 20_000)
        head.residency.markWritten(0, below: head.start + 4_000)
        let got = Self.play(head.bank, frames: 8_192)
        XCTAssertEqual(got.statistics.sampleUnderruns, 1, "the voice starved once")
        // Blocks of 64 frames reading up to four frames ahead: the last whole block below 4,000.
        let lastBlockEnd = (4_000 - 4) / 64 * 64
        XCTAssertTrue(got.samples[..<lastBlockEnd].elementsEqual(expected.samples[..<lastBlockEnd]) { $0.bitPattern == $1.bitPattern },
                      "what was written plays as the whole sample does")
        XCTAssertTrue(got.samples[(lastBlockEnd + 64)...].allSatisfy { $0 == 0 }, "nothing after the starved block")
        XCTAssertGreaterThan(expected.samples[(lastBlockEnd + 64)...].map(abs).max() ?? 0, 0.1, "the whole sample sounds on there")
    }

    /// The rest written while the voice plays (as the background decoder does): it plays on, the
    /// same bits as with the whole sample in from the start.
    func testAVoiceWhoseRestArrivesInTimePlaysOnUnchanged() {
        let whole = Self.ramp(frameCount: 20_000)
        whole.residency.markResident(0)
        let expected = Self.play(whole.bank, frames: 8_192)

        let head = Self.ramp(frameCount: 20_000)
        head.residency.markWritten(0, below: head.start + 4_000)
        let engine = Self.engine()
        engine.install(head.bank)
        engine.send(midi: .noteOn(channel: 0, key: 60, velocity: 127))
        var left: [Float] = []
        var block = [Float](repeating: 0, count: 128)
        while left.count < 8_192 {
            if left.count == 2_048 { head.residency.markResident(0) }
            block.withUnsafeMutableBufferPointer { engine.renderer.render(into: $0.baseAddress!, frameCount: 64) }
            left += stride(from: 0, to: 128, by: 2).map { block[$0] }
        }
        XCTAssertEqual(engine.renderer.statistics.sampleUnderruns, 0)
        XCTAssertTrue(left.elementsEqual(expected.samples) { $0.bitPattern == $1.bitPattern })
    }

    /// A note on a head asks for the rest of its sample: one request, however many notes ask,
    /// taken once.
    func testANoteOnAHeadAsksForTheRestOnce() {
        let head = Self.ramp(frameCount: 20_000)
        head.residency.markWritten(0, below: head.start + 4_000)
        XCTAssertNil(head.residency.takeRequest())
        _ = Self.play(head.bank, frames: 256)
        XCTAssertEqual(head.residency.takeRequest(), 0)
        XCTAssertNil(head.residency.takeRequest(), "taken once")
    }
}
