import MIDI
import Render

/// A preset a song asks for that the bank lacks, and what plays instead: worked out on the control
/// thread before anything plays, by the same lookup the renderer makes (`SampleBank.Preset.index`),
/// so the warning says what will be heard.
/// - Thread: control. For every member.
public struct PresetSubstitution: Sendable, Equatable {
    /// A bank:program pair.
    public struct Number: Sendable, Hashable {
        /// - Thread: any.
        public var bank: UInt16
        /// - Thread: any.
        public var program: UInt8
        /// - Thread: any.
        public init(bank: UInt16, program: UInt8) {
            self.bank = bank
            self.program = program
        }
    }

    /// MIDI channels (0-15) that ask for `requested` and play notes with it.
    /// - Thread: control.
    public var channels: [UInt8]
    /// - Thread: control.
    public var requested: Number
    /// What plays instead; nil when nothing in the bank fits.
    /// - Thread: control.
    public var played: Number?
    /// - Thread: control.
    public init(channels: [UInt8], requested: Number, played: Number?) {
        self.channels = channels
        self.requested = requested
        self.played = played
    }

    /// True for the drum channel, which asks for kits of the percussion bank.
    /// - Thread: control.
    public var isPercussion: Bool { requested.bank == SampleBank.Preset.percussionBank }

    /// What the song asks for, channels counted from 1 as musicians do: "channel 3 program 40
    /// (Violin)", "channel 10 drum kit 128:9".
    /// - Thread: control.
    public var request: String {
        let who = (channels.count == 1 ? "channel " : "channels ") + channels.map { String($0 + 1) }.joined(separator: ", ")
        if isPercussion { return "\(who) drum kit \(requested.bank):\(requested.program)" }
        return "\(who) " + (requested.bank == 0 ? "" : "bank \(requested.bank) ")
            + "program \(requested.program) (\(GeneralMIDI.programName(requested.program)))"
    }

    /// What plays instead: "played with bank 0 program 0 (Acoustic Grand Piano)", "played with 128:0".
    /// - Thread: control.
    public var outcome: String {
        guard let played else { return isPercussion ? "nothing plays (the font has no drum kit)" : "nothing plays (the font has no melodic preset)" }
        if isPercussion { return "played with \(played.bank):\(played.program)" }
        return "played with bank \(played.bank) program \(played.program) (\(GeneralMIDI.programName(played.program)))"
    }

    /// The clauses of a warning about `substitutions`, one per outcome, so a song whose every
    /// channel falls back to the piano says so once: "channel 4 program 56 (Trumpet), channel 7
    /// program 90 (Pad 3 (polysynth)): played with bank 0 program 0 (Acoustic Grand Piano)".
    /// - Thread: control.
    public static func clauses(_ substitutions: [PresetSubstitution]) -> [String] {
        var outcomes: [String] = []
        var requests: [String: [PresetSubstitution]] = [:]
        for substitution in substitutions {
            if requests[substitution.outcome] == nil { outcomes.append(substitution.outcome) }
            requests[substitution.outcome, default: []].append(substitution)
        }
        return outcomes.map { outcome in
            let sorted = requests[outcome]!.sorted { ($0.channels[0], $0.requested.bank, $0.requested.program) < ($1.channels[0], $1.requested.bank, $1.requested.program) }
            return sorted.map(\.request).joined(separator: ", ") + ": " + outcome
        }
    }
}

extension MIDISequencer {
    /// Every bank:program the song's notes ask for (through bank selects and program changes, per
    /// channel, as the sampler tracks them) that `bank` lacks, with what plays instead, channels
    /// merged where they ask for the same thing. With `kitPlaysPercussion` the drum channel is a
    /// drum kit's and asks the bank for nothing.
    /// - Thread: control.
    public func presetSubstitutions(in bank: SampleBank, kitPlaysPercussion: Bool) -> [PresetSubstitution] {
        var bankSelect = [UInt8](repeating: 0, count: 16)
        // What each channel has selected: a bank select takes effect at the next program change.
        var selected = [PresetSubstitution.Number](repeating: PresetSubstitution.Number(bank: 0, program: 0), count: 16)
        selected[Int(GeneralMIDI.percussionChannel)].bank = SampleBank.Preset.percussionBank
        var asked: [PresetSubstitution.Number: [UInt8]] = [:]
        var order: [PresetSubstitution.Number] = []
        for (_, message) in messages {
            switch message {
            case let .controlChange(channel, 0, value) where channel < MIDILimits.channelCount:
                bankSelect[Int(channel)] = min(value, 127)
            case let .programChange(channel, program) where channel < MIDILimits.channelCount:
                let percussion = channel == GeneralMIDI.percussionChannel
                selected[Int(channel)] = PresetSubstitution.Number(
                    bank: percussion ? SampleBank.Preset.percussionBank : UInt16(bankSelect[Int(channel)]), program: min(program, 127))
            case let .noteOn(channel, _, velocity) where channel < MIDILimits.channelCount && velocity > 0:
                if kitPlaysPercussion && channel == GeneralMIDI.percussionChannel { continue }
                let number = selected[Int(channel)]
                if asked[number] == nil { order.append(number) }
                if !(asked[number]?.contains(channel) ?? false) { asked[number, default: []].append(channel) }
            default:
                continue
            }
        }
        var substitutions: [PresetSubstitution] = []
        for number in order {
            let percussion = number.bank == SampleBank.Preset.percussionBank
            let index = SampleBank.Preset.index(playing: number.bank, program: number.program, percussion: percussion, in: bank.presets)
            let played = index < 0 ? nil : PresetSubstitution.Number(bank: bank.presets[index].bank, program: bank.presets[index].program)
            guard played != number else { continue }
            substitutions.append(PresetSubstitution(channels: asked[number]!.sorted(), requested: number, played: played))
        }
        return substitutions
    }

    /// True when a note plays on the drum channel.
    /// - Thread: control.
    public var playsPercussion: Bool {
        messages.contains { if case let .noteOn(channel, _, velocity) = $0.message { channel == GeneralMIDI.percussionChannel && velocity > 0 } else { false } }
    }
}
