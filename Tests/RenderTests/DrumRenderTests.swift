import DSP
import Engine
import Foundation
import Render
import TestSupport
import XCTest

/// The drum player on synthetic kits: round-robin voices, recycling with a fade, choke groups,
/// velocity and sample-accurate hits.
final class DrumRenderTests: XCTestCase {
    static let rate = 48_000.0

    /// A decaying noise burst (a synthetic snare): deterministic, full-band, no silence at the start.
    static func burst(frames: Int, seed: UInt64) -> [Float] {
        var generator = SeededGenerator(state: seed)
        return (0..<frames).map { frame in
            let noise = Float(Double(generator.next() >> 11) / Double(1 << 53) * 2 - 1)
            return noise * 0.5 * Float(exp(-Double(frame) / (0.08 * rate)))
        }
    }

    /// A kit with pads on notes 38 (snare), 42 and 46 (hi-hats, one choke group).
    static func kit(voices: Int = 4) -> (kit: DrumKit, snare: [Float]) {
        let snare = burst(frames: 24_000, seed: 1)
        let hat = burst(frames: 12_000, seed: 2)
        let open = burst(frames: 36_000, seed: 3)
        var pool: [Float] = []
        var pads: [DrumKit.Pad] = []
        for (sample, group) in [(snare, UInt16(0)), (hat, 1), (open, 1)] {
            let start = pool.count / 2
            for value in sample { pool += [value, value * 0.5] }  // stereo: right at half level
            pool += [Float](repeating: 0, count: 2 * DrumKit.guardFrameCount)
            pads.append(DrumKit.Pad(start: start, frameCount: sample.count, gain: 1, voiceCount: voices, chokeGroup: group))
        }
        return (DrumKit(name: "test", samples: pool, pads: pads, notes: [38, 42, 46], padNames: ["snare", "hat", "open"]), snare)
    }

    func engine(with kit: DrumKit) -> Engine {
        let engine = Engine(configuration: EngineConfiguration(render: RenderConfiguration(sampleRate: Self.rate, outputLimiter: false, songGainDecibels: 0)))
        XCTAssertTrue(engine.install(kit))
        return engine
    }

    func left(_ engine: Engine, frames: Int) -> [Float] {
        SignalAnalysis.channel(0, of: engine.renderOffline(frameCount: frames), channelCount: 2)
    }

    static func correlation(_ a: [Float], _ b: [Float]) -> Double {
        let count = min(a.count, b.count)
        var dot = 0.0, aa = 0.0, bb = 0.0
        for index in 0..<count {
            dot += Double(a[index]) * Double(b[index])
            aa += Double(a[index]) * Double(a[index])
            bb += Double(b[index]) * Double(b[index])
        }
        return dot / (aa * bb).squareRoot()
    }

    /// A kit is a description; each engine plays it through a playback of its own. Two engines
    /// playing one kit at once, with different hits, each render what they would alone.
    func testOneKitPlaysInTwoEnginesAtOnce() {
        let (kit, _) = Self.kit(voices: 2)
        func hits(_ engine: Engine, offset: Int) {
            for hit in 0..<5 { engine.send(midi: .noteOn(channel: 9, key: 38, velocity: 90), at: FrameTime(offset + hit * 700)) }
        }
        let first = engine(with: kit), second = engine(with: kit)
        hits(first, offset: 100)
        hits(second, offset: 333)
        // Rendered in turns, a block each, so both engines' voices ring at the same time.
        var together: ([Float], [Float]) = ([], [])
        for _ in 0..<100 {
            together.0 += first.renderOffline(frameCount: 100)
            together.1 += second.renderOffline(frameCount: 100)
        }
        let alone = engine(with: kit), alsoAlone = engine(with: kit)
        hits(alone, offset: 100)
        hits(alsoAlone, offset: 333)
        XCTAssertEqual(together.0, alone.renderOffline(frameCount: 10_000))
        XCTAssertEqual(together.1, alsoAlone.renderOffline(frameCount: 10_000))
        XCTAssertEqual(first.renderer.statistics.drumRecycles, 3, "each engine recycles its own two voices")
        XCTAssertEqual(second.renderer.statistics.drumRecycles, 3)
    }

