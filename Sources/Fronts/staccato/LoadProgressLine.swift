import Engine
import Foundation
import Glibc
import Render
import Synchronization

/// `loading FluidR3_GM.sf2: 45 %` on standard error, redrawn in place, while a font takes longer
/// than `delay` to load, and cleared when it is loaded: a 13-second load of a large SF3 otherwise
/// looks like a hang. Drawn only when standard error is a terminal, so pipes, logs and tests see
/// no byte of it.
///
/// - Thread: control. The loading thread calls `report`.
final class LoadProgressLine: Sendable {
    /// Loads shorter than this show nothing: most fonts load in well under a second.
    static let delay = Duration.seconds(1)

    private let name: String
    private let line: StatusLine
    private let started = ContinuousClock.now
    /// The percentage on screen, -1 before the first.
    private let shownPercent = Mutex(-1)

    init(name: String, isTerminal: Bool = isatty(STDERR_FILENO) == 1) {
        self.name = name
        line = StatusLine(isTerminal: isTerminal, columns: { TerminalSize.columns() }) { _, text in
            _ = text.withCString { Glibc.write(STDERR_FILENO, $0, strlen($0)) }
        }
    }

    /// Redraws the line for `fraction` (0…1) of the load done, once `delay` has passed.
    func report(_ fraction: Double) {
        guard ContinuousClock.now - started > Self.delay else { return }
        let percent = Int(fraction * 100)
        let changed = shownPercent.withLock { shown in
            defer { shown = percent }
            return shown != percent
        }
        if changed { line.update("loading \(name): \(percent) %") }
    }

    /// Takes the line off the screen.
    func finish() { line.clear() }
}

/// `InstrumentLoader.load` with a `LoadProgressLine` while it runs, then the loader's warnings, a
/// line each: what the commands that play a font call.
/// - Thread: control.
/// With `notes`, a SoundFont decodes only the samples they reach (`InstrumentLoader.load`).
func loadInstrument(path: String, sampleRate: Double, notes: PlayedNotes? = nil) throws(InstrumentLoadError) -> SampleBank {
    let progress = LoadProgressLine(name: URL(fileURLWithPath: path).lastPathComponent)
    let bank: SampleBank
    do {
        defer { progress.finish() }
        bank = try InstrumentLoader.load(path: path, sampleRate: sampleRate, progress: progress.report, notes: notes)
    }
    for warning in bank.loadWarnings { printError("staccato: warning: \(path): \(warning)") }
    return bank
}

/// `InstrumentLoader.open` with a `LoadProgressLine` while the first notes' samples decode, then
/// the loader's warnings, a line each; a sample that fails later, in the background, is a warning
/// line too: what the commands that play live call.
/// - Thread: control.
func openInstrument(path: String, sampleRate: Double, first: PlayedNotes, rest: PlayedNotes?,
                    sampleCacheBytes: Int?) throws(InstrumentLoadError) -> InstrumentLoader.Opening {
    let progress = LoadProgressLine(name: URL(fileURLWithPath: path).lastPathComponent)
    let opening: InstrumentLoader.Opening
    do {
        defer { progress.finish() }
        // STACCATO_DECODE_DELAY_MS: a slow disk on purpose, for the tests that show nothing waits for it.
        let delay = ProcessInfo.processInfo.environment["STACCATO_DECODE_DELAY_MS"].flatMap(Int.init).map { Duration.milliseconds($0) }
        opening = try InstrumentLoader.open(path: path, sampleRate: sampleRate, first: first, rest: rest,
                                            sampleCacheBytes: sampleCacheBytes, backgroundDelay: delay, progress: progress.report,
                                            warning: { printError("staccato: warning: \($0)") })
    }
    for warning in opening.bank.loadWarnings { printError("staccato: warning: \(path): \(warning)") }
    return opening
}
