import Foundation

/// The folder a benchmark writes the audio it makes into, deleted when it is done: in memory
/// (`/dev/shm`) when the machine has it and `TMPDIR` names no other place, so that a figure is the
/// render's and not the disk's. The dense fixture renders 80 MB of float WAV; on a disk, the kernel
/// writes it back while the next render runs, and on a 2-core machine that time comes from the
/// render threads (bench/results/README.md, "Voices on every core").
enum ScratchFolder {
    /// Where scratch folders go: `TMPDIR` when it is set, else `/dev/shm` when it is a writable
    /// folder, else the system's temporary folder.
    static var parent: URL {
        if ProcessInfo.processInfo.environment["TMPDIR"] == nil {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: "/dev/shm", isDirectory: &isFolder), isFolder.boolValue,
               FileManager.default.isWritableFile(atPath: "/dev/shm") {
                return URL(fileURLWithPath: "/dev/shm", isDirectory: true)
            }
        }
        return FileManager.default.temporaryDirectory
    }

    /// Makes a new folder `staccato-bench-NAME-PID` under `parent`; the caller removes it.
    static func make(_ name: String) throws -> URL {
        let folder = parent.appendingPathComponent("staccato-bench-\(name)-\(getpid())", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}
