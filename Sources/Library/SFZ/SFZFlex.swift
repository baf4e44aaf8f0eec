import Render
import SampleSet

/// SFZ 2's flex envelopes (`egN_*`) and LFOs (`lfoN_*`) read into a region's `SamplerFlex` tables,
/// as sfizz reads them: an envelope's points `egN_timeX`/`levelX`/`shapeX` from point 0, held at
/// `egN_sustain` (point 0 by default, as in ARIA); an LFO's rate, delay, fade-in, starting phase
/// and wave; and each onto the voice parameters its target opcodes name, by a depth a controller
/// may move (`egN_pitch_onccN`).
extension SFZPlan {
    /// The voice parameters a flex envelope or LFO reaches, by the opcode's name after `egN_` or
    /// `lfoN_`, with the range of its depth.
    static let flexTargets: [String: (target: SamplerFlex.Target, range: ClosedRange<Double>)] = [
        "pitch": (.pitch, -12_000...12_000), "volume": (.volume, -144...48), "amplitude": (.amplitude, 0...10_000),
        "pan": (.pan, -200...200), "width": (.width, -200...200), "position": (.position, -200...200),
        "cutoff": (.cutoff, -12_000...12_000), "cutoff1": (.cutoff, -12_000...12_000),
        "resonance": (.resonance, -96...96), "resonance1": (.resonance, -96...96),
        "eq1gain": (.equalizer1Gain, -96...96), "eq2gain": (.equalizer2Gain, -96...96), "eq3gain": (.equalizer3Gain, -96...96),
        "eq1freq": (.equalizer1Frequency, -30_000...30_000), "eq2freq": (.equalizer2Frequency, -30_000...30_000),
        "eq3freq": (.equalizer3Frequency, -30_000...30_000),
        "eq1bw": (.equalizer1Octaves, -4...4), "eq2bw": (.equalizer2Octaves, -4...4), "eq3bw": (.equalizer3Octaves, -4...4),
    ]
    /// Routes onto the equalizer: a region with one runs its equalizer whatever its gains.
    static let equalizerTargets: Set<SamplerFlex.Target> = [
        .equalizer1Gain, .equalizer2Gain, .equalizer3Gain, .equalizer1Frequency, .equalizer2Frequency, .equalizer3Frequency,
        .equalizer1Octaves, .equalizer2Octaves, .equalizer3Octaves,
    ]

    /// The flex opcodes played, numbers as `N` (`egN_timeN_onccN`), as `docs/SFZ.md` lists them
    /// (`cutoff1` and `resonance1`, the first filter's, play as `cutoff` and `resonance` do).
    static var flexPatterns: [String] {
        var patterns = ["egN_timeN", "egN_levelN", "egN_shapeN", "egN_sustain", "egN_ampeg", "egN_timeN_onccN", "egN_levelN_onccN"]
        patterns += lfoFields.map { "lfoN_" + $0 } + ["lfoN_freq_onccN", "lfoN_delay_onccN", "lfoN_fade_onccN"]
        let targets = Set(flexTargets.keys.filter { $0 != "cutoff1" && $0 != "resonance1" }.map { SFZOpcodes.pattern(of: $0) })
        for source in ["egN_", "lfoN_"] {
            for target in targets { patterns += [source + target, source + target + "_onccN"] }
        }
        return patterns.sorted()
    }
    /// An LFO's own opcodes after `lfoN_`; the first three may name a controller (`_onccN`).
    static let lfoFields: Set<String> = ["freq", "delay", "fade", "phase", "wave"]

    /// Whether `name` is a flex opcode that plays (`egN_*`, `lfoN_*`, a controller 0-127).
    static func isFlexPlayed(_ name: String) -> Bool {
        guard let (isEnvelope, _, rest) = flexOpcode(name) else { return false }
        var body = rest
        var onController = false
        if let range = rest.range(of: "_oncc") {
            guard let controller = Int(rest[range.upperBound...]), (0...127).contains(controller) else { return false }
            body = rest[..<range.lowerBound]
            onController = true
        }
        if flexTargets[String(body)] != nil { return true }
        if isEnvelope {
            if body == "sustain" || body == "ampeg" { return !onController }
            guard let (field, _) = trailingNumber(body) else { return false }
            return field == "time" || field == "level" || (field == "shape" && !onController)
        }
        return lfoFields.contains(String(body)) && (!onController || ["freq", "delay", "fade"].contains(String(body)))
    }

