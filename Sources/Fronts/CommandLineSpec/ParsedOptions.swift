/// Whether `word` is an option rather than a value: `--anything`, or `-` and a letter (`-o`). A
/// lone `-` (standard input) and a negative number (`--boost -6`) are values.
package func looksLikeOption(_ word: String) -> Bool {
    word.hasPrefix("--") || (word.count > 1 && word.hasPrefix("-") && Double(word) == nil)
}

/// The parsed options of one subcommand, with typed, range-checked accessors that fall back to
/// the spec's default. Every problem is a `UsageError` that names the option and the bad value.
package struct ParsedOptions {
    /// The program the command is of (`staccato`, `staccato-bench`).
    package let program: String
    package let command: String
    package let specs: [OptionSpec]
    /// Each option given with a value: its value, the last one given (`strings` reads every value
    /// of a repeatable option).
    package private(set) var values: [String: String] = [:]
    package private(set) var flags: Set<String> = []
    package private(set) var positionals: [String] = []
    /// Every value given to each option, in order.
    private var everyValue: [String: [String]] = [:]

    /// Parses `arguments` against `command`'s specs: unknown options, missing values (an option
    /// never takes the next option as its value), stray arguments and options that exclude each
    /// other are errors.
    package init(command: Subcommand, arguments: [String]) throws {
        program = command.program
        self.command = command.name
        specs = command.options
        // The option whose value the last argument was: a repeatable one takes the next too, and a
        // stray word after any other names it (`--json a.json b.json`).
        var valueOf: OptionSpec?
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard looksLikeOption(argument) else {
                if let option = valueOf, option.isRepeatable {
                    give(argument, to: option.name)
                    continue
                }
                guard !command.positionals.isEmpty else {
                    throw UsageError(description: "unexpected argument '\(argument)'" + (valueOf.map { ": --\($0.name) takes one value" } ?? ""))
                }
                positionals.append(argument)
                valueOf = nil
                continue
            }
            valueOf = nil
            guard argument.hasPrefix("--") else { throw UsageError(description: "unknown option '\(argument)'") }
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
                    give(inlineValue, to: name)
                    valueOf = spec
                } else if let bareValue = spec.bareValue, index == arguments.count || Double(arguments[index]) == nil {
                    give(bareValue, to: name)
                } else {
                    guard index < arguments.count, !looksLikeOption(arguments[index]) else {
                        throw UsageError(description: "--\(name) needs a value (\(spec.valueName!))")
                    }
                    give(arguments[index], to: name)
                    valueOf = spec
                    index += 1
                }
            } else {
                guard inlineValue == nil else { throw UsageError(description: "--\(name) takes no value") }
                flags.insert(name)
            }
        }
        for group in command.exclusiveGroups + command.requiredGroups {
            let given = group.filter { values[$0] != nil || flags.contains($0) }
            if given.count > 1 {
                throw UsageError(description: given.map { "--\($0)" }.joined(separator: " and ") + " exclude each other")
            }
        }
        for group in command.requiredGroups where !group.contains(where: { values[$0] != nil || flags.contains($0) }) {
            let synopses = group.map { member in specs.first { $0.name == member }!.synopsis }
            throw UsageError(description: alternativesText(synopses) + " is required")
        }
    }

    private mutating func give(_ value: String, to name: String) {
        values[name] = value
        everyValue[name, default: []].append(value)
    }

    package func has(_ flag: String) -> Bool { flags.contains(flag) }

    func spec(_ name: String) -> OptionSpec {
        guard let spec = specs.first(where: { $0.name == name }) else {
            preconditionFailure("\(program) \(command) reads --\(name), which its specs do not declare")
        }
        return spec
    }

    /// The value given to an option the specs declare, if it was given.
    func givenValue(_ name: String) -> String? {
        _ = spec(name)
        return values[name]
    }

    /// The value given, else the spec's default; a required option not given is an error.
    func text(_ name: String) throws -> (text: String, given: Bool) {
        if let value = values[name] { return (value, true) }
        if let value = spec(name).defaultValue.text { return (value, false) }
        throw UsageError(description: "--\(name) is required")
    }

    package func string(_ name: String) throws -> String {
        let (value, given) = try text(name)
        guard !given || !value.isEmpty else { throw UsageError(description: "--\(name) must not be empty") }
        return value
    }

    /// Every value a repeatable option was given, in order; else its default, if it has one, alone;
    /// else none.
    package func strings(_ name: String) throws -> [String] {
        guard let given = everyValue[name] else { return spec(name).defaultValue.text.map { [$0] } ?? [] }
        if given.contains("") { throw UsageError(description: "--\(name) must not be empty") }
        return given
    }

    /// The case of `Choice` whose raw value was given; anything else is a usage error that lists
    /// every case, in declaration order.
    package func choice<Choice: RawRepresentable & CaseIterable>(_ name: String, of _: Choice.Type) throws -> Choice
    where Choice.RawValue == String {
        let value = try string(name)
        guard let choice = Choice(rawValue: value) else {
            throw UsageError(description: "--\(name) must be \(alternativesText(Choice.allCases.map(\.rawValue))), got '\(value)'")
        }
        return choice
    }

    /// A number within `range`, or else the spec's range.
    package func double(_ name: String, in range: ClosedRange<Double>? = nil) throws -> Double {
        let (text, _) = try text(name)
        guard let value = Double(text), value.isFinite else {
            throw UsageError(description: "--\(name) expects a number, got '\(text)'")
        }
        if let range = range ?? spec(name).range, !range.contains(value) {
            throw UsageError(description: "--\(name) must be within \(range.lowerBound.plainText)...\(range.upperBound.plainText), got \(text)")
        }
        return value
    }

    /// A whole number within the spec's range.
    package func integer(_ name: String) throws -> Int {
        let (text, _) = try text(name)
        return try wholeNumber(text, of: name)
    }

    /// `text` as a whole number within the range `name`'s spec gives.
    func wholeNumber(_ text: some StringProtocol, of name: String) throws -> Int {
        guard let value = Int(text) else {
            throw UsageError(description: "--\(name) expects a whole number, got '\(text)'")
        }
        if let range = spec(name).range, !range.contains(Double(value)) {
            throw UsageError(description: "--\(name) must be within \(range.lowerBound.plainText)...\(range.upperBound.plainText), got \(text)")
        }
        return value
    }
}
