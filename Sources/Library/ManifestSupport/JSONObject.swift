/// The fields of one JSON object in a manifest, read strictly: unknown names are errors (a
/// misspelt `voice` silently ignored would be a wrong instrument), and every value is converted
/// with a `ManifestProblem` that names the field's path (`pads[2].note`), quotes what was found
/// and says what was expected.
///
/// A field that is absent or `null` counts as not given: the optional readers return nil, the
/// `required…` ones report it `missing`.
///
/// - Thread: any.
public struct JSONObject {
    /// How a wrong value is reported. Each manifest keeps the wording its users (and tests)
    /// already know, so both live here rather than one loader rewording the other's messages.
    public enum Wording: Sendable {
        /// `expected a velocity 0-127, got 128`
        case expectedFirst
        /// `128 is not a velocity 0-127`
        case foundFirst

        func mismatch(expected: String, found: JSONValue) -> String {
            switch self {
            case .expectedFirst: "expected \(expected), got \(found)"
            case .foundFirst: "\(found) is not \(expected)"
            }
        }
    }

    /// The object's own path, `pads[2]`, or empty at the top level.
    public let path: String
    public let wording: Wording
    private let fields: [String: JSONValue]

    /// Checks that `value` is an object whose field names are all `known`.
    /// - Parameters:
    ///   - path: where `value` is, for messages; empty at the top level.
    ///   - expected: what the object is, for the message when `value` is not one
    ///     (`a pad {"name": …}`).
    /// - Throws: a problem at `path` when `value` is not an object; at the first unknown field
    ///   (alphabetically, so the message does not depend on hash order) otherwise.
    /// - Thread: any.
    public init(_ value: JSONValue, path: String, expected: String, known: [String],
                wording: Wording) throws(ManifestProblem) {
        self.path = path
        self.wording = wording
        guard case .object(let fields) = value else {
            throw ManifestProblem(field: path, problem: wording.mismatch(expected: expected, found: value))
        }
        self.fields = fields
        if let unknown = fields.keys.filter({ !known.contains($0) }).sorted().first {
            throw problem(unknown, "unknown field (known fields: \(known.joined(separator: ", ")))")
        }
    }

    /// The path of the field `name` of this object.
    /// - Thread: any.
    public func field(_ name: String) -> String { path.isEmpty ? name : "\(path).\(name)" }

    /// A problem with the field `name`, for checks only the manifest knows (ranges that must not
    /// cross, duplicates).
    /// - Thread: any.
    public func problem(_ name: String, _ problem: String) -> ManifestProblem {
        ManifestProblem(field: field(name), problem: problem)
    }

    /// - Thread: any.
    public func missing(_ name: String) -> ManifestProblem { problem(name, "missing") }

    /// `found` in the field `name` is not what it should be, in this object's wording.
    /// - Thread: any.
    public func mismatch(_ name: String, expected: String, found: JSONValue) -> ManifestProblem {
        problem(name, wording.mismatch(expected: expected, found: found))
    }

    /// The raw value, or nil when the field is absent or `null`.
    /// - Thread: any.
    public func value(_ name: String) -> JSONValue? {
        guard let value = fields[name], value != .null else { return nil }
        return value
    }

    /// A non-empty string; an empty one is as wrong as a number, since every string field names
    /// something.
    /// - Thread: any.
    public func string(_ name: String, expected: String) throws(ManifestProblem) -> String? {
        guard let value = value(name) else { return nil }
        guard case .string(let text) = value, !text.isEmpty else { throw mismatch(name, expected: expected, found: value) }
        return text
    }

    /// - Thread: any.
    public func requiredString(_ name: String, expected: String) throws(ManifestProblem) -> String {
        guard let text = try string(name, expected: expected) else { throw missing(name) }
        return text
    }

    /// A number within `range`; by default any number JSON can give (every one is finite).
    /// - Thread: any.
    public func number(_ name: String, in range: ClosedRange<Double> = -.greatestFiniteMagnitude ... .greatestFiniteMagnitude,
                       expected: String) throws(ManifestProblem) -> Double? {
        guard let value = value(name) else { return nil }
        guard case .number(let number) = value, range.contains(number) else { throw mismatch(name, expected: expected, found: value) }
        return number
    }

    /// A whole number within `range` (`2.0` counts, `2.5` does not).
    /// - Thread: any.
    public func integer(_ name: String, in range: ClosedRange<Int>, expected: String) throws(ManifestProblem) -> Int? {
        guard let value = value(name) else { return nil }
        guard let integer = Self.integer(value, in: range) else { throw mismatch(name, expected: expected, found: value) }
        return integer
    }

    /// - Thread: any.
    public func requiredInteger(_ name: String, in range: ClosedRange<Int>, expected: String) throws(ManifestProblem) -> Int {
        guard let integer = try integer(name, in: range, expected: expected) else { throw missing(name) }
        return integer
    }

    /// An array of whole numbers, each within `range`; a wrong element is reported at its own
    /// path (`pads[0].alsoNotes[1]`).
    /// - Parameters:
    ///   - expected: what the array is (`an array of MIDI notes`).
    ///   - each: what each element is (`a MIDI note (0-127)`).
    /// - Thread: any.
    public func integers(_ name: String, in range: ClosedRange<Int>, expected: String,
                         each: String) throws(ManifestProblem) -> [Int]? {
        guard let value = value(name) else { return nil }
        guard case .array(let elements) = value else { throw mismatch(name, expected: expected, found: value) }
        var integers: [Int] = []
        for (index, element) in elements.enumerated() {
            guard let integer = Self.integer(element, in: range) else {
                throw mismatch("\(name)[\(index)]", expected: each, found: element)
            }
            integers.append(integer)
        }
        return integers
    }

    /// An array of objects, each checked against `known` and handed to `read` in order, so the
    /// first mistake in document order is the one reported.
    /// - Parameters:
    ///   - expected: what the array is (`an array of pads`).
    ///   - each: what each element is, for an element that is not an object.
    ///   - read: builds one element from its index and fields.
    /// - Returns: nil when the field is absent or `null`, so the caller decides whether that is
    ///   allowed.
    /// - Thread: any.
    public func objects<Element>(_ name: String, expected: String, each: String, known: [String],
                                 _ read: (Int, JSONObject) throws(ManifestProblem) -> Element) throws(ManifestProblem) -> [Element]? {
        guard let value = value(name) else { return nil }
        guard case .array(let entries) = value else { throw mismatch(name, expected: expected, found: value) }
        var elements: [Element] = []
        elements.reserveCapacity(entries.count)
        for (index, entry) in entries.enumerated() {
            let object = try JSONObject(entry, path: "\(field(name))[\(index)]", expected: each, known: known, wording: wording)
            elements.append(try read(index, object))
        }
        return elements
    }

    private static func integer(_ value: JSONValue, in range: ClosedRange<Int>) -> Int? {
        guard case .number(let number) = value, let integer = Int(exactly: number), range.contains(integer) else { return nil }
        return integer
    }
}
