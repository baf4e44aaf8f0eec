import DSP
import FileChecks
import Foundation
import MIDIVocabulary
import Render

/// An SFZ instrument's regions checked and resolved, before any sample is decoded: every value
/// read, every sample found, and what will not play said in `warnings`. A region that cannot play
/// (no sample, a missing file, a bad value) is dropped with a warning naming the file, the line and
/// the reason, as sfizz drops it; only a file with no region that plays is an error.
/// - Thread: control.
struct SFZPlan {
    /// One region that plays, its opcodes read.
    struct PlannedRegion {
        var samplePath: String
        var file: String
        var line: Int
        /// What the region copies as it is: every opcode read straight into the `SamplerRegion`
        /// field it sets. `region(in:side:sampleRate:)` starts from it and adds what depends on
        /// the sample (its place, its loop, its unity note), the level and the filter.
        var template = SFZPlan.regionTemplate
        var rootKey: Double = 60
        /// `pitch_keycenter=sample`: the sample file's unity note (`SamplerChunk`), else 60.
        var rootKeyFromSample = false
        var gainDecibels: Double = 0
        var pan: Double = 0
        /// `width` and `position` (percent): a stereo sample's two channels at position ± width.
        var width: Double = 100
        var position: Double = 0
        /// Frames of the source file.
        var offset = 0
        /// `offset_random`, frames of the source file.
        var randomOffset = 0
        var end: Int? = nil
        /// `loop_mode`, when the region (or its headers) gives one; else the sample decides:
        /// it loops continuously where its file carries a loop, and plays once where not.
        var loopMode: SamplerRegion.LoopMode? = nil
        var loopStart: Int? = nil
        var loopEnd: Int? = nil
        var modulationEnvelopeToCutoffCents: Float = 0
        var cutoffHertz: Double? = nil
        var filterKind = VoiceFilter.Kind.lowPass2
        var resonanceDecibels: Double = 0
        var releaseDecayDecibelsPerSecond: Double = 0
        /// `loprog`/`hiprog`: the MIDI programs the region plays on; nil for every one.
        var programs: ClosedRange<UInt8>? = nil
        var modulationLFOToCutoffCents: Float = 0
        /// `amp_velcurve_N`: the gain of each velocity, `SampleBank.Layout.curveLength` of them.
        var velocityCurve: [Float]? = nil
        /// The region's modulator list: `SFZPlan.baseModulators`, with the velocity and controller
        /// opcodes (`amp_veltrack`, `pitch_veltrack`, `fil_veltrack`, `fil_keytrack`, `*_onccN`)
        /// replacing or added to them.
        var modulators = SFZPlan.baseModulators
        /// The curves its modulators read (`SamplerModulator.curve` indexes this list until
        /// `SFZIndex` lays the tables out in the bank).
        var curveUses: [CurveUse] = []
        /// Its SFZ 2 flex envelopes, LFOs and routes (`readFlex`), indices local to the region
        /// until `SFZIndex` lays them out in the bank; the envelope that stands for the amplitude
        /// envelope, or -1.
        var flex = SamplerFlex.Tables()
        var flexAmplitudeEnvelope = -1

        /// The region for one channel of its sample, placed in the pool at `channel`; `side` pans
        /// a stereo sample's channels apart (-1 left, 1 right, 0 mono).
        func region(in channel: SamplePoolBuilder.Placed, side: Float, sampleRate: Double) throws(SampleSetError) -> SamplerRegion {
            var region = template
            let ratio = sampleRate / channel.sourceRate
            func placed(_ sourceFrame: Int) -> Int { min(channel.frameCount, Int((Double(sourceFrame) * ratio).rounded())) }
            guard offset < channel.sourceFrameCount else {
                throw SampleSetError(path: "\(file):\(line)", reason: "offset=\(offset) is past the end of \(samplePath) (\(channel.sourceFrameCount) frames)")
            }
            let lastFrame = min(end ?? channel.sourceFrameCount - 1, channel.sourceFrameCount - 1)
            region.start = channel.start + placed(offset)
            region.end = max(region.start, channel.start + placed(lastFrame + 1))
            // The whole sample, which controllers may move the start within (`offset_onccN`).
            (region.sampleStart, region.sampleEnd) = (channel.start, channel.start + channel.frameCount)
            region.loopStart = region.start
            region.loopEnd = region.end
            // SFZ: loop points given and no mode loop continuously, and so does a sample whose
            // file carries a loop; nothing releases a release-triggered voice, so it never loops.
            var mode = loopMode ?? (loopStart != nil || loopEnd != nil || channel.samplerChunk?.loop != nil ? .continuous : .none)
            if template.trigger.isRelease, mode == .continuous || mode == .untilRelease { mode = .none }
            region.loopMode = mode
            if mode == .continuous || mode == .untilRelease {
                let start = min(max(loopStart ?? channel.samplerChunk?.loop?.start ?? offset, offset), lastFrame)
                let end = min(max(loopEnd ?? channel.samplerChunk?.loop?.end ?? lastFrame, start), lastFrame)
                region.loopStart = channel.start + placed(start)
                region.loopEnd = max(region.loopStart, channel.start + placed(end + 1))
            }
            region.sampleRate = sampleRate
            region.rootKey = rootKeyFromSample ? Double(channel.samplerChunk?.unityNote ?? 60) : rootKey
            if let oscillator = SFZOscillator(rawValue: samplePath) {
                // A generated sound loops its table whatever the region says; one period is one
                // cycle of the keycenter's pitch (noise and silence play as written).
                let loop = oscillator.loop(sampleRate: sampleRate)
                region.start = channel.start
                region.end = channel.start + channel.frameCount
                region.loopMode = template.trigger.isRelease ? .none : .continuous
                (region.loopStart, region.loopEnd) = (channel.start + loop.lowerBound, channel.start + loop.upperBound)
                if oscillator.isPeriodic {
                    region.sampleRate = Double(SFZOscillator.periodFrames) * 440 * pow(2, (region.rootKey - 69) / 12)
                }
            }
            // Centibels: ten to the decibel, opposite sign.
            region.attenuationCentibels = Float(-10 * gainDecibels)
            // A stereo sample's channels stand at `position` ± `width` (a mono one ignores both,
            // as sfizz does), each moved by `pan`.
            region.pan = max(-1, min(1, SamplerRegion.stereoPan(side: side, width: Float(width / 100), position: Float(position / 100))
                                        + Float(pan / 100)))
            if let cutoffHertz {
                region.filterKind = filterKind
                region.filterCutoffCents = Float(1_200 * log2(max(cutoffHertz, 1) / 8.176))
                // SFZ's two-pole filters are RBJ's at Q = `resonance` as a linear gain (sfizz), so
                // 0 dB is Q 1, not SF2's Butterworth: the voice's Q is 3.01 dB under its
                // centibels. It lowers the passband by half the centibels (SF2.04 §8.1.3), which
                // SFZ does not: given back as attenuation. One-pole filters have no resonance.
                let onePole = filterKind == .lowPass1 || filterKind == .highPass1
                let centibels = onePole ? 0 : Float(max(0, min(960, 10 * (resonanceDecibels + 3.01))))
                region.filterResonanceCentibels = centibels
                region.attenuationCentibels -= centibels / 2
                region.modulationEnvelopeToCutoffCents = modulationEnvelopeToCutoffCents
                region.modulationLFOToCutoffCents = modulationLFOToCutoffCents
            }
            region.releaseDecayCentibelsPerSecond = Float(10 * releaseDecayDecibelsPerSecond)
            region.randomOffsetFrames = Int32(min(placed(randomOffset), Int(Int32.max)))
            region.isStereoCompanion = side > 0
            region.stereoSide = side
            return region
        }
    }

    /// A controller curve as a modulator reads it: the SFZ curve (`curve_index`, or a built-in
    /// one), and for an amplitude its percentage, which turns the curve's gains into centibels of
    /// attenuation (`SFZPlan.table(for:)`).
    struct CurveUse: Hashable {
        var curve: Int
        var amplitudePercent: Double? = nil
    }

