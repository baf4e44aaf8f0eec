import DSP

// Ducking the whole output (by `duckDecibels` for `duckHoldSeconds`) is the last resort, counted
// in `duckCount`: when a notch already at full depth must deepen, when a new frequency finds all
// notches at full depth, when the output has stayed at the ceiling for `chasedHopsToDuck` hops
// (a broadband loop the notches only chase), or when the input is stuck at the ceiling for
// `stuckHopsToDuck` hops with a pinned level or a frozen spectrum while no notch is at work (a
// broadband loop: the buzz or motorboating a flat loop builds, which no notch can fix).
extension FeedbackSuppressor {
    /// The broadband loop no notch can fix: peaks at the ceiling hop after hop, with a pinned
    /// level or an unchanging spectrum, while no notch is at work on it.
    @inlinable @_noAllocation @_noLocks
    mutating func checkStuck(peakAtCeiling: Bool, meanSquare: Float, strongestBin: Int, strongestDecibels: Float) {
        let pinnedPower = decibelsToAmplitude(Self.pinnedLevelDecibels)
        let pinned = meanSquare >= pinnedPower * pinnedPower
        let frozen = abs(strongestBin - previousStrongestBin) <= 1 && abs(strongestDecibels - previousStrongestDecibels) < 1
        previousStrongestBin = strongestBin
        previousStrongestDecibels = strongestDecibels
        let idle = hopsSinceNotchWork >= Self.stuckHopsToDuck
        stuckHops = peakAtCeiling && (pinned || frozen) && idle ? stuckHops + 1 : 0
        ceilingHops = peakAtCeiling ? ceilingHops + 1 : max(0, ceilingHops - 2)
        if stuckHops >= Self.stuckHopsToDuck || ceilingHops >= Self.chasedHopsToDuck {
            startDuck()
            stuckHops = 0
            ceilingHops = 0
        }
    }

    /// Ducks the output, holds, then (counted in hops) releases; the tracks start over, as the
    /// loop dies down.
    @inlinable @_noAllocation @_noLocks
    mutating func startDuck() {
        if duckHopsLeft == 0 && duckTarget == 1 { ducks += 1 }
        moveDuck(to: decibelsToAmplitude(Self.duckDecibels), frameCount: duckFrameCount)
        duckHopsLeft = max(1, Int(Self.duckHoldSeconds * sampleRate) / Self.hopFrameCount)
        for index in 0..<Self.trackCount { tracks[index] = Self.newTrack() }
    }

    @inlinable @_noAllocation @_noLocks
    mutating func moveDuck(to target: Float, frameCount: Int) {
        duckTarget = target
        duckFramesLeft = frameCount
        duckStep = (target - duckGain) / Float(frameCount)
    }
}
