import DSP
import Engine
import Foundation
import MIDI
import Render
import SoundFont
import TestSupport
import XCTest

/// The microphone → effects → output graph, run offline exactly as a device runs it.
final class EffectsGraphTests: XCTestCase {
    static let rate = 48_000.0

    static func makeEngine(volume: Float = 1, feedbackSuppression: Bool = true) -> Engine {
        Engine(configuration: EngineConfiguration(render: RenderConfiguration(sampleRate: rate, feedbackSuppression: feedbackSuppression, songGainDecibels: 0),
                                                  initialMasterVolume: volume))
    }

    /// Gain of the whole graph at `frequency`, by the RMS of a steady sine through it.
    static func measuredGain(_ engine: Engine, at frequency: Double, amplitude: Float = 0.05) -> Double {
        let frames = 36_000
        let input = (0..<frames).map { amplitude * Float(sin(2 * Double.pi * frequency * Double($0) / rate)) }
        let left = SignalAnalysis.channel(0, of: engine.processOffline(input: input, inputChannelCount: 1), channelCount: 2)
        // The last 0.25 s, in whole cycles: the shelves and the DC blocker have settled by then.
        let cycle = rate / frequency
        let length = Int((12_000 / cycle).rounded(.down) * cycle)
        return Double(SignalAnalysis.rms(left[(frames - length)...])) * 2.0.squareRoot() / Double(amplitude)
    }

    func testBassTrebleBoostChainWithinATenthOfADecibelOfTheCookbookAtTwentyFrequencies() {
        let probes = (0..<20).map { 30 * pow(2, Double($0) * 0.48) }  // 30 Hz … ~17 kHz, log-spaced
        let settings: [(bass: Float, treble: Float, boost: Float)] = [(6, 0, 0), (-12, 12, 3), (12, -12, -6), (3, 4, 9)]
        for setting in settings {
            let engine = Self.makeEngine(volume: 0.5)
            engine.effects.bassDecibels.set(setting.bass)
            engine.effects.trebleDecibels.set(setting.treble)
            engine.effects.boostDecibels.set(setting.boost)
            var worst = 0.0
            for frequency in probes {
                let expected = CookbookReference.magnitude(.lowShelf(gain: Double(setting.bass)), frequency: 150, q: 0.7071067811865476, at: frequency, sampleRate: Self.rate)
                    * CookbookReference.magnitude(.highShelf(gain: Double(setting.treble)), frequency: 6_000, q: 0.7071067811865476, at: frequency, sampleRate: Self.rate)
                    * CookbookReference.dcBlockerMagnitude(cornerHertz: 20, at: frequency, sampleRate: Self.rate)
                    * pow(10, Double(setting.boost) / 20) * 0.5
                let measured = Self.measuredGain(engine, at: frequency)
                let error = abs(20 * log10(measured / expected))
                worst = max(worst, error)
                XCTAssertLessThan(error, 0.1, "bass \(setting.bass) treble \(setting.treble) boost \(setting.boost) at \(Int(frequency)) Hz: measured \(measured), cookbook \(expected)")
            }
            print("effects chain: bass \(setting.bass) dB, treble \(setting.treble) dB, boost \(setting.boost) dB: worst error \(String(format: "%.4f", worst)) dB over 20 frequencies")
        }
    }

    func testKnobChangesRampWithoutASteps() {
        let engine = Self.makeEngine()
        let input = (0..<48_000).map { 0.1 * Float(sin(2 * Double.pi * 200 * Double($0) / Self.rate)) }
        var output: [Float] = []
        input.withUnsafeBufferPointer { source in
            engine.renderOffline(frameCount: 48_000, input: source, inputChannelCount: 1) { block in
                output.append(contentsOf: block)
                if output.count == 2 * 12_000 {
                    engine.effects.bassDecibels.set(12)
                    engine.effects.boostDecibels.set(24)
                    engine.effects.volume.set(0.2)
                }
            }
        }
        let left = SignalAnalysis.channel(0, of: output, channelCount: 2)
        // Loudest steady step of the sine after the change, times a margin: no zipper or click beyond it.
        let steadyStep = SignalAnalysis.largestStep(left[36_000...])
        XCTAssertLessThanOrEqual(SignalAnalysis.largestStep(left[11_000...]), steadyStep * 1.05)
    }

