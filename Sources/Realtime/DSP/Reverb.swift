// The engine's reverb: the mono input, the wet/dry mix, and the switch between its two tanks,
// Freeverb's for the rooms (FreeverbTank.swift) and Dattorro's for the plate (PlateReverb.swift),
// built from the primitives in ReverbPrimitives.swift; the presets are in ReverbPreset.swift.

/// A stereo reverb, processed in place. A value type owning raw storage: create it (allocating) on
/// the control thread, hand it to the audio thread, and call `deallocate()` once nothing uses it.
///
/// The wet/dry mix is an equal-power crossfade (dry = cos(½π·m), wet = sin(½π·m)): the tail is
/// uncorrelated with the dry signal, so this keeps the loudness constant across the knob's travel.
/// A mix change is reached by ramping both gains linearly across the next block: no zipper noise.
/// Decay and damping changes take effect at the next block (they only scale the recirculating
/// tail, which makes no audible step).
///
/// The input to the tanks is the mono sum (L+R)/2; both channels' tanks hear it. The rooms use the
/// Freeverb tank, the plate preset Dattorro's; both are allocated at init, so a preset switches
/// tanks on the audio thread without allocating.
public struct Reverb: @unchecked Sendable {  // raw storage, used by one thread at a time
    /// Tiny DC added to the tanks' input so no feedback path ever decays into denormals (it is
    /// −360 dB: far below anything audible, far above the denormal range).
    @usableFromInline static let antiDenormal: Float = 1e-18

    public let sampleRate: Double
    public let maxFrameCount: Int
    /// The rooms' tank (FreeverbTank.swift), behind a pointer so that copies share it.
    @usableFromInline let freeverb: UnsafeMutablePointer<FreeverbTank>
    /// The plate preset's tank (PlateReverb.swift), likewise.
    @usableFromInline let plate: UnsafeMutablePointer<DattorroPlate>
    /// Six blocks of scratch: the mono input, one tank's scaled input, the left and right wet, and
    /// the left and right wet of the tank faded out after a switch.
    @usableFromInline let scratch: UnsafeMutablePointer<Float>
    @usableFromInline static var scratchBlocks: Int { @inlinable @_noAllocation @_noLocks get { 6 } }

    /// Whether the plate sounds rather than the Freeverb tank.
    @usableFromInline var usesPlate = false
    /// Set by a switch of tank: the next block fades the other tank's tail out while the new one
    /// starts from silence, so the switch does not cut the tail with a step.
    @usableFromInline var fadesOutOtherTank = false

    @usableFromInline var dryGain: Float = 1, wetGain: Float = 0
    @usableFromInline var targetDryGain: Float = 1, targetWetGain: Float = 0
    @usableFromInline var currentRT60Seconds: Double = 0
    @usableFromInline var currentDamping: Float = 0
    @usableFromInline var currentMixPercent: Float = 0
    /// The low-frequency decay time to −60 dB last set, in seconds (see `setDecay`).
    /// - Thread: audio.
    public var decaySeconds: Double { @inlinable @_noAllocation @_noLocks get { currentRT60Seconds } }
    /// The damping last set, 0…1.
    /// - Thread: audio.
    public var damping: Float { @inlinable @_noAllocation @_noLocks get { currentDamping } }
    /// The mix last set (the target of any ramp), 0…100 %.
    /// - Thread: audio.
    public var mixPercent: Float { @inlinable @_noAllocation @_noLocks get { currentMixPercent } }

    /// A reverb at `sampleRate` for blocks of up to `maxFrameCount` (longer ones are split), set to
    /// `preset` with a mix of `mixPercent`.
    /// - Thread: control. Not real-time safe: allocates.
    public init(sampleRate: Double, maxFrameCount: Int, preset: ReverbPreset = .mediumRoom, mixPercent: Float = 0) {
        self.sampleRate = sampleRate
        self.maxFrameCount = max(1, maxFrameCount)
        freeverb = .allocate(capacity: 1)
        freeverb.initialize(to: FreeverbTank(sampleRate: sampleRate))
        plate = .allocate(capacity: 1)
        plate.initialize(to: DattorroPlate(sampleRate: sampleRate))
        scratch = .allocate(capacity: Reverb.scratchBlocks * self.maxFrameCount)
        scratch.initialize(repeating: 0, count: Reverb.scratchBlocks * self.maxFrameCount)
        setPreset(preset)
        setMix(mixPercent)
        dryGain = targetDryGain
        wetGain = targetWetGain
    }

