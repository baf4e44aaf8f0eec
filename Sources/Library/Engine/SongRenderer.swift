import Foundation
import MIDI
import Render

/// Renders songs to sound files, each through an engine of its own, all with the same settings
/// and the same loaded instrument: the one path a single song's render and each song of a batch
/// (`BatchRender`) take, so a song's file is the same either way.
///
/// One bank serves every engine, at once: a `SampleBank` is immutable once built,
/// `Engine.install` only retains it (an atomic reference count) and hands the engine's renderer
/// read-only pointers into it, and each engine gives its reference back on its own thread. Kits
/// come from a `DrumKitShelf`, which loads each once.
///
/// - Thread: any. `render` builds its engine on the calling thread and runs it there; any number
///   of threads may call it at once.
public struct SongRenderer: Sendable {
    /// What each song's engine is built with, `threadCount` included.
    public var configuration: RenderConfiguration
    public var options: MIDIRenderOptions
    public let bank: SampleBank
    /// The kit that plays every song's drum channel; without one `SongPreparation.drumKit` decides per song.
    public let kitPath: String?
    public let kits: DrumKitShelf
    /// Whether a song's warnings begin with its path: among many songs' lines they must say whose.
    public var namesSongInWarnings: Bool
    /// Where a song's warnings go (one line each, without the program's name): a front end prints
    /// them, a library caller keeps them. Called on the rendering thread.
    public var warning: @Sendable (String) -> Void

    /// - Thread: any.
    public init(configuration: RenderConfiguration, options: MIDIRenderOptions, bank: SampleBank, kitPath: String?, kits: DrumKitShelf,
                namesSongInWarnings: Bool = false, warning: @escaping @Sendable (String) -> Void) {
        self.configuration = configuration
        self.options = options
        self.bank = bank
        self.kitPath = kitPath
        self.kits = kits
        self.namesSongInWarnings = namesSongInWarnings
        self.warning = warning
    }

    /// Renders `song`, read from `songPath`, to `output` (format from the extension).
    /// - Throws: the kit's `DrumKitError`, the output's `AudioFileError`.
    /// - Thread: any.
    public func render(_ song: MIDIFile, from songPath: String, to output: String) throws -> SongRender {
        try render(song, from: songPath, output: output) { engine, _ in try engine.render(song, to: output, options: options) }
    }

    /// Renders `song`, read from `songPath`, into memory: `SongRender.samples` holds the frames,
    /// interleaved, the same samples a file render writes.
    /// - Throws: the kit's `DrumKitError`.
    /// - Thread: any.
    public func render(_ song: MIDIFile, from songPath: String) throws -> SongRender {
        var samples: [Float] = []
        var render = try render(song, from: songPath, output: nil) { engine, sequencer in
            // Room for the song and two seconds of tail at once: one allocation, each page touched
            // once, where growing by doubling would copy the frames and fault pages in again.
            let tail = FrameTime(2 * configuration.sampleRate)
            samples.reserveCapacity(Int(sequencer.endFrame + tail) * configuration.channelCount)
            return engine.render(song, options: options) { block in samples.append(contentsOf: block) }
        }
        render.samples = samples
        return render
    }

    private func render(_ song: MIDIFile, from songPath: String, output: String?,
                        _ play: (Engine, MIDISequencer) throws -> MIDIRenderSummary) throws -> SongRender {
        let sequencer = MIDISequencer(song, sampleRate: configuration.sampleRate, program: options.program)
        let kit = try SongPreparation.drumKit(for: sequencer, bank: bank, kitPath: kitPath, kits: kits,
                                              naming: namesSongInWarnings ? songPath : nil, warning: warning)
        let engine = Engine(configuration: EngineConfiguration(render: configuration))
        engine.install(bank)
        if let kit { engine.install(kit) }
        let started = Date()
        let summary = try play(engine, sequencer)
        return SongRender(song: songPath, output: output, summary: summary, renderSeconds: Date().timeIntervalSince(started),
                          playsKit: kit != nil, silence: silence(of: summary, song: song, from: songPath, output: output))
    }

    /// Why a render of notes that came out as silence failed, naming the causes it can see; nil
    /// for a render that sounded. Judged on what was rendered, so any cause is caught, foreseen or not.
    private func silence(of summary: MIDIRenderSummary, song: MIDIFile, from songPath: String, output: String?) -> RenderFailure? {
        guard summary.peak == 0 && song.noteOnCount > 0 else { return nil }
        let stats = summary.statistics
        let causes = (stats.unmappedNotes > 0 ? ["\(stats.unmappedNotes) found no preset or no key range in \(bank.name)"] : [])
            + (stats.unmappedHits > 0 ? ["\(stats.unmappedHits) hit no pad of the kit"] : [])
        let notes = song.noteOnCount == 1 ? "1 note" : "\(song.noteOnCount) notes"
        return RenderFailure("\(songPath): \(notes), but nothing sounded" + (output.map { " in \($0)" } ?? "")
                             + (causes.isEmpty ? "" : " (" + causes.joined(separator: ", ") + ")"))
    }
}

/// What rendering one song did.
/// - Thread: any. A plain value.
public struct SongRender: Sendable {
    public let song: String
    /// The file written; nil for a render into memory.
    public let output: String?
    /// The frames of a render into memory, interleaved (empty for a render to a file).
    public internal(set) var samples: [Float] = []
    public let summary: MIDIRenderSummary
    /// Wall-clock seconds the render took, loading not included.
    public let renderSeconds: Double
    /// Whether a drum kit played the drum channel.
    public let playsKit: Bool
    /// Set when the song has notes and the render is silence: the file was written, but the song failed.
    public let silence: RenderFailure?
}
