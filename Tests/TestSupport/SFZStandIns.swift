import AudioFile
import Foundation
import MIDIVocabulary
@testable import SFZ

/// Public SFZ libraries (`Tests/Fixtures/sfz-libraries`: the `.sfz` text of each, byte for byte)
/// made playable without their recordings: every sample a region names is written as a sine at the
/// pitch its region says it holds, so that only the reading of the text is judged. What the SFZ
/// tests play the libraries through, and what the fixture renders' digests are taken over.
public enum SFZStandIns {
    /// The folder of the libraries' texts.
    public static let libraries = CommandRunner.repositoryRoot.appendingPathComponent("Tests/Fixtures/sfz-libraries").path

    /// The library's programs: the `.sfz` files that no other file includes.
    public static func programs(in library: String) throws -> [String] {
        let files = (FileManager.default.enumerator(atPath: library)?.allObjects as? [String] ?? []).filter { $0.lowercased().hasSuffix(".sfz") }
        // The names the loader's own reader (SFZText) sees `#include`d, `$`-variables replaced.
        var included = Set<String>()
        for file in files {
            _ = SFZText(text: SFZPlan.text(of: try Data(contentsOf: URL(fileURLWithPath: library + "/" + file))), path: file) { name in
                included.insert((name as NSString).lastPathComponent.lowercased())
                return nil
            }
        }
        return files.filter { !included.contains(($0 as NSString).lastPathComponent.lowercased()) }.sorted().map { library + "/" + $0 }
    }

    /// Frames of a stand-in after its region's `offset`: half a second at 48 kHz, longer than any
    /// note played.
    public static let standInFrames = 24_000

    /// Writes, for every sample the programs' regions name, a one-channel 16-bit file of sine, half a
    /// second past its region's `offset` (longer when a region plays it much faster, at keys far above
    /// its centre), at the pitch of the first region that names it (whatever the name's
    /// extension: the decoder reads a file by its contents).
    @discardableResult
    public static func writeStandIns(for programs: [String], library: String) throws -> [String: Int] {
        // Each file's key (of the first region naming it), the furthest `offset` into it and the
        // frames a note needs.
        var wanted: [String: (key: Int, offset: Int, frames: Int)] = [:]
        for program in programs {
            let folder = (program as NSString).deletingLastPathComponent
            let text = SFZText(text: SFZPlan.text(of: try Data(contentsOf: URL(fileURLWithPath: program))), path: program) { name in
                guard let resolved = SFZPlan.resolve(name, in: folder), let data = FileManager.default.contents(atPath: resolved) else { return nil }
                return SFZPlan.text(of: data)
            }
            for region in text.regions {
                guard let sample = region.opcodes["sample"]?.text, !sample.hasPrefix("*") else { continue }
                let path = folder + "/" + region.defaultPath + SFZPlan.forwardSlashes(sample)
                let center = region.opcodes["pitch_keycenter"]?.text ?? region.opcodes["key"]?.text ?? "60"
                let key = Int(center) ?? NoteName.midiKey(parsing: center).map(Int.init) ?? 60
                let offset = min(max(0, region.opcodes["offset"].flatMap { Int($0.text) } ?? 0), 10 * standInFrames)
                // A top sample stretched to key 127 (no `hikey`) plays dozens of times faster: it must
                // last through a note's window (a quarter of a stand-in) at its highest key.
                let top = region.opcodes["hikey"]?.text ?? region.opcodes["key"]?.text ?? "127"
                let highKey = Int(top) ?? NoteName.midiKey(parsing: top).map(Int.init) ?? 127
                let keytrack = region.opcodes["pitch_keytrack"].flatMap { Double($0.text) } ?? 100
                let speed = pow(2, max(0, Double(highKey - key) * keytrack / 1_200))
                let frames = min(max(standInFrames, Int(Double(standInFrames) * speed / 4)), 16 * standInFrames)
                wanted[path] = (wanted[path]?.key ?? key, max(wanted[path]?.offset ?? 0, offset), max(wanted[path]?.frames ?? 0, frames))
            }
        }
        // One tone a key, shared by the files at that key (a drum kit names thousands), long
        // enough past every offset: a loop over a sine cut short would move its pitch.
        var tones: [Int: [Float]] = [:]
        for (path, file) in wanted {
            let frames = file.frames + file.offset
            if (tones[file.key]?.count ?? 0) < frames {
                let frequency = 440 * pow(2, Double(file.key - 69) / 12)
                tones[file.key] = (0..<frames).map { 0.5 * Float(sin(2 * Double.pi * frequency * Double($0) / 48_000)) }
            }
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let writer = try AudioFileWriter(path: path, sampleRate: 48_000, channelCount: 1, format: .wav16)
            try writer.write(Array(tones[file.key]![..<frames]))
            try writer.close()
        }
        return wanted.mapValues(\.key)
    }
}
