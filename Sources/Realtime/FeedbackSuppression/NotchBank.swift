import DSP

// The notch law: a confirmed frequency gets a notch `stepDecibels` deep (two steps when the howl
// was already at the ceiling). Growth seen again inside a notch's band (the loop still rising
// there) deepens it by another step, down to `maximumDepthDecibels`, with a lower threshold
// (`regrowthDecibelsToDeepen`), since that frequency is known to feed back; at the ceiling only
// while the howl is not yet ringing down. A pure tone holding steady inside the band for half a
// second (the loop ringing at a gain of exactly 1) deepens it too, unless the notch's last step
// came on a tone that had already stopped rising and that has not fallen since: a notch changes
// the input only through a loop, so a held note holds through its step, where a loop the step
// stopped dies away. Growth on a notch's flank, beyond `flankRatio` of its centre, gets a notch
// of its own instead. The notch is x − (1 − g)·bandPass(x): a band-pass of
// fixed bandwidth (`notchBandwidthOctaves` between its −3 dB points) subtracted with weight
// 1 − g, which is exactly a peaking cut of gain g at the centre; its skirts do not widen as it
// deepens, and the depth is one number ramped frame by
// frame, so a step makes no click. A tone that falls by a step, or goes, within `answerHops` of
// a step answered it as only a loop can: that notch holds a loop of the room and stays at its
// depth, as a ring-out's notches do. A pure tone ringing at one pitch for `probeHops` without
// growing gets one step as a probe: a loop at its edge answers it, a held note goes on through
// it unchanged and the probe is freed. Any other notch that has seen no growth for
// `releaseHoldSeconds` releases by `releaseDecibelsPerSecond` back to 0 dB and is freed; if the
// loop comes back, it is caught again, and that notch holds `returningHoldFactor` times longer,
// as does a notch the loop made deepen again once its release had begun. With all
// `maximumNotchCount` notches in use, the shallowest (the oldest of equals) is moved to the new
// frequency; a probe takes a free slot only.
extension FeedbackSuppressor {
    /// Whether a notch released lately sat within a quarter of its bandwidth of `hertz`.
    @inlinable @_noAllocation @_noLocks
    func wasReleased(near hertz: Float) -> Bool {
        for index in 0..<Self.maximumNotchCount where releasedHertz[index] > 0 {
            let ratio = hertz / releasedHertz[index]
            if ratio <= Self.flankRatio && ratio >= 1 / Self.flankRatio { return true }
        }
        return false
    }

    /// The notch in use whose band (half its bandwidth either side) holds `hertz`.
    @inlinable @_noAllocation @_noLocks
    func notchCovering(hertz: Float) -> Int? {
        // 2^(±1/20): half of a tenth of an octave.
        let above: Float = 1.035_264_9, below: Float = 0.965_936_3
        var best: Int? = nil
        var bestDistance: Float = .infinity
        for slot in 0..<Self.maximumNotchCount where notches[slot].inUse {
            let centre = notches[slot].hertz
            guard hertz <= centre * above, hertz >= centre * below else { continue }
            let distance = abs(hertz - centre)
            if distance < bestDistance { bestDistance = distance; best = slot }
        }
        return best
    }

    /// The loop still grows inside a notch: one step deeper, centred halfway to where the howl is
    /// now (the notch's own phase pulls the howl aside; chasing it all the way would walk the notch
    /// off the room's resonance), or `onto` it when it is pinned at the ceiling.
    @inlinable @_noAllocation @_noLocks
    mutating func deepen(slot: Int, hertz: Float, onto: Bool = false) {
        if notches[slot].depthDecibels >= Self.maximumDepthDecibels {
            startDuck()  // full depth and still growing: the last resort
            return
        }
        let depth = min(notches[slot].depthDecibels + Self.stepDecibels, Self.maximumDepthDecibels)
        // Deepened again after its release had begun: the loop it holds is still there.
        if notches[slot].depthDecibels < notches[slot].deepestDecibels { notches[slot].returning = true }
        // A howl pinned at the ceiling is the loop's one tone and its frequency sure: the notch
        // goes onto it.
        let centre = onto ? hertz : (notches[slot].hertz + hertz) * 0.5
        setNotch(slot: slot, hertz: centre, depthDecibels: depth, fresh: false)
    }

