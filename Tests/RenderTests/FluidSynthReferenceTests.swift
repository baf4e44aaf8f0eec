import AudioFile
import Engine
import Foundation
import MIDI
import Render
import SoundFont
import TestSupport
import XCTest

/// Renders of the piano MIDI fixtures through the shipped font are compared with Debian's
/// `fluidsynth` rendering the same files (`fluidsynth -ni -R 0 -C 0 -r 48000 -F ref.wav FONT MIDI`):
/// the loudness contours (RMS in 50 ms frames) must correlate above 0.9.
/// `make test` installs fluidsynth and sets STACCATO_REQUIRE_REFERENCE=1, so there it cannot skip.
final class FluidSynthReferenceTests: XCTestCase {
    static let root = CommandRunner.repositoryRoot
    static let font = root.appendingPathComponent("soundfonts/FluidR3_GM_piano_xylo.sf2").path

    override func setUpWithError() throws {
        let found = (try? CommandRunner.shell("command -v fluidsynth >/dev/null").exitCode) == 0
        if !found {
            let message = "fluidsynth is not installed (scripts/install-deps --reference)"
            if ProcessInfo.processInfo.environment["STACCATO_REQUIRE_REFERENCE"] == "1" { XCTFail(message) }
            throw XCTSkip(message)
        }
    }

    /// Mono RMS per 50 ms frame.
    static func rmsEnvelope(_ interleaved: [Float], channelCount: Int, sampleRate: Double) -> [Double] {
        let frameLength = Int(sampleRate * 0.05)
        let frames = interleaved.count / channelCount
        return stride(from: 0, to: frames - frameLength + 1, by: frameLength).map { start in
            var sum = 0.0
            for frame in start ..< start + frameLength {
                var mono: Float = 0
                for channel in 0..<channelCount { mono += interleaved[frame * channelCount + channel] }
                let value = Double(mono) / Double(channelCount)
                sum += value * value
            }
            return (sum / Double(frameLength)).squareRoot()
        }
    }

    static func correlation(_ a: [Double], _ b: [Double]) -> Double {
        let count = min(a.count, b.count)
        let x = a.prefix(count), y = b.prefix(count)
        let meanX = x.reduce(0, +) / Double(count), meanY = y.reduce(0, +) / Double(count)
        var covariance = 0.0, varianceX = 0.0, varianceY = 0.0
        for (p, q) in zip(x, y) {
            covariance += (p - meanX) * (q - meanY)
            varianceX += (p - meanX) * (p - meanX)
            varianceY += (q - meanY) * (q - meanY)
        }
        return covariance / (varianceX * varianceY).squareRoot()
    }

    func compare(_ song: String) throws -> Double {
        let midiPath = Self.root.appendingPathComponent("Tests/Fixtures/midi/\(song).mid").path
        let referencePath = NSTemporaryDirectory() + "staccato-ref-\(getpid())-\(song).wav"
        defer { unlink(referencePath) }
        let reference = try CommandRunner.shell("fluidsynth -ni -q -R 0 -C 0 -r 48000 -T wav -F '\(referencePath)' '\(Self.font)' '\(midiPath)'", timeout: 300)
        XCTAssertEqual(reference.exitCode, 0, reference.standardError)
        let referenceAudio = try AudioFileReader.read(referencePath)

        let engine = Engine(configuration: EngineConfiguration(render: RenderConfiguration(sampleRate: 48_000)))
        engine.install(try SoundFontLoader.load(path: Self.font, sampleRate: 48_000))
        var ours: [Float] = []
        let summary = try engine.render(MIDIFile.read(path: midiPath)) { ours.append(contentsOf: $0) }
        XCTAssertEqual(summary.statistics.unmappedNotes, 0)

        let correlation = Self.correlation(Self.rmsEnvelope(ours, channelCount: 2, sampleRate: 48_000),
                                           Self.rmsEnvelope(referenceAudio.samples, channelCount: referenceAudio.channelCount, sampleRate: 48_000))
        print("fluidsynth reference: \(song): RMS-envelope correlation \(String(format: "%.4f", correlation)) "
              + "(ours \(String(format: "%.1f", summary.seconds)) s, fluidsynth \(String(format: "%.1f", Double(referenceAudio.frameCount) / 48_000)) s)")
        return correlation
    }

    func testJoplinMapleLeafRag() throws { XCTAssertGreaterThan(try compare("joplin_maple_leaf_rag"), 0.9) }
    func testMozartTurkishMarch() throws { XCTAssertGreaterThan(try compare("mozart_turkish_march"), 0.9) }
    func testConverseWhatAFriendWithPedal() throws { XCTAssertGreaterThan(try compare("converse_what_a_friend_piano_pedal"), 0.9) }
}
