/// A fixed pool of sampler voices, allocated once, plus spare slots where stolen voices fade out.
///
/// A note is never dropped: when every voice sounds, the pool steals the best victim — released
/// voices first, then the quietest and oldest — while percussion and the newest notes are
/// protected. A victim that is still audible is copied into a fade slot and faded over 5 ms, so
/// the steal does not click; a silent one is simply reused.
struct VoicePool {
    let voices: UnsafeMutablePointer<SamplerVoice>
    let capacity: Int
    let fading: UnsafeMutablePointer<SamplerVoice>
    let fadeCapacity: Int
    var nextSerial: UInt64 = 1

    /// Each voice's steal score and sounding note, side by side in a few KB: a burst of note-ons
    /// scans these rather than the voices themselves (a cache line or more each, and an exponential
    /// for the level), which made a 1,024-note burst take 17 ms. Valid while `keysValid`; every change
    /// to a voice's activity, release, level or serial outside `render` refreshes its entry, and
    /// rendering (levels move, voices end) clears `keysValid`, so the next note-on rebuilds them once.
    let stealScores: UnsafeMutablePointer<Float>
    /// `soundingTag(channel:key:)` for an active, unreleased voice; 0 otherwise.
    let noteTags: UnsafeMutablePointer<UInt16>
    var keysValid = false
    /// The serial ages are measured from in `stealScores`: fixed between rebuilds, so a note-on does
    /// not have to re-age every entry (ageing shifts all scores alike).
    var ageReference: UInt64 = 1
    /// The voice given each of the last `recentCount` serials (by serial modulo), so the one leaving
    /// the newest-notes protection has its score raised without a scan.
    let recentVoices: UnsafeMutablePointer<Int>
    /// Where the search for a free fade slot starts: slots are taken in turn, so the next is usually free.
    var fadeSearchStart = 0
    /// No voice at or past this index is active. Free voices are taken lowest first, so sounding
    /// voices gather at the front of a large pool, and rendering scans only up to here: a 4,096-voice
    /// pool holding ten notes cost more to scan than to render. Raised as voices are taken; lowered
    /// by `Sampler.render`, which sees every active voice.
    var activeBound = 0

    // Counters, read by the renderer for its published statistics.
    var stolenCount = 0
    /// Steals that found every fade slot busy and had to cut an audible fading voice.
    var hardCutCount = 0

    /// Below this level (-80 dB) a voice is inaudible and may be reused without a fade.
    static var silentLevel: Float {
        @_noAllocation @_noLocks get { 1e-4 }
    }
    /// The newest notes protected from stealing.
    static var protectedCount: UInt64 {
        @_noAllocation @_noLocks get { 8 }
    }
    static var recentCount: Int {
        @_noAllocation @_noLocks get { 16 }
    }

    init(capacity: Int, fadeCapacity: Int) {
        self.capacity = max(1, capacity)
        self.fadeCapacity = max(1, fadeCapacity)
        voices = .allocate(capacity: self.capacity)
        voices.initialize(repeating: SamplerVoice(), count: self.capacity)
        fading = .allocate(capacity: self.fadeCapacity)
        fading.initialize(repeating: SamplerVoice(), count: self.fadeCapacity)
        stealScores = .allocate(capacity: self.capacity)
        stealScores.initialize(repeating: .infinity, count: self.capacity)
        noteTags = .allocate(capacity: self.capacity)
        noteTags.initialize(repeating: 0, count: self.capacity)
        recentVoices = .allocate(capacity: Self.recentCount)
        recentVoices.initialize(repeating: 0, count: Self.recentCount)
    }

    func deallocate() {
        voices.deinitialize(count: capacity)
        voices.deallocate()
        fading.deinitialize(count: fadeCapacity)
        fading.deallocate()
        stealScores.deallocate()
        noteTags.deallocate()
        recentVoices.deallocate()
    }

    /// A voice for a new note, and the bank slots of voices that stopped sounding to make room
    /// (their banks have one user fewer; -1 when none).
    struct Acquired {
        var voice: UnsafeMutablePointer<SamplerVoice>
        var endedBankSlots: (Int, Int) = (-1, -1)
    }