    /// Every curve by its `curve_index`: the seven built in (ARIA's) and the file's `<curve>`s.
    private(set) var curves: [Int: [Float]] = SFZPlan.builtInCurves
    private(set) var regions: [PlannedRegion] = []
    private(set) var warnings: [String] = []
    let name: String
    private(set) var keyswitches: ClosedRange<UInt8>? = nil
    /// The keyswitch a channel starts with: `sw_default`, else the lowest any region answers to,
    /// so a song that never presses a switch still sounds (sfizz plays no switched region then).
    private(set) var defaultKeyswitch: UInt8? = nil
    private(set) var controllerLabels: [Int: String] = [:]
    private(set) var keyLabels: [Int: String] = [:]
    /// `set_ccN` of the `<control>` header: controller, value.
    private(set) var initialControllers: [(controller: UInt8, value: UInt8)] = []

    /// Where every SFZ region starts: SF2's defaults, but a `volume` may boost (SF2's attenuation
    /// stops at 0).
    static var regionTemplate: SamplerRegion {
        var region = SamplerRegion()
        region.leastAttenuationCentibels = -480
        return region
    }

    /// ARIA's built-in curves (sfz.github.io, `<curve>`): 0 linear 0…1, 1 bipolar -1…1, 2 and 3
    /// the same inverted, 4 concave (x²), 5 and 6 the crossfades' power curves in and out.
    static let builtInCurves: [Int: [Float]] = {
        func curve(_ value: (Double) -> Double) -> [Float] { (0...127).map { Float(value(Double($0) / 127)) } }
        return [0: curve { $0 }, 1: curve { 2 * $0 - 1 }, 2: curve { 1 - $0 }, 3: curve { 1 - 2 * $0 },
                4: curve { $0 * $0 }, 5: curve { $0.squareRoot() }, 6: curve { (1 - $0).squareRoot() }]
    }()

    /// 128 values from `points` (0…127 → value), straight lines between them.
    static func interpolated(_ points: [Int: Float]) -> [Float] {
        let known = points.keys.sorted()
        var values = [Float](repeating: 0, count: SampleBank.Layout.curveLength)
        for (low, high) in zip(known, known.dropFirst()) {
            for at in low...high {
                values[at] = points[low]! + (points[high]! - points[low]!) * Float(at - low) / Float(high - low)
            }
        }
        return values
    }

    /// The table a modulator reads for `use`: the curve itself, or for an amplitude the share of
    /// 144 dB of attenuation its gains (times the percentage) come to, so that the modulator's
    /// 1,440 cB reach exactly the curve's level. Nil for a curve the file does not define.
    func table(for use: CurveUse) -> [Float]? {
        guard let curve = curves[use.curve] else { return nil }
        guard let percent = use.amplitudePercent else { return curve }
        return curve.map { gain in
            let level = max(Double(gain) * percent / 100, 1e-7)
            return Float(min(1, max(0, -200 * log10(level) / 1_440)))
        }
    }

    /// The `fil_type`s played, and the voice filter each is; a state-variable design (`_sv`) has
    /// the same response as its biquad.
    static let filterKinds: [String: VoiceFilter.Kind] = [
        "lpf_2p": .lowPass2, "lpf_2p_sv": .lowPass2, "lpf_1p": .lowPass1, "hpf_2p": .highPass2, "hpf_2p_sv": .highPass2,
        "hpf_1p": .highPass1, "bpf_2p": .bandPass2, "bpf_2p_sv": .bandPass2, "brf_2p": .bandReject2, "brf_2p_sv": .bandReject2,
    ]

    /// SF2's default modulators less the two SFZ has no counterpart for: the mod wheel's and
    /// channel pressure's vibrato (an SFZ region has vibrato only where it names an LFO, as in
    /// sfizz). Velocity, volume, expression, pan, the sends and the pitch wheel stay as they are.
    static let baseModulators: [SamplerModulator] = SamplerModulator.defaults.map { modulator in
        var modulator = modulator
        if modulator.destination == .vibLfoToPitch { modulator.amount = 0 }
        return modulator
    }

    /// Opcodes this loader plays.
    static let played: Set<String> = [
        "sample", "default_path", "key", "lokey", "hikey", "pitch_keycenter", "lovel", "hivel", "offset", "end",
        "loop_mode", "loopmode", "loop_start", "loopstart", "loop_end", "loopend", "transpose", "tune",
        "pitch_keytrack", "volume", "amplitude", "pan", "ampeg_delay", "ampeg_attack", "ampeg_hold", "ampeg_decay",
        "ampeg_sustain", "ampeg_release", "fil_type", "filtype", "cutoff", "resonance", "group", "off_by", "trigger",
        "seq_length", "seq_position", "lorand", "hirand", "sw_lokey", "sw_hikey", "sw_last", "sw_default", "lochan",
        "hichan", "rt_decay", "amp_veltrack", "pitch_veltrack", "fil_veltrack", "fil_keytrack", "fil_keycenter",
        "off_mode", "xfin_lokey", "xfin_hikey", "xfout_lokey", "xfout_hikey", "xfin_lovel", "xfin_hivel", "xfout_lovel",
        "xfout_hivel", "xf_keycurve", "xf_velcurve", "delay", "ampeg_vel2delay", "ampeg_vel2attack", "ampeg_vel2hold",
        "ampeg_vel2decay", "ampeg_vel2sustain", "ampeg_vel2release", "fileg_delay", "fileg_attack", "fileg_hold",
        "fileg_decay", "fileg_sustain", "fileg_release", "fileg_depth", "pitcheg_delay", "pitcheg_attack",
        "pitcheg_hold", "pitcheg_decay", "pitcheg_sustain", "pitcheg_release", "pitcheg_depth", "fileg_vel2delay",
        "fileg_vel2attack", "fileg_vel2hold", "fileg_vel2decay", "fileg_vel2sustain", "fileg_vel2release",
        "fileg_vel2depth", "pitcheg_vel2delay", "pitcheg_vel2attack", "pitcheg_vel2hold", "pitcheg_vel2decay",
        "pitcheg_vel2sustain", "pitcheg_vel2release", "pitcheg_vel2depth", "note_polyphony", "polyphony",
        "amp_keytrack", "amp_keycenter", "bend_up", "bend_down", "loprog", "hiprog", "pitchlfo_delay", "pitchlfo_freq",
        "pitchlfo_depth", "amplfo_delay", "amplfo_freq", "amplfo_depth", "fillfo_delay", "fillfo_freq", "fillfo_depth",
        "width", "position", "global_volume", "master_volume", "group_volume", "pitchlfo_fade", "amplfo_fade", "fillfo_fade",
        "amp_random", "pitch_random", "offset_random", "delay_random", "fil_random", "pan_keytrack", "pan_keycenter", "offby", "off_time", "effect1", "effect2",
    ]
    /// Controller opcodes this loader plays, each with a controller number after it (`volume_oncc7`).
    static let playedPerController = ["volume_oncc", "pan_oncc", "tune_oncc", "pitch_oncc", "cutoff_oncc", "amplitude_oncc",
                                      "pitchlfo_depthcc", "amplfo_depthcc", "fillfo_depthcc", "pitchlfo_depth_oncc", "amplfo_depth_oncc",
                                      "fillfo_depth_oncc", "tune_cc", "cutoff_cc",
                                      "fileg_depth_oncc", "fileg_depthcc", "pitcheg_depth_oncc", "pitcheg_depthcc",
                                      "amp_veltrack_oncc", "width_oncc", "position_oncc", "offset_oncc", "offset_cc"]
        + envelopeControls.keys.sorted()

