import Glibc

/// A command-line mistake: printed as one line, exit code 2.
struct UsageError: Error, CustomStringConvertible {
    let description: String
}

/// One `--name value` or `--flag` a subcommand accepts.
struct OptionSpec: Sendable {
    let name: String
    let valueName: String?
    let help: String
    var takesValue: Bool { valueName != nil }
}

/// The parsed options of one subcommand, with typed, range-checked accessors. Every problem is a
/// `UsageError` that names the option and the bad value.
struct ParsedOptions {
    let command: String
    private(set) var values: [String: String] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positionals: [String] = []

    /// Parses `arguments` against `specs`; unknown options and missing values are errors.
    init(command: String, arguments: [String], specs: [OptionSpec], allowsPositionals: Bool = false) throws {
        self.command = command
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--") else {
                guard allowsPositionals else { throw UsageError(description: "unexpected argument '\(argument)'") }
                positionals.append(argument)
                continue
            }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let spec = specs.first(where: { $0.name == name }) else {
                throw UsageError(description: "unknown option '--\(name)'")
            }
            if spec.takesValue {
                if let inlineValue {
                    values[name] = inlineValue
                } else {
                    guard index < arguments.count else { throw UsageError(description: "--\(name) needs a value (\(spec.valueName!))") }
                    values[name] = arguments[index]
                    index += 1
                }
            } else {
                guard inlineValue == nil else { throw UsageError(description: "--\(name) takes no value") }
                flags.insert(name)
            }
        }
    }

    func has(_ flag: String) -> Bool { flags.contains(flag) }

    func string(_ name: String, default defaultValue: String? = nil) throws -> String {
        if let value = values[name] {
            guard !value.isEmpty else { throw UsageError(description: "--\(name) must not be empty") }
            return value
        }
        if let defaultValue { return defaultValue }
        throw UsageError(description: "--\(name) is required")
    }

    func double(_ name: String, default defaultValue: Double? = nil, in range: ClosedRange<Double>) throws -> Double {
        guard let text = values[name] else {
            if let defaultValue { return defaultValue }
            throw UsageError(description: "--\(name) is required")
        }
        guard let value = Double(text), value.isFinite else {
            throw UsageError(description: "--\(name) expects a number, got '\(text)'")
        }
        guard range.contains(value) else {
            throw UsageError(description: "--\(name) must be within \(range.lowerBound.plainText)...\(range.upperBound.plainText), got \(text)")
        }
        return value
    }

    func integer(_ name: String, default defaultValue: Int? = nil, in range: ClosedRange<Int>) throws -> Int {
        guard let text = values[name] else {
            if let defaultValue { return defaultValue }
            throw UsageError(description: "--\(name) is required")
        }
        guard let value = Int(text) else {
            throw UsageError(description: "--\(name) expects a whole number, got '\(text)'")
        }
        guard range.contains(value) else {
            throw UsageError(description: "--\(name) must be within \(range.lowerBound)...\(range.upperBound), got \(text)")
        }
        return value
    }
}

extension Double {
    /// 48000.0 prints as 48000, 0.5 as 0.5.
    var plainText: String { rounded() == self && abs(self) < 1e15 ? String(Int(self)) : String(self) }
}

/// Prints to standard error, unbuffered: error lines must survive a crash or an abrupt exit. A
/// live line on screen (play's progress, mic's meter) is cleared first, so the error starts its
/// own line.
func printError(_ line: String) {
    StatusLine.standard.printError(line)
}
