/// A program of subcommands (`staccato`, `staccato-bench`): its own `--help`, which lists the
/// commands by their summaries, and the command a word names.
package struct CommandLineProgram: Sendable {
    package let name: String
    /// What the program calls its commands: `command`, `benchmark`.
    package let commandKind: String
    /// One line on what the program is, under its usage line.
    package let about: String
    /// Whether a usage mistake's line names the command (`staccato render: ...`) or the program
    /// alone (`staccato-bench: ...`).
    package let namesCommandInMistakes: Bool
    package let commands: [Subcommand]
    /// What follows the list: how to see a command's options, what else the program takes.
    package let closing: String

    package init(name: String, commandKind: String = "command", about: String, commands: [Subcommand], closing: String,
                 namesCommandInMistakes: Bool = true) {
        precondition(commands.allSatisfy { $0.program == name }, "every command of \(name) names it in its usage line")
        self.name = name
        self.commandKind = commandKind
        self.about = about
        self.commands = commands
        self.closing = closing
        self.namesCommandInMistakes = namesCommandInMistakes
    }

    /// `usage: staccato <command> [options]`, what the program is, each command and its summary,
    /// and the closing lines.
    package var usage: String {
        let width = (commands.map(\.name.count).max() ?? 0) + 2
        let list = commands.map { "  " + $0.name + String(repeating: " ", count: width - $0.name.count) + $0.summary }
        return "usage: \(name) <\(commandKind)> [options]\n\n\(about)\n\n\(commandKind)s:\n" + list.joined(separator: "\n") + "\n\n" + closing
    }

    package func command(named word: String) -> Subcommand? {
        commands.first { $0.name == word }
    }
}
