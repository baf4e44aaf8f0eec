import AudioFile
import Foundation

/// SFZ's generated sounds, `sample=*sine` and its kin: a region that names one plays a waveform
/// the loader writes into the pool as if it were a file, looped, at the pitch of the note.
///
/// The table is `cycles` periods of `periodFrames` frames at the engine's rate, looped over its
/// middle periods so that interpolation on either side of the loop reads the waveform, never the
/// silence around the sample. The region's recorded rate is set so that one period lasts one
/// cycle of its `pitch_keycenter` (`PlannedRegion.region`): the keycenter plays its own pitch, as
/// a recording of that note would. Saw, square and triangle are band-limited to `harmonics`
/// partials, so a note up to about 1 kHz folds nothing back below Nyquist; higher ones alias
/// softly. Noise is a fixed sequence (the same every load), looped over its middle second.
/// - Thread: control.
enum SFZOscillator: String, CaseIterable {
    case sine = "*sine", saw = "*saw", square = "*square", triangle = "*triangle", noise = "*noise", silence = "*silence"

    static let periodFrames = 2_048
    static let cycles = 4
    static let harmonics = 24

    /// Frames of the table at `sampleRate`.
    func frameCount(sampleRate: Double) -> Int {
        self == .noise ? 2 * Int(sampleRate) : Self.cycles * Self.periodFrames
    }

    /// The loop, in frames from the table's start.
    func loop(sampleRate: Double) -> Range<Int> {
        self == .noise ? Int(sampleRate) / 2 ..< 3 * Int(sampleRate) / 2 : Self.periodFrames ..< (Self.cycles - 1) * Self.periodFrames
    }

    /// Whether the table has a pitch (a period); noise and silence have none and play as written.
    var isPeriodic: Bool { self != .noise && self != .silence }

    /// The table, at a peak level of about half full scale.
    func frames(sampleRate: Double) -> [Float] {
        let count = frameCount(sampleRate: sampleRate)
        let period = Double(Self.periodFrames)
        func partials(_ amplitude: (Int) -> Double) -> [Float] {
            (0..<count).map { frame in
                let phase = 2 * Double.pi * Double(frame) / period
                return Float((1...Self.harmonics).reduce(0.0) { $0 + amplitude($1) * sin(Double($1) * phase) })
            }
        }
        switch self {
        case .sine:
            return (0..<count).map { Float(0.5 * sin(2 * Double.pi * Double($0) / period)) }
        case .saw:
            return partials { 0.5 * 2 / Double.pi * (($0 % 2 == 0) ? -1 : 1) / Double($0) }
        case .square:
            return partials { $0 % 2 == 1 ? 0.5 * 4 / Double.pi / Double($0) : 0 }
        case .triangle:
            return partials { $0 % 2 == 1 ? 0.5 * 8 / (Double.pi * Double.pi) * ((($0 - 1) / 2) % 2 == 0 ? 1 : -1) / Double($0 * $0) : 0 }
        case .noise:
            // A linear congruential sequence: the same noise every load, every render.
            var state: UInt32 = 0x2545_F491
            return (0..<count).map { _ in
                state = state &* 1_664_525 &+ 1_013_904_223
                return 0.5 * (Float(state >> 8) / Float(1 << 23) - 1)
            }
        case .silence:
            return [Float](repeating: 0, count: count)
        }
    }
}
