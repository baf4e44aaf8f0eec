import Synchronization
import Lockfree

/// A fixed pool of sampler voices, allocated once, plus spare slots where stolen voices fade out.
/// Which voice a note takes when none is free is `VoiceStealer.swift`'s: the one home of voice stealing.
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
    /// One flex state for each voice, then each fade slot (`SamplerVoice.flex` points at its own).
    let flexStates: UnsafeMutablePointer<FlexVoiceState>
    /// One set of filter stages for each voice, then each fade slot (`SamplerVoice.filterStages`).
    let filterStages: UnsafeMutablePointer<VoiceFilterStages>
    var nextSerial: UInt64 = 1

    /// Each voice's steal score, and a tournament over them that names the best victim at once:
    /// scanning every score per note-on cost a few hundred ns, most of a burst's time, and reading
    /// the voices themselves (a cache line or more each, and an exponential for the level) made a
    /// 1,024-note burst take 17 ms. Node n (1 the root, 2n and 2n + 1 its children) holds the best of
    /// its leaves; voice i's own entry is leaf `leafCount + i`, and the leaves past `capacity` hold
    /// the lowest entry. Entries are `entry(score:voice:)`, so the best is simply the largest and a
    /// match costs no branch to mispredict. Valid while `keysValid`; every change to a voice's
    /// activity, release, level or serial outside `render` refreshes its leaf, and rendering
    /// (levels move, voices end) clears `keysValid`, so the next note-on rebuilds the tree once.
    let tournament: UnsafeMutablePointer<UInt64>
    /// The tree's leaves: `capacity` rounded up to a power of two.
    let leafCount: Int
    var keysValid = false
    /// The serial ages are measured from in the steal scores: fixed between rebuilds, so a note-on does
    /// not have to re-age every entry (ageing shifts all scores alike).
    var ageReference: UInt64 = 1
    /// The voice given each of the last `recentCount` serials (by serial modulo), so the one leaving
    /// the newest-notes protection has its score raised without a scan.
    let recentVoices: UnsafeMutablePointer<Int>

    /// The active, unreleased voices of each (channel, key), as doubly linked chains, so a note-on's
    /// retrigger and a note-off find their voices without scanning the pool. Kept with the steal
    /// scores: `refreshKey` moves a voice between chains, and the same rebuild puts right what
    /// rendering changed. Links are voice indices; -1 ends a chain.
    let chainHeads: UnsafeMutablePointer<Int32>
    let nextInChain: UnsafeMutablePointer<Int32>
    let previousInChain: UnsafeMutablePointer<Int32>
    /// The chain each voice is linked into (`chainIndex`), or -1.
    let chainOfVoice: UnsafeMutablePointer<Int32>
    static var chainCount: Int {
        @_noAllocation @_noLocks get { MIDILimits.channelCount * MIDILimits.keyCount }
    }

    /// Where the search for a free fade slot starts: slots are taken in turn, so the next is usually free.
    var fadeSearchStart = 0
    /// Fade slots that may hold a sounding voice: raised as a slot is taken, set by
    /// `Sampler.render` to those it found sounding. At 0 rendering skips the slots: with no steal
    /// fading out, reading every slot each segment was a tenth of the rendering thread's time.
    var fadingCount = 0
    /// No voice at or past this index is active. Free voices are taken lowest first, so sounding
    /// voices gather at the front of a large pool, and rendering scans only up to here: a 4,096-voice
    /// pool holding ten notes cost more to scan than to render. Raised as voices are taken; lowered
    /// by `Sampler.render`, which sees every active voice.
    var activeBound = 0
    /// The indices of every voice that may be active: the one bound every scan of the pool's
    /// voices (not its fading slots) goes by.
    var activeIndices: Range<Int> { @_noAllocation @_noLocks get { 0..<activeBound } }
    /// No voice at or past this index has a steal score or a chain link that rendering can have
    /// made stale: it rises with `activeBound` as voices are taken, and comes down to it only when
    /// the scores are rebuilt, so a voice that ended after the bound fell below it is still reached.
    var keyedBound = 0

    // Counters, read by the renderer for its published statistics.
    var stolenCount = 0
    /// The voices a note may start on: the first `voiceLimit` (1 ... `capacity`; all of them unless
    /// a player lowers it, a plug-in's polyphony control). The rest score below every victim, so
    /// the tournament never picks them: notes already sounding there ring out, and none starts.
    private(set) var voiceLimit: Int
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
        voiceLimit = self.capacity
        self.fadeCapacity = max(1, fadeCapacity)
        voices = Self.allocateVoices(self.capacity)
        fading = Self.allocateVoices(self.fadeCapacity)
        flexStates = Self.allocateOnLines(FlexVoiceState.self, count: self.capacity + self.fadeCapacity)
        flexStates.initialize(repeating: FlexVoiceState(), count: self.capacity + self.fadeCapacity)
        for index in 0..<self.capacity { voices[index].flex = flexStates + index }
        for index in 0..<self.fadeCapacity { fading[index].flex = flexStates + self.capacity + index }
        filterStages = .allocate(capacity: self.capacity + self.fadeCapacity)
        filterStages.initialize(repeating: VoiceFilterStages(), count: self.capacity + self.fadeCapacity)
        for index in 0..<self.capacity { voices[index].filterStages = filterStages + index }
        for index in 0..<self.fadeCapacity { fading[index].filterStages = filterStages + self.capacity + index }
        var leaves = 2
        while leaves < self.capacity { leaves *= 2 }
        leafCount = leaves
        tournament = .allocate(capacity: 2 * leaves)
        tournament.initialize(repeating: 0, count: 2 * leaves)
        for voice in 0..<self.capacity { tournament[leaves + voice] = Self.entry(score: .infinity, voice: voice) }
        recentVoices = .allocate(capacity: Self.recentCount)
        recentVoices.initialize(repeating: 0, count: Self.recentCount)
        chainHeads = .allocate(capacity: Self.chainCount)
        chainHeads.initialize(repeating: -1, count: Self.chainCount)
        nextInChain = .allocate(capacity: self.capacity)
        nextInChain.initialize(repeating: -1, count: self.capacity)
        previousInChain = .allocate(capacity: self.capacity)
        previousInChain.initialize(repeating: -1, count: self.capacity)
        chainOfVoice = .allocate(capacity: self.capacity)
        chainOfVoice.initialize(repeating: -1, count: self.capacity)
        rebuildTournament()
    }

    /// `count` idle voices, the first on a cache line: voices rendered by a worker and scanned by
    /// the audio thread must not share a line with each other's parts (`SamplerVoice`'s layout).
    static func allocateVoices(_ count: Int) -> UnsafeMutablePointer<SamplerVoice> {
        let voices = allocateOnLines(SamplerVoice.self, count: count)
        voices.initialize(repeating: SamplerVoice(), count: count)
        return voices
    }

    /// Room for `count` values of `type`, not initialised, the first on a cache line (each on one,
    /// where the type's stride is whole lines); freed through its raw pointer.
    static func allocateOnLines<Element>(_ type: Element.Type, count: Int) -> UnsafeMutablePointer<Element> {
        UnsafeMutableRawPointer.allocate(byteCount: count * MemoryLayout<Element>.stride,
                                         alignment: max(CacheLine.byteCount, MemoryLayout<Element>.alignment))
            .bindMemory(to: Element.self, capacity: count)
    }

    func deallocate() {
        voices.deinitialize(count: capacity)
        UnsafeMutableRawPointer(voices).deallocate()
        fading.deinitialize(count: fadeCapacity)
        UnsafeMutableRawPointer(fading).deallocate()
        flexStates.deinitialize(count: capacity + fadeCapacity)
        UnsafeMutableRawPointer(flexStates).deallocate()
        filterStages.deinitialize(count: capacity + fadeCapacity)
        filterStages.deallocate()
        tournament.deallocate()
        recentVoices.deallocate()
        chainHeads.deallocate()
        nextInChain.deallocate()
        previousInChain.deallocate()
        chainOfVoice.deallocate()
    }

    /// A voice for a new note, and the bank slots of voices that stopped sounding to make room
    /// (their banks have one user fewer; -1 when none).
    struct Acquired {
        var voice: UnsafeMutablePointer<SamplerVoice>
        var endedBankSlots: (Int, Int) = (-1, -1)
        /// The sample cells of the same voices (`SamplerVoice.sampleFrontier`): their samples have
        /// one user fewer.
        var endedSampleCells: (UnsafePointer<Atomic<Int>>?, UnsafePointer<Atomic<Int>>?) = (nil, nil)
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
        keyedBound = max(keyedBound, activeBound)
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
            if slot.pointee.isActive {
                acquired.endedBankSlots.1 = slot.pointee.bankSlot
                acquired.endedSampleCells.1 = slot.pointee.sampleFrontier
            } else {
                fadingCount += 1
            }
            slot.pointee.copyForFade(of: voice)
            slot.pointee.fadeOut(sampleRate: sampleRate)
        } else {
            acquired.endedBankSlots.0 = voice.pointee.bankSlot
            acquired.endedSampleCells.0 = voice.pointee.sampleFrontier
        }
        voice.pointee.isActive = false
        voice.pointee.noteSerial = nextSerial
        nextSerial += 1
        return acquired
    }

    /// Lets notes start on the first `count` voices only (clamped to 1 ... `capacity`): past the
    /// limit, a new note steals as a full pool does. Rescores every voice when the limit changes.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    mutating func setVoiceLimit(_ count: Int) {
        let limit = min(max(1, count), capacity)
        guard limit != voiceLimit else { return }
        voiceLimit = limit
        for index in 0..<capacity { updateKey(index) }
        rebuildTournament()
    }

    /// Recomputes voice `index`'s steal score and chain after something changed it.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    mutating func refreshKey(_ index: Int) {
        updateKey(index)
        replayTournament(from: index)
    }

    /// Sets voice `index`'s steal score and moves it to the chain of its sounding note (or out of
    /// every chain), leaving the tournament to the caller.
    @_noAllocation @_noLocks
    mutating func updateKey(_ index: Int) {
        let voice = voices + index
        var chain = -1
        let allowed = index < voiceLimit
        if voice.pointee.isActive {
            let score = allowed ? stealScore(voice, ageReference: ageReference, newestSerial: nextSerial) : -Float.infinity
            tournament[leafCount + index] = Self.entry(score: score, voice: index)
            if !voice.pointee.isReleased { chain = Self.chainIndex(channel: voice.pointee.channel, key: voice.pointee.key) }
        } else {
            tournament[leafCount + index] = Self.entry(score: allowed ? .infinity : -Float.infinity, voice: index)
        }
        guard chain != Int(chainOfVoice[index]) else { return }
        unlink(index)
        guard chain >= 0 else { return }
        let head = chainHeads[chain]
        nextInChain[index] = head
        previousInChain[index] = -1
        if head >= 0 { previousInChain[Int(head)] = Int32(index) }
        chainHeads[chain] = Int32(index)
        chainOfVoice[index] = Int32(chain)
    }

    /// Takes voice `index` out of the chain it is in, if any.
    @_noAllocation @_noLocks
    mutating func unlink(_ index: Int) {
        let chain = Int(chainOfVoice[index])
        guard chain >= 0 else { return }
        let next = nextInChain[index]
        let previous = previousInChain[index]
        if previous >= 0 { nextInChain[Int(previous)] = next } else { chainHeads[chain] = next }
        if next >= 0 { previousInChain[Int(next)] = previous }
        chainOfVoice[index] = -1
    }

    /// The chain of `key` on `channel`; -1 for a channel or key no voice can play.
    @_noAllocation @_noLocks
    static func chainIndex(channel: UInt8, key: UInt8) -> Int {
        Int(channel) < MIDILimits.channelCount && Int(key) < MIDILimits.keyCount ? Int(channel) * MIDILimits.keyCount + Int(key) : -1
    }

    /// An active, unreleased voice playing `key` on `channel`; `capacity` when none. The others follow
    /// through `nextSoundingVoice(after:)`: ask for the next before releasing a voice, which takes it
    /// out of the chain.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    mutating func firstSoundingVoice(channel: UInt8, key: UInt8) -> Int {
        validateKeys()
        let chain = Self.chainIndex(channel: channel, key: key)
        guard chain >= 0 else { return capacity }
        let head = chainHeads[chain]
        return head >= 0 ? Int(head) : capacity
    }

    /// The voice after `index` in its note's chain; `capacity` at the end.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    func nextSoundingVoice(after index: Int) -> Int {
        let next = nextInChain[index]
        return next >= 0 ? Int(next) : capacity
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
    mutating func fadeOut(_ index: Int, sampleRate: Double, seconds: Double = ClickFreeFade.seconds) {
        voices[index].fadeOut(sampleRate: sampleRate, seconds: seconds)
        refreshKey(index)
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