    /// A flex opcode's parts: whether an envelope's, the number after `eg`/`lfo`, and the rest
    /// (`eg2_time1_oncc7`: true, 2, `time1_oncc7`).
    static func flexOpcode(_ name: String) -> (isEnvelope: Bool, number: Int, rest: Substring)? {
        let isEnvelope = name.hasPrefix("eg")
        guard isEnvelope || name.hasPrefix("lfo") else { return nil }
        let afterKind = name.dropFirst(isEnvelope ? 2 : 3)
        let digits = afterKind.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, let number = Int(digits), afterKind.dropFirst(digits.count).first == "_" else { return nil }
        return (isEnvelope, number, afterKind.dropFirst(digits.count + 1))
    }

    /// `text` split at a trailing number (`time12`: `time`, 12), nil without one.
    private static func trailingNumber(_ text: Substring) -> (Substring, Int)? {
        let digits = text.reversed().prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, let number = Int(String(digits.reversed())) else { return nil }
        return (text.dropLast(digits.count), number)
    }

    /// The region's flex envelopes, LFOs and routes, read from its opcodes. `filtered`: the region
    /// has a filter for routes onto the cutoff and the resonance to move.
    static func readFlex(_ opcodes: [String: SFZText.Value], filtered: Bool,
                         notPlayed: inout [String: Int]) throws(SampleSetError) -> (tables: SamplerFlex.Tables, amplitudeEnvelope: Int) {
        var envelopePoints: [Int: [Int: SamplerFlex.Point]] = [:]
        var sustains: [Int: Int] = [:]
        var amplitudeEnvelopes: Set<Int> = []
        var lfos: [Int: SamplerFlex.LFO] = [:]
        // Routes by (envelope?, number, target name).
        struct RouteKey: Hashable { var isEnvelope: Bool; var number: Int; var target: String }
        var routes: [RouteKey: SamplerFlex.Route] = [:]
        /// A controller opcode's number, when it is one a flex depth can read.
        func controller(_ name: String, _ number: Int) -> UInt8? {
            guard (0...127).contains(number) else {
                notPlayed["\(SFZOpcodes.pattern(of: name)) with a controller above 127", default: 0] += 1
                return nil
            }
            return UInt8(number)
        }
        /// `current` unless it already names another controller: one controller a value.
        func single(_ current: UInt8, _ new: UInt8, _ name: String) -> Bool {
            if current == SamplerFlex.noController || current == new { return true }
            notPlayed["\(SFZOpcodes.pattern(of: name)) on a second controller (the first plays)", default: 0] += 1
            return false
        }
        for (name, value) in opcodes.sorted(by: { $0.key < $1.key }) {
            guard let (isEnvelope, number, rest) = flexOpcode(name), isFlexPlayed(name) else { continue }
            // The depth's controller, when the opcode ends in one.
            var body = rest
            var onController: UInt8? = nil
            if let range = rest.range(of: "_oncc") {
                guard let cc = Int(rest[range.upperBound...]), let known = controller(name, cc) else { continue }
                onController = known
                body = rest[..<range.lowerBound]
            }
            if let (target, range) = flexTargets[String(body)] {
                if target == .cutoff || target == .resonance, !filtered { continue }
                let depth = Float(try self.number(value, name, in: range))
                let key = RouteKey(isEnvelope: isEnvelope, number: number, target: String(body))
                var route = routes[key] ?? SamplerFlex.Route(source: 0, target: target, depth: 0)
                if let onController {
                    guard single(route.controller, onController, name) else { continue }
                    route.controller = onController
                    route.depthAtFullController = depth
                } else {
                    route.depth = depth
                }
                routes[key] = route
                continue
            }
            if isEnvelope {
                if body == "sustain" { sustains[number] = try self.integer(value, name, in: 0...100); continue }
                if body == "ampeg" {
                    if try self.integer(value, name, in: 0...1) != 0 { amplitudeEnvelopes.insert(number) }
                    continue
                }
                guard let (field, index) = trailingNumber(body), index <= 100 else { continue }
                var point = envelopePoints[number]?[index] ?? SamplerFlex.Point()
                switch (field, onController) {
                case ("time", nil): point.seconds = Float(try seconds(value, name) ?? 0)
                case ("level", nil): point.level = Float(try self.number(value, name, in: -1...1))
                case ("shape", nil): point.shape = Float(try self.number(value, name, in: -100...100))
                case ("time", let cc?):
                    guard single(point.timeController, cc, name) else { continue }
                    point.timeController = cc
                    point.secondsAtFullController = Float(try self.number(value, name, in: -100...100))
                case ("level", let cc?):
                    guard single(point.levelController, cc, name) else { continue }
                    point.levelController = cc
                    point.levelAtFullController = Float(try self.number(value, name, in: -1...1))
                default: continue
                }
                envelopePoints[number, default: [:]][index] = point
                continue
            }
            var lfo = lfos[number] ?? SamplerFlex.LFO()
            switch (body, onController) {
            case ("freq", nil): lfo.frequency = Float(try self.number(value, name, in: 0...100))
            case ("delay", nil): lfo.delaySeconds = Float(try seconds(value, name) ?? 0)
            case ("fade", nil): lfo.fadeSeconds = Float(try seconds(value, name) ?? 0)
            case ("phase", nil):
                let turns = try self.number(value, name, in: -100...100)
                lfo.phase = Float(turns - turns.rounded(.down))
            case ("wave", nil):
                let wave = try self.integer(value, name, in: 0...12)
                guard let known = SamplerFlex.Wave(rawValue: UInt8(wave)) else {
                    notPlayed["lfoN_wave=\(wave) (played as a triangle)", default: 0] += 1
                    continue
                }
                lfo.wave = known
            case ("freq", let cc?):
                guard single(lfo.frequencyController, cc, name) else { continue }
                lfo.frequencyController = cc
                lfo.frequencyAtFullController = Float(try self.number(value, name, in: -100...100))
            case ("delay", let cc?):
                guard single(lfo.delayController, cc, name) else { continue }
                lfo.delayController = cc
                lfo.delayAtFullController = Float(try self.number(value, name, in: -100...100))
            case ("fade", let cc?):
                guard single(lfo.fadeController, cc, name) else { continue }
                lfo.fadeController = cc
                lfo.fadeAtFullController = Float(try self.number(value, name, in: -100...100))
            default: continue
            }
            lfos[number] = lfo
        }
        // An envelope or LFO any route or role names, or that has points of its own, plays, in
        // the order of its number; past `SamplerFlex.capacity` of each, said and left out.
        let routed = Set(routes.keys.map { ($0.isEnvelope ? -1 : 1) * $0.number })
        let envelopeNumbers = Set(envelopePoints.keys).union(amplitudeEnvelopes).union(routed.filter { $0 < 0 }.map { -$0 }).sorted()
        let lfoNumbers = Set(lfos.keys).union(routed.filter { $0 > 0 }).sorted()
        if envelopeNumbers.count > SamplerFlex.capacity { notPlayed["egN past the \(SamplerFlex.capacity)th of a region", default: 0] += 1 }
        if lfoNumbers.count > SamplerFlex.capacity { notPlayed["lfoN past the \(SamplerFlex.capacity)th of a region", default: 0] += 1 }
        var tables = SamplerFlex.Tables()
        var envelopeIndex: [Int: Int] = [:], lfoIndex: [Int: Int] = [:]
        for number in envelopeNumbers.prefix(SamplerFlex.capacity) {
            envelopeIndex[number] = tables.envelopes.count
            let points = envelopePoints[number] ?? [:]
            var envelope = SamplerFlex.Envelope()
            envelope.firstPoint = Int32(tables.points.count)
            envelope.pointCount = Int32((points.keys.max() ?? -1) + 1)
            envelope.sustainPoint = Int32(sustains[number] ?? 0)
            tables.points += (0..<Int(envelope.pointCount)).map { points[$0] ?? SamplerFlex.Point() }
            tables.envelopes.append(envelope)
        }
        for number in lfoNumbers.prefix(SamplerFlex.capacity) {
            lfoIndex[number] = tables.lfos.count
            tables.lfos.append(lfos[number] ?? SamplerFlex.LFO())
        }
        for key in routes.keys.sorted(by: { ($0.isEnvelope ? 0 : 1, $0.number, $0.target) < ($1.isEnvelope ? 0 : 1, $1.number, $1.target) }) {
            var route = routes[key]!
            if key.isEnvelope {
                guard let index = envelopeIndex[key.number] else { continue }
                route.source = UInt8(index)
            } else {
                guard let index = lfoIndex[key.number] else { continue }
                route.source = UInt8(SamplerFlex.capacity + index)
            }
            tables.routes.append(route)
        }
        // The lowest-numbered envelope marked `egN_ampeg` stands for the amplitude envelope.
        let amplitude = amplitudeEnvelopes.sorted().compactMap { envelopeIndex[$0] }.first ?? -1
        return (tables, amplitude)
    }
}
