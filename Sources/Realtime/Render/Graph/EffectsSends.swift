import DSP

/// The two effects buses General MIDI files send to, audio-thread half: every sampler voice adds
/// itself, through its reverb and chorus send gains (CC91 and CC93 through the default modulators,
/// plus the font's send generators), into the mono `reverbInput` and `chorusInput`; `process` runs a
/// reverb and a chorus over them and adds their wet returns into the mix, before the master volume
/// and the limiter, as FluidSynth does.
///
/// Settings follow FluidSynth 2.3 (Debian 12's fluidsynth), as measured rather than as its
/// parameters read: its default reverb (room size 0.2, no damping) decays at about 45 dB/s, so this
/// one takes 1.2 s to −60 dB with no damping; the chorus has its three voices, 0.3 Hz and 8 ms
/// depth. FluidSynth's reverb is a feedback delay network and its chorus mixes its voices to stereo
/// its own way; the reverb here is the Freeverb-class one of the microphone chain and the chorus
/// `DSP.Chorus`, so the returns are alike in decay, depth and level, not sample for sample
/// (`EffectsSendTests` holds the send levels to the default modulators' amounts).
///
/// A bus whose input has been silent long enough stops costing anything: the reverb after its
/// tail has died away (`reverbIdleSeconds`), the chorus once its delay line holds only zeros. Both
/// stop and start again on exact frames, whatever the block size. `fadeOut` (all sound off) fades
/// both returns out over `ClickFreeFade.seconds` and empties them, as the voices are faded.
struct EffectsSends {
    /// The decay to −60 dB measured on FluidSynth 2.3's default reverb (room size 0.2).
    static var reverbDecaySeconds: Double { 1.2 }
    /// Silent input for this long leaves the reverb's tail below −120 dB (twice its decay to −60 dB).
    static var reverbIdleSeconds: Double { 2 * reverbDecaySeconds }
    /// The returns' levels. The reverb's sits between what matches FluidSynth 2.3's return
    /// (`synth.reverb.level` 0.9) on piano and on strings, measured by rendering the same notes
    /// with the effects on and off in both engines. The chorus's is FluidSynth 2.4's lowered
    /// default (0.6 where 2.3 had 2.0, whose return stands about 16 dB above its send and pushes
    /// dense files into clipping): FluidSynth's maintainers corrected it, and so does this.
    static var reverbLevel: Float { 0.65 }
    static var chorusLevel: Float { 1.95 }

    let reverbInput: UnsafeMutablePointer<Float>
    let chorusInput: UnsafeMutablePointer<Float>
    var reverb: Reverb
    var chorus: Chorus
    var reverbGate: IdleGate
    var chorusGate: IdleGate
    /// The returns of a block being faded out, `maxFrameCount` frames each.
    let fadingLeft: UnsafeMutablePointer<Float>
    let fadingRight: UnsafeMutablePointer<Float>
    let fadeFrameCount: Int
    /// Where a fade starts (`FrameTime.max`: no fade); it ends `fadeFrameCount` frames later.
    var fadeStart = FrameTime.max

    init(sampleRate: Double, maxFrameCount: Int) {
        reverbInput = .allocate(capacity: maxFrameCount)
        reverbInput.initialize(repeating: 0, count: maxFrameCount)
        chorusInput = .allocate(capacity: maxFrameCount)
        chorusInput.initialize(repeating: 0, count: maxFrameCount)
        reverb = Reverb(sampleRate: sampleRate, maxFrameCount: maxFrameCount, preset: .mediumRoom, mixPercent: 100)
        reverb.setDamping(0)
        reverb.setDecay(seconds: Self.reverbDecaySeconds)
        chorus = Chorus(sampleRate: sampleRate, level: Self.chorusLevel)
        reverbGate = IdleGate(idleFrameCount: Int(Self.reverbIdleSeconds * sampleRate))
        chorusGate = IdleGate(idleFrameCount: chorus.idleFrameCount)
        // Written now, so that no page of them is first touched (faulted in) on the audio thread.
        fadingLeft = .allocate(capacity: maxFrameCount)
        fadingLeft.initialize(repeating: 0, count: maxFrameCount)
        fadingRight = .allocate(capacity: maxFrameCount)
        fadingRight.initialize(repeating: 0, count: maxFrameCount)
        fadeFrameCount = max(1, Int(ClickFreeFade.seconds * sampleRate))
    }

    func deallocate() {
        reverbInput.deallocate()
        chorusInput.deallocate()
        reverb.deallocate()
        chorus.deallocate()
        fadingLeft.deallocate()
        fadingRight.deallocate()
    }

