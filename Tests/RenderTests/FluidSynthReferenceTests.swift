import AudioAnalysis
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
/// the loudness contours (RMS in 50 ms frames) must correlate above 0.9, and the log-mel spectrograms
/// (AudioAnalysis's RenderComparison, as `staccato-bench compare` measures) above `spectralThreshold`.
/// `make test` installs fluidsynth and sets STACCATO_REQUIRE_REFERENCE=1, so there it cannot skip.
final class FluidSynthReferenceTests: XCTestCase {
    static let root = CommandRunner.repositoryRoot
    static let font = root.appendingPathComponent("soundfonts/FluidR3_GM_piano_xylo.sf2").path
    /// Measured with the engine of December 2026: log-mel correlation 0.9934 (Joplin), 0.9926
    /// (Mozart), 0.9914 (Converse, pedal); the Mozart a semitone sharp 0.9522, and 6 dB quieter
    /// 0.9926 again. Correlating every cell counts the spectral shape every piano render shares,
    /// so wrong and right lie close: the threshold sits between them, 0.02 below the worst right one.
    static let spectralThreshold = 0.97

    override func setUpWithError() throws {
        let found = (try? CommandRunner.shell("command -v fluidsynth >/dev/null").exitCode) == 0
        if !found {
            let message = "fluidsynth is not installed (scripts/install-deps --reference)"
            if ProcessInfo.processInfo.environment["STACCATO_REQUIRE_REFERENCE"] == "1" { XCTFail(message) }
            throw XCTSkip(message)
        }
    }

    /// Both engines' renders of one fixture, stereo interleaved at 48 kHz.
    struct Renders {
        var ours: [Float]
        var reference: DecodedAudio
        var oursSeconds: Double
    }

    func render(_ song: String, transposedBy semitones: Int = 0) throws -> Renders {
        let midiPath = Self.root.appendingPathComponent("Tests/Fixtures/midi/\(song).mid").path
        let referencePath = NSTemporaryDirectory() + "staccato-ref-\(getpid())-\(song).wav"
        defer { unlink(referencePath) }
        let reference = try CommandRunner.shell("fluidsynth -ni -q -R 0 -C 0 -r 48000 -T wav -F '\(referencePath)' '\(Self.font)' '\(midiPath)'", timeout: 300)
        XCTAssertEqual(reference.exitCode, 0, reference.standardError)
        let referenceAudio = try AudioFileReader.read(referencePath)

        // Dry, as the reference is rendered (-R 0 -C 0).
        let engine = Engine(configuration: EngineConfiguration(render: RenderConfiguration(sampleRate: 48_000, effects: false, songGainDecibels: 0)))
        engine.install(try SoundFontLoader.load(path: Self.font, sampleRate: 48_000))
        var ours: [Float] = []
        let summary = try engine.render(Self.transposed(MIDIFile.read(path: midiPath), by: semitones)) { ours.append(contentsOf: $0) }
        XCTAssertEqual(summary.statistics.unmappedNotes, 0)
        return Renders(ours: ours, reference: referenceAudio, oursSeconds: summary.seconds)
    }

    /// Every note `semitones` higher: the same performance at the wrong pitch.
    static func transposed(_ file: MIDIFile, by semitones: Int) -> MIDIFile {
        guard semitones != 0 else { return file }
        var file = file
        file.tracks = file.tracks.map { events in
            events.map { event in
                var event = event
                switch event.kind {
                case let .channel(.noteOn(channel, key, velocity)):
                    event.kind = .channel(.noteOn(channel: channel, key: UInt8(Int(key) + semitones), velocity: velocity))
                case let .channel(.noteOff(channel, key, velocity)):
                    event.kind = .channel(.noteOff(channel: channel, key: UInt8(Int(key) + semitones), velocity: velocity))
                default:
                    break
                }
                return event
            }
        }
        return file
    }

    /// The loudness contours' correlation: RMS of the mono mix in 50 ms frames.
    static func envelopeCorrelation(_ ours: [Float], _ reference: DecodedAudio) -> Double {
        let frameLength = 2_400
        return RenderComparison.correlation(
            RenderComparison.rmsEnvelope(RenderComparison.mono(ours, channelCount: 2), frameLength: frameLength),
            RenderComparison.rmsEnvelope(RenderComparison.mono(reference.samples, channelCount: reference.channelCount), frameLength: frameLength)) ?? 0
    }

    /// The log-mel spectrogram correlation after alignment (RenderComparison.compare).
    static func spectralCorrelation(_ ours: [Float], _ reference: DecodedAudio) -> Double {
        RenderComparison.compare(RenderComparison.mono(ours, channelCount: 2),
                                 RenderComparison.mono(reference.samples, channelCount: reference.channelCount),
                                 sampleRate: 48_000).logMelCorrelation ?? 0
    }

    /// The envelope correlation must exceed 0.9 and the spectral one `spectralThreshold`.
    func compare(_ song: String) throws {
        let renders = try render(song)
        let envelope = Self.envelopeCorrelation(renders.ours, renders.reference)
        let spectral = Self.spectralCorrelation(renders.ours, renders.reference)
        print("fluidsynth reference: \(song): RMS-envelope correlation \(String(format: "%.4f", envelope)), "
              + "log-mel correlation \(String(format: "%.4f", spectral)) "
              + "(ours \(String(format: "%.1f", renders.oursSeconds)) s, fluidsynth \(String(format: "%.1f", Double(renders.reference.frameCount) / 48_000)) s)")
        XCTAssertGreaterThan(envelope, 0.9, "\(song): loudness contour")
        XCTAssertGreaterThan(spectral, Self.spectralThreshold, "\(song): log-mel spectrogram")
    }

    func testJoplinMapleLeafRag() throws { try compare("joplin_maple_leaf_rag") }
    func testMozartTurkishMarch() throws { try compare("mozart_turkish_march") }
    func testConverseWhatAFriendWithPedal() throws { try compare("converse_what_a_friend_piano_pedal") }

    /// The check hears pitch: the same performance a semitone sharp falls below the threshold,
    /// though its loudness contour is as good as ever.
    func testOneSemitoneOffFailsTheSpectralCheck() throws {
        let renders = try render("mozart_turkish_march", transposedBy: 1)
        let spectral = Self.spectralCorrelation(renders.ours, renders.reference)
        let envelope = Self.envelopeCorrelation(renders.ours, renders.reference)
        print("fluidsynth reference: mozart_turkish_march a semitone sharp: log-mel correlation \(String(format: "%.4f", spectral)), "
              + "RMS-envelope correlation \(String(format: "%.4f", envelope))")
        XCTAssertLessThan(spectral, Self.spectralThreshold)
        // What the contour check alone let through: the wrong pitch passes it.
        XCTAssertGreaterThan(envelope, 0.9)
    }

    /// The check is not a level check: the render 6 dB quieter still passes it.
    func testSixDecibelsQuieterStillPassesTheSpectralCheck() throws {
        let renders = try render("mozart_turkish_march")
        let quieter = renders.ours.map { $0 * 0.5 }
        let spectral = Self.spectralCorrelation(quieter, renders.reference)
        print("fluidsynth reference: mozart_turkish_march 6 dB quieter: log-mel correlation \(String(format: "%.4f", spectral))")
        XCTAssertGreaterThan(spectral, Self.spectralThreshold)
        XCTAssertGreaterThan(Self.envelopeCorrelation(quieter, renders.reference), 0.9)
    }
}
