/// Every SFZ opcode the loader knows, and what it does with each: the one table that says which
/// opcodes play, which are read for their names alone, and which are known but not played yet.
/// The loader's warnings (`SFZPlan`), `staccato info` and `docs/SFZ.md` (`markdown`, which a test
/// keeps current) all read it, so none can disagree with another.
///
/// Numbered opcodes are written with `N` for each number (`ampeg_attack_onccN`, `egN_timeN`);
/// `pattern(of:)` turns an opcode as a file writes it into that form.
/// - Thread: any.
public enum SFZOpcodes {
    /// What the loader does with an opcode.
    /// - Thread: any.
    public enum Status: Equatable, Sendable {
        /// It changes what plays.
        /// - Thread: any.
        case played
        /// A name for a player's interface (labels, images): read, and shown by `staccato info`
        /// where it names a controller or key; nothing to play.
        /// - Thread: any.
        case named
        /// Known to the SFZ format (SFZ 1, SFZ 2 or ARIA), not played yet: said in one warning
        /// line with the regions that use it.
        /// - Thread: any.
        case notPlayed
    }

    /// `name` with every run of digits made `N`: the form the table lists numbered opcodes in.
    /// - Thread: any.
    public static func pattern(of name: String) -> String {
        var result = ""
        var inDigits = false
        for character in name {
            if character.isASCII && character.isNumber {
                if !inDigits { result.append("N") }
                inDigits = true
            } else {
                result.append(character)
                inDigits = false
            }
        }
        return result
    }

    /// What the loader does with the region opcode `name` (as a file writes it); nil for an
    /// opcode it does not know.
    /// - Thread: any.
    public static func status(of name: String) -> Status? {
        if SFZPlan.isPlayed(name) { return .played }
        let form = pattern(of: name)
        if form.hasPrefix("label_") || form.hasSuffix("_label") || named.contains(form) { return .named }
        if notPlayed[form] != nil { return .notPlayed }
        // A played form with a number beyond what plays (ARIA's extended controllers, 128 and
        // up), or a control opcode written in a region.
        if SFZPlan.playedPatternSet.contains(form) { return .notPlayed }
        return nil
    }

    /// Read for their names alone.
    static let named: Set<String> = ["label_ccN", "label_keyN", "image", "hint_ram_based", "note_name", "md5"]

