import AudioFile
import Glibc

/// A command-line mistake: printed as one line, exit code 2.
struct UsageError: Error, CustomStringConvertible {
    let description: String
}

/// What a subcommand does when an option is not given.
enum OptionDefault: Sendable {
    /// The command cannot run without it: bare in the usage line, "(required)" in the table.
    case required
    /// The command does without it (no recording, no time limit): `[--record FILE]`.
    case none
    /// This value: `[--rate 48000]` in the usage line, "(default: 48000)" in the table.
    case value(String)
    /// Described in words in the table: `[--soundfont FONT.sf2]`, "(default: the shipped piano
    /// font)". `value`, when there is one, is worked out when the command runs (a path found beside
    /// the executable); without it the command reads whether the option was given.
    case described(String, value: (@Sendable () -> String)? = nil)

    static func number(_ value: Int) -> OptionDefault { .value(String(value)) }
    static func number(_ value: Double) -> OptionDefault { .value(value.plainText) }

    /// The text the accessors read when the option is not given.
    var text: String? {
        switch self {
        case .required, .none: nil
        case .value(let value): value
        case .described(_, let value): value?()
        }
    }
}

/// One `--name value` or `--flag` a subcommand accepts: everything its usage line, its options
/// table and its accessors need, so the three cannot disagree.
struct OptionSpec: Sendable {
    let name: String
    /// What the value is (`HZ`, `FILE`); `nil` for a flag.
    let valueName: String?
    let help: String
    let defaultValue: OptionDefault
    /// The values accepted, checked by `ParsedOptions.integer` and `.double` and shown in the table.
    let range: ClosedRange<Double>?
    /// The value an option whose value may be left out takes when it is (`--denoise` alone is
    /// `--denoise -25`); `nil` when the value must be given. Such an option takes the next
    /// argument as its value only when that is a number.
    let bareValue: String?

    init(name: String, valueName: String? = nil, help: String, default defaultValue: OptionDefault = .none,
         range: ClosedRange<Double>? = nil, bareValue: String? = nil) {
        self.name = name
        self.valueName = valueName
        self.help = help
        self.defaultValue = defaultValue
        self.range = range
        self.bareValue = bareValue
    }

    var takesValue: Bool { valueName != nil }
    var isRequired: Bool { if case .required = defaultValue { true } else { false } }

    /// `--rate HZ` (or `--midi` for a flag, `--denoise [DB]` for a value that may be left out): the
    /// option's left column in the table.
    var synopsis: String { "--\(name)" + (valueName.map { bareValue == nil ? " \($0)" : " [\($0)]" } ?? "") }

    /// The option in the usage line: `--device NAME` when required, `[--rate 48000]` with a
    /// default value, `[--record FILE]` otherwise; `bare` leaves the brackets off (for a group).
    func usage(bare: Bool = false) -> String {
        let text = if case .value(let value) = defaultValue { "--\(name) \(value)" } else { synopsis }
        return isRequired || bare ? text : "[\(text)]"
    }

    /// What the table says about the default: "required", the value, its description, or nothing.
    var defaultText: String? {
        switch defaultValue {
        case .required: "required"
        case .none: nil
        case .value(let value): value
        case .described(let description, _): description
        }
    }

    /// The default for the markdown reference: a value as code (`48000`), a description as words.
    var markdownDefault: String {
        if case .value(let value) = defaultValue { "`\(value)`" } else { defaultText ?? "" }
    }

    /// The accepted values: "16...8192".
    var rangeText: String? { range.map { "\($0.lowerBound.plainText)...\($0.upperBound.plainText)" } }

    /// The options table's right column: "frames per period (16...8192; default: 64)".
    var tableText: String {
        let notes = [rangeText, isRequired ? "required" : defaultText.map { "default: \($0)" }].compactMap { $0 }
        return notes.isEmpty ? help : help + " (" + notes.joined(separator: "; ") + ")"
    }
}

/// A positional argument (a MIDI file), or a list of them.
struct PositionalSpec: Sendable {
    let name: String
    let help: String
    let isRequired: Bool
    /// Takes any number of arguments (`SONG.mid...`); the command checks how many it got.
    var isRepeatable = false

