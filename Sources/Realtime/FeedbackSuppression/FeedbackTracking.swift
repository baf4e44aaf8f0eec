import DSP

// Tracking: candidates followed from hop to hop, and the judgement that one is a howl.
//
// - Candidates are followed from hop to hop in tracks. A track's growth is its level above the
//   lowest it has been since the count began; the count begins again when its frequency leaves
//   `steadyFraction` of where it started, when it rises by more than `maximumRiseDecibels` in a
//   hop (a note's onset: the window smears a step over four hops, two of them above 6 dB), or
//   when it falls `fallDecibels` below its highest (a tremolo's fall, a note's decay), so dips of
//   a dB or two, the voice beating against a howl still building, do not end it.
// - A howl is confirmed at a new frequency when a pure track (no energy within
//   `purityDecibels` of it at the frequencies that would make it a harmonic of a note: ½, ⅓, 2×,
//   3×, and the (n±1)/n neighbours, leaving out any inside a notch's band: that is another howl)
//   has grown by `growthDecibelsToConfirm` over at least `growthHopsToConfirm` hops, or is still
//   rising after growing further than a tremolo does (`risingGrowthDecibelsToConfirm`) or for
//   longer (`steadyGrowthDecibelsToConfirm` over `steadyGrowthHopsToConfirm` hops: a loop a dB
//   above 1), or slowly for a second, or has risen steeply hop after hop in a straight line
//   of its raw level (`exponentialRiseDecibelsToConfirm`: a fast howl, caught long before the
//   ceiling, where the lagging lower envelope would be late), or has sat steady at the ceiling for
//   `saturatedHopsToConfirm` hops. Where a notch was released lately, a smaller rise is enough.
//   A feedback loop multiplies the level on every trip until something stops it; music does not
//   keep rising 20 dB at one pure, unwavering pitch: a sung or blown swell is about 15 dB and
//   carries harmonics, vibrato moves the pitch by far more than `steadyFraction`, tremolo falls
//   again after its ~12 dB rise, a flute's held note does not grow, and a piano's notes decay.
// - A pure track that holds one pitch and its level for `probeHops` without growing is probed
//   with one step (`probeNotch`): a loop at its edge rings like that under the voice for
//   seconds, growing too slowly for any growth rule, and the step makes the ringing go.
extension FeedbackSuppressor {
    /// Takes this hop's measurement of the peak at `bin` into a track: its lower envelope, its
    /// growth, its steadiness, and whether it sits at the ceiling.
    @inlinable @_noAllocation @_noLocks
    mutating func update(track best: Int, bin: Int, hertz: Float, strongestPower: Float, peakAtCeiling: Bool) {
        let level = Self.decibels(power[bin])
        let purity = level - Self.decibels(harmonicRelativesPower(bin: bin, hertz: hertz))
        // Two howls can build at once and share the ceiling: either counts if it is within
        // 6 dB of the strongest peak.
        let saturated = peakAtCeiling && power[bin] >= strongestPower * 0.25
        var track = tracks[best]
        track.matched = true
        track.missedHops = 0
        track.bin = bin
        let levels = trackLevels + best * Self.envelopeHops
        levels[track.historyIndex] = level
        track.historyIndex = track.historyIndex + 1 == Self.envelopeHops ? 0 : track.historyIndex + 1
        // The second lowest of the last hops: the voice adds to the bin while it sounds there (so
        // not the highest), and a partial beating against the howl can cancel it for a hop (so
        // not the very lowest either).
        var lowest: Float = .infinity, secondLowest: Float = .infinity
        for hop in 0..<Self.envelopeHops {
            let value = levels[hop]
            if value < lowest {
                secondLowest = lowest
                lowest = value
            } else if value < secondLowest {
                secondLowest = value
            }
        }
        let envelope = secondLowest
        let rise = envelope - track.envelopeDecibels
        track.steadyHops += 1
        track.envelopeDecibels = envelope
        track.levelDecibels = level
        track.purityDecibels = purity
        let disturbed = abs(level - envelope) > Self.disturbedDecibels
        let withinTolerance = Self.isSteady(hertz, at: track.anchorHertz)
        track.onFrequencyHops = withinTolerance ? track.onFrequencyHops + 1 : 0
        // A straight-line rise counts only at one unwavering pitch: a glide or vibrato is a voice.
        track.exponentialRiseDecibels = track.onFrequencyHops > Self.exponentialRiseHops
            ? Self.exponentialRise(levels: levels, historyIndex: track.historyIndex) : 0
        // A frequency off for a few hops may be a voice partial passing through the bin; off for
        // longer (85 ms: half a vibrato cycle), the tone moved.
        track.offFrequencyHops = withinTolerance || disturbed ? 0 : track.offFrequencyHops + 1
        let steady = track.offFrequencyHops < Self.offFrequencyHops
        if withinTolerance || !disturbed { track.hertz = hertz }
        if !steady {
            track.anchorHertz = hertz
            track.offFrequencyHops = 0
            track.restartGrowth(at: envelope)
        } else if rise > Self.maximumRiseDecibels {
            track.restartGrowth(at: envelope)  // an onset: the rise so far was not a loop's
        } else if envelope < track.peakDecibels - Self.fallDecibels {
            // A fall that lasts ends the count (a tremolo's, a decay's); a short one is a voice
            // partial beating against the howl, and only pauses it.
            track.fallingHops += 1
            if track.fallingHops >= Self.fallHops { track.restartGrowth(at: envelope) }
        } else {
            track.fallingHops = 0
            // Growth is the lower envelope's rise from its lowest since the count began.
            track.startDecibels = min(track.startDecibels, envelope)
            track.peakDecibels = max(track.peakDecibels, envelope)
            track.growthDecibels = envelope - track.startDecibels
            track.growingHops = track.growthDecibels > 0 ? track.growingHops + 1 : 0
            if envelope >= track.highMark + Self.newHighDecibels {
                track.highMark = envelope
                track.hopsSinceNewHigh = 0
            } else {
                track.hopsSinceNewHigh += 1
            }
        }
        track.saturatedHops = saturated && steady && purity >= Self.purityDecibels - 5 ? track.saturatedHops + 1 : 0
        tracks[best] = track
    }