    /// A new feedback frequency: a free slot, or else the shallowest (oldest of equals). Returns
    /// the slot, or nil when every notch is at full depth and the duck starts instead.
    @discardableResult @inlinable @_noAllocation @_noLocks
    mutating func place(hertz: Float, steps: Int) -> Int? {
        var chosen = -1
        for slot in 0..<Self.maximumNotchCount where !notches[slot].inUse {
            chosen = slot
            break
        }
        if chosen < 0 {
            var shallowest: Float = .infinity
            var oldest = Int.max
            for slot in 0..<Self.maximumNotchCount {
                let notch = notches[slot]
                if notch.depthDecibels < shallowest || (notch.depthDecibels == shallowest && notch.serial < oldest) {
                    shallowest = notch.depthDecibels
                    oldest = notch.serial
                    chosen = slot
                }
            }
            if shallowest >= Self.maximumDepthDecibels {
                startDuck()  // every notch at full depth: nothing left to move
                return nil
            }
        }
        newFrequencies += 1
        lastPlacedHertz = hertz
        notchSerial += 1
        let fresh = !notches[chosen].inUse && !notches[chosen].isAudible
        notches[chosen].inUse = true
        notches[chosen].serial = notchSerial
        notches[chosen].returning = wasReleased(near: hertz)
        notches[chosen].deepestDecibels = 0
        notches[chosen].answeredByLoop = false
        notches[chosen].isProbe = false
        notches[chosen].steppedOnHeldTone = false
        notches[chosen].stepIgnored = false
        notches[chosen].stepAwaitsJudgement = false
        setNotch(slot: chosen, hertz: hertz, depthDecibels: Self.stepDecibels * Float(steps), fresh: fresh)
        return chosen
    }

    /// Sets a notch's centre and depth: the coefficients and the weight ramp over one hop (a
    /// fresh notch, silent until now, takes its coefficients at once from a cleared state).
    @inlinable @_noAllocation @_noLocks
    mutating func setNotch(slot: Int, hertz: Float, depthDecibels: Float, fresh: Bool) {
        let (b, a1, a2) = Self.bandPassCoefficients(hertz: Double(hertz), sampleRate: sampleRate)
        var notch = notches[slot]
        notch.hertz = hertz
        notch.depthDecibels = depthDecibels
        notch.deepestDecibels = max(notch.deepestDecibels, depthDecibels)
        notch.quietHops = 0
        notch.settlingHops = Self.settlingHops
        notch.hopsSinceStep = 0
        let ramp = Self.hopFrameCount
        if fresh {
            notch.b = b; notch.a1 = a1; notch.a2 = a2
            notch.targetB = b; notch.targetA1 = a1; notch.targetA2 = a2
            notch.coefficientFramesLeft = 0
            notch.left1 = 0; notch.left2 = 0; notch.right1 = 0; notch.right2 = 0
        } else {
            notch.targetB = b; notch.targetA1 = a1; notch.targetA2 = a2
            notch.stepB = (b - notch.b) / Float(ramp)
            notch.stepA1 = (a1 - notch.a1) / Float(ramp)
            notch.stepA2 = (a2 - notch.a2) / Float(ramp)
            notch.coefficientFramesLeft = ramp
        }
        Self.moveWeight(of: &notch, toDepth: depthDecibels)
        notches[slot] = notch
        hopsSinceNotchWork = 0
    }

    @inlinable @_noAllocation @_noLocks
    static func moveWeight(of notch: inout Notch, toDepth depthDecibels: Float) {
        let target = depthDecibels <= 0 ? 0 : 1 - decibelsToAmplitude(-depthDecibels)
        notch.targetWeight = target
        notch.weightStep = (target - notch.weight) / Float(hopFrameCount)
        notch.weightFramesLeft = hopFrameCount
    }

    /// A probe (`probeHops`) on a tone holding steady at `hertz`: one step, in a free slot only,
    /// so that no notch holding a loop is moved for it. Returns the slot, or nil with none free.
    @inlinable @_noAllocation @_noLocks
    mutating func probeNotch(hertz: Float) -> Int? {
        var free = false
        for slot in 0..<Self.maximumNotchCount where !notches[slot].inUse { free = true }
        guard free, let slot = place(hertz: hertz, steps: 1) else { return nil }
        notches[slot].isProbe = true
        notches[slot].probeHopsLeft = Self.probeJudgementHops
        notches[slot].probeLowestDecibels = .infinity
        return slot
    }

    /// Frees a notch at once, ramping it out over a hop: a probe the tone ignored.
    @inlinable @_noAllocation @_noLocks
    mutating func freeNotch(slot: Int) {
        notches[slot].depthDecibels = 0
        notches[slot].inUse = false
        notches[slot].isProbe = false
        Self.moveWeight(of: &notches[slot], toDepth: 0)
    }

    /// Whether a track found this hop holds a tone at `hertz`.
    @inlinable @_noAllocation @_noLocks
    func toneIsHeard(at hertz: Float) -> Bool {
        for index in 0..<Self.trackCount where tracks[index].active && tracks[index].matched {
            if Self.isSteady(tracks[index].hertz, at: hertz) { return true }
        }
        return false
    }

