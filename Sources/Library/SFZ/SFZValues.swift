import DSP
import FileChecks
import Foundation
import MIDIVocabulary
import Render
import SampleSet

// Reading values: text encodings, numbers and keys in range (out-of-range values clamped and
// counted), paths as libraries write them.
extension SFZPlan {
    /// A file's text: UTF-8, else Latin-1 (which reads any bytes), as older libraries were saved.
    static func text(of data: Data) -> String {
        String(data: data, encoding: .utf8) ?? String(data: data, encoding: .isoLatin1) ?? String(decoding: data, as: UTF8.self)
    }

    static func problem(_ value: SFZText.Value, _ reason: String) -> SampleSetError {
        SampleSetError(path: "\(value.file):\(value.line)", reason: reason)
    }

    /// Values read outside their opcode's range, each brought to the nearer end, as sfizz does:
    /// said once each, in the plan's warnings. (Bound for the reading of one file, on its thread.)
    final class ClampedValues: @unchecked Sendable {
        var lines: [String] = []
    }
    @TaskLocal static var clamped: ClampedValues?

    static func number(_ value: SFZText.Value, _ opcode: String, in range: ClosedRange<Double>) throws(SampleSetError) -> Double {
        guard let number = Double(value.text), number.isFinite else { throw problem(value, "\(opcode)=\(value.text): not a number") }
        guard range.contains(number) else {
            let bound = number < range.lowerBound ? range.lowerBound : range.upperBound
            clamped?.lines.append("\(value.file):\(value.line): \(opcode)=\(value.text): outside \(range.lowerBound.formatted())…\(range.upperBound.formatted()), read as \(bound.formatted())")
            return bound
        }
        return number
    }

    static func integer(_ value: SFZText.Value, _ opcode: String, in range: ClosedRange<Int>) throws(SampleSetError) -> Int {
        guard let number = Int(value.text) ?? Double(value.text).flatMap({ $0.isFinite && abs($0) < 1e15 ? Int($0) : nil }) else {
            throw problem(value, "\(opcode)=\(value.text): not a whole number")
        }
        guard range.contains(number) else {
            let bound = number < range.lowerBound ? range.lowerBound : range.upperBound
            clamped?.lines.append("\(value.file):\(value.line): \(opcode)=\(value.text): outside \(range.lowerBound)…\(range.upperBound), read as \(bound)")
            return bound
        }
        return number
    }

    /// A key: a MIDI number 0-127 or a note name (`c4` = 60, `c#4`, `db4`).
    static func key(_ value: SFZText.Value, _ opcode: String) throws(SampleSetError) -> UInt8 {
        if let number = Int(value.text) {
            guard (0...127).contains(number) else { throw problem(value, "\(opcode)=\(value.text): outside 0…127") }
            return UInt8(number)
        }
        guard let key = NoteName.midiKey(parsing: value.text) else { throw problem(value, "\(opcode)=\(value.text): not a key (0-127 or a name such as c4)") }
        return key
    }

    /// A time in seconds. SFZ gives 100 s as the range; a longer one (a font converted to SFZ may
    /// carry one) plays as written, up to an hour.
    static func seconds(_ value: SFZText.Value?, _ opcode: String) throws(SampleSetError) -> Double? {
        try value.map { value throws(SampleSetError) in try number(value, opcode, in: 0...3_600) }
    }

    /// `path` with Windows' `\` between folders made `/`.
    static func forwardSlashes(_ path: String) -> String {
        String(path.map { $0 == "\\" ? "/" : $0 })
    }

    /// `name` (with `/` between folders) found under `folder`: as written, else each part matched
    /// without regard to case, as libraries made on Windows and macOS name their files.
    static func resolve(_ name: String, in folder: String) -> String? {
        // A NUL would end the path early in the C calls below: no file has one in its name.
        guard !name.contains("\0") else { return nil }
        let relative = name.trimmingCharacters(in: .whitespaces)
        let direct = relative.hasPrefix("/") ? relative : (folder.isEmpty ? relative : folder + "/" + relative)
        if FileKind(path: direct) == .regular { return direct }
        var current = relative.hasPrefix("/") ? "/" : (folder.isEmpty ? "." : folder)
        for part in relative.split(separator: "/") where part != "." {
            if part == ".." {
                current += "/.."
                continue
            }
            let candidate = current + "/" + part
            if FileManager.default.fileExists(atPath: candidate) {
                current = candidate
                continue
            }
            guard let entries = try? FileManager.default.contentsOfDirectory(atPath: current),
                  let match = entries.first(where: { $0.lowercased() == part.lowercased() }) else { return nil }
            current = current + "/" + match
        }
        return FileKind(path: current) == .regular ? current : nil
    }
}
