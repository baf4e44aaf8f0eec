@preconcurrency import Glibc
import CommandLineSpec
import Engine
import Live
import SampleSet
import SFZ

// Each line reaches a pipe or a log as it is printed, not when the buffer fills or the command
// ends: a supervisor, a test or `tee` sees "playing ..." when it is true.
setvbuf(stdout, nil, _IOLBF, 0)

let arguments = Array(CommandLine.arguments.dropFirst())
// `staccato help --markdown`, `--synopsis` and `--sfz-opcodes` (not advertised): the CLI reference
// (docs/CLI.md), the README's command list and the SFZ opcode table (docs/SFZ.md), generated from the same specs as every usage line
// and options table; scripts/cli-reference writes them, and a test checks they are current.
if arguments == ["help", "--markdown"] {
    print(Commands.all.map(\.markdown).joined(separator: "\n"), terminator: "")
    exit(0)
}
if arguments == ["help", "--sfz-opcodes"] {
    print(SFZOpcodes.markdown, terminator: "")
    exit(0)
}
if arguments == ["help", "--synopsis"] {
    print(Commands.all.map { "# \($0.summary)\n\($0.usageLine)" }.joined(separator: "\n"))
    exit(0)
}
if arguments == ["--version"] {
    print("staccato \(staccatoVersion)")
    exit(0)
}
exit(Commands.staccato.exitCode(running: arguments, printError: printError) { command in
    if command.playsLive { LiveSession.installStopSignalHandlers() }
})
