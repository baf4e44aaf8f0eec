import DSP
import FileChecks
import Foundation
import MIDIVocabulary
import Render
import SampleSet

// What the loader plays: the opcodes it reads (the table docs/SFZ.md is generated from), the
// filters and base modulators regions start with.
extension SFZPlan {
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
}
