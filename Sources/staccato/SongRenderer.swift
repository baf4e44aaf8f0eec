import Engine
import Foundation
import MIDI
import Render

/// Renders songs to sound files, each through an engine of its own, all with the same settings
/// and the same loaded instrument: the one path `render --out` takes with its song and
/// `render --out-dir` with each of its songs, so a song's file is the same either way.
///
/// One bank serves every engine, at once: a `SampleBank` is immutable once built,
/// `Engine.install` only retains it (an atomic reference count) and hands the engine's renderer
/// read-only pointers into it, and each engine gives its reference back on its own thread. Kits
/// come from a `DrumKitShelf`, which loads each once.
///
/// - Thread: any. `render` builds its engine on the calling thread and runs it there; any number
///   of threads may call it at once.
struct SongRenderer: Sendable {
    /// What each song's engine is built with, `threadCount` included.
    var configuration: RenderConfiguration
    var options: MIDIRenderOptions
    let bank: SampleBank
    /// `--kit`, which plays every song's drum channel; without it `SongSetup.drumKit` decides per song.
    let kitPath: String?
    let kits: DrumKitShelf
    /// Whether a song's warnings begin with its path: among many songs' lines they must say whose.
    var namesSongInWarnings = false

    /// Renders `song`, read from `songPath`, to `output` (format from the extension).
    /// - Throws: the kit's `DrumKitError`, the output's `AudioFileError`.
    func render(_ song: MIDIFile, from songPath: String, to output: String) throws -> SongRender {
        let sequencer = MIDISequencer(song, sampleRate: configuration.sampleRate, program: options.program)
        let kit = try SongSetup.drumKit(for: sequencer, bank: bank, kitPath: kitPath, kits: kits,
                                        naming: namesSongInWarnings ? songPath : nil)
        let engine = Engine(configuration: EngineConfiguration(render: configuration))
        engine.install(bank)
        if let kit { engine.install(kit) }
        let started = Date()
        let summary = try engine.render(song, to: output, options: options)
        return SongRender(song: songPath, output: output, summary: summary, renderSeconds: Date().timeIntervalSince(started),
                          playsKit: kit != nil,
                          limiterLine: limiterReport(summary.statistics, sampleRate: configuration.sampleRate,
                                                     gainDecibels: configuration.songGainDecibels),
                          silence: silence(of: summary, song: song, from: songPath, output: output))
    }

    /// Why a render of notes that came out as silence failed, naming the causes it can see; nil
    /// for a render that sounded. Judged on what was rendered, so any cause is caught, foreseen or not.
    private func silence(of summary: MIDIRenderSummary, song: MIDIFile, from songPath: String, output: String) -> CommandFailure? {
        guard summary.peak == 0 && song.noteOnCount > 0 else { return nil }
        let stats = summary.statistics
        let causes = (stats.unmappedNotes > 0 ? ["\(stats.unmappedNotes) found no preset or no key range in \(bank.name)"] : [])
            + (stats.unmappedHits > 0 ? ["\(stats.unmappedHits) hit no pad of the kit"] : [])
        let notes = song.noteOnCount == 1 ? "1 note" : "\(song.noteOnCount) notes"
        return CommandFailure("\(songPath): \(notes), but nothing sounded in \(output)"
                              + (causes.isEmpty ? "" : " (" + causes.joined(separator: ", ") + ")"))
    }
}

/// What rendering one song did.
struct SongRender: Sendable {
    let song: String
    let output: String
    let summary: MIDIRenderSummary
    /// Wall-clock seconds the render took, loading not included.
    let renderSeconds: Double
    /// Whether a drum kit played the drum channel.
    let playsKit: Bool
    /// What the output's safety limiter did (`limiterReport`).
    let limiterLine: String
    /// Set when the song has notes and the render is silence: the file was written, but the song failed.
    let silence: CommandFailure?
}

/// "88.00 s of audio in 1.17 s (75.0x real time; `notes`...)": how fast audio was rendered, as
/// every line that reports a render (one song's, a batch's) says it.
func renderSpeedText(audioSeconds: Double, wallSeconds: Double, notes: [String] = []) -> String {
    let factor = String(format: "%.1f", audioSeconds / max(wallSeconds, 1e-9)) + "x real time"
    return "\(String(format: "%.2f", audioSeconds)) s of audio in \(String(format: "%.2f", wallSeconds)) s ("
        + ([factor] + notes).joined(separator: "; ") + ")"
}
