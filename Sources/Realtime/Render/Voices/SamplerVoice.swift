import DSP
import Synchronization

/// One sounding zone of a sampled note: reads its sample with 4-point interpolation, through the
/// volume envelope, the modulation envelope and LFOs, the resonant low-pass and constant-power pan.
///
/// Plain data in a pool allocated once; starting a voice copies numbers from a `SamplerRegion`.
/// Pitch, filter and gains are computed once per control block (≤ `controlBlockFrameCount`
/// frames); gains ramp across the block, so nothing steps. The `Sampler` renders voices eight at a
/// time (`prepare`, a SIMD read, an eight-lane filter and mix, `finish`) so they share SIMD lanes.
struct SamplerVoice {
    /// Frames between control-rate updates: one render quantum, so that the updates fall on a grid
    /// anchored to frame 0 (`RenderQuantum`), whatever the block size.
    static var controlBlockFrameCount: Int {
        @_noAllocation @_noLocks get { RenderQuantum.frameCount }
    }

    enum Interpolation: UInt8 {
        case linear, cubic
        /// A plain Bool to branch on: comparing enums with `==` goes through a generic witness the
        /// real-time checker rejects in unoptimised builds.
        var isCubic: Bool {
            @_noAllocation @_noLocks get { if case .cubic = self { true } else { false } }
        }
    }

    // Identity
    var isActive = false
    var channel: UInt8 = 0
    var key: UInt8 = 0
    /// Increases with every note-on: smaller is older.
    var noteSerial: UInt64 = 0
    /// The serial of the first voice its note-on (or key release) started: the voices one start
    /// made, a stereo sample's two or a layered region's, share it.
    var startSerial: UInt64 = 0
    var bankSlot = 0
    /// The class whose start cuts this voice off (`SamplerRegion.offBy`), and how.
    var offBy: UInt16 = 0
    var cutOffByRelease = false
    /// The key is up (note-off seen, not held by the pedal).
    var isReleased = false
    /// Note-off arrived while the sustain pedal was down; released when it comes up.
    var isHeldByPedal = false
    var isPercussion = false
    /// Its key was down when the sostenuto pedal went down: a note-off while that pedal is down
    /// holds it (`isHeldBySostenuto`).
    var isCaughtBySostenuto = false
    /// Note-off arrived while the sostenuto pedal that caught it was down; released when it comes up.
    var isHeldBySostenuto = false
    /// The frame its note-on took effect, for the minimum note length.
    var noteOnFrame: FrameTime = 0
    /// Its note-off came before the minimum note length: it is released at this frame
    /// (`FrameTime.max`: no release pending).
    var heldReleaseFrame = FrameTime.max
    /// Its sample's cells in a bank with residency (`SampleResidency`: the frontier first), else
    /// nil: set at note-on, the frontier read before each block, the users cell counted down when
    /// the voice ends. It fills the first cache line: the fields
    /// above are what the audio thread reads of every voice between segments, and rendering
    /// (perhaps on a voice worker) writes none of them but `isActive`, as the voice ends; the
    /// fields below are what rendering writes. Apart, the audio thread's scans do not take lines
    /// from a worker's cache, nor a worker's writes from the audio thread's (`VoiceLayoutTests`
    /// holds the layout to it).
    var sampleFrontier: UnsafePointer<Atomic<Int>>? = nil

    // Sample playback
    var samples: SampleFrames? = nil
    var position: Double = 0
    var end = 0
    var loopStart = 0
    var loopEnd = 0
    var isLooping = false
    var releaseEndsLoop = false
    /// The zone's own pitch relative to its sample, in cents (key, root, tuning).
    var pitchCents: Double = 0
    /// Recorded rate over engine rate.
    var rateRatio: Double = 1

    // Modulators: the region's list in its bank (alive while the voice sounds), what they read
    // of the note, and the channel's controller serial they were last evaluated at.
    var region: UnsafePointer<SamplerRegion>? = nil
    var modulators: UnsafePointer<SamplerModulator>? = nil
    var modulatorCount = 0
    var playedKey: UInt8 = 0
    var playedVelocity: UInt8 = 0
    var controllerSerial: UInt32 = 0
    /// Added to the region's attenuation for this note alone: a release-triggered region's decay
    /// over the time its key was held (`SamplerRegion.releaseDecayCentibelsPerSecond`).
    var attenuationOffsetCentibels: Float = 0
    /// This note's own draw of the cutoff (`SamplerRegion.randomCutoffCents`), in cents.
    var randomCutoffCents: Float = 0
    /// The modulators' pitch change (pitch wheel by default), in cents.
    var modulatedPitchCents: Float = 0