    /// A voice for a new note: a free one (the first), or a stolen one. Never nil. The caller starts
    /// it and then calls `refreshKey`.
    @_noAllocation @_noLocks
    mutating func acquire(sampleRate: Double) -> Acquired {
        validateKeys()
        // The note that just left the newest-notes protection becomes a candidate again.
        if nextSerial > Self.protectedCount + 1 {
            let leaving = nextSerial - Self.protectedCount - 1
            let index = recentVoices[Int(leaving % UInt64(Self.recentCount))]
            if voices[index].noteSerial == leaving { refreshKey(index) }
        }
        // Free voices score +infinity, so the first free one wins, as the best victim would.
        let victim = bestScoreIndex()
        let voice = voices + victim
        activeBound = max(activeBound, victim + 1)
        recentVoices[Int(nextSerial % UInt64(Self.recentCount))] = victim
        guard voice.pointee.isActive else {
            voice.pointee.noteSerial = nextSerial
            nextSerial += 1
            return Acquired(voice: voice)
        }
        stolenCount += 1
        var acquired = Acquired(voice: voice)
        // A victim started earlier in this block has not rendered yet: its envelope is at 0 and
        // it is reused without a fade, since it never sounded.
        if voice.pointee.currentLevel > Self.silentLevel {
            // The victim lives on in a fade slot (keeping its bank); a slot's cut voice ends.
            let slot = fadeSlot()
            if slot.pointee.isActive { acquired.endedBankSlots.1 = slot.pointee.bankSlot }
            slot.pointee = voice.pointee
            slot.pointee.fadeOut(sampleRate: sampleRate)
        } else {
            acquired.endedBankSlots.0 = voice.pointee.bankSlot
        }
        voice.pointee.isActive = false
        voice.pointee.noteSerial = nextSerial
        nextSerial += 1
        return acquired
    }

    /// The index of the highest steal score, the first of equals (as the per-voice scan chose).
    /// - Thread: audio.
    @_noAllocation @_noLocks
    func bestScoreIndex() -> Int {
        var best = 0
        var bestScore = -Float.infinity
        for index in 0..<capacity where stealScores[index] > bestScore {
            bestScore = stealScores[index]
            best = index
        }
        return best
    }

    /// Rebuilds every voice's steal score and note tag when rendering has made them stale.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    mutating func validateKeys() {
        guard !keysValid else { return }
        ageReference = nextSerial
        for index in 0..<capacity { refreshKey(index) }
        keysValid = true
    }

    /// Recomputes voice `index`'s steal score and note tag after something changed it.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    mutating func refreshKey(_ index: Int) {
        let voice = voices + index
        guard voice.pointee.isActive else {
            stealScores[index] = .infinity
            noteTags[index] = 0
            return
        }
        stealScores[index] = stealScore(voice, ageReference: ageReference, newestSerial: nextSerial)
        noteTags[index] = voice.pointee.isReleased ? 0 : Self.soundingTag(channel: voice.pointee.channel, key: voice.pointee.key)
    }

    /// Nonzero for every channel and key.
    @_noAllocation @_noLocks
    static func soundingTag(channel: UInt8, key: UInt8) -> UInt16 {
        0x8000 | UInt16(channel) << 8 | UInt16(key)
    }

    /// The first active, unreleased voice at or after `start` playing `key` on `channel`;
    /// `capacity` when none.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    mutating func soundingVoice(channel: UInt8, key: UInt8, from start: Int) -> Int {
        validateKeys()
        let tag = Self.soundingTag(channel: channel, key: key)
        for index in start ..< capacity where noteTags[index] == tag { return index }
        return capacity
    }

    /// Releases voice `index` (key up) and keeps its steal score current.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    mutating func release(_ index: Int) {
        voices[index].release()
        refreshKey(index)
    }

    /// Fades voice `index` out over 5 ms and keeps its steal score current.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    mutating func fadeOut(_ index: Int, sampleRate: Double) {
        voices[index].fadeOut(sampleRate: sampleRate)
        refreshKey(index)
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

    /// A free fade slot, or (all busy) the quietest one, whose voice is cut.
    @_noAllocation @_noLocks
    mutating func fadeSlot() -> UnsafeMutablePointer<SamplerVoice> {
        for step in 0..<fadeCapacity {
            let index = (fadeSearchStart + step) % fadeCapacity
            guard !fading[index].isActive else { continue }
            fadeSearchStart = (index + 1) % fadeCapacity
            return fading + index
        }
        var quietest = 0
        var quietestLevel = Float.infinity
        for index in 0..<fadeCapacity {
            let level = fading[index].currentLevel
            if level < quietestLevel {
                quietestLevel = level
                quietest = index
            }
        }
        if quietestLevel > Self.silentLevel { hardCutCount += 1 }
        return fading + quietest
    }
}
