import DSP
import Engine
import Glibc
import Render

/// The demo until the sampler lands: a broken C-major chord and a cadence on the test-tone
/// instrument, every note stamped with its frame so the timing is sample-accurate.
enum Demo {
    /// Queues the demo's notes and returns its length in frames.
    static func schedule(on engine: Engine) -> Int {
        let rate = engine.sampleRate
        // (MIDI note, start beat, length in beats) at 120 beats per minute.
        let notes: [(UInt8, Double, Double)] = [
            (60, 0, 4), (64, 0.5, 3.5), (67, 1, 3), (72, 1.5, 2.5),
            (65, 4, 2), (69, 4.5, 1.5), (72, 5, 1),
            (67, 6, 2), (71, 6.5, 1.5), (74, 7, 1),
            (60, 8, 4), (64, 8, 4), (67, 8, 4), (72, 8, 4),
        ]
        var events: [(FrameTime, RenderCommand.Action)] = []
        for (slot, (note, start, length)) in notes.enumerated() {
            let frequency = Float(440 * exp2((Double(note) - 69) / 12))
            let on = FrameTime(start * 0.5 * rate), off = FrameTime((start + length) * 0.5 * rate)
            events.append((on, .toneOn(slot: UInt8(slot), frequency: frequency, amplitude: 0.15)))
            events.append((off, .toneOff(slot: UInt8(slot))))
        }
        for (frame, action) in events.sorted(by: { $0.0 < $1.0 }) { engine.send(action, at: frame) }
        return Int(12.5 * 0.5 * rate)
    }
}
