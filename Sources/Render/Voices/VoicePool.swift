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

    // Counters, read by the renderer for its published statistics.
    var stolenCount = 0
    /// Steals that found every fade slot busy and had to cut an audible fading voice.
    var hardCutCount = 0

    /// Below this level (-80 dB) a voice is inaudible and may be reused without a fade.
    static var silentLevel: Float {
        @_noAllocation @_noLocks get { 1e-4 }
    }

    init(capacity: Int, fadeCapacity: Int) {
        self.capacity = max(1, capacity)
        self.fadeCapacity = max(1, fadeCapacity)
        voices = .allocate(capacity: self.capacity)
        voices.initialize(repeating: SamplerVoice(), count: self.capacity)
        fading = .allocate(capacity: self.fadeCapacity)
        fading.initialize(repeating: SamplerVoice(), count: self.fadeCapacity)
    }

    func deallocate() {
        voices.deinitialize(count: capacity)
        voices.deallocate()
        fading.deinitialize(count: fadeCapacity)
        fading.deallocate()
    }

    /// A voice for a new note, and the bank slots of voices that stopped sounding to make room
    /// (their banks have one user fewer; -1 when none).
    struct Acquired {
        var voice: UnsafeMutablePointer<SamplerVoice>
        var endedBankSlots: (Int, Int) = (-1, -1)
    }

    /// A voice for a new note: a free one, or a stolen one. Never nil.
    @_noAllocation @_noLocks
    mutating func acquire(sampleRate: Double) -> Acquired {
        // A free voice first: a flag test per voice, so a large pool costs little per note-on.
        for index in 0..<capacity where !voices[index].isActive {
            voices[index].noteSerial = nextSerial
            nextSerial += 1
            return Acquired(voice: voices + index)
        }
        var victim = 0
        var victimScore = -Float.infinity
        let newest = nextSerial
        for index in 0..<capacity {
            let voice = voices + index
            let score = stealScore(voice.pointee, newestSerial: newest)
            if score > victimScore {
                victimScore = score
                victim = index
            }
        }
        let voice = voices + victim
        stolenCount += 1
        var acquired = Acquired(voice: voice)
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

    /// Higher is a better victim.
    @_noAllocation @_noLocks
    func stealScore(_ voice: SamplerVoice, newestSerial: UInt64) -> Float {
        var score: Float = 0
        if voice.isReleased { score += 1_000 }
        // Quieter is better: up to 200 points between full level and -80 dB.
        score += 200 * (1 - min(1, voice.currentLevel / 0.1))
        // Older is better, gently: a note 1,000 notes back earns 10 points.
        score += Float(min(newestSerial - voice.noteSerial, 100_000)) * 0.01
        if voice.isPercussion { score -= 500 }
        // The very newest notes (the last 8 started) are protected.
        if newestSerial - voice.noteSerial <= 8 { score -= 300 }
        return score
    }

    /// A free fade slot, or (all busy) the quietest one, whose voice is cut.
    @_noAllocation @_noLocks
    mutating func fadeSlot() -> UnsafeMutablePointer<SamplerVoice> {
        var quietest = 0
        var quietestLevel = Float.infinity
        for index in 0..<fadeCapacity {
            let slot = fading + index
            if !slot.pointee.isActive { return slot }
            let level = slot.pointee.currentLevel
            if level < quietestLevel {
                quietestLevel = level
                quietest = index
            }
        }
        if quietestLevel > Self.silentLevel { hardCutCount += 1 }
        return fading + quietest
    }
}
