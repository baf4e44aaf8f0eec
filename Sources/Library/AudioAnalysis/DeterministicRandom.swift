import Foundation

/// A deterministic pseudo-random generator (SplitMix64), so every room and voice is the same on
/// every run and machine.
public struct DeterministicRandom: RandomNumberGenerator {
    public var state: UInt64
    /// - Thread: any.
    public init(seed: UInt64) { state = seed }
    /// - Thread: any.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    /// - Thread: any.
    public mutating func uniform() -> Double { Double(next() >> 11) / Double(1 << 53) }
    /// Standard normal (Box–Muller).
    /// - Thread: any.
    public mutating func gaussian() -> Double {
        let u = max(uniform(), 1e-300), v = uniform()
        return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
    }
}
