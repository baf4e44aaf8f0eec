import DSP
import Engine
import Render
import XCTest

/// A bank's samples are kept at their stored width (`SampleEncoding`) and converted as the sampler
/// reads them: 16-bit words must sound exactly as the same values held as Floats.
final class SamplePoolTests: XCTestCase {
    static let rate = 48_000.0
    static let frameCount = 3_000

    /// Deterministic noise in ±20,000: every interpolation step sees unrelated neighbours, so a
    /// wrong conversion, scale or stride anywhere shows.
    static let words: [Int16] = {
        var state: UInt32 = 0x1234_5678
        return (0..<frameCount).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return Int16(Int(state >> 16) % 40_001 - 20_000)
        }
    }()

    /// One looping region over the whole keyboard playing `pool` (the frames above between guard
    /// frames), root key 60.
    static func bank(_ pool: SamplePool, name: String) -> SampleBank {
        let guardFrames = SampleBank.guardFrameCount
        var region = SamplerRegion()
        region.start = guardFrames
        region.end = guardFrames + frameCount
        region.loopStart = guardFrames + 500
        region.loopEnd = guardFrames + 2_500
        region.loopMode = .continuous
        region.sampleRate = rate
        region.rootKey = 60
        region.volumeEnvelope.release = 0.05
        return SampleBank(name: name, takingSamples: pool, regions: [region],
                          presets: [SampleBank.Preset(bank: 0, program: 0, firstRegion: 0, regionCount: 1)], presetNames: [name])
    }

    static func padded<Value: Numeric>(_ values: [Value]) -> [Value] {
        let guardFrames = [Value](repeating: 0, count: SampleBank.guardFrameCount)
        return guardFrames + values + guardFrames
    }

    static var wordBank: SampleBank { bank(SamplePool.copying(padded(words)), name: "words") }
    static var floatBank: SampleBank { bank(SamplePool.copying(padded(words.map { Float($0) / 32_768 })), name: "floats") }

    func engine(kernel: SamplerKernelVariant, cubic: Bool) -> Engine {
        Engine(configuration: EngineConfiguration(render: RenderConfiguration(
            sampleRate: Self.rate, cubicInterpolation: cubic, outputLimiter: false, samplerKernel: kernel,
            effects: false, songGainDecibels: 0)))
    }

    /// Twelve notes a few semitones apart (twelve voices: a full group of eight and a partial one,
    /// each stepping through the sample at its own fractional rate), held, then released.
    func play(_ engine: Engine) -> [Float] {
        for key in 48..<60 { XCTAssertTrue(engine.send(midi: .noteOn(channel: 0, key: UInt8(key), velocity: 100))) }
        var output = engine.renderOffline(frameCount: 9_000)
        for key in 48..<60 { XCTAssertTrue(engine.send(midi: .noteOff(channel: 0, key: UInt8(key), velocity: 64))) }
        output += engine.renderOffline(frameCount: 6_000)
        return output
    }

    func testSixteenBitSamplesSoundAsTheSameValuesHeldAsFloats() throws {
        XCTAssertEqual(Self.wordBank.samples.encoding, .int16)
        XCTAssertEqual(Self.wordBank.sampleByteCount, 2 * (Self.frameCount + 2 * SampleBank.guardFrameCount), "two bytes a frame")
        XCTAssertEqual(Self.floatBank.samples.encoding, .float32)
        let kernels = SamplerKernelVariant.supportedVariants
        for kernel in kernels {
            for cubic in [true, false] {
                let words = engine(kernel: kernel, cubic: cubic)
                XCTAssertTrue(words.install(Self.wordBank))
                let floats = engine(kernel: kernel, cubic: cubic)
                XCTAssertTrue(floats.install(Self.floatBank))
                let fromWords = play(words), fromFloats = play(floats)
                XCTAssertGreaterThan(fromFloats.map(abs).max() ?? 0, 0.1, "\(kernel), cubic \(cubic): the notes sound")
                // Scaling by 2^-15 is exact, so converting the interpolated frame gives the bits of
                // interpolating converted frames.
                XCTAssertEqual(fromWords, fromFloats, "\(kernel), cubic \(cubic): bit for bit")
            }
        }
    }

    func testAGroupHoldingVoicesOfBothWidthsPlaysEachAsItWouldAlone() throws {
        // Six notes of the 16-bit bank, then a switch to the Float bank and six notes of it while
        // the first six ring on: the first group of eight voices holds both widths.
        func notes(_ engine: Engine, _ keys: Range<Int>) {
            for key in keys { XCTAssertTrue(engine.send(midi: .noteOn(channel: 0, key: UInt8(key), velocity: 100))) }
        }
        let inverted = Self.bank(SamplePool.copying(Self.padded(Self.words.map { -Float($0) / 65_536 })), name: "inverted")
        let mixed = engine(kernel: .fastestSupported, cubic: true)
        XCTAssertTrue(mixed.install(Self.wordBank))
        notes(mixed, 48..<54)
        var together = mixed.renderOffline(frameCount: 1_000)
        XCTAssertTrue(mixed.install(inverted))
        notes(mixed, 54..<60)
        together += mixed.renderOffline(frameCount: 8_000)

        let wordsAlone = engine(kernel: .fastestSupported, cubic: true)
        XCTAssertTrue(wordsAlone.install(Self.wordBank))
        notes(wordsAlone, 48..<54)
        let first = wordsAlone.renderOffline(frameCount: 9_000)
        let floatsAlone = engine(kernel: .fastestSupported, cubic: true)
        XCTAssertTrue(floatsAlone.install(inverted))
        var second = floatsAlone.renderOffline(frameCount: 1_000)
        notes(floatsAlone, 54..<60)
        second += floatsAlone.renderOffline(frameCount: 8_000)

        XCTAssertEqual(together.count, first.count)
        var worst: Float = 0, peak: Float = 0
        for index in together.indices {
            worst = max(worst, abs(together[index] - (first[index] + second[index])))
            peak = max(peak, abs(second[index]))
        }
        XCTAssertGreaterThan(peak, 0.05, "the Float bank's notes sound")
        // The same frames summed in another order: a few float ulps apart, no more.
        XCTAssertLessThan(worst, 1e-5, "each voice reads its own pool at its own width")
    }
}
