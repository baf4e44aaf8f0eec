import DSP
import FileChecks
import Foundation
import MIDIVocabulary
import Render
import SampleSet

// One region's opcodes read into what plays: sample, keys and velocities, tuning, envelopes,
// the velocity curve, crossfades.
extension SFZPlan {
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
}
