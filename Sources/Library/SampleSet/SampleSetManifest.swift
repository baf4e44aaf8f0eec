import Foundation
import ManifestSupport
import MIDIVocabulary

/// The optional `samples.json` beside the samples (format: see `SampleSetLoader`), validated
/// field by field so every mistake is reported with the field's path (`samples[2].root`) and the
/// value found, not as a generic decoding failure.
struct SampleSetManifest {
    static let fileName = "samples.json"
    static let fields = ["name", "release", "samples"]

    var name: String?
    /// Volume-envelope release in seconds, for every sample.
    var release: Double?
    var samples: [Entry]

    /// One `samples` entry.
    struct Entry {
        static let fields = ["file", "root", "lowKey", "highKey", "lowVelocity", "highVelocity", "tune", "gain",
                             "loopStart", "loopEnd"]

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

        init(index: Int, _ fields: JSONObject) throws(ManifestProblem) {
            self.index = index
            file = try fields.requiredString("file", expected: "a non-empty string")
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
            tune = try fields.number("tune", expected: "a number of cents")
            gain = try fields.number("gain", expected: "a number of decibels")
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

    init(_ fields: JSONObject) throws(ManifestProblem) {
        name = try fields.string("name", expected: "a non-empty string")
        release = try fields.number("release", in: 0 ... .greatestFiniteMagnitude, expected: "a number of seconds ≥ 0")
        samples = try fields.objects("samples", expected: "an array of sample entries", each: "an object {…}",
                                     known: Entry.fields) { index, entry throws(ManifestProblem) in
            try Entry(index: index, entry)
        } ?? []
    }

    /// Reads the manifest at `path`, or returns nil when there is none.
    /// - Throws: `SampleSetError` naming the manifest, and the field when one is at fault.
    static func load(path: String) throws(SampleSetError) -> SampleSetManifest? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return try ManifestFile.read(path: path, expected: "an object {…}", known: fields, wording: .expectedFirst) {
            fields throws(ManifestProblem) in try SampleSetManifest(fields)
        }
    }
}

extension JSONObject {
    /// A MIDI key as a number 0…127 or a note name (see `NoteName.midiKey(parsing:)`).
    fileprivate func key(_ name: String) throws(ManifestProblem) -> UInt8? {
        guard let value = value(name) else { return nil }
        switch value {
        case .number(let number):
            if let integer = Int(exactly: number), (0...127).contains(integer) { return UInt8(integer) }
        case .string(let text):
            if let key = NoteName.midiKey(parsing: text) { return key }
        default: break
        }
        throw mismatch(name, expected: "a MIDI key 0-127 or a note name", found: value)
    }
}
