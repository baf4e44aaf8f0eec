import Foundation

/// One benchmark's command-line options, checked against the names it accepts: a mistyped flag is
/// an error rather than a silently ignored one that leaves a figure measured with the wrong setup.
struct BenchArguments {
    private var values: [String: [String]] = [:]
    private var setFlags: Set<String> = []

    /// `--name value...`: an option takes every following word up to the next `--` flag, so
    /// `--midi a.mid b.mid` and `--midi a.mid --midi b.mid` mean the same.
    /// `flags` are options that take no value (`--mic`). A short option (`-o`) is an unknown
    /// option, never a value; a negative number is a value.
    init(_ arguments: [String], accepting names: Set<String>, flags: Set<String> = []) {
        var current: String?
        for word in arguments {
            if !word.hasPrefix("--") && word.count > 1 && word.hasPrefix("-") && Double(word) == nil {
                BenchArguments.fail("unknown option '\(word)' (see --help)", status: 2)
            }
            if word.hasPrefix("--") {
                let name = String(word.dropFirst(2))
                if flags.contains(name) {
                    setFlags.insert(name)
                    current = nil
                    continue
                }
                guard names.contains(name) else { BenchArguments.fail("unknown option '\(word)' (see --help)", status: 2) }
                current = name
                values[name, default: []] += []
            } else if let name = current {
                values[name, default: []].append(word)
            } else {
                BenchArguments.fail("unexpected '\(word)' (see --help)", status: 2)
            }
        }
        for (name, words) in values where words.isEmpty { BenchArguments.fail("--\(name) expects a value", status: 2) }
    }

    func integer(_ name: String, default value: Int) -> Int {
        guard let text = string(name) else { return value }
        guard let parsed = Int(text), parsed > 0 else { BenchArguments.fail("--\(name) expects a positive whole number", status: 2) }
        return parsed
    }

    /// `--name P` or `--name B:P`: a General MIDI program, in bank B (0 unless given).
    func program(_ name: String) -> (bank: UInt8, program: UInt8) {
        guard let text = string(name) else { return (0, 0) }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map { UInt8($0) }
        guard (1...2).contains(parts.count), parts.allSatisfy({ $0.map { $0 < 128 } ?? false }) else {
            BenchArguments.fail("--\(name) expects a program 0...127, or BANK:PROGRAM, got '\(text)'", status: 2)
        }
        return parts.count == 2 ? (parts[0]!, parts[1]!) : (0, parts[0]!)
    }

    /// `--name 64,128` (or `--name 64 128`): a subset of `allowed`, in the order `allowed` lists
    /// them; every other value is an error naming the values that are measured.
    func integers(_ name: String, from allowed: [Int]) -> [Int] {
        let chosen = integers(name, default: allowed, expected: allowed.map(String.init).joined(separator: ","), where: allowed.contains)
        return allowed.filter(chosen.contains)
    }

    /// `--name 300,5000`: whole numbers in `range`, ascending, or `fallback` when not given.
    func integers(_ name: String, default fallback: [Int], in range: ClosedRange<Int>) -> [Int] {
        integers(name, default: fallback, expected: "\(range.lowerBound)...\(range.upperBound)", where: range.contains).sorted()
    }

    private func integers(_ name: String, default fallback: [Int], expected: String, where valid: (Int) -> Bool) -> [Int] {
        let words = strings(name).flatMap { $0.split(separator: ",") }
        guard !words.isEmpty else { return fallback }
        return words.map { word -> Int in
            guard let value = Int(word), valid(value) else {
                BenchArguments.fail("--\(name) expects values from \(expected), got '\(word)'", status: 2)
            }
            return value
        }
    }

    /// `--name a,b`: values of `Choice` by their raw names, or all of them when not given.
    func choices<Choice: RawRepresentable & CaseIterable>(_ name: String, from _: Choice.Type) -> Set<Choice> where Choice.RawValue == String {
        let words = strings(name).flatMap { $0.split(separator: ",") }
        guard !words.isEmpty else { return Set(Choice.allCases) }
        return Set(words.map { word -> Choice in
            guard let choice = Choice(rawValue: String(word)) else {
                BenchArguments.fail("--\(name) expects values from \(Choice.allCases.map(\.rawValue).joined(separator: ",")), got '\(word)'", status: 2)
            }
            return choice
        })
    }

    func flag(_ name: String) -> Bool { setFlags.contains(name) }

    func string(_ name: String) -> String? {
        guard let words = values[name] else { return nil }
        guard words.count == 1 else { BenchArguments.fail("--\(name) expects one value, got \(words.count)", status: 2) }
        return words[0]
    }

    func strings(_ name: String) -> [String] { values[name] ?? [] }

    /// The file named by `--name` (or `fallback`), after checking it is there: a benchmark that fails
    /// half way through its runs on a missing file wastes the runs before it.
    func existingFile(_ name: String, default fallback: String) -> String {
        let path = string(name) ?? fallback
        BenchArguments.requireFile(path)
        return path
    }

    /// The file named by `--name`, after checking it can be written: a report that cannot be saved
    /// must say so before a run of minutes, not after it. The check opens the file for writing
    /// (creating it, leaving what it holds) and removes it again if it was not there before.
    func writableFile(_ name: String) -> String? {
        guard let path = string(name) else { return nil }
        let existed = FileManager.default.fileExists(atPath: path)
        let descriptor = open(path, O_WRONLY | O_CREAT, 0o644)
        guard descriptor >= 0 else { BenchArguments.fail("cannot write --\(name) \(path): \(String(cString: strerror(errno)))", status: 1) }
        close(descriptor)
        if !existed { unlink(path) }
        return path
    }

    static func requireFile(_ path: String) {
        if !FileManager.default.fileExists(atPath: path) { fail("no such file: \(path)", status: 1) }
    }

    static func fail(_ message: String, status: Int32) -> Never {
        FileHandle.standardError.write("staccato-bench: \(message)\n".data(using: .utf8)!)
        exit(status)
    }
}
