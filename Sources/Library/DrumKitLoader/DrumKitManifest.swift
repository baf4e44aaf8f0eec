import Foundation
import ManifestSupport

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
        /// Further notes the pad answers to, in manifest order.
        var alsoNotes: [UInt8]
        var gainDecibels: Double
        var voiceCount: Int
        /// 0 for none; otherwise the group's number, 1, 2, … in the order the names first appear.
        var chokeGroup: UInt16

        /// Every note the pad answers to, its own `note` first (what `DrumKit` expects).
        var notes: [UInt8] { [note] + alsoNotes }

        /// The path of one of this pad's fields, as messages name it.
        func field(_ name: String) -> String { "pads[\(index)].\(name)" }
    }

    static let kitFields = ["name", "pads"]
    static let padFields = ["name", "file", "note", "alsoNotes", "gain", "voices", "chokeGroup"]

    /// Reads and checks the manifest at `path`.
    /// - Throws: `DrumKitError` naming the manifest, and the field when one is at fault.
    static func load(path: String) throws(DrumKitError) -> DrumKitManifest {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        return try ManifestFile.read(path: path, expected: expected, known: kitFields, wording: .foundFirst) { kit throws(ManifestProblem) in
            try parse(kit, folder: folder)
        }
    }

    /// Checks a manifest already in memory, as if it were at `path`.
    /// - Throws: `DrumKitError` naming `path`, and the field when one is at fault.
    static func parse(_ data: Data, path: String) throws(DrumKitError) -> DrumKitManifest {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        return try ManifestFile.decode(data, path: path, expected: expected, known: kitFields, wording: .foundFirst) { kit throws(ManifestProblem) in
            try parse(kit, folder: folder)
        }
    }

    static let expected = "a kit manifest {\"name\": …, \"pads\": […]}"

    /// The manifest in `kit`, with files resolved against `folder`; the kit is named after the
    /// folder when the manifest gives no name.
    private static func parse(_ kit: JSONObject, folder: URL) throws(ManifestProblem) -> DrumKitManifest {
        let name = try kit.string("name", expected: "a kit name (a non-empty string)") ?? folder.lastPathComponent
        // Who claimed each note so far, to name both pads when a note is claimed twice.
        var claims: [UInt8: (field: String, pad: Int, name: String)] = [:]
        var padForName: [String: Int] = [:]
        var chokeGroups: [String: UInt16] = [:]
        let pads = try kit.objects("pads", expected: "an array of pads", each: "a pad {\"name\": …, \"file\": …, \"note\": …}",
                                   known: padFields) { index, fields throws(ManifestProblem) -> Pad in
            let name = try fields.requiredString("name", expected: "a pad name (a non-empty string)")
            let file = try fields.requiredString("file", expected: "a file name (a non-empty string)")
            let note = UInt8(try fields.requiredInteger("note", in: 0...127, expected: "a MIDI note (0-127)"))
            let gain = try fields.number("gain", in: DrumKitLoader.gainRange, expected: "a gain in dB (-60…+12)") ?? 0
            let voices = try fields.integer("voices", in: DrumKitLoader.voiceCountRange, expected: "a voice count (1-64)")
                ?? DrumKitLoader.defaultVoiceCount
            let group = try fields.string("chokeGroup", expected: "a choke group name (a non-empty string)")
            let alsoNotes = try fields.integers("alsoNotes", in: 0...127, expected: "an array of MIDI notes",
                                                each: "a MIDI note (0-127)")?.map(UInt8.init) ?? []

            // Each note plays one pad (the kit's note table has one entry per note), and names
            // are how the rest of the program refers to pads.
            for (position, note) in ([note] + alsoNotes).enumerated() {
                let field = position == 0 ? "note" : "alsoNotes[\(position - 1)]"
                if let other = claims[note] {
                    throw fields.problem(field, other.pad == index
                        ? "\(note) is already \(other.field); list each note once"
                        : "\(note) (\"\(name)\") is also \(other.field) (\"\(other.name)\"); a note plays one pad")
                }
                claims[note] = (fields.field(field), index, name)
            }
            if let other = padForName[name] {
                throw fields.problem("name", "\"\(name)\" is also pads[\(other)].name; pad names must be unique")
            }
            padForName[name] = index
            let chokeGroup: UInt16 = group.map { group in
                if let known = chokeGroups[group] { return known }
                // At most 128 pads (one per note), so the count always fits.
                let number = UInt16(chokeGroups.count + 1)
                chokeGroups[group] = number
                return number
            } ?? 0

            return Pad(index: index, name: name, file: file,
                       path: URL(fileURLWithPath: file, relativeTo: folder).standardizedFileURL.path,
                       note: note, alsoNotes: alsoNotes, gainDecibels: gain, voiceCount: voices, chokeGroup: chokeGroup)
        }
        guard let pads else { throw kit.missing("pads") }
        guard !pads.isEmpty else { throw kit.problem("pads", "empty; a kit needs at least one pad") }
        return DrumKitManifest(name: name, pads: pads)
    }
}
