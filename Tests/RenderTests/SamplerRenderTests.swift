import DSP
import Engine
import Render
import TestSupport
import XCTest

/// The sampler voice, allocator and MIDI channel logic on synthetic banks, rendered offline.
final class SamplerRenderTests: XCTestCase {
    let rate = 48_000.0

    func engine(voices: Int = 256, bank: SampleBank) -> Engine {
        // Dry and at unity gain: these tests look at the voices alone.
        let engine = Engine(configuration: EngineConfiguration(render: RenderConfiguration(sampleRate: rate, voiceCount: voices, outputLimiter: false, effects: false, songGainDecibels: 0)))
        XCTAssertTrue(engine.install(bank))
        return engine
    }

    func left(_ engine: Engine, frames: Int, block: Int = 64) -> [Float] {
        SignalAnalysis.channel(0, of: engine.renderOffline(frameCount: frames, blockFrameCount: block), channelCount: 2)
    }

    func testPitchWithinOneCentAtAndBetweenRoots() {
        for key: UInt8 in [69, 70, 64, 76, 57, 81] {
            let engine = engine(bank: SyntheticBank.sine(frequency: 440, rootKey: 69))
            engine.send(midi: .noteOn(channel: 0, key: key, velocity: 127))
            let samples = left(engine, frames: 48_000)
            let expected = 440 * pow(2, (Double(key) - 69) / 12)
            let measured = SignalAnalysis.frequency(of: samples[4_800...], sampleRate: rate)!
            XCTAssertLessThan(abs(1_200 * log2(measured / expected)), 1, "key \(key): \(measured) Hz, expected \(expected)")
        }
    }

    func testLoopHasNoDiscontinuity() {
        let engine = engine(bank: SyntheticBank.sine(frequency: 440, rootKey: 69, cycles: 20))
        engine.send(midi: .noteOn(channel: 0, key: 69, velocity: 127))
        let samples = left(engine, frames: 48_000)  // the 20-cycle loop wraps ~20 times
        let ownStep = SignalAnalysis.largestStep(samples[2_000..<3_000])
        XCTAssertLessThanOrEqual(SignalAnalysis.largestStep(samples[2_000...]), ownStep * 1.02)
    }

    func testEnvelopeStagesLastWhatTheRegionSays() {
        let bank = SyntheticBank.sine(frequency: 1_000, rootKey: 69) { region in
            region.volumeEnvelope.delay = 0.05
            region.volumeEnvelope.attack = 0.1
            region.volumeEnvelope.hold = 0.05
            region.volumeEnvelope.decay = 1.0        // 100 dB per second
            region.volumeEnvelope.sustainLevel = 0.1 // -20 dB: reached 0.2 s into the decay
            region.volumeEnvelope.release = 0.5      // 100 dB per 0.5 s
        }
        let engine = engine(bank: bank)
        engine.send(midi: .noteOn(channel: 0, key: 69, velocity: 127))
        engine.send(midi: .noteOff(channel: 0, key: 69, velocity: 64), at: 24_000)
        let samples = left(engine, frames: 48_000)
        // Peak level per 1 ms (48-frame) window.
        let envelope = stride(from: 0, to: samples.count - 48, by: 48).map { SignalAnalysis.largestAbs(samples[$0 ..< $0 + 48]) }
        let peak = envelope.max()!
        func firstWindow(from: Int = 0, where condition: (Float) -> Bool) -> Int { (from..<envelope.count).first { condition(envelope[$0]) }! }
        let delayEnd = firstWindow { $0 > peak * 0.01 }
        let attackEnd = firstWindow { $0 >= peak * 0.99 }
        let decayStart = firstWindow(from: attackEnd) { $0 < peak * 0.98 }
        let sustainReached = firstWindow(from: decayStart) { $0 <= peak * 0.1 * 1.02 }
        let releaseDown60 = firstWindow(from: 500) { $0 <= peak * 0.1 * 0.001 }  // 60 dB below sustain
        // One render block (64 frames = 1.3 ms) of tolerance, plus the 1 ms window.
        XCTAssertEqual(Double(delayEnd), 50, accuracy: 2.5, "delay ms")
        XCTAssertEqual(Double(attackEnd), 150, accuracy: 2.5, "delay + attack ms")
        XCTAssertEqual(Double(decayStart), 200, accuracy: 2.5, "+ hold ms")
        XCTAssertEqual(Double(sustainReached), 400, accuracy: 2.5, "decay to -20 dB takes 0.2 of the 1 s full-scale decay")
        XCTAssertEqual(Double(releaseDown60), 500 + 300, accuracy: 2.5, "release: 60 dB at 100 dB per 0.5 s")
    }

