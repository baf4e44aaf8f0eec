import Engine
import Render

/// The notes every sampler benchmark holds: the 15 melodic channels (channel 10 is the drum kit's)
/// in turn, then the next key. The piano's 88 keys come first, then the other keys the font plays:
/// a key struck again on its channel releases the note already there, so the voice count would fall.
/// Every channel plays `program` of `bank` (0:0, the piano, unless a benchmark is told otherwise):
/// a program whose notes layer more voices holds more voices with the same notes.
struct HeldNotes {
    static let melodicChannels: [UInt8] = (0..<MIDILimits.channelCount).map(UInt8.init).filter { $0 != GeneralMIDI.percussionChannel }
    static let keyOrder: [UInt8] = Array(21...108) + Array(0...20) + Array(109...127)

    /// Voices one note of each key starts (its regions at velocity 100), found by playing the font.
    let voicesPerKey: [Int]
    /// The keys the font plays, in `keyOrder`.
    let keys: [UInt8]
    /// The program every melodic channel plays, and its bank.
    let program: UInt8, bank: UInt8

    /// Plays each key once on a pool large enough for all of them and counts the voices each adds
    /// (no voice can end within the block that starts it: nothing is released).
    init(bank: SampleBank, program: (bank: UInt8, program: UInt8) = (0, 0)) {
        self.program = program.program
        self.bank = program.bank
        let engine = Engine(configuration: EngineConfiguration(render: RenderConfiguration(maxFrameCount: 64, voiceCount: 4_096)))
        engine.install(bank)
        engine.send(midi: .controlChange(channel: 0, controller: 0, value: program.bank))
        engine.send(midi: .programChange(channel: 0, program: program.program))
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 128)
        defer { buffer.deallocate() }
        engine.renderer.render(into: buffer, frameCount: 64)
        var voices = Array(repeating: 0, count: 128)
        for key in 0..<128 {
            let before = engine.renderer.statistics.activeVoices
            engine.send(midi: .noteOn(channel: 0, key: UInt8(key), velocity: 100))
            engine.renderer.render(into: buffer, frameCount: 64)
            voices[key] = engine.renderer.statistics.activeVoices - before
        }
        engine.processEvents()
        voicesPerKey = voices
        keys = HeldNotes.keyOrder.filter { voices[Int($0)] > 0 }
    }

    /// Notes that all sound at once: each (channel, key) once.
    var distinctCount: Int { HeldNotes.melodicChannels.count * keys.count }
    /// Voices all distinct notes sound together.
    var distinctVoiceCount: Int { HeldNotes.melodicChannels.count * keys.reduce(0) { $0 + voicesPerKey[Int($1)] } }

    func note(_ index: Int) -> (channel: UInt8, key: UInt8) {
        let channels = HeldNotes.melodicChannels
        return (channels[index % channels.count], keys[(index / channels.count) % keys.count])
    }

    /// Voices notes `indices` start together.
    func voiceCount(_ indices: Range<Int>) -> Int { indices.reduce(0) { $0 + voicesPerKey[Int(note($1).key)] } }

    /// The program on every melodic channel, and the sustain pedal down, so held notes ring as
    /// long as the samples do.
    func prepare(_ engine: Engine) {
        for channel in HeldNotes.melodicChannels {
            engine.send(midi: .controlChange(channel: channel, controller: 0, value: bank))
            engine.send(midi: .programChange(channel: channel, program: program))
            engine.send(midi: .controlChange(channel: channel, controller: 64, value: 127))
        }
    }

    /// Queues note-ons for notes `indices` at velocity 100 (the SF2 velocity-to-filter modulator
    /// engages the low-pass on every voice). Returns how many the command ring refused.
    @discardableResult
    func strike(_ engine: Engine, _ indices: Range<Int>) -> Int {
        var refused = 0
        for index in indices {
            let (channel, key) = note(index)
            if !engine.send(midi: .noteOn(channel: channel, key: key, velocity: 100)) { refused += 1 }
        }
        return refused
    }
}
