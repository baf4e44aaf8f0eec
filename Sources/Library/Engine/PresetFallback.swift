import MIDI
import Render

/// A preset a song asks for that the bank lacks, and what plays instead: worked out on the control
/// thread before anything plays, by the same lookup the renderer makes (`SampleBank.Preset.index`),
/// so the warning says what will be heard.
/// - Thread: control. For every member.
public struct PresetSubstitution: Sendable, Equatable {
    /// A bank:program pair.
    public struct Number: Sendable, Hashable {
        public var bank: UInt16
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
    /// Every note the song plays through a bank, each under the preset its channel asks for when
    /// it is played, with its first frame: the channels followed as the sampler follows them (a
    /// bank select takes effect at the next program change; a system reset and a GS rhythm part
    /// select program 0 again, the rhythm part making its channel a drum channel or a melodic
    /// one). What a loader decodes for the song (`PlayedNotes`), and what the warnings about
    /// missing presets are worked out from. With `kitPlaysPercussion` the drum channel is a drum
    /// kit's and asks the bank for nothing.
    /// - Thread: control.
    public func playedNotes(kitPlaysPercussion: Bool) -> PlayedNotes {
        var bankSelect = [UInt8](repeating: 0, count: MIDILimits.channelCount)
        var program = [UInt8](repeating: 0, count: MIDILimits.channelCount)
        var percussion = (0..<MIDILimits.channelCount).map { $0 == Int(GeneralMIDI.percussionChannel) }
        func request(_ channel: Int) -> PlayedNotes.Request {
            PlayedNotes.Request(bank: percussion[channel] ? SampleBank.Preset.percussionBank : UInt16(bankSelect[channel]),
                                program: program[channel], percussion: percussion[channel])
        }
        // What each channel has selected: what its notes play until the next selection.
        var selected = (0..<MIDILimits.channelCount).map(request)
        var notes = PlayedNotes()
        for (frame, message) in messages {
            switch message {
            case let .controlChange(channel, 0, value) where channel < MIDILimits.channelCount:
                bankSelect[Int(channel)] = min(value, 127)
            case let .programChange(channel, number) where channel < MIDILimits.channelCount:
                program[Int(channel)] = min(number, 127)
                selected[Int(channel)] = request(Int(channel))
            case .system(.systemReset):
                for channel in 0..<MIDILimits.channelCount {
                    (bankSelect[channel], program[channel]) = (0, 0)
                    percussion[channel] = channel == Int(GeneralMIDI.percussionChannel)
                    selected[channel] = request(channel)
                }
            case let .system(.rhythmPart(channel, isDrum)) where channel < MIDILimits.channelCount:
                (bankSelect[Int(channel)], program[Int(channel)], percussion[Int(channel)]) = (0, 0, isDrum)
                selected[Int(channel)] = request(Int(channel))
            case let .noteOn(channel, key, velocity) where channel < MIDILimits.channelCount && velocity > 0 && key < 128:
                if kitPlaysPercussion && channel == GeneralMIDI.percussionChannel { continue }
                notes.add(selected[Int(channel)], channel: channel, key: key, velocity: velocity, frame: Int64(frame))
            default:
                continue
            }
        }
        return notes
    }

    /// The notes of the song's first `seconds` (at `sampleRate`) from its first note (`playedNotes`): what must be
    /// in memory before it starts.
    /// - Thread: control.
    public func notesAtStart(seconds: Double, sampleRate: Double, kitPlaysPercussion: Bool) -> PlayedNotes {
        let all = playedNotes(kitPlaysPercussion: kitPlaysPercussion)
        guard let first = all.firstFrames.values.min() else { return all }
        return all.playedBefore(frame: first + Int64(seconds * sampleRate))
    }

    /// Every bank:program the song's notes ask for (`playedNotes`) that `bank` lacks, with what
    /// plays instead, channels merged where they ask for the same thing.
    /// - Thread: control.
    public func presetSubstitutions(in bank: SampleBank, kitPlaysPercussion: Bool) -> [PresetSubstitution] {
        var substitutions: [PresetSubstitution] = []
        for (request, channels) in playedNotes(kitPlaysPercussion: kitPlaysPercussion).requests {
            let number = PresetSubstitution.Number(bank: request.bank, program: request.program)
            let index = SampleBank.Preset.index(playing: request.bank, program: request.program, percussion: request.percussion, in: bank.presets)
            let played = index < 0 ? nil : PresetSubstitution.Number(bank: bank.presets[index].bank, program: bank.presets[index].program)
            guard played != number else { continue }
            substitutions.append(PresetSubstitution(channels: channels, requested: number, played: played))
        }
        return substitutions
    }

    /// True when a note plays on the drum channel.
    /// - Thread: control.
    public var playsPercussion: Bool {
        messages.contains { if case let .noteOn(channel, _, velocity) = $0.message { channel == GeneralMIDI.percussionChannel && velocity > 0 } else { false } }
    }
}

extension PlayedNotes {
    /// Every key at every velocity on every channel under the preset it has before any program
    /// change (bank 0 program 0; the drum channel kit 128:0, unless a kit plays it), at frame 0:
    /// what a live player must have in memory before its first note.
    /// - Thread: control.
    public static func startingPresets(kitPlaysPercussion: Bool, channels: Range<UInt8> = 0..<UInt8(MIDILimits.channelCount)) -> PlayedNotes {
        var notes = PlayedNotes()
        for channel in channels {
            let percussion = channel == GeneralMIDI.percussionChannel
            if percussion && kitPlaysPercussion { continue }
            let request = PlayedNotes.Request(bank: percussion ? SampleBank.Preset.percussionBank : 0, program: 0, percussion: percussion)
            for key in 0..<UInt8(MIDILimits.keyCount) {
                for velocity in 1...UInt8(127) { notes.add(request, channel: channel, key: key, velocity: velocity, frame: 0) }
            }
        }
        return notes
    }
}