    /// Frees the storage. Call once, when no thread uses the reverb any more.
    /// - Thread: stopped. Not real-time safe: frees.
    public func deallocate() {
        freeverb.pointee.deallocate()
        freeverb.deallocate()
        plate.pointee.deallocate()
        plate.deallocate()
        scratch.deallocate()
    }

    /// Silences the tail at once (not for use while it sounds: it would click).
    /// - Thread: audio. Real-time safe.
    @inlinable @_noAllocation @_noLocks
    public mutating func reset() {
        freeverb.pointee.clear()
        plate.pointee.clear()
        fadesOutOtherTank = false
    }

    /// Applies `preset`'s tank, decay and damping (the mix is left alone). Switching between the
    /// plate and the Freeverb rooms starts the new tank from silence and fades the old one's tail
    /// out across the next block.
    /// - Thread: audio. Real-time safe (both tanks are allocated at init).
    @inlinable @_noAllocation @_noLocks
    public mutating func setPreset(_ preset: ReverbPreset) {
        let plateWanted: Bool
        switch preset {
        case .plate: plateWanted = true
        case .smallRoom, .mediumRoom, .largeHall: plateWanted = false
        }
        if plateWanted != usesPlate {
            usesPlate = plateWanted
            if fadesOutOtherTank {
                // Switched back before any block ran: the tank returned to still holds its tail.
                fadesOutOtherTank = false
            } else {
                if plateWanted { plate.pointee.clear() } else { freeverb.pointee.clear() }
                fadesOutOtherTank = true
            }
        }
        setDamping(preset.damping)
        setDecay(seconds: preset.lowFrequencyRT60Seconds)
    }

    /// Sets the wet/dry mix, 0 (dry only) … 100 % (wet only), reached across the next block.
    /// - Thread: audio. Real-time safe.
    @inlinable @_noAllocation @_noLocks
    public mutating func setMix(_ percent: Float) {
        let mix = min(max(percent, 0), 100) / 100
        currentMixPercent = mix * 100
        if mix == 0 {
            targetDryGain = 1; targetWetGain = 0  // exact pass-through
        } else if mix == 1 {
            targetDryGain = 0; targetWetGain = 1
        } else {
            targetWetGain = Float(sineOfTurns(Double(mix) * 0.25))
            targetDryGain = Float(sineOfTurns(Double(mix) * 0.25 + 0.25))
        }
    }

    /// Sets the decay time to −60 dB, clamped to 0.05…60 s. This is the decay of the low
    /// frequencies, which the damping does not reach; with damping the broadband RT60 is shorter
    /// (by about 10–15 % at the rooms' damping, 4 % at the plate's). Sets both tanks.
    /// - Thread: audio. Real-time safe.
    @inlinable @_noAllocation @_noLocks
    public mutating func setDecay(seconds: Double) {
        let rt60 = min(max(seconds, 0.05), 60)
        currentRT60Seconds = rt60
        freeverb.pointee.setDecay(seconds: rt60, sampleRate: sampleRate)
        plate.pointee.setDecay(seconds: rt60, sampleRate: sampleRate)
    }

    /// Sets Freeverb's room size knob, 0…1: the decay its feedback 0.7 + 0.28·size would give the
    /// average comb (0 → 0.6 s, 0.5 → 1.2 s, 1 → 10.7 s), in either tank.
    /// - Thread: audio. Real-time safe.
    @inlinable @_noAllocation @_noLocks
    public mutating func setRoomSize(_ size: Float) {
        let feedback = 0.7 + 0.28 * min(max(size, 0), 1)
        let averageLengthSeconds: Float = 1_378 / 44_100
        // RT60 = −3·L / log10(g) = −3·L·log2(10) / log2(g).
        setDecay(seconds: Double(-3 * averageLengthSeconds * 3.321_928_1 / log2Approximation(feedback)))
    }

    /// Sets high-frequency damping, 0 (none) … 1 (strongest: Freeverb's 0.4 pole at 44.1 kHz), in
    /// both tanks.
    /// - Thread: audio. Real-time safe.
    @inlinable @_noAllocation @_noLocks
    public mutating func setDamping(_ amount: Float) {
        let clamped = min(max(amount, 0), 1)
        currentDamping = clamped
        // The pole p at 44.1 kHz, moved to this rate keeping its time constant: p^(44100/fs).
        let pole = clamped * 0.4
        let d = pole <= 0 ? 0 : fastExp2(log2Approximation(pole) * Float(44_100 / sampleRate))
        freeverb.pointee.setDamping(pole: d)
        // The plate's damping low-pass has the combs' form, so it takes the same pole (it runs
        // only twice per trip round its much longer loop, so the same pole damps it less).
        plate.pointee.damping = d
    }

