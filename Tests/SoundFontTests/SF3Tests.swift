import AudioFile
import Engine
import Foundation
import Render
import SoundFont
import TestSupport
import XCTest

/// SoundFont 3: SF2 whose samples may be Ogg Vorbis streams (sample type bit 0x10), addressed by
/// byte offsets into smpl, with loop points in decoded frames from the sample's start. The fonts
/// here are written by `SF2Builder`, their Vorbis data encoded by libsndfile.
final class SF3Tests: XCTestCase {
    typealias Op = SF2Builder.Op
    static let sineFrequency = 441.0
    static let sampleRate: UInt32 = 44_100
    /// 100 frames per cycle: a loop of whole cycles joins without a step.
    static let sineLoop = (start: 2_200, end: 19_800)

    /// Half a second of a 441 Hz sine at 44.1 kHz, root key 69, looped over whole cycles.
    static func sineSample(name: String = "Sine") -> SF2Builder.Sample {
        let frames = (0..<22_050).map { Int16((sin(2 * Double.pi * sineFrequency * Double($0) / Double(sampleRate)) * 16_000).rounded()) }
        return SF2Builder.Sample(name: name, frames: frames, loopStart: sineLoop.start, loopEnd: sineLoop.end,
                                 sampleRate: sampleRate, originalPitch: 69)
    }

    /// A version 3.01 font playing `samples` (one instrument zone each, split over the keyboard
    /// in halves when there are two), every zone looping.
    static func font(_ samples: [SF2Builder.Sample]) -> SF2Builder {
        var builder = SF2Builder()
        builder.version = (3, 1)
        builder.samples = samples
        let ranges: [(UInt8, UInt8)] = samples.count == 1 ? [(0, 127)] : [(0, 63), (64, 127)]
        builder.instruments = [SF2Builder.Instrument(name: "Instrument", zones: samples.indices.map {
            [SF2Builder.range(Op.keyRange, ranges[$0].0, ranges[$0].1), SF2Builder.gen(Op.sampleModes, 1), SF2Builder.gen(Op.sampleID, $0)]
        })]
        builder.presets = [SF2Builder.Preset(name: "Preset", zones: [[SF2Builder.gen(Op.instrument, 0)]])]
        return builder
    }

    func testCompressedSampleDecodesWithItsLoopPointsAndPlaysItsPitchWithoutAStep() throws {
        let bank = try SoundFontLoader.load(bytes: Self.font([try SF2Builder.compressed(Self.sineSample())]).build(),
                                            name: "sine.sf3", sampleRate: 48_000)
        let region = try XCTUnwrap(bank.regions.first)
        XCTAssertEqual(region.end - region.start, 22_050, "every encoded frame decodes")
        XCTAssertEqual(region.loopStart - region.start, Self.sineLoop.start)
        XCTAssertEqual(region.loopEnd - region.start, Self.sineLoop.end)
        XCTAssertEqual(region.loopMode, .continuous)
        XCTAssertEqual(region.sampleRate, 44_100)
        let decoded = ArraySlice(bank.samples[region.start..<region.end])
        XCTAssertEqual(Double(SignalAnalysis.largestAbs(decoded)), 16_000.0 / 32_768, accuracy: 0.02, "Vorbis keeps the level")

        // Key 69 held for two seconds: four times the sample's length, so the loop carries it.
        let rate = 48_000.0
        let engine = Engine(configuration: EngineConfiguration(render: RenderConfiguration(sampleRate: rate, songGainDecibels: 0)))
        engine.install(bank)
        XCTAssertTrue(engine.send(midi: .noteOn(channel: 0, key: 69, velocity: 127)))
        let left = SignalAnalysis.channel(0, of: engine.renderOffline(frameCount: Int(2 * rate)), channelCount: 2)
        let held = left[Int(0.3 * rate)..<Int(1.95 * rate)]
        let frequency = try XCTUnwrap(SignalAnalysis.frequency(of: held, sampleRate: rate))
        XCTAssertEqual(frequency, Self.sineFrequency, accuracy: 0.2, "the root key plays the recorded pitch")
        let late = left[Int(1.5 * rate)..<Int(1.95 * rate)]
        XCTAssertGreaterThan(SignalAnalysis.rms(late), 0.5 * SignalAnalysis.rms(left[Int(0.3 * rate)..<Int(0.45 * rate)]),
                             "still sounding long after the sample's end: the loop plays")
        // A sine's largest step between frames is 2π f / rate times its peak; a seam in the loop
        // would step far past that.
        let peak = SignalAnalysis.largestAbs(held)
        let sineStep = Float(2 * Double.pi * Self.sineFrequency / rate) * peak
        XCTAssertLessThan(SignalAnalysis.largestStep(held), 1.25 * sineStep, "no discontinuity where the loop joins")
    }

