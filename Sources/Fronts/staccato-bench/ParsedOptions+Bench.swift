import CommandLineSpec
import Foundation

/// The value forms only staccato-bench reads: a General MIDI program, and files checked before a
/// run, since a benchmark that fails half way through its runs wastes the runs before it.
extension ParsedOptions {
    /// `--name P` or `--name B:P`: a General MIDI program, in bank B (0 unless given).
    func program(_ name: String) throws -> (bank: UInt8, program: UInt8) {
        let text = try string(name)
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map { UInt8($0) }
        guard (1...2).contains(parts.count), parts.allSatisfy({ $0.map { $0 < 128 } ?? false }) else {
            throw UsageError(description: "--\(name) expects a program 0...127, or BANK:PROGRAM, got '\(text)'")
        }
        return parts.count == 2 ? (parts[0]!, parts[1]!) : (0, parts[0]!)
    }

    /// The file `--name` names (or its default), after checking it is there.
    func existingFile(_ name: String) throws -> String {
        let path = try string(name)
        try requireExistingFile(path)
        return path
    }

    /// Every file a repeatable `--name` names (or its default), after checking each is there.
    func existingFiles(_ name: String) throws -> [String] {
        let paths = try strings(name)
        try paths.forEach(requireExistingFile)
        return paths
    }

    /// The file `--name` names, after checking it can be written: a report that cannot be saved
    /// must say so before a run of minutes, not after it. The check opens the file for writing
    /// (creating it, leaving what it holds) and removes it again if it was not there before.
    func writableFile(_ name: String) throws -> String? {
        guard values[name] != nil else { return nil }
        let path = try string(name)
        let existed = FileManager.default.fileExists(atPath: path)
        let descriptor = open(path, O_WRONLY | O_CREAT, 0o644)
        guard descriptor >= 0 else { throw CommandFailure("cannot write --\(name) \(path): \(String(cString: strerror(errno)))") }
        close(descriptor)
        if !existed { unlink(path) }
        return path
    }
}

/// Checks that an input file is there before anything is measured: a missing one is one line and
/// exit 1.
func requireExistingFile(_ path: String) throws {
    if !FileManager.default.fileExists(atPath: path) { throw CommandFailure("no such file: \(path)") }
}