    /// Runs one tank over the mono input `mono` (left intact), writing its wet output.
    @inlinable @_noAllocation @_noLocks
    mutating func processTank(plate usePlate: Bool, mono: UnsafePointer<Float>, left wetLeft: UnsafeMutablePointer<Float>, right wetRight: UnsafeMutablePointer<Float>, frameCount: Int) {
        let input = scratch + maxFrameCount
        let gain = usePlate ? plate.pointee.inputGain : freeverb.pointee.inputGain
        for frame in 0..<frameCount {
            input[frame] = mono[frame] * gain + Reverb.antiDenormal
        }
        if usePlate {
            plate.pointee.process(input, left: wetLeft, right: wetRight, frameCount: frameCount)
        } else {
            freeverb.pointee.process(input, left: wetLeft, right: wetRight, frameCount: frameCount)
        }
    }

    /// Reverberates `frameCount` frames of `left` and `right` in place.
    /// - Thread: audio. Real-time safe.
    @inlinable @_noAllocation @_noLocks
    public mutating func process(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frameCount: Int) {
        var done = 0
        while done < frameCount {
            let count = min(frameCount - done, maxFrameCount)
            processBlock(left: left + done, right: right + done, frameCount: count)
            done += count
        }
    }

    /// Reverberates the mono send `input` (left intact) and adds the wet output, times `level`,
    /// into `left` and `right`: the effects-bus use, where the dry signal goes elsewhere and the
    /// mix knob plays no part.
    /// - Thread: audio. Real-time safe.
    @inlinable @_noAllocation @_noLocks
    public mutating func processSend(_ input: UnsafePointer<Float>, addingTo left: UnsafeMutablePointer<Float>,
                                     right: UnsafeMutablePointer<Float>, level: Float, frameCount: Int) {
        var done = 0
        while done < frameCount {
            let count = min(frameCount - done, maxFrameCount)
            let (wetLeft, wetRight) = wet(mono: input + done, frameCount: count)
            for frame in 0..<count {
                left[done + frame] += wetLeft[frame] * level
                right[done + frame] += wetRight[frame] * level
            }
            done += count
        }
    }

    /// Runs the tank (and, after a switch of tank, the old one fading out) over `mono` and returns
    /// where the wet left and right are, in scratch.
    @inlinable @_noAllocation @_noLocks
    mutating func wet(mono: UnsafePointer<Float>, frameCount: Int) -> (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>) {
        let wetLeft = scratch + 2 * maxFrameCount, wetRight = scratch + 3 * maxFrameCount
        processTank(plate: usesPlate, mono: mono, left: wetLeft, right: wetRight, frameCount: frameCount)
        if fadesOutOtherTank {
            fadesOutOtherTank = false
            let oldLeft = scratch + 4 * maxFrameCount, oldRight = scratch + 5 * maxFrameCount
            processTank(plate: !usesPlate, mono: mono, left: oldLeft, right: oldRight, frameCount: frameCount)
            let step = 1 / Float(frameCount)
            for frame in 0..<frameCount {
                let fadeIn = Float(frame + 1) * step, fadeOut = 1 - fadeIn
                wetLeft[frame] = wetLeft[frame] * fadeIn + oldLeft[frame] * fadeOut
                wetRight[frame] = wetRight[frame] * fadeIn + oldRight[frame] * fadeOut
            }
        }
        return (wetLeft, wetRight)
    }

    @inlinable @_noAllocation @_noLocks
    mutating func processBlock(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frameCount: Int) {
        let mono = scratch
        for frame in 0..<frameCount {
            mono[frame] = (left[frame] + right[frame]) * 0.5
        }
        let (wetLeft, wetRight) = wet(mono: mono, frameCount: frameCount)
        // Mix, ramping the gains linearly from where they were to their targets across the block.
        var dry = dryGain, wet = wetGain
        if dry == targetDryGain && wet == targetWetGain {
            for frame in 0..<frameCount {
                left[frame] = left[frame] * dry + wetLeft[frame] * wet
                right[frame] = right[frame] * dry + wetRight[frame] * wet
            }
        } else {
            let steps = Float(frameCount)
            let dryStep = (targetDryGain - dry) / steps, wetStep = (targetWetGain - wet) / steps
            for frame in 0..<frameCount {
                dry += dryStep; wet += wetStep
                left[frame] = left[frame] * dry + wetLeft[frame] * wet
                right[frame] = right[frame] * dry + wetRight[frame] * wet
            }
            dryGain = targetDryGain
            wetGain = targetWetGain
        }
    }
}
