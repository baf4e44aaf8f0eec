@testable import FeedbackSuppression
@testable import DSP
import AudioAnalysis
import TestSupport
import Foundation
import XCTest

final class FeedbackSuppressorTests: XCTestCase {
    let rate = 48_000.0

    struct Outcome {
        var deepest: Float = 0  // the deepest notch gain seen, dB (≤ 0)
        var ducks = 0
        var notchEvents = 0
        var output: [Float] = []
        var notches: [(hertz: Float, depthDecibels: Float)] = []
    }

    /// Feeds `signal` (mono, on both channels) into `suppressor` in blocks of the given sizes
    /// (cycled); after every block `afterBlock` sees the suppressor and the frames fed so far, and
    /// returns false to stop there. Returns the output fed (the channels' mean).
    @discardableResult
    static func feed(_ signal: [Float], into suppressor: inout FeedbackSuppressor, blockSizes: [Int] = [64],
                     afterBlock: (FeedbackSuppressor, Int) -> Bool = { _, _ in true }) -> [Float] {
        var left = signal, right = signal
        var position = 0, turn = 0
        left.withUnsafeMutableBufferPointer { l in right.withUnsafeMutableBufferPointer { r in
            while position < signal.count {
                let count = min(blockSizes[turn % blockSizes.count], signal.count - position)
                turn += 1
                suppressor.process(left: l.baseAddress! + position, right: r.baseAddress! + position, frameCount: count)
                position += count
                guard afterBlock(suppressor, position) else { break }
            }
        } }
        return zip(left[..<position], right[..<position]).map { ($0 + $1) * 0.5 }
    }

    /// Plays `signal` straight into a fresh suppressor (`feed`), watching the deepest notch after
    /// every block.
    func play(_ signal: [Float], blockSizes: [Int] = [64]) -> Outcome {
        var suppressor = FeedbackSuppressor(sampleRate: rate)
        defer { suppressor.deallocate() }
        var outcome = Outcome()
        outcome.output = Self.feed(signal, into: &suppressor, blockSizes: blockSizes) { suppressor, _ in
            outcome.deepest = min(outcome.deepest, suppressor.deepestNotchDecibels)
            return true
        }
        outcome.ducks = suppressor.duckCount
        outcome.notchEvents = suppressor.notchedFrequencyCount
        for index in 0..<FeedbackSuppressor.maximumNotchCount where suppressor.notch(at: index).depthDecibels < 0 {
            outcome.notches.append(suppressor.notch(at: index))
        }
        return outcome
    }

    func testMusicDoesNotSetItOff() {
        var cases: [(String, [Float], Float)] = []  // name, signal, the deepest notch allowed
        for f0 in [196.0, 330.0, 440.0, 660.0] {
            for vibrato in [false, true] {
                for held in [false, true] {
                    cases.append(("(a) swell \(Int(f0)) Hz\(vibrato ? " vibrato" : "")\(held ? " after a held note" : " from the onset")",
                                  MusicalSignals.swell(fundamental: f0, vibrato: vibrato, heldFirst: held), 0))
                }
            }
        }
        cases.append(("(b) 440 Hz, 2 Hz tremolo 12 dB, 4 s", MusicalSignals.tremolo(), 0))
        cases.append(("(c) held pure 440 Hz, 2 s at -12 dBFS", MusicalSignals.heldNote(), -3))
        cases.append(("(d) piano-like notes", MusicalSignals.pianoNotes(), 0))
        for (name, signal, allowed) in cases {
            let outcome = play(signal)
            print(String(format: "music %@: deepest notch %.1f dB, ducks %d, notch events %d",
                         name, outcome.deepest, outcome.ducks, outcome.notchEvents))
            XCTAssertGreaterThanOrEqual(outcome.deepest, max(allowed, -3), name)
            XCTAssertEqual(outcome.ducks, 0, name)
        }
    }

    func testAGrowingHowlIsNotchedWhereItIs() {
        for hertz in [150.0, 1_000.0, 3_100.0] {
            let outcome = play(MusicalSignals.growingTone(hertz: hertz, decibelsPerSecond: 40, seconds: 2.5))
            print(String(format: "open-loop howl at %.0f Hz (40 dB/s): notches %@, ducks %d", hertz,
                         outcome.notches.map { String(format: "%.1f Hz %.0f dB", $0.hertz, $0.depthDecibels) }.joined(separator: ", "),
                         outcome.ducks))
            XCTAssertFalse(outcome.notches.isEmpty)
            if let first = outcome.notches.first {
                XCTAssertLessThan(abs(log2(Double(first.hertz) / hertz)), 1.0 / 40, "within a quarter of the bandwidth")
            }
        }
    }