    func testLimiterHoldsTheCeilingWhateverTheBoost() {
        let engine = Self.makeEngine()
        engine.effects.boostDecibels.set(24)
        engine.effects.bassDecibels.set(12)
        var generator = SeededGenerator(state: 7)
        let input = (0..<48_000).map { _ in Float.random(in: -1...1, using: &generator) }
        let output = engine.processOffline(input: input, inputChannelCount: 1)
        let ceiling = Float(pow(10, -1.0 / 20))
        XCTAssertLessThanOrEqual(SignalAnalysis.largestAbs(output[...]), ceiling * 1.000_01)
    }

    func testReverbMixAddsATailAndZeroIsExactlyDry() {
        let engine = Self.makeEngine()
        var input = [Float](repeating: 0, count: 48_000)
        input[100] = 0.5
        let dry = engine.processOffline(input: input, inputChannelCount: 1)
        XCTAssertLessThan(SignalAnalysis.rms(dry[(2 * 10_000)...]), 1e-9, "no tail with the reverb at 0 %")
        engine.effects.reverbPercent.set(40)
        engine.send(.reverbPreset(.largeHall))
        let wet = engine.processOffline(input: input, inputChannelCount: 1)
        XCTAssertGreaterThan(SignalAnalysis.rms(wet[(2 * 10_000)...]), 1e-4, "a hall's tail 200 ms after the click")
    }

    func testMuteFadesOutAndBack() {
        let engine = Self.makeEngine()
        let input = (0..<9_600).map { 0.1 * Float(sin(2 * Double.pi * 300 * Double($0) / Self.rate)) }
        engine.send(.mute(true))
        let muted = engine.processOffline(input: input, inputChannelCount: 1)
        XCTAssertLessThan(SignalAnalysis.rms(muted[2_000...]), 1e-6)
        engine.send(.mute(false))
        let open = engine.processOffline(input: input, inputChannelCount: 1)
        XCTAssertGreaterThan(SignalAnalysis.rms(open[4_000...]), 0.05)
    }

    // MARK: Feedback suppressor

    /// What the suppressor did in a simulated loop: the output's left channel, the frame at which
    /// it first acted (a notch or a duck), the deepest notch it ever set (dB, 0 or below) and its
    /// state at the end.
    struct LoopOutcome {
        var output: [Float] = []
        var caughtFrame: Int?
        var deepestNotch: Float = 0
        var feedback = FeedbackStatus()
    }

    /// A simulated acoustic loop: the output comes back into the microphone after `delayFrames`
    /// (device latency plus 2 m of air), through a room whose strongest mode (a resonance at
    /// `modeHertz`) gives the whole loop, master volume included, a gain of `loopGain` there.
    /// With `modeHertz` nil the room is flat: a virtual cable, where only the EQ shapes the loop.
    static func simulateLoop(loopGain: Double, seconds: Double, suppressorOn: Bool, volume: Float = 0.3,
                             delayFrames: Int = 480, modeHertz: Double? = 1_200,
                             music: [Float]? = nil, configure: (EffectsControls) -> Void = { _ in }) -> LoopOutcome {
        let engine = makeEngine(volume: volume, feedbackSuppression: suppressorOn)
        configure(engine.effects)
        let block = 64
        let frameCount = Int(seconds * rate)
        // The room: a band-pass (0 dB peak) at the mode, scaled so volume × room = loopGain.
        var room = Biquad(modeHertz.map { BiquadCoefficients(.bandPass, frequency: $0, q: 8, sampleRate: rate) } ?? .identity)
        let roomGain = Float(loopGain) / volume
        var air = [Float](repeating: 0, count: delayFrames + frameCount)
        var generator = SeededGenerator(state: 11)
        var outcome = LoopOutcome()
        outcome.output.reserveCapacity(frameCount)
        let inputBlock = UnsafeMutablePointer<Float>.allocate(capacity: block)
        let outputBlock = UnsafeMutablePointer<Float>.allocate(capacity: 2 * block)
        defer { inputBlock.deallocate(); outputBlock.deallocate() }
        var frame = 0
        while frame < frameCount {
            for index in 0..<block {
                // The microphone hears the room's answer to what the speaker played, plus its own hiss
                // (-60 dBFS) and, if given, music played in the room.
                let hiss = Float.random(in: -0.001...0.001, using: &generator)
                inputBlock[index] = air[frame + index] + hiss + (music.map { frame + index < $0.count ? $0[frame + index] : 0 } ?? 0)
            }
            engine.renderer.render(input: inputBlock, inputChannelCount: 1, into: outputBlock, frameCount: block)
            for index in 0..<block {
                let left = outputBlock[2 * index]
                outcome.output.append(left)
                var heard = left
                withUnsafeMutablePointer(to: &heard) { room.process($0, frameCount: 1) }
                air[frame + index + delayFrames] = heard * roomGain
            }
            frame += block
            let feedback = engine.renderer.feedback
            outcome.deepestNotch = min(outcome.deepestNotch, feedback.deepestNotchDecibels)
            if outcome.caughtFrame == nil, feedback.notchedFrequencies > 0 || feedback.ducks > 0 { outcome.caughtFrame = frame }
        }
        outcome.feedback = engine.renderer.feedback
        return outcome
    }

