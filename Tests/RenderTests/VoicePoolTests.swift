import DSP
import Engine
@testable import Render
import TestSupport
import XCTest

/// The indexes a note-on goes through — the pool's steal-score tournament and chains of sounding
/// voices per note, against what a scan of every voice finds through a long random run of note-ons,
/// releases, fades and rendered blocks; the bank's velocity ranges beside each key's regions — and
/// the same-note and note-off paths through the engine.
final class VoicePoolTests: XCTestCase {
    /// A small deterministic generator (SplitMix64), so a failure replays.
    struct Generator {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
    }

    /// The victim a scan of every voice picks: the highest score, the first of equals (free voices
    /// score +infinity).
    func scannedVictim(_ pool: VoicePool) -> Int {
        var best = 0
        var bestScore = -Float.infinity
        for index in 0..<pool.capacity {
            let voice = pool.voices + index
            let score = voice.pointee.isActive ? pool.stealScore(voice, ageReference: pool.ageReference, newestSerial: pool.nextSerial) : .infinity
            if score > bestScore {
                bestScore = score
                best = index
            }
        }
        return best
    }

    func chainedVoices(_ pool: inout VoicePool, channel: UInt8, key: UInt8) -> [Int] {
        var found: [Int] = []
        var index = pool.firstSoundingVoice(channel: channel, key: key)
        while index < pool.capacity {
            found.append(index)
            index = pool.nextSoundingVoice(after: index)
        }
        return found.sorted()
    }

    func scannedVoices(_ pool: VoicePool, channel: UInt8, key: UInt8) -> [Int] {
        (0..<pool.capacity).filter {
            pool.voices[$0].isActive && !pool.voices[$0].isReleased && pool.voices[$0].channel == channel && pool.voices[$0].key == key
        }
    }

    func testTournamentAndChainsAgreeWithAScanOfEveryVoice() {
        let rate = 48_000.0
        // Not a power of two, so the tournament has padding leaves; few keys, so notes repeat.
        var pool = VoicePool(capacity: 37, fadeCapacity: 4)
        defer { pool.deallocate() }
        let samples = UnsafeMutablePointer<Float>.allocate(capacity: 1_000)
        samples.initialize(repeating: 0.5, count: 1_000)
        defer { samples.deallocate() }
        var region = SamplerRegion()
        region.start = 8
        region.end = 990
        region.volumeEnvelope.release = 0.1
        var generator = Generator(state: 7)
        let context = VoiceStartContext()
        var victimsChecked = 0
        var stolenBefore = 0
        for step in 0..<20_000 {
            switch generator.next(10) {
            case 0..<5:
                // A note-on: the pool's victim, started as the sampler starts it.
                pool.validateKeys()
                let expected = scannedVictim(pool)
                let acquired = pool.acquire(sampleRate: rate)
                XCTAssertEqual(acquired.voice - pool.voices, expected, "step \(step)")
                if stolenBefore != pool.stolenCount { victimsChecked += 1 }
                stolenBefore = pool.stolenCount
                let channel = UInt8(generator.next(3))
                let key = UInt8(60 + generator.next(4))
                region.attenuationCentibels = Float(generator.next(400))
                withUnsafePointer(to: region) { region in
                    acquired.voice.pointee.start(region: region, samples: SampleFrames(base: samples, encoding: .float32), modulators: context.modulators, key: key,
                                                 velocity: UInt8(1 + generator.next(127)), channel: channel,
                                                 state: context.channel, engineRate: rate)
                }
                acquired.voice.pointee.isPercussion = generator.next(8) == 0
                pool.refreshKey(acquired.voice - pool.voices)
            case 5:
                let index = generator.next(pool.capacity)
                if pool.voices[index].isActive { pool.release(index) }
            case 6:
                let index = generator.next(pool.capacity)
                if pool.voices[index].isActive { pool.fadeOut(index, sampleRate: rate) }
            case 7:
                // A note-off through the chain, as the sampler walks it.
                var index = pool.firstSoundingVoice(channel: UInt8(generator.next(3)), key: UInt8(60 + generator.next(4)))
                while index < pool.capacity {
                    let next = pool.nextSoundingVoice(after: index)
                    pool.release(index)
                    index = next
                }
            default:
                // A rendered block, now and then two with no note event between them: levels move and
                // some voices end, behind the pool's back, and the active bound comes down to the
                // voices that were sounding, as rendering sets it.
                for _ in 0..<(generator.next(4) == 0 ? 2 : 1) {
                    var bound = 0
                    for index in 0..<pool.capacity where pool.voices[index].isActive {
                        XCTAssertLessThan(index, pool.activeBound, "step \(step): an active voice past the bound")
                        bound = index + 1
                        _ = pool.voices[index].volumeEnvelope.advance(by: 64 * generator.next(4))
                        if generator.next(30) == 0 { pool.voices[index].isActive = false }
                    }
                    pool.activeBound = bound
                    pool.keysValid = false
                }
            }
            for channel: UInt8 in 0..<3 {
                for key: UInt8 in 60..<64 {
                    XCTAssertEqual(chainedVoices(&pool, channel: channel, key: key), scannedVoices(pool, channel: channel, key: key),
                                   "step \(step), channel \(channel), key \(key)")
                }
            }
        }
        XCTAssertGreaterThan(victimsChecked, 3_000, "thousands of checks chose among sounding voices, not free ones")
        XCTAssertEqual(pool.firstSoundingVoice(channel: 200, key: 60), pool.capacity, "a channel no voice can play has no chain")
    }

