import AudioFile
import Dispatch
import FileChecks
import Foundation
import MIDIVocabulary
import Render

/// Builds a playable `SampleBank` from an SFZ instrument: a text file (`SFZText`) naming WAV,
/// FLAC or Ogg samples with opcodes. Everything is decoded and resampled to the engine's rate
/// before the bank exists; the samples decode on every core.
///
/// What plays, opcode by opcode (the rest is listed in `warnings`, never fatal):
/// - mapping: `sample` (with `default_path`; `\` or `/`, matched case-insensitively), `key`,
///   `lokey`, `hikey`, `pitch_keycenter` (numbers or names, `c4` = 60), `lovel`, `hivel`;
/// - playback: `offset`, `end`, `loop_mode` (`no_loop`, `one_shot`, `loop_continuous`,
///   `loop_sustain`), `loop_start`, `loop_end` (else the whole sample);
/// - pitch and level: `transpose`, `tune`, `pitch_keytrack`, `volume`, `amplitude`, `pan`;
/// - envelope and filter: `ampeg_delay|attack|hold|decay|sustain|release`, `fil_type=lpf_2p`,
///   `cutoff`, `resonance`;
/// - `group`, `off_by` (a region's start cuts off the voices whose `off_by` is its group, as SF2's
///   exclusive class does within one class), `off_mode` (`fast`, or `normal`: through the release);
/// - velocity and controllers, as modulators beside SF2's defaults: `amp_veltrack`, `pitch_veltrack`,
///   `fil_veltrack`, `fil_keytrack` (`fil_keycenter`), `volume_onccN`, `pan_onccN`, `tune_onccN`,
///   `pitch_onccN`, `cutoff_onccN`;
/// - choice: round robin (`seq_length`, `seq_position`, counted per key and channel), random sets
///   (`lorand`, `hirand`, from a fixed seed, so a render is the same every time), keyswitches
///   (`sw_lokey`, `sw_hikey`, `sw_last`, `sw_default`; without a default a channel starts on the
///   lowest switch, so a song that never presses one still sounds) and release triggers
///   (`trigger=release`, at the note-on's velocity, after the pedal when one holds the note,
///   quieter by `rt_decay` per second held), `trigger=first` and `legato` (no other key of the
///   channel down, or one), `lochan`/`hichan`.
///
/// Where a library relies on what is not played yet, the loader picks what plays and says so:
/// regions that need a controller away from its initial value (`loccN`/`hiccN`) are left out,
/// `trigger=release_key` plays as `release`. A stereo sample plays as two voices, its left
/// channel panned left and its right channel right, as SF2's stereo pairs do.
///
/// - Thread: control. Not real-time safe: reads files, allocates, decodes.
public enum SFZLoader {
    /// Whether the file at `path` is SFZ text, read from its contents rather than its name: no
    /// RIFF (SF2, WAV) or other binary start, and an SFZ header or directive in its first 64 KB.
    /// - Thread: control.
    public static func isSFZ(path: String) -> Bool {
        // Only a regular file is opened: opening a FIFO would wait for a writer.
        guard FileKind(path: path) == .regular, let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 65_536), !head.isEmpty else { return false }
        if head.starts(with: Array("RIFF".utf8)) || head.contains(0) { return false }
        let text = SFZPlan.text(of: head)
        return ["<region>", "<group>", "<global>", "<control>", "<master>", "#include"].contains { text.contains($0) }
    }

    /// Loads the SFZ instrument at `path`, its samples resampled once to `sampleRate`.
    /// - Parameter progress: told the share of the samples decoded, 0…1, as they are.
    /// - Throws: `SampleSetError` naming the file and line for a bad value or a sample that is not
    ///   there, the sample for one that can't be decoded, and the file when it holds no region
    ///   that plays.
    /// - Thread: control.
    public static func load(path: String, sampleRate: Double, progress: (@Sendable (Double) -> Void)? = nil) throws(SampleSetError) -> SampleBank {
        precondition(sampleRate > 0 && sampleRate.isFinite, "sample rate must be positive")
        let plan = try SFZPlan(path: path)
        let files = Array(Set(plan.regions.map(\.samplePath))).sorted()
        let decoded = SampleDecoding.decodeEach(files, sampleRate: sampleRate, stereo: .bothChannels, progress: progress)

        // A sample that can't be decoded leaves its regions out, said in one line each; the rest plays.
        var pool = SamplePoolBuilder()
        var placed: [String: [SamplePoolBuilder.Placed]] = [:]
        var damaged: [SampleSetError] = []
        for (file, outcome) in zip(files, decoded) {
            switch outcome {
            case let .success(channels): placed[file] = channels.map { pool.append($0) }
            case let .failure(error): damaged.append(error)
            }
        }
        if damaged.count == files.count, let first = damaged.first { throw first }
        var regions: [SamplerRegion] = []
        // One copy of each distinct modulator list (most regions have the defaults alone).
        var modulators = SamplerModulator.defaults
        var listStarts: [[SamplerModulator]: Int32] = [SamplerModulator.defaults: 0]
        // One copy of each distinct velocity curve.
        var curves: [Float] = []
        var curveIndices: [[Float]: Int32] = [:]
        // Each built region, and the programs its planned region plays on (nil: every one).
        var programsOfRegion: [ClosedRange<UInt8>?] = []
        for planned in plan.regions {
            let firstModulator = listStarts[planned.modulators] ?? Int32(modulators.count)
            if listStarts[planned.modulators] == nil {
                listStarts[planned.modulators] = firstModulator
                modulators += planned.modulators
            }
            let channels = placed[planned.samplePath] ?? []
            for (index, channel) in channels.enumerated() {
                let side: Float = channels.count == 1 ? 0 : (index == 0 ? -1 : 1)
                var region = try planned.region(in: channel, side: side, sampleRate: sampleRate)
                region.firstModulator = firstModulator
                region.modulatorCount = Int32(planned.modulators.count)
                if let curve = planned.velocityCurve {
                    region.velocityCurve = curveIndices[curve] ?? Int32(curves.count / SampleBank.Layout.curveLength)
                    if curveIndices[curve] == nil { curveIndices[curve] = region.velocityCurve; curves += curve }
                }
                regions.append(region)
                programsOfRegion.append(planned.programs)
            }
        }
        // `loprog`/`hiprog`: a preset (bank 0) for each program a region names, holding the regions
        // that play on it (those that name none play on all); with none named, one preset,
        // program 0, which every program falls back to.
        let named = Set(programsOfRegion.compactMap { $0 }.flatMap { Array($0) }).sorted()
        var presets: [SampleBank.Preset] = [], presetRegions: [SamplerRegion] = [], presetNames: [String] = []
        for program in named.isEmpty ? [0] : named {
            var preset = SampleBank.Preset(bank: 0, program: program, firstRegion: presetRegions.count, regionCount: 0)
            for (region, programs) in zip(regions, programsOfRegion) where programs?.contains(program) ?? true {
                presetRegions.append(region)
                preset.regionCount += 1
            }
            if let keyswitches = plan.keyswitches { (preset.lowKeyswitch, preset.highKeyswitch) = (keyswitches.lowerBound, keyswitches.upperBound) }
            preset.defaultKeyswitch = plan.defaultKeyswitch ?? SamplerRegion.anyKeyswitch
            presets.append(preset)
            presetNames.append(named.isEmpty ? plan.name : "\(plan.name) (program \(program))")
        }
        let bank = SampleBank(name: path, samples: pool.frames, regions: presetRegions, presets: presets, presetNames: presetNames,
                              modulators: modulators, curves: curves,
                              initialControllers: plan.initialControllers.map { UInt16($0.controller) << 8 | UInt16($0.value) })
        bank.loadWarnings = plan.warnings + damaged.map { "\($0); its regions are left out" }
        return bank
    }

    /// Reads SFZ `text` as `load` reads a file named `path`, every value checked, without opening
    /// a file (no sample, no `#include`): the warnings `load` would give, or its error.
    /// - Thread: control.
    public static func check(text: String, path: String) throws(SampleSetError) -> [String] {
        try SFZPlan(text: text, path: path, folder: "", findsFiles: false).warnings
    }

    /// What an SFZ instrument holds, as `load` plays it, without decoding a sample: for
    /// `staccato info`.
    /// - Throws: `SampleSetError`, as `load` does for everything it checks before decoding.
    /// - Thread: control.
    public static func contents(path: String) throws(SampleSetError) -> SFZContents {
        let plan = try SFZPlan(path: path)
        return SFZContents(name: plan.name, regions: plan.regions.map { planned in
            SFZContents.Region(sample: planned.samplePath, keys: planned.template.lowKey...planned.template.highKey,
                               velocities: planned.template.lowVelocity...planned.template.highVelocity, rootKey: planned.rootKey, line: planned.line)
        }, keyswitches: plan.keyswitches, controllerLabels: plan.controllerLabels, keyLabels: plan.keyLabels, warnings: plan.warnings)
    }
}

/// What an SFZ instrument holds (`SFZLoader.contents(path:)`).
/// - Thread: any. A plain value.
public struct SFZContents: Sendable {
    /// One region as it plays.
    public struct Region: Sendable {
        /// - Thread: any.
        public let sample: String
        /// - Thread: any.
        public let keys: ClosedRange<UInt8>
        /// - Thread: any.
        public let velocities: ClosedRange<UInt8>
        /// - Thread: any.
        public let rootKey: Double
        /// The line of its `<region>` header.
        /// - Thread: any.
        public let line: Int
    }
    /// - Thread: any.
    public let name: String
    /// - Thread: any.
    public let regions: [Region]
    /// The keys that switch articulations (`sw_lokey`…`sw_hikey`), when there are any.
    /// - Thread: any.
    public let keyswitches: ClosedRange<UInt8>?
    /// `label_ccN` and `label_keyN`, by number.
    /// - Thread: any.
    public let controllerLabels: [Int: String]
    /// - Thread: any.
    public let keyLabels: [Int: String]
    /// What the loader says of the file: opcodes it does not play, what it chose instead.
    /// - Thread: any.
    public let warnings: [String]
}
