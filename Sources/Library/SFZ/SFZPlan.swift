import DSP
import FileChecks
import Foundation
import MIDIVocabulary
import Render
import SampleSet

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
}