    func testFourQuickHitsAreFourShiftedCopies() {
        let (kit, snare) = Self.kit()
        let engine = engine(with: kit)
        let spacing = Int(0.020 * Self.rate)
        for hit in 0..<4 { engine.send(midi: .noteOn(channel: 9, key: 38, velocity: 127), at: FrameTime(100 + hit * spacing)) }
        let rendered = left(engine, frames: 30_000)
        var reference = [Float](repeating: 0, count: 30_000)
        for hit in 0..<4 {
            for (index, value) in snare.enumerated() where 100 + hit * spacing + index < reference.count {
                reference[100 + hit * spacing + index] += value
            }
        }
        XCTAssertGreaterThan(Self.correlation(rendered, reference), 0.999)
        XCTAssertEqual(engine.renderer.statistics.drumHits, 4)
        XCTAssertEqual(engine.renderer.statistics.drumRecycles, 0)
    }

    func testFifthOverlappingHitRecyclesOnlyTheOldestWithoutAClick() {
        let (kit, snare) = Self.kit()
        let engine = engine(with: kit)
        let spacing = 960  // 20 ms: all five overlap (the sample lasts 500 ms)
        for hit in 0..<5 { engine.send(midi: .noteOn(channel: 9, key: 38, velocity: 127), at: FrameTime(hit * spacing)) }
        let rendered = left(engine, frames: 30_000)
        XCTAssertEqual(engine.renderer.statistics.drumRecycles, 1, "only the fifth hit recycles")
        // The channel's volume (CC7 at its default) scales every copy alike: the first hit alone
        // gives it.
        let channelGain = rendered[100] / snare[100]
        // Hits 2–5 ring untouched: after the 5 ms fade, the output is exactly those four copies.
        let fadeEnd = 4 * spacing + 240
        for frame in stride(from: fadeEnd + 10, to: 24_000, by: 97) {
            var expected: Float = 0
            for hit in 1..<5 where frame - hit * spacing < snare.count { expected += snare[frame - hit * spacing] * channelGain }
            XCTAssertEqual(rendered[frame], expected, accuracy: 1e-5, "frame \(frame)")
        }
        // The recycle fades: no step at the recycle point beyond what the sample itself makes.
        let ownLargestStep = SignalAnalysis.largestStep(snare[...]) * 4
        XCTAssertLessThanOrEqual(SignalAnalysis.largestStep(rendered[(4 * spacing - 2)...(4 * spacing + 250)]), ownLargestStep)
    }

    func testClosedHiHatChokesTheOpenOneWithAFade() {
        let (kit, _) = Self.kit()
        let engine = engine(with: kit)
        engine.send(midi: .noteOn(channel: 9, key: 46, velocity: 127), at: 0)
        engine.send(midi: .noteOn(channel: 9, key: 42, velocity: 1), at: 4_800)  // nearly silent closed hat
        let rendered = left(engine, frames: 12_000)
        XCTAssertEqual(engine.renderer.statistics.drumChokes, 1)
        XCTAssertGreaterThan(SignalAnalysis.rms(rendered[4_700..<4_800]), 0.05, "open hat rings before the choke")
        XCTAssertLessThan(SignalAnalysis.largestAbs(rendered[5_100..<6_000]), 0.001, "silent 5 ms after the choke")
        let before = SignalAnalysis.largestStep(rendered[4_000..<4_800])
        XCTAssertLessThanOrEqual(SignalAnalysis.largestStep(rendered[4_800..<5_100]), before, "the choke fades, not cuts")
    }