    /// The envelope stages' controls, in both spellings (`ampeg_attack_oncc7`, SFZ 1's
    /// `ampeg_attackcc7`): seconds or sustain percent added in proportion to the controller at
    /// note-on. `fileg_` and `pitcheg_` move the one modulation envelope both play on.
    static let envelopeControls: [String: ModulatorDestination] = {
        var controls: [String: ModulatorDestination] = [:]
        let stages: [(String, ModulatorDestination, ModulatorDestination)] = [
            ("delay", .volEnvDelaySeconds, .modEnvDelaySeconds), ("attack", .volEnvAttackSeconds, .modEnvAttackSeconds),
            ("hold", .volEnvHoldSeconds, .modEnvHoldSeconds), ("decay", .volEnvDecaySeconds, .modEnvDecaySeconds),
            ("sustain", .volEnvSustainShare, .modEnvSustainShare), ("release", .volEnvReleaseSeconds, .modEnvReleaseSeconds),
        ]
        for (stage, volume, modulation) in stages {
            for (envelope, destination) in [("ampeg_", volume), ("fileg_", modulation), ("pitcheg_", modulation)] {
                controls[envelope + stage + "_oncc"] = destination
                controls[envelope + stage + "cc"] = destination
            }
        }
        return controls
    }()
    /// Whether a region opcode, as a file writes it, changes what plays (`SFZOpcodes`).
    static func isPlayed(_ name: String) -> Bool {
        if played.contains(name) || controllerOpcode(name) != nil || isFlexPlayed(name) || equalizerOpcode(name) != nil
            || isSecondFilterPlayed(name) { return true }
        if name.hasPrefix("locc") || name.hasPrefix("hicc") { return Int(name.dropFirst(4)) != nil }
        for prefix in ["on_locc", "on_hicc", "start_locc", "start_hicc"] where name.hasPrefix(prefix) {
            return Int(name.dropFirst(prefix.count)).map { (0...127).contains($0) } ?? false
        }
        if name.hasPrefix("amp_velcurve_") { return Int(name.dropFirst("amp_velcurve_".count)) != nil }
        // A controller's curve, read with its controller opcode (`readModulation`).
        if let range = name.range(of: "_curvecc"), let controller = Int(name[range.upperBound...]) {
            let family = String(name[..<range.lowerBound])
            // The velocity tracking's controller scales an amount, which no curve reads yet.
            guard family != "amp_veltrack" else { return false }
            return [family + "_oncc", family + "_cc", family + "cc"].contains { controllerOpcode($0 + "\(controller)") != nil }
        }
        return false
    }

    /// What a controller opcode's curve is named after: `volume_oncc` and `tune_cc` → `volume`,
    /// `tune`; SFZ 1's `ampeg_attackcc` → `ampeg_attack` (its curve: `ampeg_attack_curveccN`).
    static func curveFamily(of opcode: String) -> String {
        if opcode.hasSuffix("_oncc") { return String(opcode.dropLast("_oncc".count)) }
        if opcode.hasSuffix("_cc") { return String(opcode.dropLast("_cc".count)) }
        return String(opcode.dropLast("cc".count))
    }

    /// Whether a numbered form (`pitch_curveccN`) plays, as its opcode with a number would.
    private static func isPlayed(pattern: String) -> Bool { isPlayed(pattern.replacingOccurrences(of: "N", with: "7")) }

    /// `playedPatterns`, for lookups.
    static let playedPatternSet = Set(playedPatterns)

    /// The played opcodes as `docs/SFZ.md` lists them, numbers as `N`.
    static var playedPatterns: [String] {
        let perController = playedPerController.map { $0 + "N" }
        let curves = playedPerController.map { curveFamily(of: $0) + "_curveccN" }
        let control = ["set_ccN", "set_hdccN", "loccN", "hiccN", "amp_velcurve_N", "on_loccN", "on_hiccN", "start_loccN", "start_hiccN"]
        return Set(played).union(perController).union(curves.filter { isPlayed(pattern: $0) }).union(control).union(flexPatterns).union(equalizerPatterns).union(secondFilterPatterns).sorted()
    }

    /// Dropped regions named one a line; past these, a count.
    static let droppedRegionsListed = 12

    /// The instrument at `path`, its includes and samples found beside it.
    init(path: String) throws(SampleSetError) {
        if let reason = FileKind.notRegularFileReason(path) { throw SampleSetError(path: path, reason: reason) }
        guard FileManager.default.fileExists(atPath: path) else { throw SampleSetError(path: path, reason: "no such file") }
        guard let data = FileManager.default.contents(atPath: path) else { throw SampleSetError(path: path, reason: "cannot be read") }
        let folder = (path as NSString).deletingLastPathComponent
        try self.init(text: Self.text(of: data), path: path, folder: folder, findsFiles: true)
    }

    /// The instrument in `text`, as if read from `path` in `folder`; with `findsFiles` false no
    /// file is opened (an `#include` reads as missing, every sample as found): what `check` and
    /// the fuzz target read.
    init(text: String, path: String, folder: String, findsFiles: Bool) throws(SampleSetError) {
        let clamped = ClampedValues()
        let result: Result<SFZPlan, SampleSetError> = Self.$clamped.withValue(clamped) {
            Result { () throws(SampleSetError) -> SFZPlan in try SFZPlan(reading: text, path: path, folder: folder, findsFiles: findsFiles) }
        }
        self = try result.get()
        var seen = Set<String>()
        warnings += clamped.lines.filter { seen.insert($0).inserted }.prefix(Self.droppedRegionsListed)
        if seen.count > Self.droppedRegionsListed { warnings.append("\(seen.count - Self.droppedRegionsListed) more values outside their ranges") }
    }

    private init(reading text: String, path: String, folder: String, findsFiles: Bool) throws(SampleSetError) {
        let sfz = SFZText(text: text, path: path) { name in
            guard findsFiles, let resolved = SFZPlan.resolve(name, in: folder), let data = FileManager.default.contents(atPath: resolved) else { return nil }
            return SFZPlan.text(of: data)
        }
        name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        for (opcode, value) in sfz.control {
            if opcode.hasPrefix("label_cc"), let number = Int(opcode.dropFirst("label_cc".count)) { controllerLabels[number] = value.text }
            if opcode.hasPrefix("label_key"), let number = Int(opcode.dropFirst("label_key".count)) { keyLabels[number] = value.text }
            if opcode.hasPrefix("set_cc"), let number = Int(opcode.dropFirst("set_cc".count)), (0...127).contains(number) {
                // A fraction (`set_cc41=63.5`, the middle) to the nearest step.
                initialControllers.append((UInt8(number), UInt8(try Self.number(value, opcode, in: 0...127).rounded())))
            }
            // The high-resolution form: 0…1 of the controller's range.
            if opcode.hasPrefix("set_hdcc"), let number = Int(opcode.dropFirst("set_hdcc".count)), (0...127).contains(number) {
                initialControllers.append((UInt8(number), UInt8((try Self.number(value, opcode, in: 0...1) * 127).rounded())))
            }
        }
        initialControllers.sort { $0.controller < $1.controller }
        for header in sfz.curves {
            guard let indexValue = header["curve_index"] else { continue }
            let index = try Self.integer(indexValue, "curve_index", in: 0...255)
            var points: [Int: Float] = [0: 0, 127: 1]
            for (opcode, value) in header where opcode.hasPrefix("v") {
                guard let at = Int(opcode.dropFirst()), (0...127).contains(at) else { continue }
                points[at] = Float(try Self.number(value, opcode, in: -1...1))
            }
            curves[index] = Self.interpolated(points)
        }

        var unknown: [String: Int] = [:]
        var notPlayed: [String: Int] = [:]
        var skipped: [String: Int] = [:]
        var keyswitchDefault: UInt8? = nil
        // Each name looked up once: a group's regions share most of theirs, and the lookups were
        // a tenth of reading a file.
        var statuses: [String: SFZOpcodes.Status?] = [:]
        for region in sfz.regions {
            for opcode in region.opcodes.keys {
                let status: SFZOpcodes.Status?
                if let known = statuses[opcode] { status = known } else {
                    status = SFZOpcodes.status(of: opcode)
                    statuses[opcode] = status
                }
                switch status {
                case .played?, .named?: continue
                case .notPlayed?:
                    let form = SFZOpcodes.pattern(of: opcode)
                    let what = !Self.playedPatternSet.contains(form) ? form
                        : form.hasPrefix("set_") ? "\(form) outside <control>" : "\(form) with a controller above 127"
                    notPlayed[what, default: 0] += 1
                case nil: unknown[opcode, default: 0] += 1
                }
            }
            if let value = region.opcodes["sw_default"], keyswitchDefault == nil { keyswitchDefault = try Self.key(value, "sw_default") }
            if let low = region.opcodes["sw_lokey"], let high = region.opcodes["sw_hikey"] {
                let range = try Self.key(low, "sw_lokey")...max(try Self.key(low, "sw_lokey"), try Self.key(high, "sw_hikey"))
                keyswitches = keyswitches.map { min($0.lowerBound, range.lowerBound)...max($0.upperBound, range.upperBound) } ?? range
            }
        }
        var dropped: [String] = []
        for region in sfz.regions {
            let opcodes = region.opcodes
            // A region that cannot play is dropped and named; the others play (as sfizz does).
            guard let sample = opcodes["sample"] else {
                dropped.append("\(region.file):\(region.line): a <region> with no sample=")
                continue
            }
            if sample.text.hasPrefix("*") {
                guard SFZOscillator(rawValue: sample.text) != nil else {
                    skipped["sample=\(sample.text) (no such generated sound)", default: 0] += 1
                    continue
                }
                do throws(SampleSetError) {
                    regions.append(try Self.planned(region, samplePath: sample.text, curves: Set(curves.keys), notPlayed: &notPlayed))
                } catch {
                    dropped.append("\(error.path): \(error.reason)")
                }
                continue
            }
            let named = region.defaultPath + Self.forwardSlashes(sample.text)
            guard let samplePath = findsFiles ? Self.resolve(named, in: folder) : named else {
                dropped.append("\(sample.file):\(sample.line): sample=\(sample.text): no such file in \(folder.isEmpty ? "." : folder)")
                continue
            }
            do throws(SampleSetError) {
                regions.append(try Self.planned(region, samplePath: samplePath, curves: Set(curves.keys), notPlayed: &notPlayed))
            } catch {
                dropped.append("\(error.path): \(error.reason)")
            }
        }
        // The articulation a channel starts with: the default one, else the lowest switch any
        // region answers to.
        defaultKeyswitch = keyswitchDefault ?? regions.map(\.template.keyswitch).filter { $0 != SamplerRegion.anyKeyswitch }.min()
        guard !regions.isEmpty else {
            let reasons = skipped.keys.sorted() + dropped.prefix(Self.droppedRegionsListed)
            throw SampleSetError(path: path, reason: sfz.regions.isEmpty ? "no <region> in the file" : "no region that plays (\(reasons.joined(separator: "; ")))")
        }

        warnings = sfz.problems.map { "\($0.file):\($0.line): \($0.reason)" }
        warnings += dropped.prefix(Self.droppedRegionsListed).map { "\($0); the region is dropped" }
        if dropped.count > Self.droppedRegionsListed {
            warnings.append("\(dropped.count - Self.droppedRegionsListed) more regions dropped (\(dropped.count) in all)")
        }
        if !unknown.isEmpty {
            let names = unknown.keys.sorted()
            let listed = names.prefix(6).map { "\($0) (\(unknown[$0]!) region\(unknown[$0]! == 1 ? "" : "s"))" }
            warnings.append("\(names.count) unknown opcode\(names.count == 1 ? "" : "s") ignored: \(listed.joined(separator: ", "))\(names.count > 6 ? ", …" : "")")
        }
        if !notPlayed.isEmpty {
            warnings.append("not played yet: " + notPlayed.keys.sorted().map { "\($0) (\(notPlayed[$0]!) region\(notPlayed[$0]! == 1 ? "" : "s"))" }.joined(separator: ", "))
        }
        if !skipped.isEmpty {
            warnings.append(skipped.keys.sorted().map { "\(skipped[$0]!) region\(skipped[$0]! == 1 ? "" : "s") not played: \($0)" }.joined(separator: "; "))
        }
    }