    func testLevelSkipsOnlyVoicesThatHaveNotRendered() {
        var voice = SamplerVoice()
        var region = SamplerRegion()
        region.attenuationCentibels = 60
        let samples = UnsafeMutablePointer<Float>.allocate(capacity: 64)
        samples.initialize(repeating: 0, count: 64)
        defer { samples.deallocate() }
        let context = VoiceStartContext()
        withUnsafePointer(to: region) {
            voice.start(region: $0, samples: SampleFrames(base: samples, encoding: .float32), modulators: context.modulators, key: 60, velocity: 100, channel: 0,
                        state: context.channel, engineRate: 48_000)
        }
        XCTAssertEqual(voice.currentLevel, 0)
        _ = voice.volumeEnvelope.advance(by: 64)
        XCTAssertGreaterThan(voice.currentLevel, 0.1)
        XCTAssertEqual(voice.currentLevel, voice.volumeEnvelope.currentValue * voice.fadeGain * centibelsToAmplitude(voice.attenuationCentibels))
    }

    func testEnvelopeKeyScaling() {
        var envelope = SamplerRegion.Envelope()
        envelope.hold = 0.4
        envelope.decay = 2
        XCTAssertEqual(envelope.hold(key: 90), 0.4, "no scaling: the time itself")
        XCTAssertEqual(envelope.decay(key: 20), 2)
        envelope.holdKeyScalingTimecents = 100
        envelope.decayKeyScalingTimecents = -50
        // 12 keys above 60 at 100 timecents a key: an octave of timecents, half the time.
        XCTAssertEqual(envelope.hold(key: 72), 0.2, accuracy: 1e-9)
        XCTAssertEqual(envelope.hold(key: 48), 0.8, accuracy: 1e-9)
        XCTAssertEqual(envelope.decay(key: 84), 4, accuracy: 1e-9)
        XCTAssertEqual(envelope.hold(key: 60), 0.4)
    }

    func engine(voices: Int) -> Engine {
        let bank = SyntheticBank.sine { $0.volumeEnvelope.release = 0.01 }
        let engine = Engine(configuration: EngineConfiguration(render: RenderConfiguration(sampleRate: SyntheticBank.rate, voiceCount: voices,
                                                                                           outputLimiter: false, songGainDecibels: 0)))
        XCTAssertTrue(engine.install(bank))
        return engine
    }

    func render(_ engine: Engine, frames: Int) {
        _ = engine.renderOffline(frameCount: frames, blockFrameCount: 64)
    }

    func testNoteOffOfAnEndedNoteLeavesTheVoiceThatReplacedItAlone() {
        let engine = engine(voices: 2)
        engine.send(midi: .noteOn(channel: 0, key: 60, velocity: 100))
        engine.send(midi: .noteOn(channel: 0, key: 61, velocity: 100))
        render(engine, frames: 640)
        engine.send(midi: .noteOff(channel: 0, key: 60, velocity: 64))
        render(engine, frames: 4_800)
        XCTAssertEqual(engine.renderer.statistics.activeVoices, 1, "60 ended after its release")
        // 62 takes 60's voice; a second note-off of 60 must not find it.
        engine.send(midi: .noteOn(channel: 0, key: 62, velocity: 100))
        render(engine, frames: 640)
        engine.send(midi: .noteOff(channel: 0, key: 60, velocity: 64))
        render(engine, frames: 4_800)
        XCTAssertEqual(engine.renderer.statistics.activeVoices, 2)
        engine.send(midi: .noteOff(channel: 0, key: 62, velocity: 64))
        engine.send(midi: .noteOff(channel: 0, key: 61, velocity: 64))
        render(engine, frames: 4_800)
        XCTAssertEqual(engine.renderer.statistics.activeVoices, 0)
        XCTAssertEqual(engine.renderer.statistics.stolenVoices, 0)
    }

