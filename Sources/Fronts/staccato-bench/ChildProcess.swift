import Foundation

/// Runs a program found on PATH and waits for it. The wall time covers everything the child does,
/// start-up included, which is what a user of that program waits for.
struct ChildProcess {
    var status: Int32
    var output: Data
    var seconds: Double

    /// `nil` when the program cannot be started at all.
    static func run(_ arguments: [String]) -> ChildProcess? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let start = DispatchTime.now().uptimeNanoseconds
        guard (try? process.run()) != nil else { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return ChildProcess(status: process.terminationStatus, output: data, seconds: seconds)
    }
}