    /// A region's opcodes read into what plays.
    /// `curves`: the curve indices the file defines (with the built-in ones).
    static func planned(_ region: SFZText.Region, samplePath: String, curves: Set<Int> = Set(builtInCurves.keys),
                        notPlayed: inout [String: Int]) throws(SampleSetError) -> PlannedRegion {
        let opcodes = region.opcodes
        var planned = PlannedRegion(samplePath: samplePath, file: region.file, line: region.line)
        // key=-1 or hikey=-1: no key plays the region (a controller may: `on_loccN`), as in sfizz.
        let keyless = opcodes["key"]?.text == "-1" || opcodes["hikey"]?.text == "-1"
        if keyless {
            (planned.template.lowKey, planned.template.highKey) = (1, 0)
            if let value = opcodes["pitch_keycenter"], value.text != "sample" { planned.rootKey = Double(try key(value, "pitch_keycenter")) }
        } else if let key = opcodes["key"] {
            let value = try self.key(key, "key")
            (planned.template.lowKey, planned.template.highKey, planned.rootKey) = (value, value, Double(value))
        }
        if !keyless, let value = opcodes["lokey"] { planned.template.lowKey = try key(value, "lokey") }
        if !keyless, let value = opcodes["hikey"] { planned.template.highKey = try key(value, "hikey") }
        if !keyless, let value = opcodes["pitch_keycenter"] {
            if value.text == "sample" { planned.rootKeyFromSample = true } else { planned.rootKey = Double(try key(value, "pitch_keycenter")) }
        }
        if let value = opcodes["lovel"] { planned.template.lowVelocity = UInt8(try integer(value, "lovel", in: 0...127)) }
        if let value = opcodes["hivel"] { planned.template.highVelocity = UInt8(try integer(value, "hivel", in: 0...127)) }
        if let value = opcodes["pitch_keytrack"] { planned.template.centsPerKey = try number(value, "pitch_keytrack", in: -1_200...1_200) }
        let transpose = try opcodes["transpose"].map { value throws(SampleSetError) in try integer(value, "transpose", in: -127...127) } ?? 0
        let tune = try opcodes["tune"].map { value throws(SampleSetError) in try number(value, "tune", in: -9_600...9_600) } ?? 0
        planned.template.tuneCents = Double(transpose) * 100 + tune
        planned.gainDecibels = try opcodes["volume"].map { value throws(SampleSetError) in try number(value, "volume", in: -144...48) } ?? 0
        if let value = opcodes["amplitude"] {
            let percent = try number(value, "amplitude", in: 0...100)
            planned.gainDecibels += percent > 0 ? 20 * log10(percent / 100) : -144
        }
        if let value = opcodes["pan"] { planned.pan = try number(value, "pan", in: -100...100) }
        if let value = opcodes["width"] { planned.width = try number(value, "width", in: -100...100) }
        if let value = opcodes["position"] { planned.position = try number(value, "position", in: -100...100) }
        // The levels' own volumes add to the region's.
        for opcode in ["global_volume", "master_volume", "group_volume"] {
            if let value = opcodes[opcode] { planned.gainDecibels += try number(value, opcode, in: -144...48) }
        }
        if let value = opcodes["offset"] { planned.offset = try integer(value, "offset", in: 0...Int(Int32.max)) }
        if let value = opcodes["end"] { planned.end = try integer(value, "end", in: -1...Int(Int32.max)) }
        if let value = opcodes["loop_start"] ?? opcodes["loopstart"] { planned.loopStart = try integer(value, "loop_start", in: 0...Int(Int32.max)) }
        if let value = opcodes["loop_end"] ?? opcodes["loopend"] { planned.loopEnd = try integer(value, "loop_end", in: 0...Int(Int32.max)) }
        if let value = opcodes["loop_mode"] ?? opcodes["loopmode"] {
            switch value.text {
            case "no_loop": planned.loopMode = SamplerRegion.LoopMode.none
            case "one_shot": planned.loopMode = .oneShot
            case "loop_continuous": planned.loopMode = .continuous
            case "loop_sustain": planned.loopMode = .untilRelease
            default: throw problem(value, "loop_mode=\(value.text): expected no_loop, one_shot, loop_continuous or loop_sustain")
            }
        }
        planned.template.volumeEnvelope.delay = try seconds(opcodes["ampeg_delay"], "ampeg_delay") ?? 0
        planned.template.volumeEnvelope.attack = try seconds(opcodes["ampeg_attack"], "ampeg_attack") ?? 0
        planned.template.volumeEnvelope.hold = try seconds(opcodes["ampeg_hold"], "ampeg_hold") ?? 0
        planned.template.volumeEnvelope.decay = try seconds(opcodes["ampeg_decay"], "ampeg_decay") ?? 0
        // SFZ's release defaults to a millisecond: a note-off stops a sample at once.
        planned.template.volumeEnvelope.release = try seconds(opcodes["ampeg_release"], "ampeg_release") ?? 0.001
        planned.template.volumeEnvelope.sustainLevel = try opcodes["ampeg_sustain"].map { value throws(SampleSetError) in try number(value, "ampeg_sustain", in: 0...100) / 100 } ?? 1
        try readEnvelopes(opcodes, into: &planned, notPlayed: &notPlayed)
        if let value = opcodes["cutoff"] {
            let type = opcodes["fil_type"]?.text ?? opcodes["filtype"]?.text ?? "lpf_2p"
            if let kind = Self.filterKinds[type] {
                planned.filterKind = kind
                planned.cutoffHertz = try number(value, "cutoff", in: 0...100_000)
                planned.resonanceDecibels = try opcodes["resonance"].map { value throws(SampleSetError) in try number(value, "resonance", in: -96...96) } ?? 0
            } else {
                notPlayed["fil_type=\(type) (played unfiltered)", default: 0] += 1
            }
        }
        // Groups: a region's start cuts off the voices whose off_by is its group (numbers SF2's
        // classes can hold, 1-65535; others are said and left alone).
        func groupClass(_ value: SFZText.Value, _ opcode: String) throws(SampleSetError) -> UInt16 {
            let number = try integer(value, opcode, in: Int(Int32.min)...Int(Int32.max))
            guard number != 0 else { return 0 }
            guard (1...Int(UInt16.max)).contains(number) else {
                notPlayed["\(opcode) outside 1-65535", default: 0] += 1
                return 0
            }
            return UInt16(number)
        }
        if let group = opcodes["group"] { planned.template.exclusiveClass = try groupClass(group, "group") }
        // (`offby`: the spelling sfizz also reads.)
        if let offBy = opcodes["off_by"] ?? opcodes["offby"] { planned.template.offBy = try groupClass(offBy, "off_by") }
        // off_time: a fade of its own (and off_mode=time), as sfizz reads it.
        if let value = opcodes["off_time"] { planned.template.offSeconds = Float(try number(value, "off_time", in: 0...100)) }
        if let mode = opcodes["off_mode"] {
            switch mode.text {
            case "fast": planned.template.cutOffByRelease = false; planned.template.offSeconds = 0
            case "time": planned.template.cutOffByRelease = false
            case "normal": planned.template.cutOffByRelease = true
            default: throw problem(mode, "off_mode=\(mode.text): expected fast, normal or time")
            }
        }
        if let trigger = opcodes["trigger"] {
            switch trigger.text {
            case "attack": break
            case "release": planned.template.trigger = .release
            case "release_key": planned.template.trigger = .releaseKey
            case "first": planned.template.trigger = .first
            case "legato": planned.template.trigger = .legato
            default: throw problem(trigger, "trigger=\(trigger.text): expected attack, release, release_key, first or legato")
            }
        }
        if planned.template.trigger.isRelease, planned.loopMode == .continuous || planned.loopMode == .untilRelease {
            // Nothing releases a release-triggered voice: a loop would never end (`region` plays it once).
            notPlayed["a loop in a release-triggered region (played once)", default: 0] += 1
        }
        try readModulation(opcodes, into: &planned, curves: curves, notPlayed: &notPlayed)
        try readCrossfade(opcodes, into: &planned.template.crossfade)
        try readVelocityCurve(opcodes, into: &planned)
        try readControllerRanges(opcodes, into: &planned, notPlayed: &notPlayed)
        try readLFOs(opcodes, into: &planned, notPlayed: &notPlayed)
        planned.template.equalizer = try readEqualizer(opcodes, notPlayed: &notPlayed)
        planned.template.secondFilter = try readSecondFilter(opcodes, into: &planned, curves: curves, notPlayed: &notPlayed)
        (planned.flex, planned.flexAmplitudeEnvelope) = try readFlex(opcodes, filtered: planned.cutoffHertz != nil, notPlayed: &notPlayed)
        if planned.flex.routes.contains(where: { equalizerTargets.contains($0.target) }) { planned.template.equalizer.isActive = true }
        if opcodes["loprog"] != nil || opcodes["hiprog"] != nil {
            let low = try opcodes["loprog"].map { value throws(SampleSetError) in UInt8(try integer(value, "loprog", in: 0...127)) } ?? 0
            let high = try opcodes["hiprog"].map { value throws(SampleSetError) in UInt8(try integer(value, "hiprog", in: 0...127)) } ?? 127
            guard low <= high else { throw problem(opcodes["hiprog"] ?? opcodes["loprog"]!, "program range \(low)...\(high) is empty") }
            planned.programs = low...high
        }
        if let value = opcodes["note_polyphony"] { planned.template.notePolyphony = UInt8(try integer(value, "note_polyphony", in: 1...255)) }
        if let value = opcodes["polyphony"] { planned.template.polyphony = UInt16(try integer(value, "polyphony", in: 1...65_535)) }
        // Each note's own draws (the renderer's fixed sequence): louder by up to amp_random dB,
        // pitch_random cents either way, offset_random frames later, delay_random seconds later.
        if let value = opcodes["amp_random"] { planned.template.randomLouderDecibels = Float(try number(value, "amp_random", in: 0...24)) }
        if let value = opcodes["pitch_random"] { planned.template.randomPitchCents = Float(try number(value, "pitch_random", in: 0...9_600)) }
        if let value = opcodes["offset_random"] { planned.randomOffset = try integer(value, "offset_random", in: 0...Int(Int32.max)) }
        if let value = opcodes["delay_random"] { planned.template.randomDelaySeconds = Float(try number(value, "delay_random", in: 0...100)) }
        // fil_random: the cutoff up to this many cents either way, each note its own draw.
        if let value = opcodes["fil_random"], planned.cutoffHertz != nil {
            planned.template.randomCutoffCents = Float(try number(value, "fil_random", in: 0...9_600))
        }
        // SFZ 1's sends: effect1 to the reverb, effect2 to the chorus (the engine's two effect
        // buses, as SFZ 1 players route them), a percentage of the voice.
        if let value = opcodes["effect1"] { planned.template.reverbSend = Float(try number(value, "effect1", in: 0...100) / 100) }
        if let value = opcodes["effect2"] { planned.template.chorusSend = Float(try number(value, "effect2", in: 0...100) / 100) }
        if let value = opcodes["rt_decay"] { planned.releaseDecayDecibelsPerSecond = try number(value, "rt_decay", in: 0...200) }
        if let value = opcodes["seq_length"] { planned.template.sequenceLength = UInt8(try integer(value, "seq_length", in: 1...100)) }
        if let value = opcodes["seq_position"] { planned.template.sequencePosition = UInt8(try integer(value, "seq_position", in: 1...100)) }
        if let value = opcodes["lorand"] { planned.template.lowRandom = Float(try number(value, "lorand", in: 0...1)) }
        if let value = opcodes["hirand"] { planned.template.highRandom = Float(try number(value, "hirand", in: 0...1)) }
        // hirand=1 takes the whole top of the range: a random number is always below it.
        if planned.template.highRandom >= 1 { planned.template.highRandom = .infinity }
        if planned.template.sequencePosition > planned.template.sequenceLength { notPlayed["seq_position beyond seq_length (never plays)", default: 0] += 1 }
        if let value = opcodes["sw_last"] { planned.template.keyswitch = try key(value, "sw_last") }
        if let value = opcodes["lochan"] { planned.template.lowChannel = UInt8(try integer(value, "lochan", in: 1...16) - 1) }
        if let value = opcodes["hichan"] { planned.template.highChannel = UInt8(try integer(value, "hichan", in: 1...16) - 1) }
        if planned.template.lowChannel > planned.template.highChannel { throw problem(opcodes["hichan"] ?? opcodes["lochan"]!, "channel range \(planned.template.lowChannel + 1)...\(planned.template.highChannel + 1) is empty") }
        try readControllerTrigger(opcodes, into: &planned, notPlayed: &notPlayed)
        if keyless && planned.template.controllerTrigger == .any { notPlayed["key=-1 with no on_loccN (nothing starts the region)", default: 0] += 1 }
        guard keyless || planned.template.lowKey <= planned.template.highKey else { throw problem(opcodes["hikey"] ?? opcodes["key"]!, "key range \(planned.template.lowKey)...\(planned.template.highKey) is empty") }
        guard planned.template.lowVelocity <= planned.template.highVelocity else { throw problem(opcodes["hivel"]!, "velocity range \(planned.template.lowVelocity)...\(planned.template.highVelocity) is empty") }
        return planned
    }