    /// `SONG.mid`, or `SONG.mid...` when repeatable: the argument's left column in the table.
    var synopsis: String { isRepeatable ? name + "..." : name }
    var usage: String { isRequired ? synopsis : "[\(synopsis)]" }
}

/// Whether `word` is an option rather than a value: `--anything`, or `-` and a letter (`-o`). A
/// lone `-` (standard input) and a negative number (`--boost -6`) are values.
func looksLikeOption(_ word: String) -> Bool {
    word.hasPrefix("--") || (word.count > 1 && word.hasPrefix("-") && Double(word) == nil)
}

/// The parsed options of one subcommand, with typed, range-checked accessors that fall back to
/// the spec's default. Every problem is a `UsageError` that names the option and the bad value.
struct ParsedOptions {
    let command: String
    let specs: [OptionSpec]
    private(set) var values: [String: String] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positionals: [String] = []

    /// Parses `arguments` against `command`'s specs: unknown options, missing values (an option
    /// never takes the next option as its value), stray arguments and options that exclude each
    /// other are errors.
    init(command: Subcommand, arguments: [String]) throws {
        self.command = command.name
        specs = command.options
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard looksLikeOption(argument) else {
                guard !command.positionals.isEmpty else { throw UsageError(description: "unexpected argument '\(argument)'") }
                positionals.append(argument)
                continue
            }
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
                    values[name] = inlineValue
                } else if let bareValue = spec.bareValue, index == arguments.count || Double(arguments[index]) == nil {
                    values[name] = bareValue
                } else {
                    guard index < arguments.count, !looksLikeOption(arguments[index]) else {
                        throw UsageError(description: "--\(name) needs a value (\(spec.valueName!))")
                    }
                    values[name] = arguments[index]
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

    func has(_ flag: String) -> Bool { flags.contains(flag) }

    private func spec(_ name: String) -> OptionSpec {
        guard let spec = specs.first(where: { $0.name == name }) else {
            preconditionFailure("staccato \(command) reads --\(name), which its specs do not declare")
        }
        return spec
    }

    /// The value given, else the spec's default; a required option not given is an error.
    private func text(_ name: String) throws -> (text: String, given: Bool) {
        if let value = values[name] { return (value, true) }
        if let value = spec(name).defaultValue.text { return (value, false) }
        throw UsageError(description: "--\(name) is required")
    }

    func string(_ name: String) throws -> String {
        let (value, given) = try text(name)
        guard !given || !value.isEmpty else { throw UsageError(description: "--\(name) must not be empty") }
        return value
    }

    /// The case of `Choice` whose raw value was given; anything else is a usage error that lists
    /// every case, in declaration order.
    func choice<Choice: RawRepresentable & CaseIterable>(_ name: String, of _: Choice.Type) throws -> Choice
    where Choice.RawValue == String {
        let value = try string(name)
        guard let choice = Choice(rawValue: value) else {
            throw UsageError(description: "--\(name) must be \(alternativesText(Choice.allCases.map(\.rawValue))), got '\(value)'")
        }
        return choice
    }

    /// A number within `range`, or else the spec's range.
    func double(_ name: String, in range: ClosedRange<Double>? = nil) throws -> Double {
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
    func integer(_ name: String) throws -> Int {
        let (text, _) = try text(name)
        guard let value = Int(text) else {
            throw UsageError(description: "--\(name) expects a whole number, got '\(text)'")
        }
        if let range = spec(name).range, !range.contains(Double(value)) {
            throw UsageError(description: "--\(name) must be within \(range.lowerBound.plainText)...\(range.upperBound.plainText), got \(text)")
        }
        return value
    }

    /// A sound file to write: its extension must name a format AudioFile writes. Checked before
    /// anything loads or plays, so a typo costs nothing.
    func soundFilePath(_ name: String) throws -> String {
        let path = try string(name)
        guard AudioFileFormat(path: path) != nil else {
            throw UsageError(description: "--\(name) must end in \(AudioFileFormat.extensionList), got '\(path)'")
        }
        return path
    }
}

/// `a`, `a or b`, `a, b or c`: alternatives as a sentence names them.
func alternativesText(_ alternatives: [String]) -> String {
    alternatives.count < 2 ? alternatives.joined() : alternatives.dropLast().joined(separator: ", ") + " or " + alternatives.last!
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