    /// Turns the tracks' evidence into notches.
    @inlinable @_noAllocation @_noLocks
    mutating func judgeTracks() {
        for index in 0..<Self.trackCount where tracks[index].active && tracks[index].matched {
            let track = tracks[index]
            let pure = track.purityDecibels >= Self.purityDecibels
            if let slot = notchCovering(hertz: track.hertz) {
                if track.growthDecibels >= 3 || track.saturatedHops > 0 || track.steadyHops >= Self.ringingHopsToDeepen / 2 {
                    notches[slot].quietHops = 0
                }
                guard notches[slot].settlingHops == 0 else { continue }
                let steppedTone = Self.isSteady(track.hertz, at: notches[slot].stepHertz)
                if notches[slot].isProbe && notches[slot].probeHopsLeft > 0 && steppedTone {
                    // A held note goes on through a probe as before it, hop after hop: the
                    // probe goes.
                    let level = Self.rawLevel(in: trackLevels + index * Self.envelopeHops, historyIndex: track.historyIndex, hopsAgo: 0)
                    notches[slot].probeLowestDecibels = min(notches[slot].probeLowestDecibels, level)
                    notches[slot].probeHopsLeft -= 1
                    if notches[slot].probeHopsLeft == 0
                        && notches[slot].probeLowestDecibels >= notches[slot].stepRawLevelDecibels - Self.probeFallDecibels {
                        freeNotch(slot: slot)
                        continue
                    }
                } else if notches[slot].stepAwaitsJudgement && steppedTone {
                    judgeStep(slot: slot, track: index)
                }
                let ignored = notches[slot].stepIgnored && steppedTone
                if track.envelopeDecibels < notches[slot].stepLevelDecibels - Self.stepDecibels {
                    // It fell after the step: a loop answers at once.
                    if notches[slot].hopsSinceStep <= Self.answerHops {
                        notches[slot].answeredByLoop = true
                        notches[slot].isProbe = false
                    }
                    notches[slot].steppedOnHeldTone = false
                    notches[slot].stepIgnored = false
                }
                let regrowing = pure && track.growthDecibels >= Self.regrowthDecibelsToDeepen
                    && track.growingHops >= Self.regrowthHopsToDeepen && !ignored
                // A pure tone that holds its level inside a notch for half a second is the loop
                // ringing at a gain of 1 there: not enough cut yet (unless it held through the
                // notch's last step, as a note does).
                let ringing = pure && track.steadyHops >= Self.ringingHopsToDeepen
                    && track.envelopeDecibels >= track.peakDecibels - Self.stepDecibels
                    && !notches[slot].steppedOnHeldTone && !ignored
                // At the ceiling a mode-fed howl rings down at the room's pace, a dB or so a hop,
                // however deep the notch: once it falls, the notch is deep enough.
                let stillSaturated = track.saturatedHops >= Self.saturatedHopsToDeepen
                    && track.envelopeDecibels >= track.peakDecibels - 1
                guard regrowing || ringing || stillSaturated else { continue }
                // A howl on the notch's flank, where it cuts a fraction of its depth, is a second
                // resonance (or the loop pulled aside by the notch's phase): deepening would drag
                // the notch off the first, so it gets a notch of its own.
                let ratio = track.hertz / notches[slot].hertz
                if ratio > Self.flankRatio || ratio < 1 / Self.flankRatio {
                    place(hertz: track.hertz, steps: stillSaturated ? 2 : 1)
                } else {
                    deepen(slot: slot, hertz: track.hertz, onto: stillSaturated)
                }
                noteStep(onTrack: index, atCeiling: stillSaturated)
                tracks[index].restartGrowth(at: track.envelopeDecibels)
                tracks[index].saturatedHops = 0
            } else {
                let grownFast = track.growthDecibels >= Self.growthDecibelsToConfirm
                    && track.growingHops >= Self.growthHopsToConfirm
                let grownSlowly = track.growthDecibels >= Self.slowGrowthDecibelsToConfirm
                    && track.growingHops >= Self.slowGrowthHopsToConfirm && track.hopsSinceNewHigh <= Self.hopsWithoutNewHigh
                // Still setting new highs now: a tremolo or a swell has stopped rising by the time
                // it could pass these.
                let rising = track.hopsSinceNewHigh <= Self.risingHops
                let grownBeyondTremolo = track.growthDecibels >= Self.risingGrowthDecibelsToConfirm
                    && track.growingHops >= Self.risingGrowthHopsToConfirm && rising
                let grownSteadily = track.growthDecibels >= Self.steadyGrowthDecibelsToConfirm
                    && track.growingHops >= Self.steadyGrowthHopsToConfirm && rising
                // Where a notch was released, the loop is known to feed back: growth that would
                // deepen a notch (a little more, and still rising) brings it back.
                let grownAgain = wasReleased(near: track.hertz) && rising
                    && track.growthDecibels >= 2 * Self.regrowthDecibelsToDeepen && track.growingHops >= 2 * Self.regrowthHopsToDeepen
                let grownExponentially = track.exponentialRiseDecibels >= Self.exponentialRiseDecibelsToConfirm
                let grown = pure && (grownFast || grownBeyondTremolo || grownSteadily || grownSlowly || grownAgain
                    || grownExponentially)
                // A tone that grew by half the confirming growth and then met the ceiling (where
                // its growth can only stop) needs less time there.
                let saturated = track.saturatedHops >= Self.saturatedHopsToConfirm
                    || (track.saturatedHops >= Self.saturatedHopsToDeepen && track.growthDecibels >= Self.growthDecibelsToConfirm / 2)
                guard grown || saturated else {
                    // A pure tone ringing at one pitch for seconds, holding its level: one step
                    // asks whether it is a loop at its edge (`probeHops`).
                    let ringingLong = pure && !track.probed && track.steadyHops >= Self.probeHops
                        && track.envelopeDecibels >= track.peakDecibels - Self.stepDecibels
                    if ringingLong, let slot = probeNotch(hertz: track.hertz) {
                        tracks[index].probed = true
                        noteStep(onTrack: index, atCeiling: false)
                        // A probe is judged over `probeJudgementHops`, not on one hop.
                        notches[slot].stepAwaitsJudgement = false
                    }
                    continue
                }
                place(hertz: track.hertz, steps: saturated ? 2 : 1)
                noteStep(onTrack: index, atCeiling: saturated)
                tracks[index].restartGrowth(at: track.envelopeDecibels)
                tracks[index].saturatedHops = 0
            }
        }
    }

