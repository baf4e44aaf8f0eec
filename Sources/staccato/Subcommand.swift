/// One `staccato` subcommand: its options, its help text and what it does.
struct Subcommand: Sendable {
    let name: String
    let summary: String
    let usage: String
    let options: [OptionSpec]
    var allowsPositionals = false
    /// Plays in real time: SIGINT, SIGTERM and SIGHUP stop it cleanly, from the moment it starts.
    var playsLive = false
    /// Runs with parsed options and returns the process exit code.
    let run: @Sendable (ParsedOptions) throws -> Int32

    var help: String {
        let rows = options.map { ("--\($0.name)" + ($0.valueName.map { " \($0)" } ?? ""), $0.help) }
            + [("--help", "show this help")]
        let width = rows.map(\.0.count).max() ?? 0
        var text = "usage: staccato \(name) \(usage)\n\n\(summary)\n\noptions:\n"
        for (left, help) in rows {
            text += "  " + left + String(repeating: " ", count: width - left.count + 2) + help + "\n"
        }
        return text
    }
}

/// The options every playing subcommand shares, with their defaults.
enum DeviceOptions {
    static func specs(defaultDevice: String) -> [OptionSpec] {
        [
            OptionSpec(name: "device", valueName: "NAME", help: "ALSA playback PCM (default: \(defaultDevice)); see 'staccato devices'"),
            OptionSpec(name: "rate", valueName: "HZ", help: "sample rate (default: 48000)"),
            OptionSpec(name: "period", valueName: "FRAMES", help: "frames per period, 16-8192 (default: 64)"),
            OptionSpec(name: "periods", valueName: "N", help: "periods in the device buffer, 2-16 (default: 3)"),
        ]
    }
}
