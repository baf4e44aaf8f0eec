import AudioFile
import CommandLineSpec

extension ParsedOptions {
    /// A sound file to write: its extension must name a format AudioFile writes. Checked before
    /// anything loads or plays, so a typo costs nothing.
    func soundFilePath(_ name: String) throws -> String {
        let path = try string(name)
        guard AudioFileFormat(path: path) != nil else {
            throw UsageError(description: "--\(name) must end in \(AudioFileFormat.extensionList), got '\(path)'")
        }
        return path
    }
}