    func testMixedPCMAndCompressedSamplesEachKeepTheirCoordinates() throws {
        let ramp = SF2Builder.rampSample()
        let bank = try SoundFontLoader.load(bytes: Self.font([try SF2Builder.compressed(Self.sineSample()), ramp]).build(),
                                            name: "mixed.sf3", sampleRate: 48_000)
        XCTAssertEqual(bank.regions.count, 2)
        let sine = try XCTUnwrap(bank.regions.first { $0.lowKey == 0 })
        let pcm = try XCTUnwrap(bank.regions.first { $0.lowKey == 64 })
        XCTAssertEqual(sine.end - sine.start, 22_050)
        XCTAssertEqual(sine.loopStart - sine.start, Self.sineLoop.start)
        XCTAssertEqual(pcm.end - pcm.start, ramp.frames.count)
        XCTAssertEqual(pcm.loopStart - pcm.start, ramp.loopStart)
        XCTAssertEqual(pcm.loopEnd - pcm.start, ramp.loopEnd)
        // The PCM sample, after the odd-sized Vorbis stream, decodes word for word.
        XCTAssertEqual(Array(bank.samples[pcm.start..<pcm.end]), ramp.frames.map { Float($0) / 32_768 })
    }

    func testDamagedVorbisStreamIsOneLineNamingTheSample() throws {
        var bytes = Self.font([SF2Builder.rampSample(), try SF2Builder.compressed(Self.sineSample(name: "Broken sine"))]).build()
        let ogg = try XCTUnwrap(bytes.firstRange(of: Array("OggS".utf8))?.lowerBound)
        // The stream's identification header garbled: no decoder can start on it.
        for index in (ogg + 28)..<(ogg + 58) { bytes[index] ^= 0x5A }
        do {
            _ = try SoundFontLoader.load(bytes: bytes, name: "broken.sf3", sampleRate: 48_000)
            XCTFail("loaded a font whose Vorbis data is damaged")
        } catch {
            XCTAssertTrue(error.description.hasPrefix("broken.sf3: chunk 'sdta/smpl' at byte "), error.description)
            XCTAssertTrue(error.description.contains("sample 1 'Broken sine': the Ogg Vorbis data does not decode"), error.description)
            XCTAssertFalse(error.description.contains("\n"), error.description)
        }
    }

    /// A font of `count` compressed sines, each on its own part of the keyboard.
    static func sines(_ count: Int) throws -> SF2Builder {
        var builder = SF2Builder()
        builder.version = (3, 1)
        builder.samples = try (0..<count).map { try SF2Builder.compressed(Self.sineSample(name: "Sine \($0)")) }
        let width = 128 / count
        builder.instruments = [SF2Builder.Instrument(name: "Instrument", zones: (0..<count).map {
            [SF2Builder.range(Op.keyRange, UInt8($0 * width), UInt8($0 * width + width - 1)), SF2Builder.gen(Op.sampleID, $0)]
        })]
        builder.presets = [SF2Builder.Preset(name: "Preset", zones: [[SF2Builder.gen(Op.instrument, 0)]])]
        return builder
    }

    /// Where each Ogg stream of `bytes` begins: its first page, flagged beginning-of-stream.
    static func streamStarts(_ bytes: [UInt8]) -> [Int] {
        let magic = Array("OggS".utf8)
        return (0..<(bytes.count - 27)).filter { Array(bytes[$0..<($0 + 4)]) == magic && bytes[$0 + 5] & 0x02 != 0 }
    }

    func testCompressedSamplesDecodeToWordsAsFluidSynthsDo() throws {
        let sample = try SF2Builder.compressed(Self.sineSample())
        let bank = try SoundFontLoader.load(bytes: Self.font([sample]).build(), name: "sine.sf3", sampleRate: 48_000)
        XCTAssertEqual(bank.samples.encoding, .int16, "an SF3 is decoded to 16 bits")
        XCTAssertEqual(bank.sampleByteCount, 2 * bank.samples.frameCount)
        // Lossy, but close: within a few per cent of full scale of the words encoded, frame for frame.
        let region = try XCTUnwrap(bank.regions.first)
        let decoded = bank.samples[region.start..<region.end]
        let error = zip(decoded, sample.frames).map { abs($0 - Float($1) / 32_768) }.max() ?? 1
        XCTAssertLessThan(error, 0.03)
        // The stream's length comes from its last page, before anything is decoded.
        let stream = try XCTUnwrap(sample.vorbisBytes)
        XCTAssertEqual(stream.withUnsafeBytes { AudioFileReader.oggFrameCount($0) }, sample.frames.count)
        XCTAssertNil(stream.dropLast().withUnsafeBytes { AudioFileReader.oggFrameCount(UnsafeRawBufferPointer($0)) },
                     "a stream cut short ends without a whole page")
    }

