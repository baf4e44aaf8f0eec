import Foundation
import MIDI
import Render

/// Where a song's offline render spends its time, stage by stage (`RenderStage`), timed inside the
/// engine (`RenderConfiguration.profilesStages`): read (by the lanes, and at loop and sample ends
/// one lane at a time), control, filter and mix, sends and sum, and the rest (events, drums, the
/// output's effects and limiter, and handing the frames over); and the voices' census
/// (`RenderVoiceCensus`).
/// What `staccato-bench profile` prints, so that a change's effect on each stage shows without an
/// external profiler.
/// - Thread: any. A plain value.
public struct RenderProfile: Sendable {
    /// The render's wall time, the engine's construction left out.
    public let renderSeconds: Double
    /// The audio rendered (the song and its tail).
    public let audioSeconds: Double
    /// Each stage's time, summed over the threads that rendered.
    public let stages: RenderStageTimes
    /// Threads that rendered the voices.
    public let threadCount: Int
    /// How the voices spent their control blocks: released, and below hearing.
    public let census: RenderVoiceCensus

    /// The threads' time not charged to a stage: the wall time on every thread that rendered, less
    /// the stages' total, never below zero. On one thread, exactly the wall time the stages did not
    /// take; on several, it counts a worker's idle time too.
    /// - Thread: any.
    public var otherNanoseconds: UInt64 {
        let budget = UInt64(max(0, renderSeconds) * 1e9 * Double(threadCount))
        return budget > stages.total ? budget - stages.total : 0
    }

    /// `stage`'s share of the render, 0…1: of the stages' total and `otherNanoseconds`.
    /// - Thread: any.
    public func share(of stage: RenderStage) -> Double {
        let whole = Double(stages.total + otherNanoseconds)
        return whole > 0 ? Double(stages[stage]) / whole : 0
    }

    /// The rest's share, as `share(of:)` counts it.
    /// - Thread: any.
    public var otherShare: Double {
        let whole = Double(stages.total + otherNanoseconds)
        return whole > 0 ? Double(otherNanoseconds) / whole : 0
    }

    /// Renders `song` through `bank` with `configuration` (its `profilesStages` set here), the
    /// frames thrown away as they come, and returns where the time went.
    /// - Thread: control. Blocks while the song renders.
    public static func measure(_ song: MIDIFile, bank: SampleBank, configuration: RenderConfiguration,
                               options: MIDIRenderOptions = MIDIRenderOptions()) -> RenderProfile {
        let render = timedRender(song, bank: bank, configuration: configuration, timingStages: true, options: options)
        return RenderProfile(renderSeconds: render.seconds, audioSeconds: render.audioSeconds, stages: render.stages,
                             threadCount: configuration.threadCount, census: render.census)
    }

    /// The same render's wall time with no stage timed: what `measure` costs beside it.
    /// - Thread: control. Blocks while the song renders.
    public static func plainRenderSeconds(_ song: MIDIFile, bank: SampleBank, configuration: RenderConfiguration,
                                          options: MIDIRenderOptions = MIDIRenderOptions()) -> Double {
        timedRender(song, bank: bank, configuration: configuration, timingStages: false, options: options).seconds
    }

    /// One render on an engine of its own, timed from its first block to its last.
    private static func timedRender(_ song: MIDIFile, bank: SampleBank, configuration: RenderConfiguration, timingStages: Bool,
                                    options: MIDIRenderOptions)
        -> (seconds: Double, audioSeconds: Double, stages: RenderStageTimes, census: RenderVoiceCensus) {
        var configuration = configuration
        configuration.profilesStages = timingStages
        let engine = Engine(configuration: EngineConfiguration(render: configuration))
        engine.install(bank)
        let start = DispatchTime.now().uptimeNanoseconds
        let summary = engine.render(song, options: options) { _ in }
        return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, summary.seconds, engine.renderer.stageTimes,
                engine.renderer.voiceCensus)
    }
}