    /// `delay`, `ampeg_vel2*`, and `fileg_*` or `pitcheg_*` on SF2's one modulation envelope.
    static func readEnvelopes(_ opcodes: [String: SFZText.Value], into planned: inout PlannedRegion,
                              notPlayed: inout [String: Int]) throws(SampleSetError) {
        planned.template.startDelaySeconds = try seconds(opcodes["delay"], "delay") ?? 0
        planned.template.volumeEnvelopeVelocity.delay = try velocitySeconds(opcodes["ampeg_vel2delay"], "ampeg_vel2delay") ?? 0
        planned.template.volumeEnvelopeVelocity.attack = try velocitySeconds(opcodes["ampeg_vel2attack"], "ampeg_vel2attack") ?? 0
        planned.template.volumeEnvelopeVelocity.hold = try velocitySeconds(opcodes["ampeg_vel2hold"], "ampeg_vel2hold") ?? 0
        planned.template.volumeEnvelopeVelocity.decay = try velocitySeconds(opcodes["ampeg_vel2decay"], "ampeg_vel2decay") ?? 0
        planned.template.volumeEnvelopeVelocity.release = try velocitySeconds(opcodes["ampeg_vel2release"], "ampeg_vel2release") ?? 0
        planned.template.volumeEnvelopeVelocity.sustainLevel = try opcodes["ampeg_vel2sustain"].map { value throws(SampleSetError) in
            try number(value, "ampeg_vel2sustain", in: -100...100) / 100
        } ?? 0
        // One envelope for both: the filter's when a region names both with different times.
        let filterStages = ["fileg_delay", "fileg_attack", "fileg_hold", "fileg_decay", "fileg_sustain", "fileg_release"]
        let pitchStages = filterStages.map { "pitch" + $0.dropFirst(3) }
        let filterDepth = try opcodes["fileg_depth"].map { value throws(SampleSetError) in try number(value, "fileg_depth", in: -12_000...12_000) } ?? 0
        let pitchDepth = try opcodes["pitcheg_depth"].map { value throws(SampleSetError) in try number(value, "pitcheg_depth", in: -12_000...12_000) } ?? 0
        let stages = filterDepth != 0 || pitchDepth == 0 ? filterStages : pitchStages
        if filterDepth != 0, pitchDepth != 0, zip(filterStages, pitchStages).contains(where: { opcodes[$0]?.text != opcodes[$1]?.text }) {
            notPlayed["pitcheg_* beside a different fileg_* (the pitch follows the filter's envelope)", default: 0] += 1
        }
        planned.template.modulationEnvelope.delay = try seconds(opcodes[stages[0]], stages[0]) ?? 0
        planned.template.modulationEnvelope.attack = try seconds(opcodes[stages[1]], stages[1]) ?? 0
        planned.template.modulationEnvelope.hold = try seconds(opcodes[stages[2]], stages[2]) ?? 0
        planned.template.modulationEnvelope.decay = try seconds(opcodes[stages[3]], stages[3]) ?? 0
        planned.template.modulationEnvelope.sustainLevel = try opcodes[stages[4]].map { value throws(SampleSetError) in try number(value, stages[4], in: 0...100) / 100 } ?? 0
        planned.template.modulationEnvelope.release = try seconds(opcodes[stages[5]], stages[5]) ?? 0
        planned.modulationEnvelopeToCutoffCents = Float(filterDepth)
        planned.template.modulationEnvelopeToPitchCents = Float(pitchDepth)
        // The vel2 forms of the envelope read (its times in seconds and its sustain in percent at
        // velocity 127), and each depth's velocity tracking as a modulator onto that depth.
        let prefix = stages[0].hasPrefix("fileg") ? "fileg_vel2" : "pitcheg_vel2"
        planned.template.modulationEnvelopeVelocity.delay = try velocitySeconds(opcodes[prefix + "delay"], prefix + "delay") ?? 0
        planned.template.modulationEnvelopeVelocity.attack = try velocitySeconds(opcodes[prefix + "attack"], prefix + "attack") ?? 0
        planned.template.modulationEnvelopeVelocity.hold = try velocitySeconds(opcodes[prefix + "hold"], prefix + "hold") ?? 0
        planned.template.modulationEnvelopeVelocity.decay = try velocitySeconds(opcodes[prefix + "decay"], prefix + "decay") ?? 0
        planned.template.modulationEnvelopeVelocity.release = try velocitySeconds(opcodes[prefix + "release"], prefix + "release") ?? 0
        planned.template.modulationEnvelopeVelocity.sustainLevel = try opcodes[prefix + "sustain"].map { value throws(SampleSetError) in
            try number(value, prefix + "sustain", in: -100...100) / 100
        } ?? 0
        let fullScale: Float = 128 / 127
        for (opcode, destination) in [("fileg_vel2depth", ModulatorDestination.modEnvToFilterFc), ("pitcheg_vel2depth", .modEnvToPitch)] {
            guard let value = opcodes[opcode] else { continue }
            let cents = Float(try number(value, opcode, in: -12_000...12_000))
            planned.modulators.append(SamplerModulator(source: ModulatorSource(.velocity), destination: destination, amount: cents * fullScale))
        }
    }

