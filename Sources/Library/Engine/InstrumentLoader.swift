import FileChecks
import Foundation
import Render
import SampleSet
import SFZ
import SampleStreaming
import SoundFont

/// A failure to load an instrument: the loader's own error, kept whole (the chunk, the byte, the
/// sample it names), or a path that names nothing. Its description is the one line to print.
public enum InstrumentLoadError: Error, CustomStringConvertible, Equatable {
    /// No file or folder at the path.
    case notFound(path: String)
    /// The SoundFont loader's error.
    case soundFont(SoundFontError)
    /// The sample-set or SFZ loader's error.
    case sampleSet(SampleSetError)

    /// - Thread: any.
    public var description: String {
        switch self {
        case let .notFound(path): "\(path): no such file or folder"
        case let .soundFont(error): error.description
        case let .sampleSet(error): error.description
        }
    }
}

/// Loads sampled instruments before anything can sound: a SoundFont (`.sf2`, `.sf3`; whole, or
/// only what a song plays), an SFZ instrument, or a folder of recordings (a sample set). Either the complete bank or an error; the engine's
/// current instrument is untouched by a failure.
/// - Thread: control. Not real-time safe: allocates and reads files.
public enum InstrumentLoader {
    /// - Parameters:
    ///   - progress: told the share of a SoundFont's sample data decoded, 0…1, as it goes
    ///     (`SoundFontLoader.Options.progress`); a sample set does not report.
    ///   - notes: what a song plays (`MIDISequencer.playedNotes`): a SoundFont or an SFZ
    ///     instrument then decodes only the samples those notes reach, and renders them exactly as
    ///     a whole load would. Nil: every sample. Sample sets load whole either way.
    /// - Thread: control.
    public static func load(path: String, sampleRate: Double, progress: (@Sendable (Double) -> Void)? = nil,
                            notes: PlayedNotes? = nil) throws(InstrumentLoadError) -> SampleBank {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .notFound(path: path)
        }
        if isDirectory.boolValue {
            do { return try SampleSetLoader.load(directory: path, sampleRate: sampleRate) } catch { throw .sampleSet(error) }
        }
        // Read from the contents: an SFZ is text, whatever it is called.
        if SFZLoader.isSFZ(path: path) {
            do { return try SFZLoader.load(path: path, sampleRate: sampleRate, progress: progress, notes: notes) } catch { throw .sampleSet(error) }
        }
        do {
            return try SoundFontLoader.load(path: path, sampleRate: sampleRate,
                                            options: SoundFontLoader.Options(progress: progress, selection: notes.map { .played($0) } ?? .all))
        } catch {
            throw .soundFont(error)
        }
    }

    /// An instrument that plays while the rest of it is still decoding: the bank, and for a
    /// SoundFont the background decoding filling it (nil when everything was loaded at once).
    /// - Thread: control.
    public struct Opening: Sendable {
        /// - Thread: control.
        public let bank: SampleBank
        /// - Thread: control.
        public let decoding: BackgroundDecoding?
    }

    /// Opens an instrument for playing at once: a SoundFont's structure is read and the samples
    /// `first` reaches decoded on every core before this returns; the samples of `rest` (every
    /// other sample when nil, most likely first) go on decoding in the background while the bank
    /// plays (`SoundFontLoader.open`, `SFZLoader.open`). A sample set loads whole.
    /// - Parameter warning: told, a line each, of a sample that fails in the background.
    /// - Thread: control.
    /// - Parameters:
    ///   - sampleCacheBytes: the sample memory a SoundFont may keep
    ///     (`SoundFontLoader.Options.sampleCacheBytes`); nil: all of it, decoded once.
    ///   - backgroundDelay: a slow disk on purpose (`SoundFontLoader.Options.backgroundDelay`).
    public static func open(path: String, sampleRate: Double, first: PlayedNotes, rest: PlayedNotes? = nil,
                            sampleCacheBytes: Int? = nil, backgroundDelay: Duration? = nil,
                            progress: (@Sendable (Double) -> Void)? = nil,
                            warning: (@Sendable (String) -> Void)? = nil) throws(InstrumentLoadError) -> Opening {
        guard FileKind(path: path) == .regular else {
            return Opening(bank: try load(path: path, sampleRate: sampleRate, progress: progress), decoding: nil)
        }
        if SFZLoader.isSFZ(path: path) {
            do {
                let opened = try SFZLoader.open(path: path, sampleRate: sampleRate, first: first, rest: rest, sampleCacheBytes: sampleCacheBytes,
                                                backgroundDelay: backgroundDelay, progress: progress, warning: warning)
                return Opening(bank: opened.bank, decoding: opened.decoding)
            } catch {
                throw .sampleSet(error)
            }
        }
        do {
            let opened = try SoundFontLoader.open(path: path, sampleRate: sampleRate, first: first, rest: rest.map { .played($0) } ?? .all,
                                                  options: SoundFontLoader.Options(progress: progress, sampleCacheBytes: sampleCacheBytes,
                                                                                   backgroundDelay: backgroundDelay, warning: warning))
            return Opening(bank: opened.bank, decoding: opened.decoding)
        } catch {
            throw .soundFont(error)
        }
    }

    /// The SoundFont shipped with Staccato (piano, program 0; xylophone, program 13);
    /// `STACCATO_SOUNDFONT` overrides it. What the benchmarks play, so their figures do not depend
    /// on what the machine has installed.
    /// - Thread: control.
    public static var defaultSoundFontPath: String {
        ProcessInfo.processInfo.environment["STACCATO_SOUNDFONT"] ?? shippedFile(shippedSoundFontPath)
    }

    static let shippedSoundFontPath = "soundfonts/FluidR3_GM_piano_xylo.sf2"

    /// The drum kit shipped with Staccato: what plays a song's drums when the instrument has none.
    /// - Thread: control.
    public static var shippedKitPath: String { shippedFile("samples/drums/kit.json") }

    /// Where Debian and other distributions install a General MIDI SoundFont, in the order tried
    /// when no `--soundfont` is given (after `$STACCATO_SOUNDFONT`, before the shipped font).
    public static let systemSoundFontPaths = [
        "/usr/share/sounds/sf3/default-GM.sf3",
        "/usr/share/sounds/sf2/default-GM.sf2",
        "/usr/share/soundfonts/default.sf2",
        "/usr/share/sounds/sf2/FluidR3_GM.sf2",
    ]

    /// The font a command plays when not told which, and why that one.
    /// - Thread: any. A plain value.
    public struct SoundFontChoice: Sendable, Equatable {
        public enum Source: Sendable, Equatable { case environment, system, shipped }
        public let path: String
        public let source: Source
        /// Candidates passed over, each with the reason (a file that is no SoundFont).
        public let skipped: [String]

        /// One line for stdout: `soundfont: PATH [-> TARGET] (system default; --soundfont to choose)`.
        /// - Thread: any.
        public var line: String {
            let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
            let shown = target == path ? path : "\(path) -> \(target)"
            let why = switch source {
            case .environment: "$STACCATO_SOUNDFONT"
            case .system: "system default"
            case .shipped: "shipped with Staccato"
            }
            return "soundfont: \(shown) (\(why); --soundfont to choose)"
        }
    }

    /// `$STACCATO_SOUNDFONT` when set, else the first of `candidates` that exists and is a
    /// SoundFont by its contents (a RIFF `sfbk` header: the name says nothing, Debian's
    /// default-GM.sf3 may point at an .sf2), else the shipped font. A broken link counts as
    /// absent; a file that is not a SoundFont is skipped and named in `skipped`, so the user
    /// learns why the system's font was not played rather than getting an error for a command
    /// that did not ask for it.
    /// - Thread: control. Reads the candidates' first bytes.
    public static func chooseSoundFont(candidates: [String] = systemSoundFontPaths,
                                       environment: [String: String] = ProcessInfo.processInfo.environment) -> SoundFontChoice {
        if let chosen = environment["STACCATO_SOUNDFONT"], !chosen.isEmpty {
            return SoundFontChoice(path: chosen, source: .environment, skipped: [])
        }
        var skipped: [String] = []
        for candidate in candidates where FileManager.default.fileExists(atPath: candidate) {
            if hasSoundFontHeader(candidate) { return SoundFontChoice(path: candidate, source: .system, skipped: skipped) }
            skipped.append("\(candidate): not a SoundFont (no RIFF sfbk header), skipped")
        }
        return SoundFontChoice(path: shippedFile(shippedSoundFontPath), source: .shipped, skipped: skipped)
    }

    /// Whether the file starts as a SoundFont does: `RIFF`, a size, `sfbk` (SF2 and SF3 alike).
    static func hasSoundFontHeader(_ path: String) -> Bool {
        guard FileKind.notRegularFileReason(path) == nil, let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let header = [UInt8]((try? handle.read(upToCount: 12)) ?? Data())
        return header.count == 12 && header[0..<4].elementsEqual("RIFF".utf8) && header[8..<12].elementsEqual("sfbk".utf8)
    }

    /// A file shipped in the repository (`soundfonts/…`, `samples/…`), looked up from the binary
    /// that holds this code (the running executable, or `libstaccato.so` in an application): in
    /// the tree `make install` wrote (`PREFIX/bin/staccato`, `PREFIX/lib/libstaccato.so` and
    /// `PREFIX/lib/lv2/staccato.lv2/staccato.so` find `PREFIX/share/staccato/<relativePath>`, as the Python package's library finds its own
    /// copy), then in its package (`.build/<triple>/<configuration>/staccato` is three folders
    /// below it), then in the working directory.
    /// - Thread: control.
    public static func shippedFile(_ relativePath: String) -> String {
        shippedFile(relativePath, executable: binaryPath)
    }

    /// The shared library this code was linked into, when it was; else the executable as run.
    /// The mapping that holds this image's header (`#dsohandle`) names its file.
    private static var binaryPath: String {
        let address = UInt(bitPattern: #dsohandle)
        // Read to its end: a /proc file's size says 0, which a sized read would believe.
        let maps = FileHandle(forReadingAtPath: "/proc/self/maps").map { String(decoding: $0.readDataToEndOfFile(), as: UTF8.self) } ?? ""
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6, let dash = fields[0].firstIndex(of: "-"),
                  let start = UInt(fields[0][..<dash], radix: 16),
                  let end = UInt(fields[0][fields[0].index(after: dash)...], radix: 16),
                  (start..<end).contains(address) else { continue }
            let path = fields[5].trimmingCharacters(in: .whitespaces)
            if path.hasSuffix(".so") || path.contains(".so.") { return path }
            break
        }
        return CommandLine.arguments.first ?? "."
    }

    /// `shippedFile(_:)` as seen from the executable at `executable`.
    /// - Thread: control.
    public static func shippedFile(_ relativePath: String, executable: String) -> String {
        let binFolder = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
        // PREFIX/bin and PREFIX/lib are one folder below the prefix; the LV2 bundle,
        // PREFIX/lib/lv2/staccato.lv2, three.
        var prefix = binFolder
        for _ in 0..<3 {
            prefix.deleteLastPathComponent()
            let installed = prefix.appendingPathComponent(installedDataFolder).appendingPathComponent(relativePath).path
            if FileManager.default.fileExists(atPath: installed) { return installed }
        }
        var folder = binFolder
        for _ in 0..<5 {
            let candidate = folder.appendingPathComponent(relativePath).path
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
            folder.deleteLastPathComponent()
        }
        return relativePath
    }

    /// Where `make install` puts the shipped files, below its prefix (beside `bin`); the Makefile's
    /// `DATADIR` says the same.
    static let installedDataFolder = "share/staccato"
}
