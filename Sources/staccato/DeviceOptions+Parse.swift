import AudioIO
import Engine
import Render

extension DeviceOptions {
    /// Reads `--rate`, `--period` and `--periods` into a stream request, and `--report`.
    static func streamConfiguration(_ options: ParsedOptions) throws -> StreamConfiguration {
        try LiveReport.prepare(options.values["report"], command: options.command)
        return StreamConfiguration(
            sampleRate: try options.integer("rate"),
            periodFrameCount: try options.integer("period"),
            periodCount: try options.integer("periods"))
    }

    /// Sets what `songSpecs` say (`--min-note-length`, `--gain`, `--no-effects`) in `render`.
    static func readSongOptions(_ options: ParsedOptions, into render: inout RenderConfiguration) throws {
        render.minimumNoteSeconds = try options.double(minimumNoteLength.name) / 1_000
        render.songGainDecibels = Float(try options.double(songGain.name))
        render.effects = !options.has(noEffects.name)
    }

    /// An engine whose renderer matches `stream`, playing a song as `songOptions` say (when given;
    /// else at `songGainDecibels`).
    static func engine(for stream: StreamConfiguration, masterVolume: Float, songOptions: ParsedOptions? = nil,
                       songGainDecibels: Float = RenderConfiguration.defaultSongGainDecibels) throws -> Engine {
        var render = RenderConfiguration(sampleRate: Double(stream.sampleRate), channelCount: stream.channelCount,
                                         maxFrameCount: max(4_096, stream.periodFrameCount), songGainDecibels: songGainDecibels)
        if let songOptions { try readSongOptions(songOptions, into: &render) }
        return Engine(configuration: EngineConfiguration(render: render, initialMasterVolume: masterVolume))
    }
}