    static func rmsDecibels(_ samples: ArraySlice<Float>) -> Double {
        20 * log10(max(Double(SignalAnalysis.rms(samples)), 1e-10))
    }

    func testWithoutTheSuppressorALoopGainOfOneAndAHalfScreams() {
        let outcome = Self.simulateLoop(loopGain: 1.5, seconds: 2, suppressorOn: false)
        XCTAssertNil(outcome.caughtFrame)
        let level = Self.rmsDecibels(outcome.output[48_000...])
        print("feedback without the suppressor: output \(String(format: "%.1f", level)) dBFS RMS after 1 s")
        XCTAssertGreaterThan(level, -6, "the simulated loop must really howl, or the suppressor's tests prove nothing")
    }

    /// A loop gain of 1.5 at a room mode is caught within 0.75 s of rising out of the hiss (a
    /// howl is confirmed by 20 dB of growth at one pure pitch over six 21 ms hops, so that a
    /// singer's swell never is) and held by a notch there, not by a duck: the loop dies away and
    /// stays down.
    func testANotchStopsALoopGainOfOneAndAHalf() {
        for (mode, delay) in [(1_200.0, 480), (300.0, 480), (2_500.0, 256), (700.0, 960), (4_000.0, 720)] {
            let outcome = Self.simulateLoop(loopGain: 1.5, seconds: 4, suppressorOn: true, delayFrames: delay, modeHertz: mode)
            guard let caught = outcome.caughtFrame else { XCTFail("mode \(mode) Hz, delay \(delay): never caught"); continue }
            let output = outcome.output
            let onset = stride(from: 0, to: output.count - 480, by: 480).first { Self.rmsDecibels(output[$0..<($0 + 480)]) > -50 } ?? 0
            let seconds = Double(caught - onset) / Self.rate
            let peak = Self.rmsDecibels(output[max(0, caught - 2_400)..<caught])
            let lastSecond = Self.rmsDecibels(output[(output.count - 48_000)...])
            print("feedback at \(Int(mode)) Hz, loop delay \(delay) frames: notched \(Int(seconds * 1000)) ms after it rose above -50 dBFS; notches \(outcome.feedback.activeNotches) (deepest \(outcome.deepestNotch) dB), ducks \(outcome.feedback.ducks); output \(String(format: "%.1f", peak)) dBFS when caught, \(String(format: "%.1f", lastSecond)) dBFS in the last second")
            XCTAssertLessThanOrEqual(seconds, 0.75, "mode \(mode) Hz, delay \(delay) frames")
            XCTAssertEqual(outcome.feedback.ducks, 0, "mode \(mode) Hz: a notch holds one mode, no duck")
            XCTAssertLessThan(lastSecond, -40, "mode \(mode) Hz: the loop has died away")
            // The published notches say where and how deep, as the count and the deepest do.
            let notches = outcome.feedback.notches
            XCTAssertEqual(notches.count, outcome.feedback.activeNotches, "mode \(mode) Hz")
            XCTAssertEqual(notches.map(\.depthDecibels).min() ?? 0, outcome.feedback.deepestNotchDecibels, "mode \(mode) Hz")
            XCTAssertTrue(notches.contains { abs(log2(Double($0.hertz) / mode)) < 0.05 }, "mode \(mode) Hz: a notch on it, not \(notches)")
        }
    }

