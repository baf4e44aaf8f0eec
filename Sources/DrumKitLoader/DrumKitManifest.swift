import Foundation

/// A kit manifest (format: see `DrumKitLoader`), checked field by field so every mistake is
/// reported with the field's path (`pads[2].note`) and the value found, not as a generic decoding
/// failure. Only the JSON is checked here; the pads' files are the loader's business.
struct DrumKitManifest {
    var name: String
    var pads: [Pad]

    /// One `pads` entry, every default filled in.
    struct Pad {
        /// Position in `pads`, for messages.
        var index: Int
        var name: String
        /// As the manifest gives it, for messages.
        var file: String
        /// `file` resolved against the manifest's folder.
        var path: String
        var note: UInt8
        var gainDecibels: Double
        var voiceCount: Int
        /// 0 for none; otherwise the group's number, 1, 2, … in the order the names first appear.
        var chokeGroup: UInt16

        /// The path of one of this pad's fields, as messages name it.
        func field(_ name: String) -> String { "pads[\(index)].\(name)" }
    }

    static let padFields = ["name", "file", "note", "gain", "voices", "chokeGroup"]

    /// Reads and checks the manifest at `path`.
    /// - Throws: `DrumKitError` naming the manifest, and the field when one is at fault.
    static func load(path: String) throws(DrumKitError) -> DrumKitManifest {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw DrumKitError(path: path, reason: "cannot read: \(error.localizedDescription)")
        }
        let root: JSONValue
        do {
            root = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            // JSONDecoder only says that the syntax is broken; JSONSerialization also says where.
            var detail = "\(error)"
            do { _ = try JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed) } catch {
                detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? detail
            }
            throw DrumKitError(path: path, reason: "not valid JSON: \(detail)")
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        do {
            return try parse(root, folder: folder)
        } catch {
            throw DrumKitError(path: path, reason: error.field.isEmpty ? error.problem : "\(error.field): \(error.problem)")
        }
    }

    /// The manifest in `root`, with files resolved against `folder`; the kit is named after the
    /// folder when the manifest gives no name.
    private static func parse(_ root: JSONValue, folder: URL) throws(ManifestProblem) -> DrumKitManifest {
        let kit = try JSONObject(root, path: "", expected: "a kit manifest {\"name\": …, \"pads\": […]}",
                                 known: ["name", "pads"])
        let name = try kit.string("name", expected: "a kit name (a non-empty string)") ?? folder.lastPathComponent
        guard let padList = kit.value("pads") else { throw kit.problem("pads", "missing") }
        guard case .array(let entries) = padList else { throw kit.problem("pads", "\(padList) is not an array of pads") }
        guard !entries.isEmpty else { throw kit.problem("pads", "empty; a kit needs at least one pad") }

        var pads: [Pad] = []
        var padForNote: [UInt8: Int] = [:]
        var padForName: [String: Int] = [:]
        var chokeGroups: [String: UInt16] = [:]
        for (index, entry) in entries.enumerated() {
            let fields = try JSONObject(entry, path: "pads[\(index)]",
                                        expected: "a pad {\"name\": …, \"file\": …, \"note\": …}", known: padFields)
            guard let name = try fields.string("name", expected: "a pad name (a non-empty string)") else {
                throw fields.problem("name", "missing")
            }
            guard let file = try fields.string("file", expected: "a file name (a non-empty string)") else {
                throw fields.problem("file", "missing")
            }
            guard let note = try fields.integer("note", in: 0...127, expected: "a MIDI note (0-127)") else {
                throw fields.problem("note", "missing")
            }
            let gain = try fields.number("gain", in: DrumKitLoader.gainRange, expected: "a gain in dB (-60…+12)") ?? 0
            let voices = try fields.integer("voices", in: DrumKitLoader.voiceCountRange, expected: "a voice count (1-64)")
                ?? DrumKitLoader.defaultVoiceCount
            let group = try fields.string("chokeGroup", expected: "a choke group name (a non-empty string)")

            // Each note plays one pad, and names are how the rest of the program refers to pads.
            if let other = padForNote[UInt8(note)] {
                throw fields.problem("note", "\(note) (\"\(name)\") is also pads[\(other)].note (\"\(pads[other].name)\"); a note plays one pad")
            }
            if let other = padForName[name] {
                throw fields.problem("name", "\"\(name)\" is also pads[\(other)].name; pad names must be unique")
            }
            padForNote[UInt8(note)] = index
            padForName[name] = index
            let chokeGroup: UInt16 = group.map { group in
                if let known = chokeGroups[group] { return known }
                // At most 128 pads (one per note), so the count always fits.
                let number = UInt16(chokeGroups.count + 1)
                chokeGroups[group] = number
                return number
            } ?? 0

            pads.append(Pad(index: index, name: name, file: file,
                            path: URL(fileURLWithPath: file, relativeTo: folder).standardizedFileURL.path,
                            note: UInt8(note), gainDecibels: gain, voiceCount: voices, chokeGroup: chokeGroup))
        }
        return DrumKitManifest(name: name, pads: pads)
    }
}

