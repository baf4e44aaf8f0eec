import AudioFile
import CommandLineSpec
import Foundation

/// Where `staccato mic` keeps every session it records by default, and how they are named:
/// `$XDG_MUSIC_DIR/Staccato/mic-YYYY-MM-DD-HHMMSS.flac` (the music folder as the desktop names it
/// in `user-dirs.dirs`, else `~/Music`).
enum SessionRecordings {
    static let subfolder = "Staccato"
    static let prefix = "mic-"
    static let defaultExtension = "flac"

    /// The folder sessions go to: `$XDG_MUSIC_DIR`, else the one `user-dirs.dirs` names, else
    /// `~/Music`; then `Staccato` inside it.
    static func folder(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let home = environment["HOME"] ?? NSHomeDirectory()
        return (musicFolder(environment: environment, home: home) as NSString).appendingPathComponent(subfolder)
    }

    /// `XDG_MUSIC_DIR` from the environment, else from `$XDG_CONFIG_HOME/user-dirs.dirs`
    /// (`~/.config` by default), where a desktop writes it as `XDG_MUSIC_DIR="$HOME/Music"`.
    static func musicFolder(environment: [String: String], home: String) -> String {
        if let music = environment["XDG_MUSIC_DIR"], !music.isEmpty { return music }
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config"
        if let text = try? String(contentsOfFile: config + "/user-dirs.dirs", encoding: .utf8) {
            for line in text.split(separator: "\n") where line.hasPrefix("XDG_MUSIC_DIR=") {
                let value = line.dropFirst("XDG_MUSIC_DIR=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                let expanded = value.replacingOccurrences(of: "$HOME", with: home)
                if expanded.hasPrefix("/") { return expanded }
            }
        }
        return home + "/Music"
    }

    /// A new file for a session starting at `date`, in `folder` (made if missing): named by the
    /// local date and time, with `-2`, `-3`… when a session of the same second is there already.
    /// - Throws: `CommandFailure` when the folder cannot be made.
    static func newPath(in folder: String, at date: Date = Date()) throws -> String {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw CommandFailure("\(folder): cannot make the sessions folder (\(error.localizedDescription)); give --record FILE or --no-record")
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd-HHmmss"
        let stem = (folder as NSString).appendingPathComponent(prefix + formatter.string(from: date))
        var path = stem + "." + defaultExtension
        var count = 1
        while FileManager.default.fileExists(atPath: path) {
            count += 1
            path = stem + "-\(count)." + defaultExtension
        }
        return path
    }

    /// The sessions in `folder`, oldest first (their names sort by time).
    static func list(in folder: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { name in name.hasPrefix(prefix) && AudioFileFormat(path: name) != nil }
            .sorted()
            .map { (folder as NSString).appendingPathComponent($0) }
    }
}

extension Commands {
    static let sessions = Subcommand(
        program: program, name: "sessions",
        summary: "Lists the sessions 'staccato mic' recorded, with their length and peak.",
        description: "Sessions are kept in $XDG_MUSIC_DIR/Staccato (else ~/Music/Staccato) unless mic was given --record FILE or --no-record.",
        options: [
            OptionSpec(name: "dir", valueName: "DIR", help: "the folder to list", default: .described("the sessions folder")),
        ]
    ) { options in
        let folder = try options.values["dir"].map { _ in try options.string("dir") } ?? SessionRecordings.folder()
        let paths = SessionRecordings.list(in: folder)
        guard !paths.isEmpty else {
            print("no sessions in \(folder) yet ('staccato mic' records each session there)")
            return 0
        }
        print("\(paths.count) session\(paths.count == 1 ? "" : "s") in \(folder):")
        var unreadable = 0
        for path in paths {
            let name = (path as NSString).lastPathComponent
            do throws(AudioFileError) {
                let summary = try AudioFileReader.summary(path)
                let peak = summary.peak > 0 ? String(format: "%6.1f dBFS", 20 * log10(Double(summary.peak))) : "silent"
                print("  \(name)  \(Commands.formatTime(summary.seconds))  peak \(peak)")
            } catch {
                unreadable += 1
                print("  \(name)  unreadable: \(error.reason)")
            }
        }
        return unreadable == 0 ? 0 : 1
    }
}
