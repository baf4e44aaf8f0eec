import Engine
import Foundation
import Render

/// `staccato-bench profile`: renders a song `runs` times with the engine timing its stages
/// (`RenderProfile`), beside as many renders that time nothing, alternating, and prints each stage's
/// share of the median run, what the timing itself cost, and the voices' census.
enum ProfileReport {
    static func run(song path: String, font: String, runs: Int, threads: Int, effects: Bool) throws -> [String: Any] {
        let song = try SongPreparation.readSong(path: path, warning: { print("warning: \($0)") })
        let bank = try InstrumentLoader.load(path: font, sampleRate: 48_000,
                                             notes: MIDISequencer(song, sampleRate: 48_000).playedNotes(kitPlaysPercussion: false))
        var configuration = RenderConfiguration(sampleRate: 48_000, effects: effects)
        configuration.threadCount = threads
        var profiles: [RenderProfile] = [], plainSeconds: [Double] = []
        for _ in 0..<runs {
            profiles.append(RenderProfile.measure(song, bank: bank, configuration: configuration))
            plainSeconds.append(RenderProfile.plainRenderSeconds(song, bank: bank, configuration: configuration))
        }
        let median = profiles.median(by: \.renderSeconds)
        let audio = median.audioSeconds
        print("Profile: \((path as NSString).lastPathComponent) through \((font as NSString).lastPathComponent), \(String(format: "%.1f", audio)) s of audio "
              + "on \(threads) thread\(threads == 1 ? "" : "s")\(effects ? "" : ", dry"); median of \(runs) runs; CPU: \(FontsBenchmark.cpuModel)")
        print("  render \(String(format: "%.3f", median.renderSeconds)) s (\(String(format: "%.1f", audio / median.renderSeconds))x real time); "
              + "without the stage clock \(String(format: "%.3f", plainSeconds.median)) s (median of \(runs), alternating)")
        var stages: [String: Any] = [:]
        for stage in RenderStage.allCases {
            let share = median.share(of: stage)
            print("  \(stage.name.padding(toLength: 15, withPad: " ", startingAt: 0)) \(String(format: "%5.1f", 100 * share)) %"
                  + "   \(String(format: "%8.1f", Double(median.stages[stage]) / 1e6)) ms")
            stages[stage.name] = ["share": share, "milliseconds": Double(median.stages[stage]) / 1e6,
                                  "runs_share": profiles.map { $0.share(of: stage) }]
        }
        print("  \("other".padding(toLength: 15, withPad: " ", startingAt: 0)) \(String(format: "%5.1f", 100 * median.otherShare)) %"
              + "   \(String(format: "%8.1f", Double(median.otherNanoseconds) / 1e6)) ms   (events, drums, output effects and limiter, handing frames over)")
        stages["other"] = ["share": median.otherShare, "milliseconds": Double(median.otherNanoseconds) / 1e6]
        let census = median.census
        print("  voice blocks \(census.voiceBlocks): released \(String(format: "%.1f", 100 * census.share(of: census.releasedVoiceBlocks))) %, "
              + "released and below \(Int(RenderVoiceCensus.inaudibleDecibels)) dBFS \(String(format: "%.2f", 100 * census.share(of: census.inaudibleReleasedVoiceBlocks))) %"
              + " (what ending voices there would save)")
        let voices: [String: Any] = ["voice_blocks": census.voiceBlocks, "released_voice_blocks": census.releasedVoiceBlocks,
                                     "inaudible_released_voice_blocks": census.inaudibleReleasedVoiceBlocks,
                                     "inaudible_decibels": RenderVoiceCensus.inaudibleDecibels]
        return ["song": path, "font": font, "threads": threads, "effects": effects, "runs": runs, "cpu_model": FontsBenchmark.cpuModel,
                "audio_seconds": audio, "render_seconds": profiles.map(\.renderSeconds).summary,
                "render_seconds_without_clock": plainSeconds.summary, "stages": stages, "voices": voices]
    }
}