    /// Whether `hertz` lies within `steadyFraction` (or `steadyHertz`) of `reference`: the same
    /// tone, held at one pitch.
    @inlinable @_noAllocation @_noLocks
    static func isSteady(_ hertz: Float, at reference: Float) -> Bool {
        abs(hertz - reference) <= max(steadyHertz, steadyFraction * reference)
    }

    /// A track's raw level `hopsAgo` hops before its newest (0: the newest), from its ring of
    /// `envelopeHops` levels, `historyIndex` the slot the next level goes to.
    @inlinable @_noAllocation @_noLocks
    static func rawLevel(in levels: UnsafeMutablePointer<Float>, historyIndex: Int, hopsAgo: Int) -> Float {
        levels[(historyIndex + envelopeHops - 1 - hopsAgo) % envelopeHops]
    }

    /// The sum of the last `exponentialRiseHops` hop-to-hop rises in a track's raw levels when
    /// every one of them lies between `exponentialStepDecibels` and `maximumRiseDecibels`; 0
    /// otherwise.
    @inlinable @_noAllocation @_noLocks
    static func exponentialRise(levels: UnsafeMutablePointer<Float>, historyIndex: Int) -> Float {
        var total: Float = 0
        var later = rawLevel(in: levels, historyIndex: historyIndex, hopsAgo: 0)
        for back in 1...exponentialRiseHops {
            let earlier = rawLevel(in: levels, historyIndex: historyIndex, hopsAgo: back)
            let step = later - earlier
            guard step >= exponentialStepDecibels, step <= maximumRiseDecibels else { return 0 }
            total += step
            later = earlier
        }
        return total
    }