    /// Fades both returns out from frame `start` on, then empties the reverb and the chorus at the
    /// end of the block where the fade ends (anything sent in that block after the fade is lost).
    @_noAllocation @_noLocks
    mutating func fadeOut(from start: FrameTime) {
        if reverbGate.isRunning || chorusGate.isRunning { fadeStart = min(fadeStart, start) }
    }

    /// Empties both inputs for a block the voices are about to send into.
    @_noAllocation @_noLocks
    func clearInputs(frameCount: Int) {
        reverbInput.update(repeating: 0, count: frameCount)
        chorusInput.update(repeating: 0, count: frameCount)
    }

    /// Runs both effects over the block's inputs and adds their returns into `left` and `right`;
    /// `frameTime` is the block's first frame in the stream.
    @_noAllocation @_noLocks
    mutating func process(addingTo left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>,
                          frameCount: Int, frameTime: FrameTime) {
        guard fadeStart < frameTime + FrameTime(frameCount) else {
            runEffects(addingTo: left, right: right, frameCount: frameCount, frameTime: frameTime)
            return
        }
        fadingLeft.update(repeating: 0, count: frameCount)
        fadingRight.update(repeating: 0, count: frameCount)
        runEffects(addingTo: fadingLeft, right: fadingRight, frameCount: frameCount, frameTime: frameTime)
        let step = 1 / Float(fadeFrameCount)
        for frame in 0..<frameCount {
            let time = frameTime + FrameTime(frame)
            let gain = time < fadeStart ? 1 : Float(max(fadeFrameCount - Int(time - fadeStart), 0)) * step
            left[frame] += fadingLeft[frame] * gain
            right[frame] += fadingRight[frame] * gain
        }
        if frameTime + FrameTime(frameCount) >= fadeStart + FrameTime(fadeFrameCount) {
            fadeStart = .max
            reverb.reset()
            chorus.reset()
            reverbGate.isRunning = false
            chorusGate.isRunning = false
        }
    }

    @_noAllocation @_noLocks
    mutating func runEffects(addingTo left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>,
                             frameCount: Int, frameTime: FrameTime) {
        var start = 0
        while let stretch = reverbGate.nextStretch(of: reverbInput, from: &start, frameCount: frameCount) {
            if stretch.starts { reverb.reset() }
            reverb.processSend(reverbInput + stretch.start, addingTo: left + stretch.start, right: right + stretch.start,
                               level: Self.reverbLevel, frameCount: stretch.count)
        }
        start = 0
        while let stretch = chorusGate.nextStretch(of: chorusInput, from: &start, frameCount: frameCount) {
            if stretch.starts { chorus.reset() }
            chorus.process(chorusInput + stretch.start, addingTo: left + stretch.start, right: right + stretch.start,
                           frameCount: stretch.count, frameTime: frameTime + FrameTime(stretch.start))
        }
    }
}

/// Tells an effect which frames of a block it must run: from the first frame of input that is not
/// zero until `idleFrameCount` frames of zeros in a row have gone in, after which the effect's
/// output no longer matters (or is exactly zero) and it may be skipped. The decision is taken frame
/// by frame, so it falls on the same frame whatever the block size.
struct IdleGate {
    let idleFrameCount: Int
    var isRunning = false
    /// Zero-input frames in a row while running.
    var silentFrameCount = 0

    init(idleFrameCount: Int) { self.idleFrameCount = max(1, idleFrameCount) }

    /// The next stretch of `input` at or after `start` (which it advances) that the effect must
    /// run, and whether the effect starts afresh there (it was idle); nil when nothing of the block
    /// is left to run.
    @_noAllocation @_noLocks
    mutating func nextStretch(of input: UnsafePointer<Float>, from start: inout Int,
                              frameCount: Int) -> (start: Int, count: Int, starts: Bool)? {
        guard start < frameCount else { return nil }
        var first = start
        var starts = false
        if !isRunning {
            while first < frameCount && input[first] == 0 { first += 1 }
            guard first < frameCount else { start = frameCount; return nil }
            isRunning = true
            silentFrameCount = 0
            starts = true
        }
        var end = first
        while end < frameCount {
            if input[end] == 0 {
                silentFrameCount += 1
                if silentFrameCount >= idleFrameCount {
                    end += 1
                    isRunning = false
                    break
                }
            } else {
                silentFrameCount = 0
            }
            end += 1
        }
        start = end
        return (first, end - first, starts)
    }
}
