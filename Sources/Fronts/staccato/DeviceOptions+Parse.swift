import AudioIO
import CommandLineSpec
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

    /// Where a live command plays (`ParsedOptions.audioTarget`, `alsaDevice` the PCM it names)
    /// and the stream request it plays at: `--rate`, `--period` and `--periods`, or the JACK
    /// server's own. A rate or period asked for that the server does not run at is a note, not an
    /// error (change the server's with jack_bufsize, or restart it).
    /// - Throws: `UsageError`, or `DeviceError` when no JACK server runs or the name is taken.
    static func audioTarget(_ options: ParsedOptions, alsaDevice: String?) throws -> (target: AudioTarget, configuration: StreamConfiguration) {
        let requested = try streamConfiguration(options)
        let target = try options.audioTarget(alsaDevice: alsaDevice)
        let configuration = target.configuration(for: requested)
        if let server = target.jackServer {
            var differing: [String] = []
            if options.values["rate"] != nil, requested.sampleRate != configuration.sampleRate { differing.append("--rate \(requested.sampleRate)") }
            if options.values["period"] != nil, requested.periodFrameCount != configuration.periodFrameCount {
                differing.append("--period \(requested.periodFrameCount)")
            }
            if !differing.isEmpty {
                printError("staccato: note: JACK server '\(server.name)' runs at \(server.sampleRate) Hz with \(server.periodFrameCount)-frame periods; \(differing.joined(separator: " and ")) \(differing.count == 1 ? "does" : "do") not apply")
            }
        }
        return (target, configuration)
    }

    /// Sets what `songSpecs` say (`--min-note-length`, `--gain`, `--no-effects`) in `render`.
    static func readSongOptions(_ options: ParsedOptions, into render: inout RenderConfiguration) throws {
        render.minimumNoteSeconds = try options.double(minimumNoteLength.name) / 1_000
        render.songGainDecibels = Float(try options.double(songGain.name))
        render.effects = !options.has(noEffects.name)
    }

    /// Sets `--threads` (`liveThreads`, which every command that plays a song live has) in `render`.
    static func readThreads(_ options: ParsedOptions, into render: inout RenderConfiguration) throws {
        render.threadCount = try options.integer(liveThreads.name)
    }

    /// The line after the granted configuration: how the audio thread is scheduled, and how many
    /// threads render the voices.
    static func schedulingLine(_ stream: PlaybackStream) -> String {
        let threads = stream.core.renderer.voiceThreadCount
        return "audio thread: \(stream.realtimeScheduling); voices on \(threads) thread\(threads == 1 ? "" : "s")"
    }

    /// An engine for `stream` (`Engine(for:)`), playing a song as `songOptions` say (when given;
    /// else at `songGainDecibels`), its voices on the threads `--threads` asks for in `songOptions`
    /// or `threadOptions`.
    static func engine(for stream: StreamConfiguration, masterVolume: Float, songOptions: ParsedOptions? = nil,
                       songGainDecibels: Float = RenderConfiguration.defaultSongGainDecibels,
                       threadOptions: ParsedOptions? = nil) throws -> Engine {
        var render = RenderConfiguration(songGainDecibels: songGainDecibels)
        if let songOptions { try readSongOptions(songOptions, into: &render) }
        if let threadOptions = songOptions ?? threadOptions { try readThreads(threadOptions, into: &render) }
        return Engine(for: stream, render: render, initialMasterVolume: masterVolume)
    }
}