    /// Loops with round trips of 50-200 ms (a speaker metres away, a long device buffer): comb
    /// teeth 5-20 Hz apart, several inside one notch's band. A tone that ignored a notch's step (a
    /// source swelling) keeps the notch from deepening for that tone alone: the loop's next tooth
    /// beside it is judged on its own. Judged as one, the first loop reached -6.6 dBFS.
    func testLoopsWithLongRoundTripsAreStillNotchedEarly() {
        for (mode, delay) in [(700.0, 2_400), (1_200.0, 4_800), (2_000.0, 4_800), (500.0, 9_600)] {
            let outcome = Self.simulateLoop(loopGain: 1.5, seconds: 8, suppressorOn: true, delayFrames: delay, modeHertz: mode)
            let output = outcome.output
            let loudest = stride(from: 0, to: output.count - 4_800, by: 4_800).map { Self.rmsDecibels(output[$0..<($0 + 4_800)]) }.max() ?? 0
            let lastSecond = Self.rmsDecibels(output[(output.count - 48_000)...])
            print("feedback at \(Int(mode)) Hz, loop delay \(delay) frames: caught at \(outcome.caughtFrame.map { "\(Int(Double($0) / Self.rate * 1000)) ms" } ?? "never"); notches \(outcome.feedback.activeNotches) (deepest \(outcome.deepestNotch) dB), ducks \(outcome.feedback.ducks); loudest 100 ms \(String(format: "%.1f", loudest)) dBFS, last second \(String(format: "%.1f", lastSecond)) dBFS")
            XCTAssertNotNil(outcome.caughtFrame, "mode \(mode) Hz, delay \(delay)")
            XCTAssertEqual(outcome.feedback.ducks, 0, "mode \(mode) Hz, delay \(delay)")
            XCTAssertLessThan(loudest, -30, "mode \(mode) Hz, delay \(delay): notched long before the ceiling")
            XCTAssertLessThan(lastSecond, -40, "mode \(mode) Hz, delay \(delay): the loop has died away")
        }
    }

    /// The virtual cable: a flat loop where the EQ decides what grows — a near-DC rumble with the
    /// bass up, a buzz with the treble up — and the limiter holds it at the ceiling. No notch can
    /// hold a broadband loop: this is where the last-resort duck is for.
    func testFlatLoopsShapedByTheEqualiserAreCaught() {
        let cases: [(String, Float, Float, Float)] = [("bass", 12, 0, 12), ("treble", 0, 12, 9), ("flat", 0, 0, 12)]
        for (name, bass, treble, boost) in cases {
            let outcome = Self.simulateLoop(loopGain: 1, seconds: 3, suppressorOn: true, delayFrames: 128, modeHertz: nil) {
                $0.bassDecibels.set(bass)
                $0.trebleDecibels.set(treble)
                $0.boostDecibels.set(boost)
            }
            let level = Self.rmsDecibels(outcome.output[(2 * 48_000)...])
            print("feedback: flat loop, \(name): caught at \(outcome.caughtFrame.map { "\(Int(Double($0) / Self.rate * 1000)) ms" } ?? "never"); \(outcome.feedback.notchedFrequencies) notched, \(outcome.feedback.ducks) ducks; last second at \(String(format: "%.1f", level)) dBFS")
            XCTAssertNotNil(outcome.caughtFrame, name)
        }
    }