    /// An `ampeg_vel2*` time: seconds added at velocity 127, which may shorten a stage.
    static func velocitySeconds(_ value: SFZText.Value?, _ opcode: String) throws(SampleSetError) -> Double? {
        try value.map { value throws(SampleSetError) in try number(value, opcode, in: -100...100) }
    }

    /// `amp_velcurve_N`: the gains given at velocities N, straight lines between them (from 0 at
    /// velocity 0 and to 1 at 127 unless those are given). The curve then sets the level for
    /// velocity alone: the velocity modulator (and with it `amp_veltrack`) is taken out.
    static func readVelocityCurve(_ opcodes: [String: SFZText.Value], into planned: inout PlannedRegion) throws(SampleSetError) {
        var points: [Int: Float] = [:]
        for (opcode, value) in opcodes where opcode.hasPrefix("amp_velcurve_") {
            guard let velocity = Int(opcode.dropFirst("amp_velcurve_".count)), (0...127).contains(velocity) else {
                throw problem(value, "\(opcode): the velocity after amp_velcurve_ must be 0-127")
            }
            points[velocity] = Float(try number(value, opcode, in: 0...1))
        }
        guard !points.isEmpty else { return }
        points[0] = points[0] ?? 0
        points[127] = points[127] ?? 1
        let known = points.keys.sorted()
        var curve = [Float](repeating: 0, count: SampleBank.Layout.curveLength)
        for (low, high) in zip(known, known.dropFirst()) {
            for velocity in low...high {
                let fraction = Float(velocity - low) / Float(high - low)
                curve[velocity] = points[low]! + (points[high]! - points[low]!) * fraction
            }
        }
        planned.velocityCurve = curve
        for index in planned.modulators.indices where planned.modulators[index].isIdentical(to: SamplerModulator.defaults[0]) {
            planned.modulators[index].amount = 0
        }
    }

    /// `xfin_*`, `xfout_*` (keys by number or name, velocities 0-127) and their curves.
    static func readCrossfade(_ opcodes: [String: SFZText.Value], into crossfade: inout SamplerRegion.Crossfade) throws(SampleSetError) {
        let keys: [(String, WritableKeyPath<SamplerRegion.Crossfade, UInt8>)] = [
            ("xfin_lokey", \.inLowKey), ("xfin_hikey", \.inHighKey), ("xfout_lokey", \.outLowKey), ("xfout_hikey", \.outHighKey),
        ]
        for (opcode, field) in keys { if let value = opcodes[opcode] { crossfade[keyPath: field] = try key(value, opcode) } }
        let velocities: [(String, WritableKeyPath<SamplerRegion.Crossfade, UInt8>)] = [
            ("xfin_lovel", \.inLowVelocity), ("xfin_hivel", \.inHighVelocity), ("xfout_lovel", \.outLowVelocity), ("xfout_hivel", \.outHighVelocity),
        ]
        for (opcode, field) in velocities { if let value = opcodes[opcode] { crossfade[keyPath: field] = UInt8(try integer(value, opcode, in: 0...127)) } }
        func powerCurve(_ opcode: String) throws(SampleSetError) -> Bool {
            guard let value = opcodes[opcode] else { return true }
            switch value.text {
            case "power": return true
            case "gain": return false
            default: throw problem(value, "\(opcode)=\(value.text): expected power or gain")
            }
        }
        crossfade.keyPowerCurve = try powerCurve("xf_keycurve")
        crossfade.velocityPowerCurve = try powerCurve("xf_velcurve")
    }