    /// A loop a fraction of a decibel past its edge with a short round trip (a resonant object
    /// near the microphone) grows 3-4 dB a hop. It is notched on the straight line of its raw
    /// level while still more than 24 dB under the ceiling; the lagging lower envelope alone
    /// notched it at -15 dBFS.
    func testAFastHowlIsNotchedLongBeforeTheCeiling() throws {
        for hertz in [700.0, 2_900.0] {
            let decibelsPerSecond = 150.0
            let signal = MusicalSignals.growingTone(hertz: hertz, decibelsPerSecond: decibelsPerSecond, seconds: 0.6)
            var suppressor = FeedbackSuppressor(sampleRate: rate)
            defer { suppressor.deallocate() }
            var notchedAt: Int?
            Self.feed(signal, into: &suppressor) { suppressor, position in
                if suppressor.activeNotchCount > 0 { notchedAt = position }
                return notchedAt == nil
            }
            let frame = try XCTUnwrap(notchedAt, "a howl at \(hertz) Hz growing \(decibelsPerSecond) dB/s is notched")
            let levelThen = -60 + decibelsPerSecond * Double(frame) / rate
            let notch = suppressor.notch(at: 0)
            print(String(format: "fast howl at %.0f Hz (%.0f dB/s): notched at %.0f ms, the tone then at %.1f dBFS; notch %.1f Hz %.0f dB",
                         hertz, decibelsPerSecond, Double(frame) / rate * 1_000, levelThen, notch.hertz, notch.depthDecibels))
            XCTAssertLessThan(levelThen, -25, "notched well under the ceiling")
            XCTAssertLessThan(abs(log2(Double(notch.hertz) / hertz)), 1.0 / 40, "within a quarter of the bandwidth")
        }
    }

    /// A notch whose release had begun and which the loop then made deepen again holds a loop
    /// that is still there: it holds four times longer (16 s) before releasing again, as one
    /// placed where another was released does, instead of releasing into the howl after 4 s.
    func testANotchDeepenedAgainDuringItsReleaseHoldsLonger() {
        var suppressor = FeedbackSuppressor(sampleRate: rate)
        defer { suppressor.deallocate() }
        func play(_ signal: [Float]) { Self.feed(signal, into: &suppressor) }
        func quiet(seconds: Double) -> [Float] {
            var generator = SeededGenerator(state: 3)
            return (0..<Int(seconds * rate)).map { _ in Float.random(in: -0.0001...0.0001, using: &generator) }
        }
        suppressor.place(hertz: 1_000, steps: 3)
        play(quiet(seconds: 5.5))
        let released = suppressor.notch(at: 0).depthDecibels
        XCTAssertGreaterThan(released, -9, "the release has begun after 4 s of quiet")
        play(MusicalSignals.growingTone(hertz: 1_000, decibelsPerSecond: 40, seconds: 0.6))
        let deepened = suppressor.notch(at: 0).depthDecibels
        XCTAssertLessThan(deepened, released, "the loop coming back deepens the notch")
        play(quiet(seconds: 8))
        let held = suppressor.notch(at: 0).depthDecibels
        print(String(format: "notch at 1 kHz: -9 dB placed, %.1f dB after 5.5 s of quiet, %.1f dB as the loop came back, %.1f dB after 8 s more", released, deepened, held))
        XCTAssertLessThanOrEqual(held, deepened, "held through 8 s of quiet, not released")
    }

    /// A pure note that swells by a tremolo's 12 dB after it has been held is notched by the
    /// growth rules (its growth counted from the onset below the held level), but the note then
    /// held for 3 s at the notch does not deepen it: the tone had stopped rising when the notch
    /// stepped and never fell after, which a loop the step had stopped would have, so its holding
    /// steady is no loop ringing at a gain of 1.
    func testAHeldPureNoteIsNotNotchedDeeperAndDeeperWhileItHolds() {
        for (rise, speed) in [(11.0, 150.0), (12.0, 60.0), (12.0, 100.0), (12.0, 150.0)] {
            let outcome = play(MusicalSignals.pureSwell(hertz: 1_000, riseDecibels: rise, decibelsPerSecond: speed, holdSeconds: 3))
            print(String(format: "1 kHz swelling %.0f dB at %.0f dB/s, then held 3 s: deepest notch %.1f dB, ducks %d", rise, speed,
                         outcome.deepest, outcome.ducks))
            XCTAssertLessThan(outcome.deepest, 0, "\(rise) dB at \(speed) dB/s: notched, as the growth rules do")
            XCTAssertGreaterThanOrEqual(outcome.deepest, -3, "\(rise) dB at \(speed) dB/s: not deepened while held")
            XCTAssertEqual(outcome.ducks, 0)
        }
    }