    // Level, pan, sends
    /// Initial attenuation plus the modulators' (velocity, CC7, CC11 by default), 0…1440 cB.
    var attenuationCentibels: Float = 0
    var pan: Float = 0
    var gainLeft: Float = 0
    var gainRight: Float = 0
    /// The share of the voice sent to the reverb and the chorus buses, 0…1 (the region's send
    /// generators plus the modulators': CC91 and CC93 by default).
    var reverbSend: Float = 0
    var chorusSend: Float = 0
    /// The send gains reached at the end of the last block, as `gainLeft`/`gainRight` for the dry mix.
    var gainReverb: Float = 0
    var gainChorus: Float = 0
    /// Linear fade for stolen / stopped voices: 1 normally; steps to 0 when `fadeStep` < 0.
    var fadeGain: Float = 1
    /// Frames left before the region starts (SFZ `delay`); counted down a control block at a time.
    var waitingFrames: Int32 = 0
    var fadeStep: Float = 0

    // Modulation
    var volumeEnvelope = EnvelopeGenerator(linear: false)
    var modulationEnvelope = EnvelopeGenerator(linear: true)
    var modulationLFO = VoiceLFO()
    var vibratoLFO = VoiceLFO()
    var modulationEnvelopeToPitch: Float = 0
    var modulationEnvelopeToCutoff: Float = 0
    var modulationLFOToPitch: Float = 0
    var modulationLFOToCutoff: Float = 0
    var modulationLFOToVolume: Float = 0
    var vibratoLFOToPitch: Float = 0

    // Values derived at control rate, kept so an unchanged input costs no exponentials.
    var lastCents: Double = .nan
    var lastIncrement: Double = 0
    var lastCutoffCents: Float = .nan
    var lastCutoffHertz: Float = 0
    var lastLevelCentibels: Float = .nan
    var lastLevel: Float = 0
    var lastPan: Float = .nan
    var lastPanLeft: Float = 0
    var lastPanRight: Float = 0

    // Filter
    var filter = VoiceFilter()
    var filterKind = VoiceFilter.Kind.lowPass2
    var cutoffCents: Float = 13_500
    var filterQ = VoiceFilter.butterworthQ
    var filterPassbandGain: Float = 1

    // SFZ 2 flex modulation
    /// The voice slot's flex state (`FlexVoiceState`), given by the pool; nil for a voice outside one.
    var flex: UnsafeMutablePointer<FlexVoiceState>? = nil
    /// The region has flex envelopes or LFOs, and `flex` runs them.
    var runsFlex = false
    /// The voice slot's filter stages (`VoiceFilterStages`), given by the pool; nil for a voice
    /// outside one.
    var filterStages: UnsafeMutablePointer<VoiceFilterStages>? = nil
    /// The region has an equalizer band with a gain, and `filterStages` runs it.
    var runsEqualizer = false
    /// The region has a second filter, and `filterStages` runs it.
    var runsSecondFilter = false
    /// The resonance before the flex routes move it, in centibels, for the Q they move.
    var resonanceCentibels: Float = 0
    // The fields end on a whole cache line (ten), so the next voice's first line starts on a line
    // of its own; a field added or removed must keep that (`VoiceLayoutTests`), with this padding.
    private var cacheLinePadding: (Int64, Int64) = (0, 0)

    /// Output level right now (envelope × fade × attenuation), for stealing decisions. A voice that
    /// has not rendered yet (envelope still at 0) skips the exponential: a burst of note-ons starts
    /// and steals such voices again and again.
    var currentLevel: Float {
        @_noAllocation @_noLocks get {
            volumeEnvelope.currentValue == 0 ? 0 : volumeEnvelope.currentValue * fadeGain * centibelsToAmplitude(attenuationCentibels)
        }
    }

