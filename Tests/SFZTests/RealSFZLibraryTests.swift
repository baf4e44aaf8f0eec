import AudioFile
import Engine
import Foundation
import MIDI
import Render
@testable import SampleSet
@testable import SFZ
import TestSupport
import XCTest

/// Public SFZ libraries as their authors wrote them (`Tests/Fixtures/sfz-libraries`: the `.sfz`
/// text of each, byte for byte, with its licence and source), played through stand-in samples:
/// every sample a region names is written as a sine at the pitch its region says it holds
/// (`pitch_keycenter`, else `key`, else 60), so that only the reading of the text is judged.
/// Each program (a `.sfz` file no other file includes; each program of a General MIDI bank) must
/// load, and the keys its regions map are played: the notes that sound must sound at their pitch,
/// and the share that sounds is reported.
final class RealSFZLibraryTests: XCTestCase {
    static let libraries = SFZStandIns.libraries
    let rate = 48_000.0

    /// What one program did.
    struct Outcome {
        var program: String
        var presets = 0
        var notes = 0
        var sounding = 0
        var inTune = 0
        var outOfTune: [String] = []
        var silentKeys: [UInt8] = []
        var warnings: [String] = []
    }

    func testEveryProgramOfEveryLibraryLoadsAndItsNotesSoundAtTheirPitch() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.libraries).filter {
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: Self.libraries + "/" + $0, isDirectory: &isFolder) && isFolder.boolValue
        }.sorted()
        XCTAssertGreaterThanOrEqual(names.count, 5)
        var report: [String] = []
        for name in names {
            let started = Date()
            let folder = try TemporaryFolder(self)
            let copy = folder.file(name)
            try FileManager.default.copyItem(atPath: Self.libraries + "/" + name, toPath: copy)
            let programs = try SFZStandIns.programs(in: copy)
            XCTAssertFalse(programs.isEmpty, name)
            let standIns = try SFZStandIns.writeStandIns(for: programs, library: copy)
            var outcomes: [Outcome] = []
            for program in programs {
                do {
                    outcomes.append(try play(program, library: copy, standIns: standIns))
                } catch {
                    XCTFail("\(name): \(error)")
                }
            }
            let notes = outcomes.reduce(0) { $0 + $1.notes }, sounding = outcomes.reduce(0) { $0 + $1.sounding }
            let inTune = outcomes.reduce(0) { $0 + $1.inTune }
            report.append("\(name) [\(Int(Date().timeIntervalSince(started)))s]: \(outcomes.count) of \(programs.count) programs load (\(outcomes.reduce(0) { $0 + $1.presets }) presets); "
                          + "\(sounding) of \(notes) notes sound, \(inTune) of them at their pitch")
            for outcome in outcomes {
                XCTAssertEqual(outcome.sounding, outcome.notes, "\(name)/\(outcome.program): silent keys \(outcome.silentKeys.prefix(12))")
                XCTAssertEqual(outcome.inTune, outcome.sounding, "\(name)/\(outcome.program): out of tune: \(outcome.outOfTune.prefix(5))")
                if outcome.sounding < outcome.notes {
                    report.append("  \(outcome.program): \(outcome.notes - outcome.sounding) of \(outcome.notes) silent (keys \(outcome.silentKeys.prefix(12).map(String.init).joined(separator: " "))); loader: \(outcome.warnings.filter { !$0.contains("; the region is dropped") }.joined(separator: " | ").prefix(400))")
                }
            }
        }
        print("Real SFZ libraries with stand-in samples:\n" + report.joined(separator: "\n"))
    }

    /// Loads `program` and plays the keys of each of its presets at velocity 100, one at a time
    /// (at most two dozen, evenly spread, both ends among them). A note is at its pitch when most of what it
    /// sounds is at the pitch one of the regions it plays should give: its stand-in's pitch moved
    /// by the region's key tracking and tuning (regions layered on a key, a wind noise under a
    /// saxophone, sound together).
    func play(_ program: String, library: String, standIns: [String: Int]) throws -> Outcome {
        let index = try SFZIndex(path: program, sampleRate: rate)
        let bank = try index.makeBank(decoding: Array(index.samples.indices), decodeNow: true, residency: false, progress: nil).bank
        var outcome = Outcome(program: String(program.dropFirst(library.count + 1)), presets: bank.presets.count, warnings: bank.loadWarnings)
        let slot = 7_200, window = 1_200..<6_000
        // The controllers a note meets: power-on values (volume 100, pan centre, expression full,
        // reverb 40) and the bank's `set_ccN`; a region on a range of a controller they miss (the
        // layer under a held legato pedal) does not play.
        var controllers = [UInt8](repeating: 0, count: 128)
        (controllers[7], controllers[10], controllers[11], controllers[91]) = (100, 64, 127, 40)
        for entry in bank.initialControllers { controllers[Int(entry >> 8)] = UInt8(entry & 0xFF) }
        // The index's regions name their samples (the bank's, every sample written, do not).
        for preset in index.presets {
            let regions = preset.firstRegion ..< preset.firstRegion + preset.regionCount
            let low = regions.map { index.regions[$0].lowKey }.min() ?? 0, high = regions.map { index.regions[$0].highKey }.max() ?? 0
            guard low <= high else { continue }
            let engine = Engine(configuration: EngineConfiguration(render: RenderConfiguration(sampleRate: rate, effects: false)))
            engine.install(bank)
            var keys = Array(low...min(high, 127))
            // At most two dozen keys a preset, evenly spread, both ends included.
            let every = (keys.count + 23) / 24
            keys = keys.enumerated().filter { $0.offset % every == 0 || $0.element == high }.map(\.element)
            var expected: [[Double]] = []
            for (position, key) in keys.enumerated() {
                let at = FrameTime(position * slot)
                engine.send(midi: .controlChange(channel: 0, controller: 120, value: 0), at: at)
                engine.send(midi: .programChange(channel: 0, program: preset.program), at: at)
                engine.send(midi: .noteOn(channel: 0, key: key, velocity: 100), at: at)
                engine.send(midi: .noteOff(channel: 0, key: key, velocity: 0), at: at + FrameTime(window.upperBound))
                expected.append(regions.compactMap { regionIndex in
                    let region = index.regions[regionIndex]
                    guard region.contains(key: key, velocity: 100), region.trigger == .attack || region.trigger == .first,
                          region.keyswitch == SamplerRegion.anyKeyswitch || region.keyswitch == preset.defaultKeyswitch,
                          controllers.withUnsafeBufferPointer({ region.firstControllerRange.contains($0.baseAddress!) && region.secondControllerRange.contains($0.baseAddress!) })
                    else { return nil }
                    let file = index.files[index.samples[Int(region.sampleIndex)].file]
                    // A region of silence (a drum kit's choke key) is meant to be heard as nothing.
                    guard SFZOscillator(rawValue: file) != .silence else { return nil }
                    // A generated sound's table is the keycenter's pitch itself.
                    let standIn = SFZOscillator(rawValue: file) != nil ? region.rootKey : Double(standIns[file] ?? 60)
                    return 440 * pow(2, (standIn - 69) / 12 + ((Double(key) - region.rootKey) * region.centsPerKey + region.tuneCents) / 1_200)
                })
            }
            // Both channels summed: a region may be panned hard to either side.
            let output = engine.renderOffline(frameCount: keys.count * slot, blockFrameCount: 256)
            let left = zip(SignalAnalysis.channel(0, of: output, channelCount: 2), SignalAnalysis.channel(1, of: output, channelCount: 2)).map { $0 + $1 }
            for (position, key) in keys.enumerated() {
                // A key no region maps (a gap between a range and the effects above it) is no note.
                guard !expected[position].isEmpty else { continue }
                outcome.notes += 1
                let notes = left[(position * slot + window.lowerBound)..<(position * slot + window.upperBound)]
                guard SignalAnalysis.rms(notes) > 1e-4 else {
                    outcome.silentKeys.append(key)
                    continue
                }
                outcome.sounding += 1
                let candidates = expected[position].filter { $0 > 25 && $0 < 8_000 }
                guard !candidates.isEmpty else {
                    outcome.inTune += 1  // beyond what this check can judge
                    continue
                }
                if let heard = SignalAnalysis.frequency(of: notes, sampleRate: rate),
                   candidates.contains(where: { abs(1_200 * log2(heard / $0)) < Self.toleranceCents }) {
                    outcome.inTune += 1
                    continue
                }
                // Else most of its power near a wanted pitch: layers detuned against each other
                // beat, and a zero-crossing count then wanders.
                let best = candidates.flatMap { wanted in stride(from: -Self.toleranceCents, through: Self.toleranceCents, by: 5).map { wanted * pow(2, $0 / 1_200) } }
                    .map { Self.share(of: $0, in: notes) }.max() ?? 0
                if best > 0.3 {
                    outcome.inTune += 1
                } else {
                    let heard = SignalAnalysis.frequency(of: notes, sampleRate: rate).map { Int($0) } ?? 0
                    outcome.outOfTune.append("program \(preset.program) key \(key): about \(heard) Hz, wanted \(candidates.map { Int($0) })")
                }
            }
        }
        return outcome
    }

    /// How far from its region's pitch a note may sound: a library's own detuning on controllers
    /// (`tune_onccN` under a "Detune" knob, which the stand-in check does not follow) stays within
    /// it; a wrong key centre, octave or transposition, a semitone or more, does not.
    static let toleranceCents = 35.0

    /// The share of `samples`' power at `frequency` (a sine there gives about 1).
    static func share(of frequency: Double, in samples: ArraySlice<Float>) -> Double {
        var real = 0.0, imaginary = 0.0, power = 0.0
        for (offset, sample) in samples.enumerated() {
            let phase = 2 * Double.pi * frequency * Double(offset) / 48_000
            real += Double(sample) * cos(phase)
            imaginary += Double(sample) * sin(phase)
            power += Double(sample) * Double(sample)
        }
        return power > 0 ? 2 * (real * real + imaginary * imaginary) / (Double(samples.count) * power) : 0
    }
}
