@preconcurrency import Glibc
import Engine
import Live
import SampleSet
import SFZ

// Each line reaches a pipe or a log as it is printed, not when the buffer fills or the command
// ends: a supervisor, a test or `tee` sees "playing ..." when it is true.
setvbuf(stdout, nil, _IOLBF, 0)

let arguments = Array(CommandLine.arguments.dropFirst())
let topUsage = """
usage: staccato <command> [options]

Staccato: a real-time audio engine for Linux.

commands:
\(Commands.all.map { "  " + $0.name.padding(8) + $0.summary }.joined(separator: "\n"))

'staccato <command> --help' shows a command's options; 'staccato --version' the version.
"""

extension String {
    func padding(_ width: Int) -> String { self + String(repeating: " ", count: max(1, width - count)) }
}

guard let commandName = arguments.first else {
    printError(topUsage)
    exit(2)
}
// `staccato help --markdown`, `--synopsis` and `--sfz-opcodes` (not advertised): the CLI reference
// (docs/CLI.md), the README's command list and the SFZ opcode table (docs/SFZ.md), generated from the same specs as every usage line
// and options table; scripts/cli-reference writes them, and a test checks they are current.
if commandName == "help" && arguments.dropFirst() == ["--markdown"] {
    print(Commands.all.map(\.markdown).joined(separator: "\n"), terminator: "")
    exit(0)
}
if commandName == "help" && arguments.dropFirst() == ["--sfz-opcodes"] {
    print(SFZOpcodes.markdown, terminator: "")
    exit(0)
}
if commandName == "help" && arguments.dropFirst() == ["--synopsis"] {
    print(Commands.all.map { "# \($0.summary)\n\($0.usageLine)" }.joined(separator: "\n"))
    exit(0)
}
if commandName == "--version" && arguments.count == 1 {
    print("staccato \(staccatoVersion)")
    exit(0)
}
if commandName == "--help" || commandName == "-h" || commandName == "help" {
    print(topUsage)
    exit(0)
}
guard let command = Commands.all.first(where: { $0.name == commandName }) else {
    printError("staccato: unknown command '\(commandName)' (commands: \(Commands.all.map(\.name).joined(separator: ", ")))")
    exit(2)
}
if command.playsLive { LiveSession.installStopSignalHandlers() }
let rest = Array(arguments.dropFirst())
if rest.contains("--help") || rest.contains("-h") {
    print(command.help, terminator: "")
    exit(0)
}
do {
    let options = try ParsedOptions(command: command, arguments: rest)
    exit(try command.run(options))
} catch let error as UsageError {
    printError("staccato \(command.name): \(error) (see 'staccato \(command.name) --help')")
    exit(2)
} catch {
    // Every other error (devices, files, fonts, MIDI) describes itself in one line naming the thing.
    printError("staccato: \(error)")
    exit(1)
}