    /// Sets the voice up for `region` of a bank (whose sample pool is `samples` and modulator table
    /// `modulators`) and the note, on `channel` whose controllers are `state`. `engineRate` is the
    /// output rate.
    @_noAllocation @_noLocks
    mutating func start(region pointer: UnsafePointer<SamplerRegion>, samples: SampleFrames,
                        modulators: UnsafePointer<SamplerModulator>, key: UInt8, velocity: UInt8,
                        channel: UInt8, state: UnsafePointer<ChannelState>, engineRate: Double,
                        attenuationOffsetCentibels: Float = 0) {
        // Read in place: the region is a few hundred bytes, and a burst starts thousands of voices.
        var region: SamplerRegion { pointer.pointee }
        isActive = true
        self.channel = channel
        self.key = key
        offBy = region.offBy
        cutOffByRelease = region.cutOffByRelease
        isReleased = false
        isHeldByPedal = false
        self.samples = samples
        position = Double(region.start)
        end = region.end
        loopStart = region.loopStart
        loopEnd = region.loopEnd
        switch region.loopMode {
        case .none, .oneShot: isLooping = false; releaseEndsLoop = false
        case .continuous: isLooping = true; releaseEndsLoop = false
        case .untilRelease: isLooping = true; releaseEndsLoop = true
        }
        // SF2 keynum and velocity generators override what the note brings.
        let playedKey = region.fixedKey >= 0 ? UInt8(min(region.fixedKey, 127)) : key
        let playedVelocity = region.fixedVelocity >= 0 ? UInt8(min(region.fixedVelocity, 127)) : velocity
        pitchCents = (Double(playedKey) - region.rootKey) * region.centsPerKey + region.tuneCents
        rateRatio = region.sampleRate / engineRate

        self.region = pointer
        self.modulators = modulators + Int(region.firstModulator)
        modulatorCount = Int(region.modulatorCount)
        self.playedKey = playedKey
        self.playedVelocity = playedVelocity
        self.attenuationOffsetCentibels = attenuationOffsetCentibels
        randomCutoffCents = 0
        let sums = applyModulators(channel: state)
        if sums.movesSampleAddresses { moveSampleAddresses(by: sums) }
        // A loop shorter than the interpolator's reach (as stored, or as the modulators moved it)
        // cannot be played cleanly; play it once.
        if loopEnd <= loopStart + 2 { isLooping = false }
        filter.reset()
        filterKind = region.filterKind
        lastCents = .nan
        lastCutoffCents = .nan
        lastLevelCentibels = .nan
        lastPan = .nan
        gainLeft = 0
        gainRight = 0
        gainReverb = 0
        gainChorus = 0
        fadeGain = 1
        fadeStep = 0

        // Timing is fixed at note-on: modulators move it only here (SF2 units: timecents, cB, 0.1 %).
        waitingFrames = Int32(min(region.startDelaySeconds * engineRate, Double(Int32.max)))
        let volume = region.volumeEnvelope.adding(region.volumeEnvelopeVelocity, times: Double(playedVelocity) / 127)
        let volumeChange = sums.volEnvSeconds
        let volumeSustain = volumeChange.sustain == 0 ? volume.sustainLevel : min(1, max(0, volume.sustainLevel + Double(volumeChange.sustain)))
        volumeEnvelope.start(
            delay: modulatedSeconds(EnvelopeChange.seconds(volume.delay, adding: volumeChange.delay), timecents: sums.volEnvDelay),
            attack: modulatedSeconds(EnvelopeChange.seconds(volume.attack, adding: volumeChange.attack), timecents: sums.volEnvAttack),
            hold: modulatedSeconds(EnvelopeChange.seconds(volume.hold(key: playedKey), adding: volumeChange.hold), timecents: sums.volEnvHold),
            decay: modulatedSeconds(EnvelopeChange.seconds(volume.decay(key: playedKey), adding: volumeChange.decay), timecents: sums.volEnvDecay),
            sustainLevel: sums.volEnvSustain == 0 ? volumeSustain
                : min(1, volumeSustain * Double(centibelsToAmplitude(max(-1_440, min(1_440, sums.volEnvSustain))))),
            release: modulatedSeconds(EnvelopeChange.seconds(volume.release, adding: volumeChange.release), timecents: sums.volEnvRelease),
            sampleRate: engineRate)
        let modulation = region.modulationEnvelope.adding(region.modulationEnvelopeVelocity, times: Double(playedVelocity) / 127)
        let modulationChange = sums.modEnvSeconds
        modulationEnvelope.start(
            delay: modulatedSeconds(EnvelopeChange.seconds(modulation.delay, adding: modulationChange.delay), timecents: sums.modEnvDelay),
            attack: modulatedSeconds(EnvelopeChange.seconds(modulation.attack, adding: modulationChange.attack), timecents: sums.modEnvAttack),
            hold: modulatedSeconds(EnvelopeChange.seconds(modulation.hold(key: playedKey), adding: modulationChange.hold), timecents: sums.modEnvHold),
            decay: modulatedSeconds(EnvelopeChange.seconds(modulation.decay(key: playedKey), adding: modulationChange.decay), timecents: sums.modEnvDecay),
            sustainLevel: min(1, max(0, modulation.sustainLevel + Double(modulationChange.sustain) - Double(sums.modEnvSustain) / 1_000)),
            release: modulatedSeconds(EnvelopeChange.seconds(modulation.release, adding: modulationChange.release), timecents: sums.modEnvRelease),
            sampleRate: engineRate)
        modulationLFO.start(delay: modulatedSeconds(region.modulationLFO.delay, timecents: sums.modLfoDelay),
                            frequency: region.modulationLFO.frequency * centsToRatio(Double(sums.modLfoFrequency)),
                            sampleRate: engineRate, fade: region.modulationLFO.fade, shape: region.modulationLFO.shape)
        vibratoLFO.start(delay: modulatedSeconds(region.vibratoLFO.delay, timecents: sums.vibLfoDelay),
                         frequency: region.vibratoLFO.frequency * centsToRatio(Double(sums.vibLfoFrequency)),
                         sampleRate: engineRate, fade: region.vibratoLFO.fade, shape: region.vibratoLFO.shape)
        runsEqualizer = filterStages != nil && region.equalizer.isActive
        runsSecondFilter = filterStages != nil && region.secondFilter.isActive
        setFilterStages(channel: state, sampleRate: engineRate, reset: true)
        runsFlex = false
        if !region.flex.isEmpty, let flex {
            runsFlex = true
            flex.pointee.start(region.flex, controllers: state.pointee.controllers, sampleRate: engineRate, seed: noteSerial)
            if region.flex.amplitudeEnvelope >= 0 {
                // The flex envelope takes the amplitude envelope's place (`egN_ampeg`): this one
                // stays at full level, and the voice ends when the flex envelope does.
                volumeEnvelope.start(delay: 0, attack: 0, hold: 0, decay: 0, sustainLevel: 1, release: 100, sampleRate: engineRate)
            }
        }
    }