    /// `name` split into a played controller opcode and its controller number (`volume_oncc7`:
    /// `volume_oncc`, 7); nil for any other opcode.
    static func controllerOpcode(_ name: String) -> (opcode: String, controller: Int)? {
        for opcode in playedPerController where name.hasPrefix(opcode) {
            if let number = Int(name.dropFirst(opcode.count)), (0...127).contains(number) || extendedControllers[number] != nil {
                return (opcode, number)
            }
        }
        return nil
    }

    /// ARIA's extended controllers (numbers past 127) that a modulator has a source for: the
    /// pitch wheel (128, -1…1), channel and polyphonic pressure (129, 130), the note's velocity
    /// (131) and its key (133).
    static let extendedControllers: [Int: (general: ModulatorSource.General, bipolar: Bool)] = [
        128: (.pitchWheel, true), 129: (.channelPressure, false), 130: (.polyPressure, false), 131: (.velocity, false), 133: (.key, false),
    ]

    /// What a modulator reads for SFZ controller `number` (0-127, or an extended one).
    static func modulatorSource(controller number: Int, curve: ModulatorSource.Curve = .linear, negative: Bool = false) -> ModulatorSource {
        if let extended = extendedControllers[number] {
            return ModulatorSource(extended.general, curve: curve, bipolar: extended.bipolar, negative: negative)
        }
        return ModulatorSource(controller: UInt8(number), curve: curve, negative: negative)
    }

    /// The velocity and controller opcodes as modulators on the voice's own ones: what a
    /// velocity or a controller does is then evaluated, at note-on and when the controller moves,
    /// by the code that plays SF2's modulators. Velocity and controllers read n/128 there (SF2),
    /// so amounts are scaled by 128/127 to reach the opcode's full value at 127.
    static func readModulation(_ opcodes: [String: SFZText.Value], into planned: inout PlannedRegion, curves: Set<Int>,
                               notPlayed: inout [String: Int]) throws(SampleSetError) {
        let fullScale: Float = 128 / 127
        if let value = opcodes["amp_veltrack"] {
            // SFZ's velocity curve at 100 % is SF2's default (40 log10 of velocity/127 dB, the
            // concave curve over 96 dB); the track scales that modulator, as a font's would.
            let track = Float(try number(value, "amp_veltrack", in: -100...100))
            for index in planned.modulators.indices where planned.modulators[index].isIdentical(to: SamplerModulator.defaults[0]) {
                planned.modulators[index].amount = 960 * track / 100
            }
        }
        if let value = opcodes["amp_keytrack"] {
            // gain × track dB a key from the centre: the key source adds track × key, the gain
            // takes the centre off.
            let track = try number(value, "amp_keytrack", in: -96...12)
            let center = try opcodes["amp_keycenter"].map { value throws(SampleSetError) in Double(try key(value, "amp_keycenter")) } ?? 60
            planned.modulators.append(SamplerModulator(source: ModulatorSource(.key), destination: .initialAttenuation, amount: Float(-10 * track * 128)))
            planned.gainDecibels -= track * center
        }
        if let value = opcodes["pan_keytrack"] {
            // track percent a key from the centre: the key source adds track × key, the pan takes
            // the centre off.
            let track = try number(value, "pan_keytrack", in: -100...100)
            let center = try opcodes["pan_keycenter"].map { value throws(SampleSetError) in Double(try key(value, "pan_keycenter")) } ?? 60
            planned.modulators.append(SamplerModulator(source: ModulatorSource(.key), destination: .pan, amount: Float(5 * track * 128)))
            // The centre as a modulator too: the region's own pan stops at the sides, the sum not.
            planned.modulators.append(SamplerModulator(source: .none, destination: .pan, amount: Float(-5 * track * center)))
        }
        if opcodes["bend_up"] != nil || opcodes["bend_down"] != nil {
            // The wheel's range in cents, in place of the channel's pitch-bend sensitivity.
            let up = try opcodes["bend_up"].map { value throws(SampleSetError) in try number(value, "bend_up", in: -9_600...9_600) } ?? 200
            let down = try opcodes["bend_down"].map { value throws(SampleSetError) in try number(value, "bend_down", in: -9_600...9_600) } ?? -200
            if down != -up { notPlayed["bend_down other than -bend_up (the wheel bends ±bend_up)", default: 0] += 1 }
            let wheel = SamplerModulator.defaults[SamplerModulator.defaults.count - 1]
            for index in planned.modulators.indices where planned.modulators[index].isIdentical(to: wheel) {
                planned.modulators[index] = SamplerModulator(source: wheel.source, destination: .fineTune, amount: Float(up) * 8_192 / 8_191)
            }
        }
        if let value = opcodes["pitch_veltrack"] {
            planned.modulators.append(SamplerModulator(source: ModulatorSource(.velocity), destination: .fineTune,
                                                       amount: Float(try number(value, "pitch_veltrack", in: -9_600...9_600)) * fullScale))
        }
        let filtered = planned.cutoffHertz != nil
        if let value = opcodes["fil_veltrack"] {
            let cents = Float(try number(value, "fil_veltrack", in: -9_600...9_600))
            if filtered { planned.modulators.append(SamplerModulator(source: ModulatorSource(.velocity), destination: .initialFilterFc, amount: cents * fullScale)) }
        }
        if let value = opcodes["fil_keytrack"] {
            let centsPerKey = try number(value, "fil_keytrack", in: 0...1_200)
            let center = try opcodes["fil_keycenter"].map { value throws(SampleSetError) in Double(try key(value, "fil_keycenter")) } ?? 60
            if filtered {
                // cutoff × 2^((key − center) × cents / 1200): the key source adds cents × key, the
                // cutoff itself takes the centre off.
                planned.modulators.append(SamplerModulator(source: ModulatorSource(.key), destination: .initialFilterFc, amount: Float(centsPerKey * 128)))
                planned.cutoffHertz! *= pow(2, -center * centsPerKey / 1_200)
            }
        }
        for (name, value) in opcodes.sorted(by: { $0.key < $1.key }) {
            guard let (opcode, controller) = controllerOpcode(name) else { continue }
            guard modulatorSource(controller: controller).isValid else {
                notPlayed["\(opcode)\(controller) (a controller SF2 modulators cannot read)", default: 0] += 1
                continue
            }
            let source = modulatorSource(controller: controller)
            // `<opcode>_curveccN`: the controller read through a curve, which maps 127 to its full
            // value itself.
            let curveName = curveFamily(of: opcode) + "_curvecc\(controller)"
            var curve = try opcodes[curveName].map { value throws(SampleSetError) in try integer(value, curveName, in: 0...255) }
            if let named = curve, !curves.contains(named) {
                notPlayed["\(curveName)=\(named) (no such <curve>; read without one)", default: 0] += 1
                curve = nil
            }
            func modulator(_ destination: ModulatorDestination, _ amount: Float, use: CurveUse? = nil) -> SamplerModulator {
                // (The wheel reads -1…1 already: no 127ths to make up.)
                let scale = curve != nil || extendedControllers[controller]?.general == .pitchWheel ? 1 : fullScale
                var modulator = SamplerModulator(source: source, destination: destination, amount: amount * scale)
                if let use = use ?? curve.map({ CurveUse(curve: $0) }) {
                    modulator.curve = Int32(planned.curveUses.firstIndex(of: use) ?? planned.curveUses.count)
                    if !planned.curveUses.contains(use) { planned.curveUses.append(use) }
                }
                return modulator
            }
            if let destination = envelopeControls[opcode] {
                let isSustain = opcode.contains("sustain")
                let amount = try number(value, name, in: -100...100) / (isSustain ? 100 : 1)
                planned.modulators.append(modulator(destination, Float(amount)))
                continue
            }
            switch opcode {
            case "volume_oncc":
                let decibels = Float(try number(value, name, in: -144...48))
                planned.modulators.append(modulator(.initialAttenuation, -10 * decibels))
            case "amplitude_oncc":
                let percent = try number(value, name, in: 0...100)
                guard percent > 0 else { continue }
                if let curve {
                    // Through a curve: the gain is the curve's value times the percentage.
                    planned.modulators.append(modulator(.initialAttenuation, 1_440, use: CurveUse(curve: curve, amplitudePercent: percent)))
                    continue
                }
                // The controller scales the amplitude from silence at 0 to the percentage at 127:
                // SF2's concave attenuation curve at half CC7's amount is 20·log10 of the value
                // (to 48 dB down at 0, where that curve stops).
                planned.modulators.append(SamplerModulator(source: modulatorSource(controller: controller, curve: .concave, negative: true),
                                                           destination: .initialAttenuation, amount: 480))
                planned.gainDecibels += 20 * log10(percent / 100)
            case "pitchlfo_depthcc", "pitchlfo_depth_oncc":
                let cents = Float(try number(value, name, in: -12_000...12_000))
                planned.modulators.append(modulator(.vibLfoToPitch, cents))
            case "amplfo_depthcc", "amplfo_depth_oncc":
                let decibels = Float(try number(value, name, in: -96...96))
                planned.modulators.append(modulator(.modLfoToVolume, -10 * decibels))
            case "fillfo_depthcc", "fillfo_depth_oncc":
                let cents = Float(try number(value, name, in: -12_000...12_000))
                if filtered { planned.modulators.append(modulator(.modLfoToFilterFc, cents)) }
            case "pan_oncc":
                let percent = Float(try number(value, name, in: -200...200))
                planned.modulators.append(modulator(.pan, 5 * percent))
            case "fileg_depth_oncc", "fileg_depthcc":
                let cents = Float(try number(value, name, in: -12_000...12_000))
                if filtered { planned.modulators.append(modulator(.modEnvToFilterFc, cents)) }
            case "pitcheg_depth_oncc", "pitcheg_depthcc":
                planned.modulators.append(modulator(.modEnvToPitch, Float(try number(value, name, in: -12_000...12_000))))
            case "amp_veltrack_oncc":
                // The velocity's concave attenuation, 960 cB at full tracking, scaled by the
                // controller: amp_veltrack plus this share of it at 127.
                let percent = Float(try number(value, name, in: -100...100))
                planned.modulators.append(SamplerModulator(source: ModulatorSource(.velocity, curve: .concave, negative: true),
                                                           destination: .initialAttenuation, amount: 960 * percent / 100 * fullScale,
                                                           amountSource: source))
            case "width_oncc":
                planned.modulators.append(modulator(.widthPercent, Float(try number(value, name, in: -200...200))))
            case "position_oncc":
                planned.modulators.append(modulator(.positionPercent, Float(try number(value, name, in: -200...200))))
            case "offset_oncc", "offset_cc":
                // Frames of the source file: `SFZIndex` scales them to the pool's rate.
                planned.modulators.append(modulator(.startAddrsOffset, Float(try number(value, name, in: 0...Double(Int32.max)))))
            case "cutoff_oncc", "cutoff_cc":
                let cents = Float(try number(value, name, in: -9_600...9_600))
                if filtered { planned.modulators.append(modulator(.initialFilterFc, cents)) }
            default:  // tune_oncc, pitch_oncc: cents
                let cents = Float(try number(value, name, in: -9_600...9_600))
                planned.modulators.append(modulator(.fineTune, cents))
            }
        }
    }

