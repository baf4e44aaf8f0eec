import CommandLineSpec
import Foundation

/// One line on standard error. Every error is one: `staccato-bench: <what is wrong>`.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard !arguments.isEmpty else {
    printError("staccato-bench: which benchmark? (see 'staccato-bench --help')")
    exit(2)
}
exit(Benchmarks.staccatoBench.exitCode(running: arguments, printError: printError))