    /// A pure note held for 6 s (a flute, a whistle) holds one pitch and level long enough to be
    /// probed as a loop ringing at its edge would be: one step of 3 dB, which the note goes on
    /// through unchanged, so the probe goes again within a quarter of a second, and once only.
    func testALongHeldPureNoteMeetsOneShortProbe() {
        let seconds = 6.0
        let note = (0..<Int(seconds * rate)).map { n -> Float in
            let t = Double(n) / rate
            return Float(MusicalSignals.amplitude(-12) * min(1, t / 0.01) * sin(2 * Double.pi * 440 * t))
        }
        var suppressor = FeedbackSuppressor(sampleRate: rate)
        defer { suppressor.deallocate() }
        var notchedFrames = 0
        let output = Self.feed(note, into: &suppressor) { suppressor, _ in
            if suppressor.activeNotchCount > 0 { notchedFrames += 64 }
            return true
        }
        let lastSeconds = Int(2 * rate)
        let change = 20 * log10(Double(SignalAnalysis.rms(output.suffix(lastSeconds)) / SignalAnalysis.rms(note.suffix(lastSeconds))))
        print(String(format: "held pure 440 Hz for %.0f s: %d notch events, notched for %.0f ms, level in the last 2 s %+.2f dB",
                     seconds, suppressor.notchedFrequencyCount, Double(notchedFrames) / rate * 1_000, change))
        XCTAssertLessThanOrEqual(suppressor.notchedFrequencyCount, 1, "probed once at most")
        XCTAssertLessThanOrEqual(Double(notchedFrames) / rate, 0.4, "the probe goes within a quarter of a second, with its ramps")
        XCTAssertEqual(suppressor.activeNotchCount, 0)
        XCTAssertEqual(change, 0, accuracy: 0.05, "the note is untouched after the probe")
        XCTAssertEqual(suppressor.duckCount, 0)
    }

    /// A loop exactly at its edge (a PA room's speaker peaks, the Nyquist criterion's margin 0)
    /// does not grow: it rings at one frequency under the voice for seconds. The probe's step makes
    /// that ringing go, so the notch is a loop's and stays, through 10 s more of the voice at the
    /// same gain, and the loop with it in place has a margin again.
    func testALoopRingingAtItsEdgeIsProbedAndKeepsItsNotch() throws {
        let room = ResonantRoom(name: "PA, RT60 0.5 s", rt60: 0.5, resonances: [(180, 12, 8), (2_700, 12, 8)], seed: 2_301)
        var response = room.impulseResponse(sampleRate: rate)
        let peak = RoomImpulse.magnitudePeak(response)
        response = response.map { $0 / peak }
        let stability = LoopStability(response: response, latencyFrameCount: AcousticLoop.latencyFrameCount, sampleRate: rate)
        let edge = stability.margin(chain: LoopStability.Chain(gain: 1))
        let gain = Float(pow(10, Double(edge.decibels) / 20))  // margin 0: at the edge
        var suppressor = FeedbackSuppressor(sampleRate: rate)
        defer { suppressor.deallocate() }
        func run(seconds: Double, seed: UInt64) {
            let voice = SpeechLikeSignal.speechLike(seconds: seconds, sampleRate: rate, seed: seed, peakDecibels: -24)
            _ = AcousticLoop(response: response).run(voice: voice) { left, right, frameCount in
                for frame in 0..<frameCount { left[frame] *= gain; right[frame] *= gain }
                suppressor.process(left: left, right: right, frameCount: frameCount)
            }
        }
        func notches() -> [(hertz: Float, depthDecibels: Float)] {
            (0..<FeedbackSuppressor.maximumNotchCount).map { suppressor.notch(at: $0) }.filter { $0.depthDecibels < 0 }
        }
        run(seconds: 8, seed: 7)
        let first = notches()
        let atEdge = try XCTUnwrap(first.first { abs(log2(Double($0.hertz) / edge.hertz)) < 1.0 / 40 },
                                   "a notch within a quarter of its bandwidth of the edge's \(edge.hertz) Hz: \(first)")
        run(seconds: 10, seed: 8)
        let later = notches()
        let chain = LoopStability.Chain(gain: Double(gain), sections: later.map {
            FeedbackSuppressor.notchCoefficients(hertz: Double($0.hertz), depthDecibels: $0.depthDecibels, sampleRate: rate)
        })
        let margin = stability.margin(chain: chain)
        print(String(format: "loop at its edge at %.0f Hz: notched %.1f Hz %.0f dB; 10 s later %@; margin with them %.2f dB",
                     edge.hertz, atEdge.hertz, atEdge.depthDecibels,
                     later.map { String(format: "%.1f Hz %.0f dB", $0.hertz, $0.depthDecibels) }.joined(separator: ", "), margin.decibels))
        XCTAssertTrue(later.contains { $0.hertz == atEdge.hertz && $0.depthDecibels <= atEdge.depthDecibels }, "the loop's notch stays")
        XCTAssertGreaterThan(margin.decibels, 1, "the loop has a margin again")
        XCTAssertEqual(suppressor.duckCount, 0)
    }

