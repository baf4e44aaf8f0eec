import DSP
import FileChecks
import Foundation
import MIDIVocabulary
import Render
import SampleSet

// A region's modulation read: controllers on every target, LFOs, controller triggers and ranges.
extension SFZPlan {
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
}
