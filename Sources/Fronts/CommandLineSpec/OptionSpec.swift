/// What a subcommand does when an option is not given.
package enum OptionDefault: Sendable {
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

    package static func number(_ value: Int) -> OptionDefault { .value(String(value)) }
    package static func number(_ value: Double) -> OptionDefault { .value(value.plainText) }
    /// A list of whole numbers, as a list option takes it: `.numbers([1, 2])` is `1,2`.
    package static func numbers(_ values: [Int]) -> OptionDefault { .value(values.map(String.init).joined(separator: ",")) }

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
package struct OptionSpec: Sendable {
    package let name: String
    /// What the value is (`HZ`, `FILE`); `nil` for a flag.
    package let valueName: String?
    package let help: String
    package let defaultValue: OptionDefault
    /// The values accepted, checked by `ParsedOptions.integer` and `.double` (and each number of a
    /// list) and shown in the table.
    package let range: ClosedRange<Double>?
    /// The value an option whose value may be left out takes when it is (`--denoise` alone is
    /// `--denoise -25`); `nil` when the value must be given. Such an option takes the next
    /// argument as its value only when that is a number.
    package let bareValue: String?
    /// Takes several values, each its own word: every argument up to the next option, and again
    /// each time it is given, so `--midi a.mid b.mid` and `--midi a.mid --midi b.mid` are the
    /// same two songs (`ParsedOptions.strings`). Any other option given twice keeps its last value.
    package let isRepeatable: Bool

    package init(name: String, valueName: String? = nil, help: String, default defaultValue: OptionDefault = .none,
                 range: ClosedRange<Double>? = nil, bareValue: String? = nil, repeatable: Bool = false) {
        precondition(!repeatable || valueName != nil, "--\(name): a flag takes no values to repeat")
        self.name = name
        self.valueName = valueName
        self.help = help
        self.defaultValue = defaultValue
        self.range = range
        self.bareValue = bareValue
        isRepeatable = repeatable
    }

    package var takesValue: Bool { valueName != nil }
    package var isRequired: Bool { if case .required = defaultValue { true } else { false } }

    /// `--rate HZ` (or `--midi` for a flag, `--denoise [DB]` for a value that may be left out,
    /// `--ir IR.wav...` for several): the option's left column in the table.
    package var synopsis: String {
        guard let valueName else { return "--\(name)" }
        if bareValue != nil { return "--\(name) [\(valueName)]" }
        return "--\(name) \(valueName)" + (isRepeatable ? "..." : "")
    }

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
