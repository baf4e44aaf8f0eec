import AudioAnalysis
import Foundation
import XCTest

final class AudioAnalysisTests: XCTestCase {
    static let sampleRate = 48_000.0

    static func sine(_ hertz: Double, seconds: Double, amplitude: Double = 0.5) -> [Float] {
        (0 ..< Int(seconds * sampleRate)).map { Float(amplitude * sin(2 * Double.pi * hertz * Double($0) / sampleRate)) }
    }

    /// A tune of decaying harmonic tones of uneven lengths and loudness (so no lag but the true one
    /// lines its envelope up), `semitones` above the written keys.
    static func melody(semitones: Double = 0) -> [Float] {
        let notes: [(key: Double, seconds: Double, level: Double)] = [
            (60, 0.25, 0.2), (64, 0.5, 0.1), (67, 0.125, 0.25), (72, 0.375, 0.15), (65, 0.25, 0.05), (69, 0.625, 0.2),
            (62, 0.125, 0.1), (71, 0.25, 0.25), (55, 0.5, 0.15), (59, 0.125, 0.2), (74, 0.375, 0.1), (67, 0.75, 0.2),
        ]
        return notes.flatMap { note -> [Float] in
            let hertz = 440 * pow(2, (note.key + semitones - 69) / 12)
            return (0 ..< Int(note.seconds * sampleRate)).map { index in
                let time = Double(index) / sampleRate
                let tone = (1 ... 4).reduce(0.0) { $0 + sin(2 * Double.pi * hertz * Double($1) * time) / Double($1) }
                return Float(note.level * exp(-6 * time) * tone)
            }
        }
    }

    func testTransformMatchesTheDefinition() {
        let size = 64
        let signal = (0 ..< size).map { sin(Double($0) * 0.37) + 0.5 * cos(Double($0 * $0) * 0.11) }
        var real = signal, imaginary = [Double](repeating: 0, count: size)
        FourierTransform(size: size).transform(real: &real, imaginary: &imaginary)
        for k in 0 ..< size {
            var expectedReal = 0.0, expectedImaginary = 0.0
            for (n, x) in signal.enumerated() {
                expectedReal += x * cos(-2 * Double.pi * Double(k * n) / Double(size))
                expectedImaginary += x * sin(-2 * Double.pi * Double(k * n) / Double(size))
            }
            XCTAssertEqual(real[k], expectedReal, accuracy: 1e-9, "bin \(k)")
            XCTAssertEqual(imaginary[k], expectedImaginary, accuracy: 1e-9, "bin \(k)")
        }
    }

    func testBandEdgesFollowTheMelFormula() {
        XCTAssertEqual(MelFilterbank.mel(hertz: 1000), 2595 * log10(1 + 1000.0 / 700), accuracy: 1e-9)
        XCTAssertEqual(MelFilterbank.hertz(mel: MelFilterbank.mel(hertz: 3210)), 3210, accuracy: 1e-6)
        let bank = MelFilterbank(bandCount: 64, lowHertz: 30, highHertz: 16_000, fftSize: 2048, sampleRate: Self.sampleRate)
        let step = (MelFilterbank.mel(hertz: 16_000) - MelFilterbank.mel(hertz: 30)) / 65
        XCTAssertEqual(bank.edgeHertz.first!, 30, accuracy: 1e-9)
        XCTAssertEqual(bank.edgeHertz.last!, 16_000, accuracy: 1e-6)
        XCTAssertEqual(bank.centreHertz(band: 10), MelFilterbank.hertz(mel: MelFilterbank.mel(hertz: 30) + 11 * step), accuracy: 1e-6)
    }

    /// A pure tone's energy peaks in the band whose centre is nearest it on the mel scale.
    func testSineLandsInTheBandTheFormulaNames() {
        for hertz in [100.0, 440, 1000, 2500, 6000, 12_000] {
            let spectrogram = LogMelSpectrogram(Self.sine(hertz, seconds: 0.5), sampleRate: Self.sampleRate)
            let bank = spectrogram.filterbank
            let middle = spectrogram.frames[spectrogram.frames.count / 2]
            let loudest = middle.indices.max { middle[$0] < middle[$1] }!
            XCTAssertEqual(loudest, bank.nearestBand(toHertz: hertz), "\(hertz) Hz")
            let centre = bank.centreHertz(band: loudest)
            let halfWidth = (bank.edgeHertz[loudest + 2] - bank.edgeHertz[loudest]) / 2
            XCTAssertLessThan(abs(centre - hertz), halfWidth, "\(hertz) Hz is within its band")
        }
    }

