import Synchronization
import Lockfree

// Voice stealing, all of it: which voice ends to make room for a note. Two rules decide. When
// every voice sounds, the pool-wide steal takes the best victim by its score (released voices
// first, then the quietest and oldest; percussion and the newest notes protected), found at once
// by a tournament over the scores. Within a region's polyphony group (SFZ `polyphony`,
// `note_polyphony`), the oldest notes of the group end while as many sound as it allows.
extension VoicePool {
    /// The index of the highest steal score, the first of equals (as a scan of every voice chose).
    /// - Thread: audio.
    @_noAllocation @_noLocks
    func bestScoreIndex() -> Int {
        Int(UInt32.max - UInt32(truncatingIfNeeded: tournament[1]))
    }

    /// A tournament entry: the score's bits made to order as unsigned integers (negative floats
    /// flipped whole, positive ones above them), then the voice, inverted so that of equal scores
    /// the lower index is the larger entry.
    @_noAllocation @_noLocks
    static func entry(score: Float, voice: Int) -> UInt64 {
        let bits = score.bitPattern
        let ordered = bits & 0x8000_0000 != 0 ? ~bits : bits | 0x8000_0000
        return UInt64(ordered) << 32 | UInt64(UInt32.max - UInt32(voice))
    }

    /// Rebuilds the steal scores and chains that rendering can have made stale: those of voices
    /// below `keyedBound`, so a large pool holding a few notes costs little.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    mutating func validateKeys() {
        guard !keysValid else { return }
        ageReference = nextSerial
        for index in 0..<keyedBound { updateKey(index) }
        keyedBound = activeBound
        rebuildTournament()
        keysValid = true
    }

    /// Plays the matches on the path from leaf `index` to the root again after its entry changed.
    /// The path's winner so far is carried up and met by each sibling in turn, so no step waits on
    /// the one before it having been stored.
    @_noAllocation @_noLocks
    func replayTournament(from index: Int) {
        var node = leafCount + index
        var winner = tournament[node]
        while node > 1 {
            winner = max(winner, tournament[node ^ 1])
            node >>= 1
            tournament[node] = winner
        }
    }

    /// Plays every match of the tournament, leaves up.
    @_noAllocation @_noLocks
    func rebuildTournament() {
        for node in stride(from: leafCount - 1, through: 1, by: -1) { tournament[node] = max(tournament[2 * node], tournament[2 * node + 1]) }
    }

    /// Higher is a better victim. Age counts from `ageReference`, which shifts every voice's score
    /// alike and so picks the same victim as counting from the newest note (until the 100,000-note
    /// cap, which one block's note-ons move by at most 0.01 point each); the protection of the
    /// newest notes counts from `newestSerial`. The voice is read in place: a copy of the whole
    /// voice per score was a large share of a steal's cost.
    @_noAllocation @_noLocks
    func stealScore(_ voice: UnsafePointer<SamplerVoice>, ageReference: UInt64, newestSerial: UInt64) -> Float {
        var score: Float = 0
        if voice.pointee.isReleased { score += 1_000 }
        // Quieter is better: up to 200 points between full level and -80 dB.
        score += 200 * (1 - min(1, voice.pointee.currentLevel / 0.1))
        // Older is better, gently: a note 1,000 notes back earns 10 points. Notes started since the
        // reference have a negative age.
        let age = Int64(bitPattern: ageReference &- voice.pointee.noteSerial)
        score += Float(min(age, 100_000)) * 0.01
        if voice.pointee.isPercussion { score -= 500 }
        // The very newest notes (the last 8 started) are protected.
        if newestSerial - voice.pointee.noteSerial <= Self.protectedCount { score -= 300 }
        return score
    }

    /// Ends the oldest notes of `region`'s polyphony group on `channel` (its key's alone for
    /// `notePolyphony`) while as many sound as it allows, as sfizz steals within a group: a note is
    /// the voices one start made (`startSerial`), counted once; voices already fading out do not
    /// count; the start under way (serial `firstSerial` on) is spared.
    @_noAllocation @_noLocks
    mutating func makeRoom(for region: UnsafePointer<SamplerRegion>, channel: UInt8, key: UInt8, sparing firstSerial: UInt64,
                           sampleRate: Double) {
        let group = region.pointee.exclusiveClass
        let noteLimit = Int(region.pointee.notePolyphony), groupLimit = Int(region.pointee.polyphony)
        while true {
            var notes = 0, groupNotes = 0
            var oldestNote = UInt64.max, oldestGroup = UInt64.max
            for index in activeIndices {
                let voice = voices + index
                guard voice.pointee.isActive, voice.pointee.channel == channel, voice.pointee.fadeStep >= 0,
                      voice.pointee.startSerial < firstSerial, let other = voice.pointee.region,
                      group != 0 ? other.pointee.exclusiveClass == group : other == region else { continue }
                let counted = !other.pointee.isStereoCompanion
                if counted { groupNotes += 1 }
                oldestGroup = min(oldestGroup, voice.pointee.startSerial)
                if voice.pointee.key == key {
                    if counted { notes += 1 }
                    oldestNote = min(oldestNote, voice.pointee.startSerial)
                }
            }
            let ending: UInt64
            if noteLimit > 0 && notes >= noteLimit { ending = oldestNote }
            else if groupLimit > 0 && groupNotes >= groupLimit { ending = oldestGroup }
            else { return }
            for index in activeIndices where voices[index].isActive && voices[index].startSerial == ending {
                fadeOut(index, sampleRate: sampleRate)
            }
        }
    }
}
