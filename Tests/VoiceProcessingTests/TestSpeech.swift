import AudioFile
import DSP
import Foundation
import SampleSet
import TestSupport
import XCTest

/// Speech for the microphone tests: espeak-ng (a Debian package) says a few sentences, each
/// followed by a pause of silence, resampled to the engine's rate. Which frames are speech and
/// which are pause is known exactly, so levels can be measured in each.
struct TestSpeech {
    static let sentences = [
        "The quick brown fox jumps over the lazy dog.",
        "Please hold the microphone a little closer to your mouth.",
        "Sing it again, a little louder this time.",
        "Every session is kept, so nothing you sing is lost.",
        "Testing one two three, can you hear me at the back?",
        "The echo of the backing track should be gone by now.",
    ]
    static let sampleRate = 48_000.0
    static let pauseSeconds = 0.8

    /// Mono samples at `sampleRate`.
    var samples: [Float]
    /// The frame ranges of the pauses (exact silence) between sentences.
    var pauses: [Range<Int>]

    /// The sentences, spoken in turn by espeak-ng's `voice` with a pause after each, then `repeats` times again, scaled so
    /// the voiced speech measures `levelDecibels` RMS.
    static func make(repeats: Int = 1, levelDecibels: Float = -20, voice: String = "en") throws -> TestSpeech {
        let folder = NSTemporaryDirectory() + "staccato-speech-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var samples: [Float] = []
        var pauses: [Range<Int>] = []
        let pause = [Float](repeating: 0, count: Int(pauseSeconds * sampleRate))
        for _ in 0..<repeats {
            for (index, sentence) in sentences.enumerated() {
                let path = folder + "/\(index).wav"
                let result = try CommandRunner.shell("espeak-ng -v \(voice) -s 150 -w '\(path)' '\(sentence.replacingOccurrences(of: "'", with: ""))'")
                guard result.exitCode == 0 else { throw XCTSkip("espeak-ng is not installed (scripts/install-deps --reference installs it): \(result.standardError)") }
                let spoken = try AudioFileReader.read(path)
                samples += Resampler.resample(spoken.channel(0), from: Double(spoken.sampleRate), to: sampleRate)
                pauses.append(samples.count ..< samples.count + pause.count)
                samples += pause
            }
        }
        var speech = TestSpeech(samples: samples, pauses: pauses)
        let gain = decibels(levelDecibels) / speech.voicedLevel(of: samples)
        speech.samples = samples.map { $0 * gain }
        return speech
    }

    /// The same speech after `frames` of silence (a song's intro before the singer comes in).
    func delayed(by frames: Int) -> TestSpeech {
        TestSpeech(samples: [Float](repeating: 0, count: frames) + samples,
                   pauses: pauses.map { $0.lowerBound + frames ..< $0.upperBound + frames })
    }

    /// The frames where the voice sounds: 20 ms windows within 30 dB of the loudest.
    var voicedWindows: [Range<Int>] {
        let window = Int(0.02 * Self.sampleRate)
        let levels = stride(from: 0, to: samples.count - window, by: window).map { ($0, SignalAnalysis.rms(samples[$0 ..< $0 + window])) }
        let loudest = levels.map(\.1).max() ?? 0
        return levels.filter { $0.1 > loudest * 0.031_6 }.map { $0.0 ..< $0.0 + window }
    }

    /// The RMS of `signal` over the voiced windows (shifted by `delay` frames), from `after` on.
    func voicedLevel(of signal: [Float], delay: Int = 0, after: Int = 0) -> Float {
        var sum = 0.0, count = 0
        for window in voicedWindows where window.lowerBound >= after && window.upperBound + delay <= signal.count {
            for frame in window { sum += Double(signal[frame + delay] * signal[frame + delay]); count += 1 }
        }
        return count == 0 ? 0 : Float((sum / Double(count)).squareRoot())
    }

    /// The RMS of `signal` over the pauses (shifted by `delay`, 50 ms in from each edge, where
    /// the voice's own tail and the processing's overlap have gone), from `after` on.
    func pauseLevel(of signal: [Float], delay: Int = 0, after: Int = 0) -> Float {
        let margin = Int(0.05 * Self.sampleRate)
        var sum = 0.0, count = 0
        for pause in pauses where pause.lowerBound >= after {
            for frame in pause.lowerBound + margin + delay ..< pause.upperBound - margin + delay where frame < signal.count {
                sum += Double(signal[frame] * signal[frame]); count += 1
            }
        }
        return count == 0 ? 0 : Float((sum / Double(count)).squareRoot())
    }
}

func decibels(_ value: Float) -> Float { powf(10, value / 20) }
func level(_ amplitude: Float) -> Float { 20 * log10f(max(amplitude, 1e-12)) }

/// White noise, seeded, at `levelDecibels` RMS.
func whiteNoise(count: Int, levelDecibels: Float, seed: UInt64 = 7) -> [Float] {
    var generator = SeededGenerator(state: seed)
    let amplitude = decibels(levelDecibels) * 3.0.squareRoot().float  // uniform in ±a has RMS a/√3
    return (0..<count).map { _ in Float.random(in: -1...1, using: &generator) * amplitude }
}

extension Double { var float: Float { Float(self) } }

/// The signal through a cookbook band-pass centred in the speech band (300-3400 Hz), for "the
/// speech band's level".
func speechBand(_ signal: [Float], sampleRate: Double) -> [Float] {
    var output = signal
    var highPass = Biquad(BiquadCoefficients(.highPass, frequency: 300, q: 0.707, sampleRate: sampleRate))
    var lowPass = Biquad(BiquadCoefficients(.lowPass, frequency: 3_400, q: 0.707, sampleRate: sampleRate))
    output.withUnsafeMutableBufferPointer {
        highPass.process($0.baseAddress!, frameCount: $0.count)
        lowPass.process($0.baseAddress!, frameCount: $0.count)
    }
    return output
}

/// The normalised correlation of `a` and `b` (`b` shifted by `delay`) over `frames`.
func correlation(_ a: [Float], _ b: [Float], delay: Int, frames: Range<Int>) -> Double {
    var ab = 0.0, aa = 0.0, bb = 0.0
    for frame in frames where frame + delay < b.count && frame < a.count {
        let x = Double(a[frame]), y = Double(b[frame + delay])
        ab += x * y; aa += x * x; bb += y * y
    }
    return ab / max((aa * bb).squareRoot(), 1e-30)
}