/// A manifest field that is missing, unknown, duplicated or holds a wrong value, turned into a
/// `DrumKitError` naming the manifest by `DrumKitManifest.load`.
struct ManifestProblem: Error {
    /// `pads[2].note`; empty for the manifest as a whole.
    var field: String
    var problem: String
}

/// The fields of one JSON object in the manifest: rejects unknown names (a misspelt `voice`
/// silently ignored would be a wrong kit) and converts values with messages that quote what was
/// found and say what was expected.
private struct JSONObject {
    let fields: [String: JSONValue]
    /// The object's own path, `pads[2]`, or empty at the top level.
    let path: String

    init(_ value: JSONValue, path: String, expected: String, known: [String]) throws(ManifestProblem) {
        guard case .object(let fields) = value else {
            throw ManifestProblem(field: path, problem: "\(value) is not \(expected)")
        }
        self.fields = fields
        self.path = path
        if let unknown = fields.keys.filter({ !known.contains($0) }).sorted().first {
            throw problem(unknown, "unknown field (known fields: \(known.joined(separator: ", ")))")
        }
    }

    func problem(_ name: String, _ problem: String) -> ManifestProblem {
        ManifestProblem(field: path.isEmpty ? name : "\(path).\(name)", problem: problem)
    }

    /// The raw value, or nil when the field is absent or `null`.
    func value(_ name: String) -> JSONValue? {
        guard let value = fields[name], value != .null else { return nil }
        return value
    }

    func string(_ name: String, expected: String) throws(ManifestProblem) -> String? {
        guard let value = value(name) else { return nil }
        guard case .string(let text) = value, !text.isEmpty else { throw problem(name, "\(value) is not \(expected)") }
        return text
    }

    func number(_ name: String, in range: ClosedRange<Double>, expected: String) throws(ManifestProblem) -> Double? {
        guard let value = value(name) else { return nil }
        guard case .number(let number) = value, range.contains(number) else { throw problem(name, "\(value) is not \(expected)") }
        return number
    }

    func integer(_ name: String, in range: ClosedRange<Int>, expected: String) throws(ManifestProblem) -> Int? {
        guard let value = value(name) else { return nil }
        guard case .number(let number) = value, let integer = Int(exactly: number), range.contains(integer) else {
            throw problem(name, "\(value) is not \(expected)")
        }
        return integer
    }
}

/// A whole JSON document as a tree, so the manifest can be checked with plain pattern matching
/// and any value quoted in a message.
private enum JSONValue: Decodable, Equatable, CustomStringConvertible {
    case null, bool(Bool), number(Double), string(String), array([JSONValue]), object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let bool = try? container.decode(Bool.self) { self = .bool(bool) }
        else if let number = try? container.decode(Double.self) { self = .number(number) }
        else if let string = try? container.decode(String.self) { self = .string(string) }
        else if let array = try? container.decode([JSONValue].self) { self = .array(array) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
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