    func testNoteOffReleasesRatherThanCuts() {
        let engine = engine(bank: SyntheticBank.sine(frequency: 440, rootKey: 69))
        engine.send(midi: .noteOn(channel: 0, key: 69, velocity: 127))
        engine.send(midi: .noteOff(channel: 0, key: 69, velocity: 64), at: 9_600)
        let samples = left(engine, frames: 48_000)
        let before = SignalAnalysis.rms(samples[8_000..<9_600])
        XCTAssertGreaterThan(SignalAnalysis.rms(samples[9_600..<10_080]), before * 0.5, "still sounding 10 ms after note-off")
        XCTAssertGreaterThan(SignalAnalysis.rms(samples[9_600...]), 0)
        XCTAssertLessThan(SignalAnalysis.largestStep(samples[9_500..<9_700]), SignalAnalysis.largestStep(samples[8_000..<9_000]) * 1.02)
        XCTAssertEqual(engine.renderer.statistics.activeVoices, 0, "the voice ended after its release")
    }

    func testThousandNoteBurstDropsNothingAndNeverClicks() {
        let engine = engine(voices: 256, bank: SyntheticBank.sine(frequency: 220, rootKey: 57) { $0.volumeEnvelope.attack = 0.005 })
        // A chord is already ringing, so steals hit audible voices too.
        for key in 40..<100 { engine.send(midi: .noteOn(channel: 0, key: UInt8(key), velocity: 60)) }
        var samples = left(engine, frames: 4_800)
        // The 15 melodic channels × up to 69 keys: every note distinct, so none is a same-note retrigger.
        let melodic: [UInt8] = (0..<16).filter { $0 != 9 }.map(UInt8.init)
        for index in 0..<1_024 {
            engine.send(midi: .noteOn(channel: melodic[index % 15], key: UInt8(30 + index / 15), velocity: UInt8(1 + index % 127)), at: 4_810)
        }
        samples += left(engine, frames: 9_600)
        let stats = engine.renderer.statistics
        XCTAssertEqual(stats.noteOns, 60 + 1_024)
        XCTAssertEqual(stats.unmappedNotes, 0, "no note-on went without a voice")
        XCTAssertEqual(stats.activeVoices, 256)
        XCTAssertEqual(stats.hardCuts, 0)
        XCTAssertGreaterThan(stats.stolenVoices, 700)
        // Normal steps: the largest sample-to-sample change the music makes on its own, before the
        // burst and once the new notes have settled; the steals (and their 5 ms fades) must stay within it.
        let normal = max(SignalAnalysis.largestStep(samples[1_000..<4_800]), SignalAnalysis.largestStep(samples[6_000...]))
        XCTAssertLessThanOrEqual(SignalAnalysis.largestStep(samples[4_800..<6_000]), normal, "a steal made a step larger than the signal's own")
    }

    func testSustainPedalHoldsUntilReleased() {
        let engine = engine(bank: SyntheticBank.sine())
        engine.send(midi: .controlChange(channel: 0, controller: 64, value: 127))
        engine.send(midi: .noteOn(channel: 0, key: 69, velocity: 100))
        engine.send(midi: .noteOff(channel: 0, key: 69, velocity: 64), at: 4_800)
        engine.send(midi: .controlChange(channel: 0, controller: 64, value: 0), at: 24_000)
        let samples = left(engine, frames: 48_000)
        XCTAssertEqual(SignalAnalysis.rms(samples[20_000..<24_000]), SignalAnalysis.rms(samples[2_000..<4_800]), accuracy: 0.01, "held by the pedal")
        XCTAssertLessThan(SignalAnalysis.rms(samples[47_000...]), 0.001, "released with the pedal")
    }

