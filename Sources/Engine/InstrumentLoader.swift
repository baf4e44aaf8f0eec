import Foundation
import Render
import SampleSet
import SoundFont

/// A failure to load an instrument, as one line naming the file and what is wrong.
public struct InstrumentLoadError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Loads sampled instruments, whole and decoded, before anything can sound: a SoundFont (`.sf2`)
/// or a folder of recordings (a sample set). Either the complete bank or an error; the engine's
/// current instrument is untouched by a failure.
/// - Thread: control. Not real-time safe: allocates and reads files.
public enum InstrumentLoader {
    public static func load(path: String, sampleRate: Double) throws(InstrumentLoadError) -> SampleBank {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw InstrumentLoadError("\(path): no such file or folder")
        }
        do {
            if isDirectory.boolValue { return try SampleSetLoader.load(directory: path, sampleRate: sampleRate) }
            return try SoundFontLoader.load(path: path, sampleRate: sampleRate)
        } catch let error as SoundFontError {
            throw InstrumentLoadError(error.description)
        } catch let error as SampleSetError {
            throw InstrumentLoadError(error.description)
        } catch {
            throw InstrumentLoadError("\(path): \(error)")
        }
    }

    /// The SoundFont shipped with Staccato (piano, program 0; xylophone, program 13);
    /// `STACCATO_SOUNDFONT` overrides it.
    public static var defaultSoundFontPath: String {
        ProcessInfo.processInfo.environment["STACCATO_SOUNDFONT"] ?? shippedFile("soundfonts/FluidR3_GM_piano_xylo.sf2")
    }

    /// A file shipped in the repository (`soundfonts/…`, `samples/…`), looked up from the running
    /// executable's package (`.build/<triple>/<configuration>/staccato` is three folders below it),
    /// then in the working directory.
    public static func shippedFile(_ relativePath: String) -> String {
        var folder = URL(fileURLWithPath: CommandLine.arguments.first ?? ".").resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<5 {
            let candidate = folder.appendingPathComponent(relativePath).path
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
            folder.deleteLastPathComponent()
        }
        return relativePath
    }
}
