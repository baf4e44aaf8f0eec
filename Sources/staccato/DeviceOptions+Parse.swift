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

    /// An engine whose renderer matches `stream`.
    static func engine(for stream: StreamConfiguration, masterVolume: Float) -> Engine {
        Engine(configuration: EngineConfiguration(
            render: RenderConfiguration(sampleRate: Double(stream.sampleRate), channelCount: stream.channelCount,
                                        maxFrameCount: max(4_096, stream.periodFrameCount)),
            initialMasterVolume: masterVolume))
    }
}