    /// Sounding voices are found wherever they sit in the pool: the last voice of a full pool keeps
    /// sounding after every voice before it has ended, sounds beside a new note that takes the
    /// first voice, and ends at all-notes-off.
    func testVoiceAtTheEndOfThePoolSoundsAfterTheOthersEnd() {
        let engine = engine(voices: 8, bank: SyntheticBank.sine(frequency: 440, rootKey: 69))
        for key in 60..<68 { engine.send(midi: .noteOn(channel: 0, key: UInt8(key), velocity: 100)) }
        _ = left(engine, frames: 4_800)
        XCTAssertEqual(engine.renderer.statistics.activeVoices, 8)
        for key in 60..<67 { engine.send(midi: .noteOff(channel: 0, key: UInt8(key), velocity: 64)) }
        _ = left(engine, frames: 48_000)
        XCTAssertEqual(engine.renderer.statistics.activeVoices, 1, "the last voice of the pool still sounds")
        let lastNote = left(engine, frames: 9_600)
        XCTAssertEqual(SignalAnalysis.frequency(of: lastNote[...], sampleRate: rate)!, 440 * pow(2, -2.0 / 12), accuracy: 1, "key 67")
        engine.send(midi: .noteOn(channel: 0, key: 69, velocity: 100))
        _ = left(engine, frames: 4_800)
        XCTAssertEqual(engine.renderer.statistics.activeVoices, 2, "a new note in the first voice, beside the last")
        engine.send(midi: .controlChange(channel: 0, controller: 123, value: 0))
        let tail = left(engine, frames: 48_000)
        XCTAssertEqual(engine.renderer.statistics.activeVoices, 0)
        XCTAssertLessThan(SignalAnalysis.rms(tail[40_000...]), 0.001, "nothing left sounding")
    }

    func testAllNotesOffAllSoundOffAndResetControllers() {
        let engine = engine(bank: SyntheticBank.sine())
        engine.send(midi: .controlChange(channel: 0, controller: 64, value: 127))
        for key in [60, 64, 67] { engine.send(midi: .noteOn(channel: 0, key: UInt8(key), velocity: 100)) }
        engine.send(midi: .controlChange(channel: 0, controller: 123, value: 0), at: 4_800)
        var samples = left(engine, frames: 48_000)
        XCTAssertLessThan(SignalAnalysis.rms(samples[40_000...]), 0.001, "all notes off ends even pedal-held notes")

        for key in [60, 64, 67] { engine.send(midi: .noteOn(channel: 1, key: UInt8(key), velocity: 100)) }
        engine.send(midi: .controlChange(channel: 1, controller: 120, value: 0), at: engine.renderedFrameTime + 4_800)
        samples = left(engine, frames: 9_600)
        XCTAssertEqual(SignalAnalysis.rms(samples[5_100...]), 0, "all sound off: silent 5 ms later")

        engine.send(midi: .pitchBend(channel: 2, value: 16_383))
        engine.send(midi: .controlChange(channel: 2, controller: 121, value: 0))
        engine.send(midi: .noteOn(channel: 2, key: 69, velocity: 127))
        samples = left(engine, frames: 24_000)
        XCTAssertEqual(SignalAnalysis.frequency(of: samples[4_800...], sampleRate: rate)!, 440, accuracy: 0.3, "reset controllers centred the bend")
    }

    func testPitchBendFollowsRPNZeroRange() {
        let engine = engine(bank: SyntheticBank.sine())
        for (controller, value) in [(101, 0), (100, 0), (6, 12), (38, 0)] {
            engine.send(midi: .controlChange(channel: 0, controller: UInt8(controller), value: UInt8(value)))
        }
        engine.send(midi: .pitchBend(channel: 0, value: 16_383))
        engine.send(midi: .noteOn(channel: 0, key: 69, velocity: 127))
        let samples = left(engine, frames: 24_000)
        let measured = SignalAnalysis.frequency(of: samples[4_800...], sampleRate: rate)!
        let expected = 440 * pow(2, (12 * 8_191.0 / 8_192) / 12)
        XCTAssertLessThan(abs(1_200 * log2(measured / expected)), 1)
    }