    /// Records, on the notch over track `index` that just stepped, whether the tone had stopped
    /// rising (its raw level up by less than `heldToneRiseDecibels` over the last
    /// `heldToneHops` hops, and not held down by the ceiling) and at what level.
    @inlinable @_noAllocation @_noLocks
    mutating func noteStep(onTrack index: Int, atCeiling: Bool) {
        guard let slot = notchCovering(hertz: tracks[index].hertz) else { return }
        // Each step is judged afresh, perhaps on another tone of the band than the last.
        notches[slot].stepAwaitsJudgement = false
        notches[slot].stepIgnored = false
        guard !atCeiling else {
            notches[slot].steppedOnHeldTone = false  // the ceiling stopped its rise: not a held note
            return
        }
        let levels = trackLevels + index * Self.envelopeHops, historyIndex = tracks[index].historyIndex
        let level = Self.rawLevel(in: levels, historyIndex: historyIndex, hopsAgo: 0)
        let rise = level - Self.rawLevel(in: levels, historyIndex: historyIndex, hopsAgo: Self.heldToneHops)
        notches[slot].steppedOnHeldTone = rise < Self.heldToneRiseDecibels
        notches[slot].stepLevelDecibels = tracks[index].envelopeDecibels
        notches[slot].stepRawLevelDecibels = level
        notches[slot].stepHertz = tracks[index].hertz
        notches[slot].stepPaceDecibels = max(0, level - Self.rawLevel(in: levels, historyIndex: historyIndex, hopsAgo: 1))
        notches[slot].stepAwaitsJudgement = true
    }

    /// Once the last step on notch `slot` has settled: whether the tone of track `index` went on
    /// as before it, rising at the pace of its last hop before the step (`ignoredStepFraction` of
    /// it, less `ignoredStepDecibels`) or holding its level, as a source does and a loop cannot.
    @inlinable @_noAllocation @_noLocks
    mutating func judgeStep(slot: Int, track index: Int) {
        notches[slot].stepAwaitsJudgement = false
        let levels = trackLevels + index * Self.envelopeHops
        let rise = Self.rawLevel(in: levels, historyIndex: tracks[index].historyIndex, hopsAgo: 0) - notches[slot].stepRawLevelDecibels
        let expected = notches[slot].stepPaceDecibels * Float(Self.settlingHops)
        notches[slot].stepIgnored = rise >= Self.ignoredStepFraction * expected - Self.ignoredStepDecibels
    }
}
