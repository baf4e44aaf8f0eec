import DSP
import Synchronization

// Rendering a segment: the sounding voices listed, rendered in lanes (here or by the voice workers)
// and mixed.
extension Sampler {
    /// Begins rendering every listed voice for a segment, and the drum player's as `work.drums`
    /// describes them: `quantumCount` whole quanta when above 1, else `frameCount` frames of one.
    /// The voices are split into work items (`VoiceWorkItems`) that the workers, when there are
    /// any, render beside this thread; each quantum's item mixes are summed in a tree whose shape
    /// follows from the item count alone, so the sum is the same for any number of threads. A
    /// segment worth sharing is only handed out here, and the caller may do other work (mix the
    /// segment before) until `finishVoices`; a small one is rendered at once. The items render
    /// into the set of mixes the last segment did not use.
    ///
    /// The list of voices is rebuilt only when `listIsStale`: after a note takes a voice (started,
    /// or stolen with a fade). Until the next note a voice that ends stays listed and adds nothing.
    /// So the list, and with it the split and the order of summation, depends only on the song,
    /// never on how quanta are grouped into segments: a stretch of quanta rendered as one segment
    /// is the same bits as its quanta rendered one by one.
    /// - Returns: whether the workers were handed the segment (then `finishVoices` renders what
    ///   they have not claimed and waits for them).
    @_noAllocation @_noLocks
    mutating func beginVoices(frameCount: Int, quantumCount: Int) -> Bool {
        // Levels move and voices end: the pool's steal scores are rebuilt at the next note-on.
        pool.keysValid = false
        if listIsStale { listVoices() }
        let sounding = listedSoundingCount
        renderedVoiceCount = sounding
        work.pointee.mixSet = (work.pointee.mixSet + 1) % VoiceWorkItems.mixSetCount
        work.pointee.voiceCount = listedCount
        work.pointee.frameCount = frameCount
        work.pointee.quantumCount = quantumCount
        let drumPlayheads = work.pointee.drums.soundingPlayheadCount()
        guard sounding > 0 || drumPlayheads > 0 else {
            for item in 0..<work.pointee.drums.itemCount { work.pointee.drums.activeCount(ofItem: item).pointee = 0 }
            segmentIsSilent = true
            return false
        }
        segmentIsSilent = false
        let itemCount = work.pointee.itemCount
        // A short segment (commands split a quantum) is not worth handing out: its items take less
        // than the handing out. A drum playhead, a scalar copy with a gain, costs about what a voice
        // in a lane of eight does, but its items are more often cut short by hits: counted at half
        // a voice, a roll of 4 hits a period on 150 voices stays on one thread, where sharing it lost
        // (`staccato-bench drums --threads 1,2`).
        let voiceFrames = (sounding + drumPlayheads / 2) * frameCount * quantumCount
        if itemCount > 1, workers != nil, voiceFrames >= VoiceWorkers.smallestSharedWork {
            workers!.publish()
            return true
        }
        for item in 0..<itemCount { work.pointee.render(item: item, with: &workspace) }
        return false
    }

    /// Ends the segment `beginVoices` began: renders the items the workers have not claimed, waits
    /// for those they hold (when it was `shared`), and counts the voices that ended in it.
    /// - Returns: where its mixes are, for `addMixes`.
    @_noAllocation @_noLocks
    mutating func finishVoices(shared: Bool) -> VoiceSegmentMixes {
        guard !segmentIsSilent else {
            return work.pointee.silentMixes
        }
        if shared { workers!.finish(with: &workspace) }
        let mixes = work.pointee.renderedMixes
        // The voices that ended in the segment: their banks have one user fewer. Only the items
        // that counted an ended voice are looked through.
        let voices = work.pointee.voices
        for item in 0..<work.pointee.samplerItemCount where work.pointee.report(ofItem: item).pointee.endedVoiceCount > 0 {
            for index in work.pointee.voiceRange(ofItem: item) where listedSounding[index] && !voices[index].pointee.isActive {
                listedSounding[index] = false
                listedSoundingCount -= 1
                let voice = voices[index]
                voiceEnded(bankSlot: voice.pointee.bankSlot)
                sampleVoiceEnded(voice.pointee.sampleFrontier)
                if voice < pool.voices + pool.capacity && voice >= pool.voices { activeVoiceCount -= 1 }
            }
        }
        return mixes
    }

    /// Adds quantum `quantum` of a rendered segment's voices (`finishVoices`) into `left`/`right`,
    /// and their sends into the mono `reverb` and `chorus` buses.
    @_noAllocation @_noLocks
    func addMixes(_ mixes: VoiceSegmentMixes, quantum: Int, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>,
                  reverb: UnsafeMutablePointer<Float>, chorus: UnsafeMutablePointer<Float>) {
        work.pointee.addMixes(mixes, quantum: quantum, left: left, right: right, reverb: reverb, chorus: chorus)
    }

    /// Lists the sounding voices, the pool's in pool order and then the fading ones.
    @_noAllocation @_noLocks
    mutating func listVoices() {
        listIsStale = false
        var listed = 0
        var activeBound = 0
        let voices = work.pointee.voices
        // An entry is written only when it changes: a worker reads the list, and a line rewritten
        // with the same values would still be taken from its cache.
        for index in pool.activeIndices where pool.voices[index].isActive {
            activeBound = index + 1
            if voices[listed] != pool.voices + index { voices[listed] = pool.voices + index }
            listedSounding[listed] = true
            listed += 1
        }
        activeVoiceCount = listed
        // Taken where voices are added, at a note's frame: after a segment the count would miss a
        // voice that ended within it, and how long a segment runs depends on the block size.
        peakVoiceCount = max(peakVoiceCount, activeVoiceCount)
        if pool.fadingCount > 0 {
            for index in 0..<pool.fadeCapacity where pool.fading[index].isActive {
                if voices[listed] != pool.fading + index { voices[listed] = pool.fading + index }
                listedSounding[listed] = true
                listed += 1
            }
            pool.fadingCount = listed - activeVoiceCount
        }
        pool.activeBound = activeBound
        listedCount = listed
        listedSoundingCount = listed
    }
}
