import AudioIO
import Engine
import Render

extension DeviceOptions {
    /// Reads `--rate`, `--period` and `--periods` into a stream request.
    static func streamConfiguration(_ options: ParsedOptions) throws -> StreamConfiguration {
        StreamConfiguration(
            sampleRate: try options.integer("rate"),
            periodFrameCount: try options.integer("period"),
            periodCount: try options.integer("periods"))
    }

    /// Reads `--min-note-length` (milliseconds) as seconds.
    static func minimumNoteSeconds(_ options: ParsedOptions) throws -> Double {
        try options.double(minimumNoteLength.name) / 1_000
    }

    /// An engine whose renderer matches `stream`.
    static func engine(for stream: StreamConfiguration, masterVolume: Float,
                       minimumNoteSeconds: Double = RenderConfiguration.defaultMinimumNoteSeconds) -> Engine {
        Engine(configuration: EngineConfiguration(
            render: RenderConfiguration(sampleRate: Double(stream.sampleRate), channelCount: stream.channelCount,
                                        maxFrameCount: max(4_096, stream.periodFrameCount), minimumNoteSeconds: minimumNoteSeconds),
            initialMasterVolume: masterVolume))
    }
}
