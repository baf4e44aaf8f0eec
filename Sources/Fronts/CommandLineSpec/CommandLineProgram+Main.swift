extension CommandLineProgram {
    /// What a front's `main` does once it has read the words of its own (`staccato --version`),
    /// returning the exit code. `arguments` begin with the command's name: with none, the
    /// program's help goes to standard error; `help`, `--help` or `-h` prints it. After a command,
    /// `--help` or `-h` prints the command's help; else its arguments are parsed and it runs,
    /// `starting` called first. A usage mistake is exit code 2 and any other failure 1, each
    /// handed to `printError` as one line: `staccato render: mistake (see 'staccato render --help')`
    /// (`staccato-bench: mistake ...` when the program does not name the command), and
    /// `staccato: failure` (every other error describes itself in one line naming the thing).
    package func exitCode(running arguments: [String], printError: (String) -> Void, starting: (Subcommand) -> Void = { _ in }) -> Int32 {
        guard let word = arguments.first else {
            printError(usage)
            return 2
        }
        if ["help", "--help", "-h"].contains(word) {
            print(usage)
            return 0
        }
        guard let command = command(named: word) else {
            printError("\(name): unknown \(commandKind) '\(word)' (\(commandKind)s: \(commands.map(\.name).joined(separator: ", ")))")
            return 2
        }
        starting(command)
        let rest = Array(arguments.dropFirst())
        if rest.contains("--help") || rest.contains("-h") {
            print(command.help, terminator: "")
            return 0
        }
        do {
            return try command.run(ParsedOptions(command: command, arguments: rest))
        } catch let error as UsageError {
            printError((namesCommandInMistakes ? "\(name) \(command.name)" : name) + ": \(error) (see '\(name) \(command.name) --help')")
            return 2
        } catch {
            printError("\(name): \(error)")
            return 1
        }
    }
}
