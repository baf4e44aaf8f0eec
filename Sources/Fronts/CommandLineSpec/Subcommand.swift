/// One subcommand of a program (`staccato render`, `staccato-bench latency`): its arguments, its
/// help text and what it does. The usage line, the options table and the markdown reference are
/// all generated from `positionals` and `options`.
package struct Subcommand: Sendable {
    /// The program it is a command of, first in its usage line.
    package let program: String
    package let name: String
    /// One sentence: the command's line in the program's `--help`.
    package let summary: String
    /// The rest of the story, for the command's own `--help`.
    package var description: String
    package var positionals: [PositionalSpec]
    package let options: [OptionSpec]
    /// Options of which at most one may be given: `[--soundfont FONT.sf2 | --samples DIR]`.
    package var exclusiveGroups: [[String]]
    /// Options of which exactly one must be given: `(--out FILE | --out-dir DIR)`. Each member is
    /// optional on its own (its table row says what it does, not "required").
    package var requiredGroups: [[String]]
    /// Plays in real time: SIGINT, SIGTERM and SIGHUP stop it cleanly, from the moment it starts
    /// (the front installs its handlers before it parses).
    package var playsLive: Bool
    /// Runs with parsed options and returns the process exit code.
    package let run: @Sendable (ParsedOptions) throws -> Int32

    package init(program: String, name: String, summary: String, description: String = "", positionals: [PositionalSpec] = [],
                 options: [OptionSpec], exclusiveGroups: [[String]] = [], requiredGroups: [[String]] = [], playsLive: Bool = false,
                 run: @escaping @Sendable (ParsedOptions) throws -> Int32) {
        self.program = program
        self.name = name
        self.summary = summary
        self.description = description
        self.positionals = positionals
        self.options = options
        self.exclusiveGroups = exclusiveGroups
        self.requiredGroups = requiredGroups
        self.playsLive = playsLive
        self.run = run
    }

    /// `staccato render SONG.mid... (--out FILE | --out-dir DIR) [--soundfont FONT.sf2 | --samples DIR] [--rate 48000]`:
    /// positionals, then required options and groups, then the optional ones (a group where its
    /// first member is).
    package var usageLine: String {
        func alternatives(_ group: [String]) -> String {
            group.map { member in options.first { $0.name == member }!.usage(bare: true) }.joined(separator: " | ")
        }
        var words = [program, name] + positionals.map(\.usage) + options.filter(\.isRequired).map { $0.usage() }
            + requiredGroups.map { "(" + alternatives($0) + ")" }
        var grouped = Set(requiredGroups.joined())
        for option in options where !option.isRequired && !grouped.contains(option.name) {
            if let group = exclusiveGroups.first(where: { $0.contains(option.name) }) {
                grouped.formUnion(group)
                words.append("[" + alternatives(group) + "]")
            } else {
                words.append(option.usage())
            }
        }
        return words.joined(separator: " ")
    }

    /// "required: this or --out-dir" for a member of a required group: what its table says in
    /// place of a default (a member has none, since one of the group is always given).
    private func requiredGroupNote(_ option: OptionSpec) -> String? {
        guard let group = requiredGroups.first(where: { $0.contains(option.name) }) else { return nil }
        return "required: this or " + alternativesText(group.filter { $0 != option.name }.map { "--\($0)" })
    }

    /// The summary and the description, one paragraph.
    private var about: String { description.isEmpty ? summary : summary + " " + description }

    /// `text` broken between words into lines of at most `width` characters.
    static func wrap(_ text: String, width: Int = 100) -> String {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty && line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        return (lines + [line]).joined(separator: "\n")
    }

    /// The command's `--help`: the usage line, the story, and a table of its arguments and options.
    package var help: String {
        let rows = positionals.map { ($0.synopsis, $0.help) }
            + options.map { option in (option.synopsis, requiredGroupNote(option).map { "\(option.help) (\($0))" } ?? option.tableText) }
            + [("--help", "show this help")]
        let width = rows.map(\.0.count).max() ?? 0
        var text = "usage: \(usageLine)\n\n\(Subcommand.wrap(about))\n\n" + (positionals.isEmpty ? "options:\n" : "arguments and options:\n")
        for (left, help) in rows {
            text += "  " + left + String(repeating: " ", count: width - left.count + 2) + help + "\n"
        }
        return text
    }

    /// The command's section of the program's reference, in markdown (docs/CLI.md for `staccato`).
    package var markdown: String {
        var text = "### `\(program) \(name)`\n\n\(about)\n\n```\n\(usageLine)\n```\n"
        guard !(positionals.isEmpty && options.isEmpty) else { return text }
        text += "\n| argument | default | values | meaning |\n|---|---|---|---|\n"
        for positional in positionals {
            text += "| `\(positional.synopsis)` | \(positional.isRequired ? "required" : "") | | \(positional.help) |\n"
        }
        for option in options {
            text += "| `\(option.synopsis)` | \(requiredGroupNote(option) ?? option.markdownDefault) | \(option.rangeText ?? "") | \(option.help) |\n"
        }
        return text
    }
}