    func testVelocityCurveAndSampleAccurateHits() {
        let (kit, snare) = Self.kit()
        var channelGain: Float = 0
        for (velocity, onset) in [(127, 0), (64, 37), (32, 101)] {
            let engine = engine(with: kit)
            engine.send(midi: .noteOn(channel: 9, key: 38, velocity: UInt8(velocity)), at: FrameTime(onset))
            let rendered = left(engine, frames: 2_000)
            XCTAssertEqual(rendered.firstIndex { $0 != 0 }, onset + (snare.firstIndex { $0 != 0 } ?? 0), "velocity \(velocity)")
            // The channel's volume at General MIDI's default (CC7 100) scales every hit alike.
            if velocity == 127 { channelGain = rendered[onset + 500] / snare[500] }
            let expectedGain = pow(Float(velocity) / 127, 2) * channelGain
            XCTAssertEqual(rendered[onset + 500], snare[500] * expectedGain, accuracy: 1e-6)
        }
        XCTAssertEqual(20 * log10(Double(channelGain)), 40 * log10(100.0 / 127), accuracy: 0.2, "CC7 100, as SF2's concave curve gives it")
    }

    /// Channel 10's volume and expression (CC7, CC11) scale the hits as they scale a font's drums,
    /// ringing hits too, ramping over 64 frames rather than stepping.
    func testChannelVolumeAndExpressionScaleTheHitsWithoutAClick() {
        let (kit, _) = Self.kit()
        func level(_ messages: [(FrameTime, MIDIMessage)]) -> [Float] {
            let engine = engine(with: kit)
            for (frame, message) in messages { engine.send(midi: message, at: frame) }
            engine.send(midi: .noteOn(channel: 9, key: 38, velocity: 127), at: 100)
            return left(engine, frames: 8_000)
        }
        let full = level([(0, .controlChange(channel: 9, controller: 7, value: 127))])
        let halfVolume = level([(0, .controlChange(channel: 9, controller: 7, value: 64))])
        let quieter = level([(0, .controlChange(channel: 9, controller: 7, value: 127)), (0, .controlChange(channel: 9, controller: 11, value: 64))])
        let ratio = { (a: [Float], b: [Float]) in 20 * log10(Double(SignalAnalysis.rms(a[600 ..< 2_000]) / SignalAnalysis.rms(b[600 ..< 2_000]))) }
        XCTAssertEqual(ratio(halfVolume, full), 40 * log10(64.0 / 127), accuracy: 0.3, "CC7 64")
        XCTAssertEqual(ratio(quieter, full), 40 * log10(64.0 / 127), accuracy: 0.3, "CC11 64")
        // Volume down to 64 while the snare rings, at frame 3000: before it the full level, after
        // the ramp the lower one, and no step larger than the snare's own.
        let moved = level([(0, .controlChange(channel: 9, controller: 7, value: 127)), (3_000, .controlChange(channel: 9, controller: 7, value: 64))])
        XCTAssertEqual(Array(moved[0 ..< 3_000]), Array(full[0 ..< 3_000]))
        let after = moved[3_064 ..< 6_000].enumerated().map { Double($0.element / full[3_064 + $0.offset]) }.filter { $0.isFinite }
        XCTAssertEqual(after.min() ?? 0, after.max() ?? 1, accuracy: 1e-3, "a constant gain after the ramp")
        XCTAssertEqual(20 * log10(after[0]), 40 * log10(64.0 / 127), accuracy: 0.3)
        XCTAssertLessThan(SignalAnalysis.largestStep(moved[2_990 ..< 3_080]), SignalAnalysis.largestStep(full[2_990 ..< 3_080]) * 1.01 + 1e-6)
    }

    func testWithoutAKitChannelTenGoesToTheSamplerAndUnknownNotesAreCounted() {
        let (kit, _) = Self.kit()
        let engine = engine(with: kit)
        engine.send(midi: .noteOn(channel: 9, key: 60, velocity: 100))  // no pad
        engine.send(midi: .noteOn(channel: 0, key: 38, velocity: 100))  // melodic channel: not the kit
        _ = left(engine, frames: 1_000)
        XCTAssertEqual(engine.renderer.statistics.unmappedHits, 1)
        XCTAssertEqual(engine.renderer.statistics.drumHits, 0)
    }

