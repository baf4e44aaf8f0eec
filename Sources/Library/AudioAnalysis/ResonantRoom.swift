import DSP
import Foundation

/// A PA's room: the speaker's resonances (peaking EQs) and its top end, then a room's
/// reverberation (`ReverberantRoom`), deterministic from its seed. The feedback benchmark closes
/// the microphone's loop through three of them (`paRooms`, `RoomImpulse`); the echo tests play a
/// backing track through them.
public struct ResonantRoom: Sendable {
    public var name: String
    public var rt60: Double
    /// Each resonance's centre in hertz, its gain in dB and its Q.
    public var resonances: [(hertz: Double, gain: Double, q: Double)]
    public var seed: UInt64

    /// - Thread: any.
    public init(name: String, rt60: Double, resonances: [(hertz: Double, gain: Double, q: Double)], seed: UInt64) {
        self.name = name
        self.rt60 = rt60
        self.resonances = resonances
        self.seed = seed
    }

    /// PA rooms: reverberation from 0.2 to 0.6 s behind a speaker with two or three strong
    /// resonances (12 dB), where a singer's microphone howls first at the speaker's peaks. (The
    /// feedback suppressor's probe and the benchmark's longer run at a gain were tuned on rooms
    /// made the same way with other seeds, 2201-2203 and 2221-2223, and the echo canceller's
    /// late-echo gate on 2001-2003.)
    public static let paRooms = [
        ResonantRoom(name: "pa02", rt60: 0.2, resonances: [(150, 12, 8), (2_300, 12, 8)], seed: 2_211),
        ResonantRoom(name: "pa04", rt60: 0.4, resonances: [(240, 12, 8), (1_500, 12, 6)], seed: 2_212),
        ResonantRoom(name: "pa06", rt60: 0.6, resonances: [(105, 12, 8), (820, 12, 6), (3_500, 12, 8)], seed: 2_213),
    ]

    /// Where the speaker's top end rolls off (a second-order low-pass): PA speakers give little
    /// above 16 kHz, which is why the feedback suppressor listens no higher.
    public static let speakerRollOffHertz = 14_000.0

    /// `signal` through the speaker: its resonances and its top end.
    /// - Thread: any.
    public func throughSpeaker(_ signal: [Float], sampleRate: Double) -> [Float] {
        var filtered = signal
        var filters = resonances.map {
            Biquad(BiquadCoefficients(.peaking(gain: $0.gain), frequency: $0.hertz, q: $0.q, sampleRate: sampleRate))
        }
        filters.append(Biquad(BiquadCoefficients(.lowPass, frequency: Self.speakerRollOffHertz, q: 0.707, sampleRate: sampleRate)))
        for index in filters.indices {
            filtered.withUnsafeMutableBufferPointer { filters[index].process($0.baseAddress!, frameCount: $0.count) }
        }
        return filtered
    }

    /// The reverberation alone, the direct sound 6 ms after the speaker.
    /// - Thread: any.
    public func reverberation(sampleRate: Double) -> [Float] {
        ReverberantRoom.exponential(sampleRate: sampleRate, rt60: rt60, directDelaySeconds: 0.006, seed: seed)
    }

    /// The speaker-to-microphone impulse response: the reverberation through the speaker.
    /// - Thread: any.
    public func impulseResponse(sampleRate: Double) -> [Float] {
        throughSpeaker(reverberation(sampleRate: sampleRate), sampleRate: sampleRate)
    }
}

/// A room's impulse response: a direct path, then an exponentially decaying diffuse tail
/// (seeded noise) falling 60 dB in `rt60` seconds.
public enum ReverberantRoom {
    /// - Thread: any.
    public static func exponential(sampleRate: Double, rt60: Double, directDelaySeconds: Double, seed: UInt64 = 11) -> [Float] {
        var generator = DeterministicRandom(seed: seed)
        let length = Int(rt60 * 1.3 * sampleRate)
        let direct = Int(directDelaySeconds * sampleRate)
        var response = [Float](repeating: 0, count: length)
        response[direct] = 1
        let decayPerFrame = pow(10, -3 / (rt60 * sampleRate))  // −60 dB over rt60
        var envelope = 0.5
        for frame in (direct + 1)..<length {
            envelope *= decayPerFrame
            response[frame] = Float(envelope) * Float.random(in: -1...1, using: &generator) * 0.25
        }
        return response
    }
}
