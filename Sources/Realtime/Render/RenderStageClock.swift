import DSP
import Synchronization

/// The parts of a render that `RenderStageTimes` splits its time into.
/// - Thread: any. A plain value.
public enum RenderStage: Int, CaseIterable, Sendable {
    /// The voices' sample reads by the lane reader, eight voices a frame.
    case read
    /// The frames where some lane comes within reach of its sample's end (or of the end of a loop
    /// too short for the lane reader), read one lane at a time: what the lane reader leaves to
    /// the scalar one.
    case readAtEnds
    /// The voices' control work once a block: envelopes, LFOs, modulators and flex modulation,
    /// pitch, the exponentials and the filters' coefficients, and each voice's end.
    case control
    /// The voices' filters and second filter stages, and their gains into the lane buses.
    case filterAndMix
    /// The reverb and the chorus, run on what the voices sent them.
    case sends
    /// Summing: the lane buses across their lanes, the work items' mixes into one, and that into
    /// the song's buses.
    case sum

    /// How a report names it.
    /// - Thread: any.
    public var name: String {
        switch self {
        case .read: "read"
        case .readAtEnds: "read at ends"
        case .control: "control"
        case .filterAndMix: "filter and mix"
        case .sends: "sends"
        case .sum: "sum"
        }
    }
}

/// The time a render spent in each `RenderStage`, in nanoseconds on the monotonic clock, summed over
/// the threads that rendered (`Renderer.stageTimes`).
/// - Thread: any. A plain value.
public struct RenderStageTimes: Sendable, Equatable {
    /// Nanoseconds by stage, `RenderStage.rawValue` for index.
    public var nanoseconds: [UInt64]

    /// - Thread: any.
    public init(nanoseconds: [UInt64] = Array(repeating: 0, count: RenderStage.allCases.count)) {
        self.nanoseconds = nanoseconds
    }

    /// - Thread: any.
    public subscript(stage: RenderStage) -> UInt64 { nanoseconds[stage.rawValue] }

    /// Every stage's nanoseconds together.
    /// - Thread: any.
    public var total: UInt64 { nanoseconds.reduce(0, +) }
}

/// The audio thread's and the voice workers' side of `RenderStageTimes`: reads the clock between
/// stages and charges the stage just run, only where the configuration asks for it
/// (`RenderConfiguration.profilesStages`); otherwise every call is a test of one pointer and nothing
/// else, so that a render that does not profile runs as before. The clock is `MonotonicClock`'s.
/// The totals are atomic, because voice workers charge them beside the audio thread.
struct RenderStageClock {
    /// One total a stage; nil: not profiling.
    let totals: UnsafeMutablePointer<Atomic<UInt64>>?
    /// The voice census's three counts (`RenderVoiceCensus`), in its order; nil: not profiling.
    let censusCounts: UnsafeMutablePointer<Atomic<UInt64>>?
    /// The block gain below which a voice's dry output stays under
    /// `RenderVoiceCensus.inaudibleDecibels` at the song's gain.
    let inaudibleGain: Float

    /// A clock that charges nothing.
    @_noAllocation @_noLocks
    init() { (totals, censusCounts, inaudibleGain) = (nil, nil, 0) }

    /// A clock that charges totals of its own, all zero to begin with; `deallocate` frees them.
    /// The voice census takes the song's gain (`RenderConfiguration.songGainDecibels`) into its
    /// levels.
    /// - Thread: control.
    static func counting(songGainDecibels: Float) -> RenderStageClock {
        func counters(_ count: Int) -> UnsafeMutablePointer<Atomic<UInt64>> {
            let counters = UnsafeMutablePointer<Atomic<UInt64>>.allocate(capacity: count)
            for index in 0..<count { (counters + index).initialize(to: Atomic(0)) }
            return counters
        }
        return RenderStageClock(totals: counters(RenderStage.allCases.count), censusCounts: counters(3),
                                inaudibleGain: decibelsToAmplitude(RenderVoiceCensus.inaudibleDecibels - songGainDecibels))
    }

    private init(totals: UnsafeMutablePointer<Atomic<UInt64>>, censusCounts: UnsafeMutablePointer<Atomic<UInt64>>, inaudibleGain: Float) {
        (self.totals, self.censusCounts, self.inaudibleGain) = (totals, censusCounts, inaudibleGain)
    }

    /// Frees the totals and counts of a `counting()` clock.
    /// - Thread: stopped.
    func deallocate() {
        totals?.deallocate()
        censusCounts?.deallocate()
    }

    /// Whether this clock counts: a profile asked for it.
    var counts: Bool {
        @inline(__always) @_noAllocation @_noLocks get { totals != nil }
    }

    /// Now, in nanoseconds; 0 when not profiling.
    @inline(__always) @_noAllocation @_noLocks
    func now() -> UInt64 {
        guard totals != nil else { return 0 }
        return MonotonicClock.nanoseconds()
    }

    /// Charges `stage` with the time since `start` (a `now()`), and returns now.
    @inline(__always) @_noAllocation @_noLocks
    func charge(_ stage: RenderStage, since start: UInt64) -> UInt64 {
        guard let totals else { return 0 }
        let now = MonotonicClock.nanoseconds()
        totals[stage.rawValue].add(now &- start, ordering: .relaxed)
        return now
    }

    /// Counts one voice's control block into the census: whether its note was released, and the
    /// loudest of its gains over the block.
    @_noAllocation @_noLocks
    func countVoiceBlock(released: Bool, peakGain: Float) {
        guard let census = censusCounts else { return }
        census[0].add(1, ordering: .relaxed)
        guard released else { return }
        census[1].add(1, ordering: .relaxed)
        if peakGain < inaudibleGain { census[2].add(1, ordering: .relaxed) }
    }

    /// The totals so far.
    /// - Thread: control. Once the threads that charge them are idle.
    func times() -> RenderStageTimes {
        guard let totals else { return RenderStageTimes() }
        return RenderStageTimes(nanoseconds: RenderStage.allCases.map { totals[$0.rawValue].load(ordering: .relaxed) })
    }

    /// The voice census so far.
    /// - Thread: control. Once the threads that count are idle.
    func census() -> RenderVoiceCensus {
        guard let census = censusCounts else { return RenderVoiceCensus() }
        return RenderVoiceCensus(voiceBlocks: census[0].load(ordering: .relaxed), releasedVoiceBlocks: census[1].load(ordering: .relaxed),
                                 inaudibleReleasedVoiceBlocks: census[2].load(ordering: .relaxed))
    }
}
