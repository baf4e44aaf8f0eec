import DSP
import FeedbackSuppression
import Lockfree
import Synchronization

// The segment pipeline: the voices rendered a segment ahead (by the voice workers when there are
// some) while the previous segment is mixed, and the mix sets they fill.
extension Renderer {
    /// Mixes the oldest waiting segment when every other set of mixes is taken, so that the next
    /// segment has one to render into.
    @_noAllocation @_noLocks
    func freeMixSet() {
        if unmixedCount == VoiceWorkItems.mixSetCount - 1 { mixOldestSegment() }
    }

    /// Begins the voices' next segment at `voicesUntil`: applies the commands due there, and hands
    /// the segment to the workers, or renders it on this thread when it is too small to share. It
    /// runs to the next command or held release, within the quantum or for whole quanta, but not
    /// past `limit` (a quantum boundary). `endSegment` ends it.
    /// - Returns: whether the workers share it.
    @_noAllocation @_noLocks
    func beginSegment(reaching limit: FrameTime) -> Bool {
        let quantum = FrameTime(RenderQuantum.frameCount)
        let quantumBegin = voicesUntil / quantum * quantum
        let offset = Int(voicesUntil - quantumBegin)
        let frameCount = RenderQuantum.frameCount
        sampler.now = voicesUntil
        sampler.releaseHeldNotes()
        var segmentEnd = applyCommands(dueBefore: frameCount, offset: offset, quantumStart: quantumBegin)
        // A held note's release splits the quantum as a command does.
        if sampler.nextHeldRelease - quantumBegin < FrameTime(segmentEnd) { segmentEnd = Int(sampler.nextHeldRelease - quantumBegin) }
        let count = segmentEnd - offset
        let quanta = offset == 0 && segmentEnd == frameCount ? stretchQuantumCount(from: quantumBegin, reaching: limit) : 1
        // The drum player's voices are rendered with the sampler's, as work items of theirs.
        drums.setChannelGain(sampler.percussionChannelGain())
        drums.prepareSegment(&sampler.work.pointee.drums)
        begunSegmentFrameCount = count * quanta
        begunSegmentIsShared = sampler.beginVoices(frameCount: count, quantumCount: quanta)
        return begunSegmentIsShared
    }

    /// Ends the segment `beginSegment` began: waits for the workers' items when they shared it,
    /// and queues it for mixing.
    @_noAllocation @_noLocks
    func endSegment() {
        segmentInFlight = false
        let mixes = sampler.finishVoices(shared: begunSegmentIsShared)
        drums.finishSegment(sampler.work.pointee.drums, frameCount: begunSegmentFrameCount)
        unmixed[(unmixedFirst + unmixedCount) % VoiceWorkItems.mixSetCount] =
            UnmixedSegment(start: voicesUntil, mixes: mixes)
        unmixedCount += 1
        voicesUntil += FrameTime(begunSegmentFrameCount)
    }

    /// Mixes every segment whose voices are rendered, oldest first.
    @_noAllocation @_noLocks
    func mixUnmixedSegments() {
        while unmixedCount > 0 { mixOldestSegment() }
    }

    /// Mixes the oldest rendered segment into the instruments' ring: the tones, its item mixes and
    /// their sends through the song's volume; each quantum it completes then gets its reverb and
    /// chorus.
    @_noAllocation @_noLocks
    func mixOldestSegment() {
        let segment = unmixed[unmixedFirst]
        unmixedFirst = (unmixedFirst + 1) % VoiceWorkItems.mixSetCount
        unmixedCount -= 1
        let quantum = FrameTime(RenderQuantum.frameCount)
        for index in 0..<segment.mixes.quantumCount {
            let start = segment.start + FrameTime(index * RenderQuantum.frameCount)
            let quantumBegin = start / quantum * quantum
            let offset = Int(start - quantumBegin)
            let quantumLeft = instrumentLeft + Int(quantumBegin % FrameTime(instrumentFrameCount))
            let quantumRight = instrumentRight + Int(quantumBegin % FrameTime(instrumentFrameCount))
            if offset == 0 {
                quantumLeft.update(repeating: 0, count: RenderQuantum.frameCount)
                quantumRight.update(repeating: 0, count: RenderQuantum.frameCount)
                sends.clearInputs(frameCount: RenderQuantum.frameCount)
                quantumSounded = false
            }
            let frames = segment.mixes.frameCount
            let left = quantumLeft + offset, right = quantumRight + offset
            tones.render(left: left, right: right, frameCount: frames)
            // Written out: `||` takes its right side as a closure, which would retain `self`.
            var songIsScaled = songVolume.isMoving
            if !songIsScaled { songIsScaled = songVolume.current != 1 }
            let reverb = sends.reverbInput + offset, chorus = sends.chorusInput + offset
            var mark = stageClock.now()
            if songIsScaled {
                songLeft.update(repeating: 0, count: frames)
                songRight.update(repeating: 0, count: frames)
                sampler.addMixes(segment.mixes, quantum: index, left: songLeft, right: songRight, reverb: reverb, chorus: chorus)
                for frame in 0..<frames {
                    let gain = songVolume.next()
                    left[frame] += songLeft[frame] * gain
                    right[frame] += songRight[frame] * gain
                    reverb[frame] *= gain
                    chorus[frame] *= gain
                }
            } else {
                sampler.addMixes(segment.mixes, quantum: index, left: left, right: right, reverb: reverb, chorus: chorus)
            }
            mark = stageClock.charge(.sum, since: mark)
            if index < segment.mixes.soundingQuantumCount { quantumSounded = true }
            if offset + frames == RenderQuantum.frameCount {
                sends.process(addingTo: quantumLeft, right: quantumRight, frameCount: RenderQuantum.frameCount, frameTime: quantumBegin)
                _ = stageClock.charge(.sends, since: mark)
                mixedUntil = quantumBegin + quantum
                if quantumSounded { soundingUntil = mixedUntil }
            }
        }
    }

    /// How many quanta, from `quantumStart` on, the sampler's voices may be rendered for at once: up
    /// to the first command still pending, the first held release, `VoiceWorkItems.maximumQuantumCount`,
    /// and `limit`, a quantum boundary: the end of the quantum holding the block's end, or the end
    /// of the commands declared queued (commands for later frames may not have been sent yet).
    /// Nothing but the voices changes in between, so rendering them as one segment is the same
    /// bits as quantum by quantum (`VoiceWorkItems`), and it is handed out to the workers once
    /// instead of each quantum. Live, with a quantum per period, it is one.
    @_noAllocation @_noLocks
    func stretchQuantumCount(from quantumStart: FrameTime, reaching limit: FrameTime) -> Int {
        let quantum = FrameTime(RenderQuantum.frameCount)
        // Full, the pending store may not hold every command already sent.
        guard !pending.isFull else { return 1 }
        var end = quantumStart + quantum * FrameTime(VoiceWorkItems.maximumQuantumCount)
        if limit < end { end = limit }
        if let command = pending.first, command.frameTime / quantum * quantum < end { end = command.frameTime / quantum * quantum }
        if sampler.nextHeldRelease / quantum * quantum < end { end = sampler.nextHeldRelease / quantum * quantum }
        return end > quantumStart ? max(1, Int((end - quantumStart) / quantum)) : 1
    }
}
