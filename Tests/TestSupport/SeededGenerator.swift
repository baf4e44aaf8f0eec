import AudioAnalysis

/// SplitMix64, seeded, so damage tests hit the same bytes on every run and every machine: the
/// measurement module's generator (it makes the feedback benchmark's rooms and voices).
public typealias SeededGenerator = DeterministicRandom

extension DeterministicRandom {
    public init(state: UInt64) { self.init(seed: state) }
}