    func testProgramChangeAndBankSwapFreeTheOldBankOffTheAudioThread() {
        final class Watch { weak var bank: SampleBank? }
        let watch = Watch()
        let engine: Engine
        do {
            let first = SyntheticBank.sine(frequency: 440)
            watch.bank = first
            engine = self.engine(bank: first)
        }
        engine.send(midi: .noteOn(channel: 0, key: 69, velocity: 127))
        _ = left(engine, frames: 4_800)
        XCTAssertNotNil(watch.bank, "the renderer holds the installed bank")
        XCTAssertTrue(engine.install(SyntheticBank.sine(frequency: 330)))
        engine.send(midi: .noteOff(channel: 0, key: 69, velocity: 64))
        _ = left(engine, frames: 4_800)
        XCTAssertNotNil(watch.bank, "still ringing out on the old bank")
        _ = left(engine, frames: 48_000)
        XCTAssertNil(watch.bank, "freed by processEvents once its last voice ended")

        // The drum channel in a bank without kits: no preset, so nothing sounds and nothing sticks
        // (a missing melodic program falls back to 0:0: PresetFallbackTests).
        engine.send(midi: .noteOn(channel: 9, key: 69, velocity: 127))
        XCTAssertEqual(SignalAnalysis.rms(left(engine, frames: 4_800)[...]), 0)
        XCTAssertEqual(engine.renderer.statistics.unmappedNotes, 1)
    }

    func testSampleAccurateNoteTiming() {
        for onset in [0, 1, 63, 100, 1_000] {
            let engine = engine(bank: SyntheticBank.sine())
            engine.send(midi: .noteOn(channel: 0, key: 69, velocity: 127), at: FrameTime(onset))
            let samples = left(engine, frames: 2_048)
            XCTAssertEqual(samples.firstIndex { $0 != 0 }, onset + 1, "onset \(onset)")
        }
    }

    /// The steady level (dB) of a 440 Hz note whose filter has `cutoffCents` and `resonance` cB.
    func filteredLevel(cutoffCents: Float, resonance: Float) -> Double {
        let bank = SyntheticBank.sine(frequency: 440, rootKey: 69) { region in
            region.filterCutoffCents = cutoffCents
            region.filterResonanceCentibels = resonance
        }
        let engine = engine(bank: bank)
        engine.send(midi: .noteOn(channel: 0, key: 69, velocity: 127))
        return 20 * log10(Double(SignalAnalysis.rms(left(engine, frames: 24_000)[4_800...])))
    }

    /// SF2.04 §8.1.3, initialFilterQ: "the gain at DC is reduced by half the specified gain": a
    /// 10 dB (100 cB) resonance plays the passband 5 dB down. A 440 Hz tone under an 8 kHz cutoff
    /// (13 100 cents) is in the passband; FluidSynth lowers it the same 5 dB from its 0 dB resonance.
    func testResonanceLowersThePassbandByHalfThePeakHeight() {
        let flat = filteredLevel(cutoffCents: 13_100, resonance: 0)
        XCTAssertEqual(filteredLevel(cutoffCents: 13_100, resonance: 100) - flat, -5, accuracy: 0.1)
        XCTAssertEqual(filteredLevel(cutoffCents: 13_100, resonance: 200) - flat, -10, accuracy: 0.1)
        XCTAssertEqual(flat, filteredLevel(cutoffCents: 13_500, resonance: 0), accuracy: 0.05,
                       "no resonance: the passband is at unity, filtered or not")
    }

    /// A cutoff so high the filter is otherwise skipped (13 500 cents, 19.9 kHz) still lowers a
    /// resonant voice's passband: the resonance's gain does not depend on where the cutoff is.
    func testResonanceLowersThePassbandWithTheCutoffWideOpen() {
        let flat = filteredLevel(cutoffCents: 13_500, resonance: 0)
        XCTAssertEqual(filteredLevel(cutoffCents: 13_500, resonance: 100) - flat, -5, accuracy: 0.1)
    }
}