    /// Known to the format, not played yet, each with what it would do.
    static let notPlayed: [String: String] = [
        // SFZ 2 flex envelopes and LFOs: what does not play of them.
        "egN_points": "a flex envelope's point count", "egN_loop": "a flex envelope's loop",
        "egN_dynamic": "a flex envelope that follows its controllers", "egN_shapeN_onccN": "a flex envelope's segment shape on a controller",
        "egN_cutoffN": "a flex envelope onto the second filter's cutoff", "egN_resonanceN": "a flex envelope onto the second filter's resonance",
        "lfoN_cutoffN": "a flex LFO onto the second filter's cutoff", "lfoN_resonanceN": "a flex LFO onto the second filter's resonance",
        "lfoN_count": "a flex LFO's cycle count", "lfoN_waveN": "a flex LFO's further waves", "lfoN_offsetN": "a flex LFO's offset",
        "lfoN_ratioN": "a flex LFO's further waves' rates", "lfoN_scaleN": "a flex LFO's further waves' depths",
        "lfoN_steps": "a flex LFO's step sequence", "lfoN_stepN": "a flex LFO's step", "lfoN_beats": "a flex LFO's rate in beats",
        "lfoN_phase_onccN": "a flex LFO's phase on a controller",
        "lfoN_freq_lfoN_onccN": "one LFO's rate moved by another",
        "egN_pitch_curveccN": "a flex envelope's pitch depth curve", "lfoN_pitch_curveccN": "a flex LFO's pitch depth curve",
        "lfoN_volume_curveccN": "a flex LFO's volume depth curve", "lfoN_freq_curveccN": "a flex LFO's rate curve",
        // SFZ 1 LFOs: what does not play of them.
        "pitchlfo_freqccN": "the vibrato's rate on a controller", "pitchlfo_freq_onccN": "the vibrato's rate on a controller",
        "amplfo_freqccN": "the tremolo's rate on a controller", "fillfo_freqccN": "the filter LFO's rate on a controller",
        // The equalizer's and the second filter's curves.
        "eqN_gain_curveccN": "an EQ band's gain curve", "eqN_type": "an EQ band's type (a peak plays)",
        "resonance_ccN": "the resonance on a controller", "resonance_onccN": "the resonance on a controller",
        // Randomness, offsets and levels on controllers.
        "delay_onccN": "the start delay on a controller", "delay_ccN": "the start delay on a controller",
        "amp_veltrack_curveccN": "the velocity tracking's curve",
        "ampeg_dynamic": "envelope times that follow their controllers while the note sounds",
        "ampeg_release_shape": "the release's curve", "ampeg_attack_shape": "the attack's curve", "ampeg_decay_shape": "the decay's curve",
        "ampeg_start": "the amplitude envelope's starting level", "ampeg_vel2depth": "the amplitude envelope's depth by velocity",
        // Variables (ARIA).
        "varN_onccN": "a variable on a controller", "varN_mod": "a variable's combination", "varN_curveccN": "a variable's curve",
        "varN_cutoff": "a variable onto the cutoff", "varN_eqNgain": "a variable onto an EQ gain", "varN_eqNfreq": "a variable onto an EQ frequency",
        "varN_volume": "a variable onto the volume", "varN_amplitude": "a variable onto the amplitude", "varN_pitch": "a variable onto the pitch",
        // Effects past the two buses.
        "effect3": "a send to effect bus 3", "effect4": "a send to effect bus 4",
        // Triggers and articulations.
        "off_shape": "the curve of a cut-off voice's release",
        "sw_vel": "the velocity a keyswitch takes", "sw_up": "a keyswitch on its release", "sw_down": "a keyswitch on its press",
        "sw_previous": "a region for the note before", "sustain_sw": "whether the pedal holds the region", "sostenuto_sw": "whether sostenuto holds the region",
        "sustain_cc": "the controller that works as the sustain pedal", "sustain_lo": "the sustain pedal's threshold",
        "xfin_loccN": "a crossfade in on a controller (low)", "xfin_hiccN": "a crossfade in on a controller (high)",
        "xfout_loccN": "a crossfade out on a controller (low)", "xfout_hiccN": "a crossfade out on a controller (high)",
        "xf_cccurve": "the controller crossfades' curve", "rt_dead": "a release trigger after the sample's end",
        "loop_crossfade": "a crossfade across the loop", "count": "how many times a sample plays", "loopcount": "how many times a loop plays",
        "direction": "a sample played backwards", "phase": "a polarity inversion", "note_offset": "the notes moved by semitones",
        "octave_offset": "the notes moved by octaves", "delay_beats": "a start delay in beats", "stop_beats": "a stop after beats",
        "oscillator": "a sample as a wavetable", "oscillator_phase": "a wavetable's phase", "oscillator_multi": "a wavetable's voices",
        "global_amplitude": "the level's amplitude (global)", "master_amplitude": "the level's amplitude (master)",
        "group_amplitude": "the level's amplitude (group)", "pitch_veltrack_onccN": "the pitch's velocity tracking on a controller",
        "trigger_random": "a random trigger", "polyphony_group": "a polyphony group", "note_selfmask": "a note's self-masking",
        "bend_step": "the pitch bend's steps", "bend_smooth": "the pitch bend's smoothing", "fil_gain": "a filter's gain",
    ]

    /// `docs/SFZ.md`: every opcode the loader plays, reads for its name, or knows and does not play yet.
    /// - Thread: any.
    public static var markdown: String {
        var lines = [
            "# SFZ opcodes", "",
            "Generated from the SFZ loader's own tables (`Sources/Library/SFZ/SFZOpcodes.swift`, `SFZPlan`); a test keeps this",
            "page current. `N` stands for a number (`ampeg_attack_onccN`: `ampeg_attack_oncc7`). An opcode in no table is",
            "unknown: `staccato info` and the loader's warnings name it.", "",
            "## Played", "",
        ]
        lines += SFZPlan.playedPatterns.map { "- `\($0)`" }
        lines += ["", "## Read for their names (nothing to play)", ""]
        lines += (named.sorted() + ["*_label (`region_label`, `group_label`, `sw_label`, ...)"]).map { "- `\($0)`" }
        lines += ["", "## Known, not played yet", "",
                  "Besides these, a played controller opcode with a controller above 127 that is not 128-131 or 133 (ARIA's other extended controllers), and",
                  "`set_ccN` or `set_hdccN` anywhere but `<control>`.", "", "| opcode | what it would do |", "|---|---|"]
        lines += notPlayed.keys.sorted().map { "| `\($0)` | \(notPlayed[$0]!) |" }
        return lines.joined(separator: "\n") + "\n"
    }
}