    func testRetriggerReleasesTheOldVoiceAndNoteOffReleasesBoth() {
        let engine = engine(voices: 8)
        engine.send(midi: .controlChange(channel: 1, controller: 64, value: 127))
        engine.send(midi: .noteOn(channel: 1, key: 60, velocity: 100))
        engine.send(midi: .noteOn(channel: 2, key: 60, velocity: 100))
        render(engine, frames: 640)
        engine.send(midi: .noteOff(channel: 1, key: 60, velocity: 64))
        // Struck again while the pedal holds it: the held voice releases and rings out.
        engine.send(midi: .noteOn(channel: 1, key: 60, velocity: 100))
        render(engine, frames: 4_800)
        XCTAssertEqual(engine.renderer.statistics.activeVoices, 2, "the old voice of channel 1 ended; channel 2's is another note")
        engine.send(midi: .noteOn(channel: 1, key: 60, velocity: 100))
        render(engine, frames: 64)
        engine.send(midi: .noteOn(channel: 1, key: 60, velocity: 100))
        render(engine, frames: 64)
        XCTAssertEqual(engine.renderer.statistics.activeVoices, 4, "two retriggers: two voices releasing, one sounding")
        render(engine, frames: 4_800)
        XCTAssertEqual(engine.renderer.statistics.activeVoices, 2)
        engine.send(midi: .noteOff(channel: 1, key: 60, velocity: 64))
        render(engine, frames: 4_800)
        XCTAssertEqual(engine.renderer.statistics.activeVoices, 2, "the pedal holds it")
        engine.send(midi: .controlChange(channel: 1, controller: 64, value: 0))
        render(engine, frames: 4_800)
        XCTAssertEqual(engine.renderer.statistics.activeVoices, 1, "only channel 2's note is left")
    }

    /// Velocity layers of one key range: a note starts the layers its velocity falls in, and only those.
    func testANoteStartsTheVelocityLayersItFallsIn() throws {
        let sine = SyntheticBank.sine(frequency: 440, rootKey: 69)
        var soft = sine.regions[0], loud = sine.regions[0], middle = sine.regions[0]
        soft.highVelocity = 63
        loud.lowVelocity = 64
        loud.rootKey -= 12  // an octave up: 880 Hz at key 69
        middle.lowVelocity = 60
        middle.highVelocity = 70
        middle.lowKey = 60
        let bank = SampleBank(name: "layers", samples: sine.samples[0..<sine.samples.frameCount], regions: [soft, loud, middle],
                              presets: [SampleBank.Preset(bank: 0, program: 0, firstRegion: 0, regionCount: 3)], presetNames: ["Layers"])
        for (key, velocity, voices) in [(69, 1, 1), (69, 59, 1), (69, 60, 2), (69, 63, 2), (69, 64, 2), (69, 70, 2), (69, 71, 1), (69, 127, 1), (59, 62, 1)] {
            let engine = Engine(configuration: EngineConfiguration(render: RenderConfiguration(sampleRate: SyntheticBank.rate, outputLimiter: false, songGainDecibels: 0)))
            XCTAssertTrue(engine.install(bank))
            engine.send(midi: .noteOn(channel: 0, key: UInt8(key), velocity: UInt8(velocity)))
            let samples = SignalAnalysis.channel(0, of: engine.renderOffline(frameCount: 9_600, blockFrameCount: 64), channelCount: 2)
            XCTAssertEqual(engine.renderer.statistics.activeVoices, voices, "key \(key), velocity \(velocity)")
            if voices == 1 && key == 69 {
                let expected: Double = velocity < 64 ? 440 : 880
                XCTAssertEqual(try XCTUnwrap(SignalAnalysis.frequency(of: samples[4_800...], sampleRate: SyntheticBank.rate)), expected,
                               accuracy: 1, "velocity \(velocity)")
            }
        }
    }
}

/// The default modulators and a channel at power-on, for starting a voice outside a sampler.
final class VoiceStartContext {
    let modulators: UnsafePointer<SamplerModulator>
    let controllers = UnsafeMutablePointer<UInt8>.allocate(capacity: MIDILimits.controllerCount)
    let keyPressures = UnsafeMutablePointer<UInt8>.allocate(capacity: MIDILimits.keyCount)
    let state = UnsafeMutablePointer<ChannelState>.allocate(capacity: 1)
    var channel: UnsafePointer<ChannelState> { UnsafePointer(state) }

    init() {
        let table = UnsafeMutablePointer<SamplerModulator>.allocate(capacity: SamplerModulator.defaults.count)
        table.initialize(from: SamplerModulator.defaults, count: SamplerModulator.defaults.count)
        modulators = UnsafePointer(table)
        state.initialize(to: ChannelState(index: 0, controllers: controllers, keyPressures: keyPressures))
    }

    deinit {
        UnsafeMutablePointer(mutating: modulators).deallocate()
        state.deallocate()
        controllers.deallocate()
        keyPressures.deallocate()
    }
}
