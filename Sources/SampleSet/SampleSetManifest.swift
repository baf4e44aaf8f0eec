import Foundation

/// The optional `samples.json` beside the samples (format: see `SampleSetLoader`), validated
/// field by field so every mistake is reported with the field's path (`samples[2].root`) and the
/// value found, not as a generic decoding failure.
struct SampleSetManifest: Decodable {
    static let fileName = "samples.json"

    var name: String?
    /// Volume-envelope release in seconds, for every sample.
    var release: Double?
    var samples: [Entry]

    /// One `samples` entry.
    struct Entry: Decodable {
        /// Position in `samples`, for messages.
        var index: Int
        /// Path relative to the folder.
        var file: String
        var root: UInt8?
        var lowKey: UInt8?
        var highKey: UInt8?
        var lowVelocity: UInt8?
        var highVelocity: UInt8?
        /// Cents.
        var tune: Double?
        /// Decibels.
        var gain: Double?
        /// Frames at the file's own rate.
        var loop: Range<Int>?

        /// The path of one of this entry's fields, as messages name it.
        func field(_ name: String) -> String { "samples[\(index)].\(name)" }

        init(from decoder: any Decoder) throws {
            let fields = try ManifestFields(decoder, known: ["file", "root", "lowKey", "highKey", "lowVelocity",
                                                             "highVelocity", "tune", "gain", "loopStart", "loopEnd"])
            index = decoder.codingPath.last?.intValue ?? 0
            guard let file = try fields.string("file") else { throw fields.missing("file") }
            self.file = file
            root = try fields.key("root")
            lowKey = try fields.key("lowKey")
            highKey = try fields.key("highKey")
            if let lowKey, let highKey, lowKey > highKey {
                throw fields.problem("highKey", "\(highKey) is below lowKey \(lowKey)")
            }
            lowVelocity = try fields.integer("lowVelocity", in: 0...127, expected: "a velocity 0-127").map(UInt8.init)
            highVelocity = try fields.integer("highVelocity", in: 0...127, expected: "a velocity 0-127").map(UInt8.init)
            if let lowVelocity, let highVelocity, lowVelocity > highVelocity {
                throw fields.problem("highVelocity", "\(highVelocity) is below lowVelocity \(lowVelocity)")
            }
            tune = try fields.number("tune", expected: "a number of cents") { $0.isFinite }
            gain = try fields.number("gain", expected: "a number of decibels") { $0.isFinite }
            let loopStart = try fields.integer("loopStart", in: 0...Int.max, expected: "a frame number ≥ 0")
            let loopEnd = try fields.integer("loopEnd", in: 0...Int.max, expected: "a frame number ≥ 0")
            switch (loopStart, loopEnd) {
            case (nil, nil): loop = nil
            case (_?, nil): throw fields.problem("loopEnd", "missing: loopStart needs a loopEnd")
            case (nil, _?): throw fields.problem("loopStart", "missing: loopEnd needs a loopStart")
            case let (start?, end?):
                guard start < end else { throw fields.problem("loopEnd", "\(end) is not after loopStart \(start)") }
                loop = start..<end
            }
        }
    }

    init(from decoder: any Decoder) throws {
        let fields = try ManifestFields(decoder, known: ["name", "release", "samples"])
        name = try fields.string("name")
        release = try fields.number("release", expected: "a number of seconds ≥ 0") { $0.isFinite && $0 >= 0 }
        samples = try fields.array("samples", of: Entry.self, expected: "an array of sample entries") ?? []
    }

    /// Reads the manifest at `path`, or returns nil when there is none.
    /// - Throws: `SampleSetError` naming the manifest, and the field when one is at fault.
    static func load(path: String) throws(SampleSetError) -> SampleSetManifest? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw SampleSetError(path: path, reason: "cannot read: \(error.localizedDescription)")
        }
        do {
            return try JSONDecoder().decode(SampleSetManifest.self, from: data)
        } catch let error as ManifestFieldError {
            throw SampleSetError(path: path, reason: error.field.isEmpty ? error.problem : "\(error.field): \(error.problem)")
        } catch DecodingError.dataCorrupted(let context) {
            // JSONDecoder only says that the syntax is broken; JSONSerialization also says where.
            var detail = context.debugDescription
            do { _ = try JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed) } catch {
                detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? detail
            }
            throw SampleSetError(path: path, reason: "not valid JSON: \(detail)")
        } catch {
            // Every field is read as a raw JSON value and checked here, so this is not expected.
            throw SampleSetError(path: path, reason: "\(error)")
        }
    }
}