    /// What a straight-line rise must not be taken from: pure tones faded in linearly in
    /// amplitude (their rise in dB slows every hop), and pure swells in a straight line in dB that
    /// stop short of the rule's 12 dB, however steep (150-250 dB/s: 3.2-5.3 dB a hop at 48 kHz).
    func testPureFadesAndShortPureSwellsAreNotTakenForAFastHowl() {
        var cases: [(String, [Float])] = []
        for attack in [0.05, 0.1, 0.15] {
            cases.append(("(e) 1 kHz faded in over \(Int(attack * 1_000)) ms", MusicalSignals.linearAttack(hertz: 1_000, attackSeconds: attack)))
        }
        for (rise, speed) in [(6.0, 250.0), (9.0, 150.0), (9.0, 250.0)] {
            cases.append((String(format: "(f) 1 kHz swelling %.0f dB at %.0f dB/s", rise, speed),
                          MusicalSignals.pureSwell(hertz: 1_000, riseDecibels: rise, decibelsPerSecond: speed)))
        }
        for (name, signal) in cases {
            let outcome = play(signal)
            print(String(format: "%@: deepest notch %.1f dB, ducks %d", name, outcome.deepest, outcome.ducks))
            XCTAssertEqual(outcome.deepest, 0, name)
            XCTAssertEqual(outcome.ducks, 0, name)
        }
    }

    /// A pure tone that keeps rising is what a howl is, so the growth rules notch a whistle or a
    /// sine pad swelling into the microphone. But it goes on rising through the notch's first
    /// step, which a loop cannot (a step of 3 dB slows a loop by 3 dB a round trip), and holds
    /// its level after it, where a stopped loop dies away: so that step is the last. Faded in
    /// linearly over 0.2-2 s, or swelling 15-25 dB at 15-75 dB/s from -30 dBFS and held 2 s.
    func testAPureCrescendoIsNotchedOneStepAtMost() {
        var cases: [(String, [Float])] = []
        for attack in [0.2, 0.3, 0.5, 1.0, 2.0] {
            cases.append(("1 kHz faded in over \(attack) s", MusicalSignals.linearAttack(hertz: 1_000, attackSeconds: attack)))
        }
        for (rise, speed) in [(15.0, 15.0), (15.0, 30.0), (15.0, 75.0), (20.0, 20.0), (20.0, 40.0), (25.0, 25.0)] {
            for hertz in [440.0, 1_000.0] {
                cases.append((String(format: "%.0f Hz swelling %.0f dB at %.0f dB/s", hertz, rise, speed),
                              MusicalSignals.pureSwell(hertz: hertz, riseDecibels: rise, decibelsPerSecond: speed, holdSeconds: 2)))
            }
        }
        for (name, signal) in cases {
            let outcome = play(signal)
            print(String(format: "%@: deepest notch %.1f dB, ducks %d", name, outcome.deepest, outcome.ducks))
            XCTAssertGreaterThanOrEqual(outcome.deepest, -FeedbackSuppressor.stepDecibels, name)
            XCTAssertEqual(outcome.ducks, 0, name)
        }
    }