    /// The committed MIDI renders, played into the microphone (a karaoke backing track in the
    /// room, the loop well below 1): sustained notes, pedalled chords and dense GM arrangements
    /// are never taken for feedback: no notch deeper than 3 dB, no duck.
    func testMusicWithSustainedNotesIsNeverTakenForFeedback() throws {
        let root = CommandRunner.repositoryRoot
        let songs = [("converse_what_a_friend_piano_pedal", "FluidR3_GM_piano_xylo.sf2"),
                     ("mozart_turkish_march", "FluidR3_GM_piano_xylo.sf2"),
                     ("openmsx_keep_on_rolling_dense", "sf_GMbank_piano_xylo_drums.sf2"),
                     ("bach_bwv772_sankey", "sf_GMbank_piano_xylo_drums.sf2")]
        for (song, font) in songs {
            let renderer = Engine(configuration: EngineConfiguration(render: RenderConfiguration(sampleRate: Self.rate, songGainDecibels: 0)))
            renderer.install(try SoundFontLoader.load(path: root.appendingPathComponent("soundfonts/\(font)").path, sampleRate: Self.rate))
            var music: [Float] = []
            let file = try MIDIFile.read(path: root.appendingPathComponent("Tests/Fixtures/midi/\(song).mid").path)
            renderer.render(file) { block in
                if music.count < 2 * 48_000 * 40 { music.append(contentsOf: block) }
            }
            let mono = SignalAnalysis.channel(0, of: music, channelCount: 2)
            // Straight in at full level, and through a room loop of gain 0.7.
            let straight = Self.playedIntoTheMicrophone(mono)
            XCTAssertGreaterThanOrEqual(straight.deepestNotch, -3, "\(song) played into the microphone")
            XCTAssertEqual(straight.feedback.ducks, 0, "\(song) played into the microphone")
            let looped = Self.simulateLoop(loopGain: 0.7, seconds: Double(mono.count) / Self.rate, suppressorOn: true, volume: 1, music: mono)
            XCTAssertGreaterThanOrEqual(looped.deepestNotch, -3, "\(song) with a room loop of gain 0.7")
            XCTAssertEqual(looped.feedback.ducks, 0, "\(song) with a room loop of gain 0.7")
            print("feedback: \(song): \(String(format: "%.1f", Double(mono.count) / Self.rate)) s; deepest notch \(straight.deepestNotch) dB straight in, \(looped.deepestNotch) dB in the loop; no duck")
        }
    }

    /// A singer's or a sax player's swell (15 dB over 200 ms, harmonics, with and without
    /// vibrato, to −15 dBFS), a tone with a 2 Hz tremolo, a held pure note and piano notes, played
    /// into the microphone: no notch deeper than 3 dB, no duck. (The guard before the suppressor
    /// ducked the first two by 24 dB.)
    func testSwellsVibratoAndTremoloAreNeverTakenForFeedback() {
        var cases: [(String, [Float])] = []
        for hertz in [196.0, 440.0, 660.0] {
            for vibrato in [false, true] {
                cases.append(("swell at \(Int(hertz)) Hz\(vibrato ? " with vibrato" : "")", MusicalSignals.swell(fundamental: hertz, vibrato: vibrato, heldFirst: false)))
            }
        }
        cases += [("440 Hz with a 2 Hz tremolo", MusicalSignals.tremolo()), ("a held pure 440 Hz", MusicalSignals.heldNote()),
                  ("piano notes", MusicalSignals.pianoNotes())]
        for (name, signal) in cases {
            // A phrase: the gesture four times over, as notes 4-8 of such a phrase once fell under an older guard.
            let phrase = Array([[Float]](repeating: signal, count: 4).joined())
            let outcome = Self.playedIntoTheMicrophone(phrase)
            XCTAssertGreaterThanOrEqual(outcome.deepestNotch, -3, name)
            XCTAssertEqual(outcome.feedback.ducks, 0, name)
            let level = { (part: Int) in Self.rmsDecibels(outcome.output[(part * signal.count)..<((part + 1) * signal.count)]) }
            XCTAssertEqual(level(3), level(0), accuracy: 1, "\(name): the last gesture as loud as the first")
            print("feedback: \(name), four times: deepest notch \(outcome.deepestNotch) dB, no duck; first \(String(format: "%.1f", level(0))) dBFS, last \(String(format: "%.1f", level(3))) dBFS")
        }
    }

    /// `signal` through the chain as the microphone (volume 1), watching the suppressor block by block.
    static func playedIntoTheMicrophone(_ signal: [Float]) -> LoopOutcome {
        let engine = makeEngine(volume: 1)
        var outcome = LoopOutcome()
        signal.withUnsafeBufferPointer { input in
            engine.renderOffline(frameCount: signal.count, input: input, inputChannelCount: 1) { block in
                for frame in stride(from: 0, to: block.count, by: 2) { outcome.output.append(block[frame]) }
                outcome.deepestNotch = min(outcome.deepestNotch, engine.renderer.feedback.deepestNotchDecibels)
            }
        }
        outcome.feedback = engine.renderer.feedback
        return outcome
    }
}