/// A manifest field that is missing, unknown or holds the wrong kind of value. Thrown from inside
/// the decoder, where the field's path is known, and turned into a `SampleSetError` by `load`.
struct ManifestFieldError: Error {
    /// `samples[2].root`; empty for the top level.
    var field: String
    var problem: String
}

/// The fields of one JSON object in the manifest: checks for unknown names and converts values
/// with messages that say what was expected and what was found.
private struct ManifestFields {
    let container: KeyedDecodingContainer<FieldName>
    /// The object's own path, `samples[2]`, or empty at the top level.
    let path: String

    init(_ decoder: any Decoder, known: [String]) throws {
        path = fieldPath(decoder.codingPath)
        do {
            container = try decoder.container(keyedBy: FieldName.self)
        } catch {
            let found = (try? decoder.singleValueContainer().decode(JSONValue.self))?.description ?? "something else"
            throw ManifestFieldError(field: path, problem: "expected an object {…}, got \(found)")
        }
        if let unknown = container.allKeys.map(\.stringValue).filter({ !known.contains($0) }).sorted().first {
            throw problem(unknown, "unknown field (known fields: \(known.joined(separator: ", ")))")
        }
    }

    func problem(_ name: String, _ problem: String) -> ManifestFieldError {
        ManifestFieldError(field: path.isEmpty ? name : "\(path).\(name)", problem: problem)
    }

    func missing(_ name: String) -> ManifestFieldError { problem(name, "missing") }

    /// The raw value, or nil when the field is absent or `null`.
    func value(_ name: String) throws -> JSONValue? {
        try container.decodeIfPresent(JSONValue.self, forKey: FieldName(name))
    }

    func string(_ name: String) throws -> String? {
        guard let value = try value(name) else { return nil }
        guard case .string(let text) = value, !text.isEmpty else { throw wrong(name, "a non-empty string", value) }
        return text
    }

    func number(_ name: String, expected: String, valid: (Double) -> Bool) throws -> Double? {
        guard let value = try value(name) else { return nil }
        guard case .number(let number) = value, valid(number) else { throw wrong(name, expected, value) }
        return number
    }

    func integer(_ name: String, in range: ClosedRange<Int>, expected: String) throws -> Int? {
        guard let value = try value(name) else { return nil }
        guard case .number(let number) = value, let integer = Int(exactly: number), range.contains(integer) else {
            throw wrong(name, expected, value)
        }
        return integer
    }

    /// A MIDI key as a number 0…127 or a note name (see `NoteName.midiKey(parsing:)`).
    func key(_ name: String) throws -> UInt8? {
        guard let value = try value(name) else { return nil }
        switch value {
        case .number(let number):
            if let integer = Int(exactly: number), (0...127).contains(integer) { return UInt8(integer) }
        case .string(let text):
            if let key = NoteName.midiKey(parsing: text) { return key }
        default: break
        }
        throw wrong(name, "a MIDI key 0-127 or a note name", value)
    }

    func array<Element: Decodable>(_ name: String, of: Element.Type, expected: String) throws -> [Element]? {
        guard let value = try value(name) else { return nil }
        guard case .array = value else { throw wrong(name, expected, value) }
        return try container.decode([Element].self, forKey: FieldName(name))
    }

    private func wrong(_ name: String, _ expected: String, _ found: JSONValue) -> ManifestFieldError {
        problem(name, "expected \(expected), got \(found)")
    }
}

/// Any field name, so unknown ones can be listed rather than silently skipped.
private struct FieldName: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// `samples[2].root` from a decoder's coding path (array positions carry an `intValue`).
private func fieldPath(_ codingPath: [any CodingKey]) -> String {
    var path = ""
    for key in codingPath {
        if let index = key.intValue { path += "[\(index)]" } else { path += path.isEmpty ? key.stringValue : ".\(key.stringValue)" }
    }
    return path
}

/// A JSON value's kind and, for scalars, its value: enough to check a field and to quote what was
/// found in a message.
private enum JSONValue: Decodable, CustomStringConvertible {
    case null, bool(Bool), number(Double), string(String), array, object

    init(from decoder: any Decoder) throws {
        if let container = try? decoder.singleValueContainer() {
            if container.decodeNil() { self = .null; return }
            if let bool = try? container.decode(Bool.self) { self = .bool(bool); return }
            if let number = try? container.decode(Double.self) { self = .number(number); return }
            if let string = try? container.decode(String.self) { self = .string(string); return }
        }
        self = (try? decoder.unkeyedContainer()) != nil ? .array : .object
    }

    var description: String {
        switch self {
        case .null: "null"
        case .bool(let bool): "\(bool)"
        case .number(let number): Int(exactly: number).map(String.init) ?? "\(number)"
        case .string(let string): "\"\(string)\""
        case .array: "an array"
        case .object: "an object"
        }
    }
}