    /// Makes this fade slot's voice a copy of `voice`, its flex state with it (each slot keeps its
    /// own state: the copy's pointer stays this slot's).
    @_noAllocation @_noLocks
    mutating func copyForFade(of voice: UnsafePointer<SamplerVoice>) {
        let ownFlex = flex, ownStages = filterStages
        self = voice.pointee
        flex = ownFlex
        filterStages = ownStages
        if voice.pointee.runsFlex, let ownFlex, let theirs = voice.pointee.flex { ownFlex.pointee = theirs.pointee } else { runsFlex = false }
        if voice.pointee.runsEqualizer || voice.pointee.runsSecondFilter, let ownStages, let theirs = voice.pointee.filterStages {
            ownStages.pointee = theirs.pointee
        } else {
            runsEqualizer = false
            runsSecondFilter = false
        }
    }

    /// The key went up (or the pedal that held it did).
    @_noAllocation @_noLocks
    mutating func release() {
        isReleased = true
        isHeldByPedal = false
        isHeldBySostenuto = false
        volumeEnvelope.release()
        modulationEnvelope.release()
        if runsFlex, let flex { flex.pointee.isReleased = true }
        if releaseEndsLoop { isLooping = false }
    }

    /// Fades to silence over `seconds` (`ClickFreeFade.seconds` by default) and ends: for stolen
    /// voices and all-sound-off, and a voice its group cuts off (SFZ `off_time`).
    @_noAllocation @_noLocks
    mutating func fadeOut(sampleRate: Double, seconds: Double = ClickFreeFade.seconds) {
        isReleased = true
        fadeStep = -Float(1 / (max(seconds, ClickFreeFade.seconds) * sampleRate))
    }

}