    /// SFZ 1's LFOs on SF2's two, as sines with their fade-ins: `pitchlfo_*` (vibrato) on the
    /// vibrato LFO, `amplfo_*` (tremolo) and `fillfo_*` on the modulation LFO, whose one rate,
    /// delay and fade are the tremolo's when a region names both with different ones.
    static func readLFOs(_ opcodes: [String: SFZText.Value], into planned: inout PlannedRegion,
                         notPlayed: inout [String: Int]) throws(SampleSetError) {
        /// The LFO `prefix` names (still, as SFZ's default rate is 0 Hz) and its depth.
        func lfo(_ prefix: String) throws(SampleSetError) -> (lfo: SamplerRegion.LFO, depth: Double) {
            var lfo = SamplerRegion.LFO()
            lfo.delay = try seconds(opcodes[prefix + "delay"], prefix + "delay") ?? 0
            lfo.frequency = try opcodes[prefix + "freq"].map { value throws(SampleSetError) in try number(value, prefix + "freq", in: 0...100) } ?? 0
            lfo.fade = try seconds(opcodes[prefix + "fade"], prefix + "fade") ?? 0
            lfo.shape = .sine
            let depth = try opcodes[prefix + "depth"].map { value throws(SampleSetError) in try number(value, prefix + "depth", in: -12_000...12_000) } ?? 0
            return (lfo, depth)
        }
        let vibrato = try lfo("pitchlfo_"), tremolo = try lfo("amplfo_"), wah = try lfo("fillfo_")
        planned.template.vibratoLFO = vibrato.lfo
        planned.template.vibratoLFOToPitchCents = Float(vibrato.depth)
        // A positive depth raises the level at the LFO's peak; SF2's amount lowers it there.
        planned.template.modulationLFOToVolumeCentibels = Float(-10 * tremolo.depth)
        planned.modulationLFOToCutoffCents = Float(wah.depth)
        let tremoloNamed = opcodes.keys.contains { $0.hasPrefix("amplfo_") }, wahNamed = opcodes.keys.contains { $0.hasPrefix("fillfo_") }
        planned.template.modulationLFO = tremoloNamed || !wahNamed ? tremolo.lfo : wah.lfo
        if tremoloNamed, wahNamed, tremolo.lfo != wah.lfo {
            notPlayed["fillfo_ rate, delay or fade other than amplfo_'s (the filter follows the tremolo's)", default: 0] += 1
        }
    }

    /// `on_loccN`/`on_hiccN` (sfizz also reads `start_loccN`): the controller that starts the
    /// region as it moves into the range; one a region (a second is said and left out).
    static func readControllerTrigger(_ opcodes: [String: SFZText.Value], into planned: inout PlannedRegion,
                                      notPlayed: inout [String: Int]) throws(SampleSetError) {
        var ranges: [Int: (low: UInt8, high: UInt8)] = [:]
        for (opcode, value) in opcodes {
            let prefixes = ["on_locc", "on_hicc", "start_locc", "start_hicc"]
            guard let prefix = prefixes.first(where: { opcode.hasPrefix($0) }), let controller = Int(opcode.dropFirst(prefix.count)),
                  (0...127).contains(controller) else { continue }
            let bound = UInt8(try integer(value, opcode, in: 0...127))
            var range = ranges[controller] ?? (0, 127)
            if prefix.contains("lo") { range.low = bound } else { range.high = bound }
            ranges[controller] = range
        }
        guard let (controller, range) = ranges.min(by: { $0.key < $1.key }) else { return }
        planned.template.controllerTrigger = SamplerRegion.ControllerRange(controller: UInt8(controller), low: range.low, high: range.high)
        if ranges.count > 1 { notPlayed["on_loccN of a second controller (the first starts the region)", default: 0] += 1 }
    }

    /// `loccN`/`hiccN`: the ranges of up to two controllers a region plays within.
    static func readControllerRanges(_ opcodes: [String: SFZText.Value], into planned: inout PlannedRegion,
                                     notPlayed: inout [String: Int]) throws(SampleSetError) {
        var ranges: [Int: (low: UInt8, high: UInt8)] = [:]
        for (opcode, value) in opcodes where opcode.hasPrefix("locc") || opcode.hasPrefix("hicc") {
            guard let controller = Int(opcode.dropFirst(4)), (0...127).contains(controller) else { continue }
            let bound = UInt8(try integer(value, opcode, in: 0...127))
            var range = ranges[controller] ?? (0, 127)
            if opcode.hasPrefix("locc") { range.low = bound } else { range.high = bound }
            ranges[controller] = range
        }
        let conditions = ranges.filter { $0.value != (0, 127) }.sorted { $0.key < $1.key }
        for (index, (controller, range)) in conditions.enumerated() {
            let condition = SamplerRegion.ControllerRange(controller: UInt8(controller), low: range.low, high: range.high)
            switch index {
            case 0: planned.template.firstControllerRange = condition
            case 1: planned.template.secondControllerRange = condition
            default: notPlayed["loccN/hiccN of a third controller (not checked)", default: 0] += 1
            }
        }
    }

    // MARK: Values

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
