import DSP
import Engine
import Render
import XCTest

/// Loops read in the SIMD lanes (`LanePositions`): each lane steps back at its own loop end and
/// reads the windows that reach across it from a stitched copy of the loop's ends, so a short loop
/// sounds as the same frames unrolled into a long sample, on either kernel, with either
/// interpolation, and no frame of it falls to the scalar read. A loop too short for the reader (a
/// frame's step within two frames of its length) is read lane by lane and sounds the same.
final class LoopReadingTests: XCTestCase {
    static let rate = 48_000.0
    static let attackFrameCount = 300
    /// Frames after the loop end: loud, so that a window that read them instead of the loop's
    /// start would show.
    static let tailFrameCount = 8

    /// Deterministic noise in ±20,000: every window sees unrelated neighbours.
    static func noise(_ count: Int, seed: UInt32) -> [Int16] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return Int16(Int(state >> 16) % 40_001 - 20_000)
        }
    }

    /// An attack, a loop of `loopFrameCount` frames and a loud tail, as 16-bit words or as Floats;
    /// with `repeats` above 1 the loop's frames are written that many times and the loop is the
    /// last copy, which no note reaches in the test: the same sound with no loop end to cross.
    /// The attack ends on the loop's last frame: a window at the loop's start reads the frame
    /// before it, the attack's, on every pass (FluidSynth reads the loop's last there once the
    /// voice has looped), and the unrolled copies read the loop's last.
    static func bank(loopFrameCount: Int, repeats: Int, floats: Bool) -> SampleBank {
        let loop = noise(loopFrameCount, seed: 0x9E37_79B9)
        var frames = noise(attackFrameCount - 1, seed: 0x1234_5678) + [loop[loopFrameCount - 1]]
        for _ in 0..<repeats { frames += loop }
        frames += [Int16](repeating: 30_000, count: tailFrameCount)
        let guardFrames = SampleBank.guardFrameCount
        var region = SamplerRegion()
        region.start = guardFrames
        region.loopStart = guardFrames + attackFrameCount + (repeats - 1) * loopFrameCount
        region.loopEnd = region.loopStart + loopFrameCount
        region.end = region.loopEnd + tailFrameCount
        let padding = [Int16](repeating: 0, count: guardFrames)
        return bank(region, frames: padding + frames + padding, floats: floats)
    }

    /// A bank of one looping region over the whole keyboard, root key 60, playing `frames`.
    static func bank(_ region: SamplerRegion, frames: [Int16], floats: Bool) -> SampleBank {
        var region = region
        region.loopMode = .continuous
        region.sampleRate = rate
        region.rootKey = 60
        region.volumeEnvelope.release = 0.05
        let pool = floats ? SamplePool.copying(frames.map { Float($0) / 32_768 }) : SamplePool.copying(frames)
        return SampleBank(name: "loop", takingSamples: pool, regions: [region],
                          presets: [SampleBank.Preset(bank: 0, program: 0, firstRegion: 0, regionCount: 1)], presetNames: ["loop"])
    }

    /// Keys from an octave below the root to two and a half above (steps of 0.5 to 5.66 frames,
    /// most of them fractional): two groups of eight voices, each lane crossing its loop end at its
    /// own frames. Held, then released.
    static let keys: [UInt8] = Array(48..<60) + [67, 72, 79, 84, 88, 90]

    func render(_ bank: SampleBank, kernel: SamplerKernelVariant, cubic: Bool) -> (samples: [Float], stages: RenderStageTimes) {
        var configuration = RenderConfiguration(sampleRate: Self.rate, cubicInterpolation: cubic, outputLimiter: false,
                                                samplerKernel: kernel, effects: false, songGainDecibels: 0)
        configuration.profilesStages = true
        let engine = Engine(configuration: EngineConfiguration(render: configuration))
        XCTAssertTrue(engine.install(bank))
        for key in Self.keys { XCTAssertTrue(engine.send(midi: .noteOn(channel: 0, key: key, velocity: 100))) }
        var samples = engine.renderOffline(frameCount: 9_000)
        for key in Self.keys { XCTAssertTrue(engine.send(midi: .noteOff(channel: 0, key: key, velocity: 64))) }
        samples += engine.renderOffline(frameCount: 6_000)
        return (samples, engine.renderer.stageTimes)
    }

    /// The looped bank against the unrolled one, on each kernel this CPU runs, with both
    /// interpolations and both sample widths.
    func compare(loopFrameCount: Int, readInLanes: Bool) throws {
        let kernels = SamplerKernelVariant.supportedVariants
        for floats in [false, true] {
            let looped = Self.bank(loopFrameCount: loopFrameCount, repeats: 1, floats: floats)
            // Enough copies that the highest note, 5.66 frames a frame, never reaches the last.
            let unrolled = Self.bank(loopFrameCount: loopFrameCount, repeats: 90_000 / loopFrameCount, floats: floats)
            for kernel in kernels {
                for cubic in [true, false] {
                    let name = "\(kernel), cubic \(cubic), \(floats ? "Floats" : "words"), a loop of \(loopFrameCount)"
                    let wrapped = render(looped, kernel: kernel, cubic: cubic), straight = render(unrolled, kernel: kernel, cubic: cubic)
                    let peak = straight.samples.map(abs).max() ?? 0
                    XCTAssertGreaterThan(peak, 0.1, "\(name): the notes sound")
                    var worst: Float = 0
                    for (a, b) in zip(wrapped.samples, straight.samples) { worst = max(worst, abs(a - b)) }
                    // The positions differ only in the Double rounding of stepping back by the loop.
                    XCTAssertLessThan(worst, peak * 1e-5, "\(name): as the unrolled loop")
                    if readInLanes {
                        XCTAssertEqual(wrapped.stages[.readAtEnds], 0, "\(name): no frame read lane by lane")
                    } else {
                        XCTAssertGreaterThan(wrapped.stages[.readAtEnds], 0, "\(name): some frames read lane by lane")
                    }
                    XCTAssertGreaterThan(wrapped.stages[.read], 0)
                }
            }
        }
    }

    func testAShortLoopReadInTheLanesSoundsAsTheUnrolledLoop() throws {
        try compare(loopFrameCount: 64, readInLanes: true)
    }

    func testALoopTooShortForTheLanesIsReadLaneByLaneAndSoundsTheSame() throws {
        // Four frames: the notes above the octave step more than two a frame.
        try compare(loopFrameCount: 4, readInLanes: false)
    }

    func testAVoiceThatStartsLoopsPastItsLoopEndReadsOnlyTheLoop() throws {
        // A random start offset (SFZ's `offset_random`) up to eight loop lengths past the loop's
        // end, into a loud tail. Every frame before the tail holds one value, which interpolation
        // gives back exactly, so every voice sounds as with no offset as long as it reads nothing
        // but the loop once it starts past it.
        let loopFrameCount = 64, tail = 8 * loopFrameCount + Self.tailFrameCount
        let frames = [Int16](repeating: 10_000, count: SampleBank.guardFrameCount + Self.attackFrameCount + loopFrameCount)
            + [Int16](repeating: 30_000, count: tail) + [Int16](repeating: 0, count: SampleBank.guardFrameCount)
        var region = SamplerRegion()
        region.start = SampleBank.guardFrameCount
        region.loopStart = region.start + Self.attackFrameCount
        region.loopEnd = region.loopStart + loopFrameCount
        region.end = region.loopEnd + tail
        let plain = Self.bank(region, frames: frames, floats: false)
        region.randomOffsetFrames = Int32(Self.attackFrameCount + loopFrameCount + tail)
        let offset = Self.bank(region, frames: frames, floats: false)
        let kernels = SamplerKernelVariant.supportedVariants
        for kernel in kernels {
            for cubic in [true, false] {
                let reference = render(plain, kernel: kernel, cubic: cubic).samples
                XCTAssertGreaterThan(reference.map(abs).max() ?? 0, 0.1, "\(kernel), cubic \(cubic): the notes sound")
                XCTAssertEqual(render(offset, kernel: kernel, cubic: cubic).samples, reference, "\(kernel), cubic \(cubic)")
            }
        }
    }
}