    func testNotchIsDeepAtItsCentreAndNarrow() {
        for hertz in [100.0, 440.0, 1_000.0, 4_000.0, 12_000.0] {
            for depth: Float in [3, 9, 18, 30] {
                let centre = FeedbackSuppressor.notchResponseDecibels(hertz: hertz, depthDecibels: -depth, at: hertz, sampleRate: rate)
                let above = FeedbackSuppressor.notchResponseDecibels(hertz: hertz, depthDecibels: -depth, at: hertz * pow(2, 0.2), sampleRate: rate)
                let below = FeedbackSuppressor.notchResponseDecibels(hertz: hertz, depthDecibels: -depth, at: hertz * pow(2, -0.2), sampleRate: rate)
                print(String(format: "notch %.0f Hz set to -%.0f dB: %.2f dB at f, %.2f dB at f·2^(1/5), %.2f dB at f·2^(-1/5)",
                             hertz, depth, centre, above, below))
                XCTAssertLessThanOrEqual(centre, Double(-depth) + 0.5)
                XCTAssertGreaterThanOrEqual(centre, Double(-depth) - 0.5)
                XCTAssertGreaterThan(above, -1)
                XCTAssertGreaterThan(below, -1)
            }
        }
    }

    /// The filter itself, not just its formula: a notch placed and settled, then sines through it.
    func testNotchFilterMeasures() {
        for hertz: Float in [440, 2_000] {
            var suppressor = FeedbackSuppressor(sampleRate: rate)
            defer { suppressor.deallocate() }
            suppressor.place(hertz: hertz, steps: 4)  // 12 dB
            func gain(at frequency: Double) -> Double {
                let count = 48_000
                var left = (0..<count).map { Float(1e-4 * sin(2 * Double.pi * frequency * Double($0) / rate)) }
                var right = left
                // Below the quietest level the detector looks at (−80 dBFS), so the notch only filters.
                left.withUnsafeMutableBufferPointer { l in right.withUnsafeMutableBufferPointer { r in
                    suppressor.process(left: l.baseAddress!, right: r.baseAddress!, frameCount: count)
                } }
                let tail = left.suffix(24_000)
                let rms = (tail.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(tail.count)).squareRoot()
                return 20 * log10(rms / (1e-4 / 2.0.squareRoot()))
            }
            let centre = gain(at: Double(hertz))
            let above = gain(at: Double(hertz) * pow(2, 0.2))
            let below = gain(at: Double(hertz) * pow(2, -0.2))
            print(String(format: "measured notch at %.0f Hz, -12 dB: %.2f dB at f, %.2f / %.2f dB at f·2^(±1/5)", hertz, centre, above, below))
            XCTAssertEqual(centre, -12, accuracy: 0.5)
            XCTAssertGreaterThan(above, -1)
            XCTAssertGreaterThan(below, -1)
        }
    }

    func testOutputIsIndependentOfBlockSize() {
        // Voice, a howl that gets notched, then a pinned broadband overload that is ducked.
        var signal = SpeechLikeSignal.speechLike(seconds: 3, peakDecibels: -20)
        let howl = MusicalSignals.growingTone(hertz: 1_234, decibelsPerSecond: 30, seconds: 3)
        for n in 0..<signal.count { signal[n] += howl[n] }
        var state: UInt64 = 5
        for _ in 0..<Int(0.8 * rate) {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let uniform = Float(state >> 40) / Float(1 << 24)
            signal.append((uniform * 2 - 1) * 1.2)
        }
        signal += SpeechLikeSignal.speechLike(seconds: 1, seed: 11, peakDecibels: -20)
        let reference = play(signal, blockSizes: [64])
        let odd = play(signal, blockSizes: [17, 100, 1])
        let single = play(signal, blockSizes: [1])
        print("block-size independence: notch events \(reference.notchEvents), ducks \(reference.ducks)")
        XCTAssertGreaterThan(reference.notchEvents, 0, "the run must exercise the notches")
        XCTAssertGreaterThan(reference.ducks, 0, "the run must exercise the duck")
        let sameOdd = reference.output.elementsEqual(odd.output) { $0.bitPattern == $1.bitPattern }
        let sameSingle = reference.output.elementsEqual(single.output) { $0.bitPattern == $1.bitPattern }
        print("bit-identical 64 vs 17/100/1: \(sameOdd); 64 vs 1: \(sameSingle)")
        XCTAssertTrue(sameOdd)
        XCTAssertTrue(sameSingle)
    }
}