    func testOvershootPastFullScaleIsClippedNotWrapped() throws {
        // A full-scale square: the lossy codec rings past full scale at every edge. Converted to
        // words without clipping, each overshoot would wrap round to the opposite sign.
        var square = Self.sineSample(name: "Square")
        square.frames = (0..<22_050).map { ($0 / 50) % 2 == 0 ? 32_767 : -32_768 }
        let bank = try SoundFontLoader.load(bytes: Self.font([try SF2Builder.compressed(square)]).build(),
                                            name: "square.sf3", sampleRate: 48_000)
        let region = try XCTUnwrap(bank.regions.first)
        let decoded = bank.samples[region.start..<region.end]
        XCTAssertGreaterThan(decoded.filter { $0 == 32_767.0 / 32_768 }.count, 100, "the overshoot is clipped at full scale")
        for (frame, value) in decoded.enumerated() where (frame % 50) > 5 && (frame % 50) < 45 && frame > 100 && frame < 22_000 {
            let positive = (frame / 50) % 2 == 0
            XCTAssertEqual(value > 0, positive, "frame \(frame): \(value) has the sign of its half-cycle")
            if (value > 0) != positive { break }
        }
    }

    func testStreamsDecodeInParallelAndTheFirstFailureInFileOrderIsReported() throws {
        let builder = try Self.sines(4)
        let whole = try SoundFontLoader.load(bytes: builder.build(), name: "four.sf3", sampleRate: 48_000)
        XCTAssertEqual(whole.regions.count, 4)
        for region in whole.regions {
            XCTAssertEqual(Double(SignalAnalysis.largestAbs(ArraySlice(whole.samples[region.start..<region.end]))), 16_000.0 / 32_768,
                           accuracy: 0.02, "every stream decoded into its own slot")
        }
        // Streams 1 and 3 damaged: whichever thread fails first, the report names stream 1.
        var bytes = builder.build()
        let starts = Self.streamStarts(bytes)
        XCTAssertEqual(starts.count, 4)
        for stream in [1, 3] { for index in (starts[stream] + 28)..<(starts[stream] + 58) { bytes[index] ^= 0x5A } }
        for _ in 0..<5 {
            XCTAssertThrowsError(try SoundFontLoader.load(bytes: bytes, name: "damaged.sf3", sampleRate: 48_000)) {
                XCTAssertTrue("\($0)".contains("sample 1 'Sine 1': the Ogg Vorbis data does not decode"), "\($0)")
            }
        }
    }

    func testAStreamWithoutAWholeLastPageIsOneLineNamingTheSample() throws {
        var bytes = try Self.sines(2).build()
        let starts = Self.streamStarts(bytes)
        // The last page of stream 0 ends where stream 1 begins: garble its capture pattern.
        let lastPage = try XCTUnwrap((starts[0]..<starts[1]).last { Array(bytes[$0..<($0 + 4)]) == Array("OggS".utf8) })
        bytes[lastPage] = 0
        XCTAssertThrowsError(try SoundFontLoader.load(bytes: bytes, name: "cut.sf3", sampleRate: 48_000)) {
            XCTAssertTrue("\($0)".hasPrefix("cut.sf3: chunk 'sdta/smpl' at byte "), "\($0)")
            XCTAssertTrue("\($0)".contains("sample 0 'Sine 0': the Ogg Vorbis data does not end with a whole Ogg page"), "\($0)")
        }
    }

    func testVersionsOtherThanTwoAndThreeAreRefused() throws {
        var builder = SF2Builder.simple()
        builder.version = (4, 0)
        XCTAssertThrowsError(try SoundFontLoader.load(bytes: builder.build(), name: "future.sf4", sampleRate: 48_000)) {
            XCTAssertEqual(($0 as? SoundFontError)?.reason, "SoundFont version 4.00 is neither 2.x (SF2) nor 3.x (SF3)")
        }
    }
}