    /// Notches whose band has been quiet for `releaseHoldSeconds` come back towards 0 dB.
    @inlinable @_noAllocation @_noLocks
    mutating func releaseQuietNotches() {
        for slot in 0..<Self.maximumNotchCount where notches[slot].inUse {
            // A step is judged on the first hop after it has settled, or not at all: the tone
            // met later at that frequency may be another. A tone no longer heard at all once the
            // step has settled is the strongest answer a loop gives: it rang only because of it.
            // A probe's tone may first sink to the voice's level in its bin and go a few hops
            // later: whenever it goes while the probe stands, it was the loop's.
            if notches[slot].settlingHops == 0 {
                let answerAwaited = notches[slot].stepAwaitsJudgement
                    || (notches[slot].isProbe && notches[slot].hopsSinceStep <= Self.answerHops)
                if answerAwaited && !toneIsHeard(at: notches[slot].stepHertz) {
                    notches[slot].answeredByLoop = true
                    notches[slot].isProbe = false
                }
                notches[slot].stepAwaitsJudgement = false
            }
            if notches[slot].settlingHops > 0 { notches[slot].settlingHops -= 1 }
            notches[slot].hopsSinceStep += 1
            notches[slot].quietHops += 1
            // No steady tone in the band for half a second: the held note is gone.
            if notches[slot].quietHops > Self.ringingHopsToDeepen {
                notches[slot].steppedOnHeldTone = false
                notches[slot].stepIgnored = false
            }
            // A loop the notch answered is still there, quiet because the notch holds it down:
            // releasing it would let the room howl again before the notch came back.
            guard !notches[slot].answeredByLoop else { continue }
            let hold = notches[slot].returning ? holdHops * Self.returningHoldFactor : holdHops
            guard notches[slot].quietHops > hold else { continue }
            let depth = notches[slot].depthDecibels - releaseDecibelsPerHop
            if depth <= 0 {
                notches[slot].depthDecibels = 0
                notches[slot].inUse = false
                releasedHertz[releasedIndex] = notches[slot].hertz
                releasedIndex = releasedIndex + 1 == Self.maximumNotchCount ? 0 : releasedIndex + 1
                Self.moveWeight(of: &notches[slot], toDepth: 0)
            } else {
                notches[slot].depthDecibels = depth
                Self.moveWeight(of: &notches[slot], toDepth: depth)
            }
        }
    }

    /// The notch's band-pass at `hertz`: the cookbook's constant-peak band-pass whose bandwidth
    /// (between −3 dB points, prewarped) is `notchBandwidthOctaves`, normalised so a0 = 1:
    /// b0 = α/(1+α), b2 = −b0, a1 = −2cos ω/(1+α), a2 = (1−α)/(1+α).
    @inlinable @_noAllocation @_noLocks
    static func bandPassCoefficients(hertz: Double, sampleRate: Double) -> (Float, Float, Float) {
        let turns = min(max(hertz / sampleRate, 1e-5), 0.49)
        let sine = sineOfTurns(turns)
        let cosine = cosineOfTurns(turns)
        let omega = 2 * Double.pi * turns
        // α = sin ω · sinh(ln 2 / 2 · BW · ω / sin ω); sinh by its series (its argument is < 0.06).
        let u = 0.346_573_590_279_972_65 * notchBandwidthOctaves * omega / sine
        let alpha = sine * u * (1 + u * u * (1.0 / 6 + u * u / 120))
        let a0 = 1 + alpha
        return (Float(alpha / a0), Float(-2 * cosine / a0), Float((1 - alpha) / a0))
    }

    /// A notch of `depthDecibels` (0 or below) at `hertz` as one biquad: x − w·bandPass(x) with
    /// w = 1 − g puts (1 + a1 z⁻¹ + a2 z⁻²) − w·b(1 − z⁻²) over the band-pass's denominator.
    /// What the filter built from these coefficients does, for its frequency response.
    /// - Thread: any.
    public static func notchCoefficients(hertz: Double, depthDecibels: Float, sampleRate: Double) -> BiquadCoefficients {
        let (b, a1, a2) = bandPassCoefficients(hertz: hertz, sampleRate: sampleRate)
        let weightedB = (1 - decibelsToAmplitude(depthDecibels)) * b
        return BiquadCoefficients(b0: 1 - weightedB, b1: a1, b2: a2 + weightedB, a1: a1, a2: a2)
    }

    /// |H| in dB of a notch of `depthDecibels` (0 or below) at `hertz`, measured at `frequency`.
    /// - Thread: any.
    public static func notchResponseDecibels(hertz: Double, depthDecibels: Float, at frequency: Double,
                                             sampleRate: Double) -> Double {
        let (real, imaginary) = notchCoefficients(hertz: hertz, depthDecibels: depthDecibels, sampleRate: sampleRate)
            .response(at: frequency, sampleRate: sampleRate)
        return 10 * Double(log2Approximation(Float(real * real + imaginary * imaginary))) * 0.301_029_995_663_981_2
    }
}