    func testSwappedKitIsFreedOnTheControlThreadOnceSilent() {
        final class Watch { weak var kit: DrumKit? }
        let watch = Watch()
        let engine: Engine
        do {
            let first = Self.kit().kit
            watch.kit = first
            engine = self.engine(with: first)
        }
        engine.send(midi: .noteOn(channel: 9, key: 38, velocity: 127))
        _ = left(engine, frames: 4_800)
        XCTAssertTrue(engine.install(Self.kit().kit))
        _ = left(engine, frames: 4_800)
        XCTAssertNotNil(watch.kit, "still ringing out")
        _ = left(engine, frames: 48_000)
        XCTAssertNil(watch.kit, "freed once its last hit ended")
    }

    /// A kit's voices are work items beside the sampler's (`DrumWorkItems`): the workers share a
    /// roll of hits, and the output is the same bits on one thread or many, in any block size, a
    /// choke and a channel volume ramp included, and a kit swap: the old kit rings out under the
    /// new one's roll and is freed at the end of whichever block finds it silent.
    func testAKitRendersBitForBitTheSameOnOneToEightThreadsWhileTheWorkersShareIt() {
        // A roll dense enough that about 90 voices ring: work enough to be worth sharing.
        let (kit, _) = Self.kit(voices: 64)
        func render(threads: Int, blockFrameCount: Int) -> (samples: [Float], workerItems: Int) {
            var configuration = RenderConfiguration(sampleRate: Self.rate, outputLimiter: false, songGainDecibels: 0)
            configuration.threadCount = threads
            let engine = Engine(configuration: EngineConfiguration(render: configuration))
            XCTAssertTrue(engine.install(kit))
            for hit in 0..<600 {
                // Snare and open hat in turn; every 40th hit a closed hat chokes the open ones.
                let key: UInt8 = hit % 40 == 39 ? 42 : hit % 2 == 0 ? 38 : 46
                engine.send(midi: .noteOn(channel: 9, key: key, velocity: UInt8(40 + hit % 80)), at: FrameTime(37 + hit * 157))
            }
            engine.send(midi: .controlChange(channel: 9, controller: 7, value: 60), at: 20_011)
            engine.send(midi: .controlChange(channel: 9, controller: 11, value: 90), at: 31_500)
            var samples: [Float] = []
            let total = 120_000
            // The kit is swapped at frame 24,000 whatever the block size: a block ends there.
            let swapFrame = 24_000
            while samples.count < 2 * total {
                let done = samples.count / 2
                let frames = min(blockFrameCount, total - done, done < swapFrame ? swapFrame - done : total)
                samples += engine.renderOffline(frameCount: frames, blockFrameCount: blockFrameCount)
                if done + frames == swapFrame { XCTAssertTrue(engine.install(Self.kit(voices: 12).kit)) }
            }
            return (samples, engine.renderer.voiceItemsRenderedByWorkers)
        }
        let reference = render(threads: 1, blockFrameCount: 1_024)
        XCTAssertGreaterThan(reference.samples.map(abs).max() ?? 0, 0.1, "the roll sounds")
        var workerItems = 0
        for (threads, blockFrameCount) in [(2, 64), (2, 1_024), (3, 333), (8, 4_096)] {
            let other = render(threads: threads, blockFrameCount: blockFrameCount)
            let firstDifference = other.samples.indices.first { other.samples[$0].bitPattern != reference.samples[$0].bitPattern }
            XCTAssertNil(firstDifference.map { $0 / 2 }, "\(threads) threads in blocks of \(blockFrameCount): first frame that differs from one thread")
            workerItems += other.workerItems
            print("drums on \(threads) threads in blocks of \(blockFrameCount): bit-identical; \(other.workerItems) items rendered by workers")
        }
        // Whether a worker is awake for a given segment is the host's affair (a busy host leaves the
        // audio thread to claim nearly every item itself): the roll is rendered again on 2 threads,
        // up to 8 more times, until the workers have taken a share, and must still be the same bits.
        var extraRenders = 0
        while workerItems == 0 && extraRenders < 8 {
            let again = render(threads: 2, blockFrameCount: 1_024)
            XCTAssertEqual(again.samples, reference.samples, "2 threads again: the same samples")
            workerItems += again.workerItems
            extraRenders += 1
        }
        XCTAssertGreaterThan(workerItems, 0, "the workers rendered drum items (after \(extraRenders) more renders)")
    }
}