    func testFloorIsOneHundredDecibelsBelowThePeak() {
        let spectrogram = LogMelSpectrogram(Self.sine(1000, seconds: 0.2) + [Float](repeating: 0, count: 9600), sampleRate: Self.sampleRate)
        let cells = spectrogram.frames.flatMap { $0 }
        XCTAssertEqual(cells.max()! - cells.min()!, 100, accuracy: 1e-9, "silence sits on the floor")
    }

    func testSignalCorrelatesPerfectlyWithItself() {
        let tune = Self.melody()
        let result = RenderComparison.compare(tune, tune, sampleRate: Self.sampleRate)
        XCTAssertEqual(result.lagFrames, 0)
        XCTAssertEqual(result.logMelCorrelation!, 1, accuracy: 1e-12)
    }

    /// A gain changes every log cell by the same number of dB (the floor moves with the peak): the
    /// correlation does not see it.
    func testGainDoesNotChangeTheCorrelation() {
        let tune = Self.melody()
        let result = RenderComparison.compare(tune, tune.map { $0 * 0.5 }, sampleRate: Self.sampleRate)
        XCTAssertEqual(result.logMelCorrelation!, 1, accuracy: 1e-6)
    }

    /// A semitone is about half a band wide around 1 kHz (bands there are ~100 Hz apart), so the
    /// correlation drops far below 1 but stays well above 0: measured 0.920 for this tune.
    func testTransposedSignalCorrelatesMuchLower() {
        let result = RenderComparison.compare(Self.melody(), Self.melody(semitones: 1), sampleRate: Self.sampleRate)
        print("melody against itself a semitone up: log-mel r \(result.logMelCorrelation!)")
        XCTAssertLessThan(result.logMelCorrelation!, 0.95)
    }

    /// 0.32 s late, a whole number of envelope frames (the lag's resolution), so the shift is exact.
    func testLateStartIsFoundAndRemoved() {
        let tune = Self.melody()
        let delay = 120 * RenderComparison.alignmentFrameLength
        let late = [Float](repeating: 0, count: delay) + tune
        let result = RenderComparison.compare(tune, late, sampleRate: Self.sampleRate)
        XCTAssertEqual(result.lagFrames, delay)
        XCTAssertEqual(result.logMelCorrelation!, 1, accuracy: 1e-9)
        let early = RenderComparison.compare(late, tune, sampleRate: Self.sampleRate)
        XCTAssertEqual(early.lagFrames, -delay)
        XCTAssertEqual(early.logMelCorrelation!, 1, accuracy: 1e-9)
    }

    /// A lag given is the one aligned by: the late copy compared as if on time correlates worse,
    /// and as if 0.32 s late exactly as when the lag is found.
    func testAGivenLagIsTheOneAlignedBy() {
        let tune = Self.melody()
        let delay = 120 * RenderComparison.alignmentFrameLength
        let late = [Float](repeating: 0, count: delay) + tune
        let unaligned = RenderComparison.compare(tune, late, sampleRate: Self.sampleRate, lagFrames: 0)
        XCTAssertEqual(unaligned.lagFrames, 0)
        XCTAssertLessThan(unaligned.logMelCorrelation!, 0.95)
        let aligned = RenderComparison.compare(tune, late, sampleRate: Self.sampleRate, lagFrames: delay)
        XCTAssertEqual(aligned.lagFrames, delay)
        XCTAssertEqual(aligned.logMelCorrelation!, 1, accuracy: 1e-9)
    }

    func testSilenceHasNoCorrelation() {
        let silence = [Float](repeating: 0, count: 48_000)
        XCTAssertNil(RenderComparison.compare(Self.melody(), silence, sampleRate: Self.sampleRate).logMelCorrelation)
        XCTAssertEqual(RenderComparison.rmsDecibels(silence), RenderComparison.silenceDecibels)
    }

    func testLevelOfAFullScaleSquareIsZeroDecibels() {
        XCTAssertEqual(RenderComparison.rmsDecibels([1, -1, 1, -1]), 0, accuracy: 1e-12)
        XCTAssertEqual(RenderComparison.rmsDecibels(Self.sine(1000, seconds: 1, amplitude: 1)), -3.0103, accuracy: 1e-3)
    }
}
