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

    /// Moves the sample's start, end and loop by what the modulators on the address offsets give at
    /// note-on, kept inside the sample as the loader keeps the generators' offsets.
    @_noAllocation @_noLocks
    mutating func moveSampleAddresses(by sums: ModulatorSums) {
        guard let region, region.pointee.sampleEnd > region.pointee.sampleStart else { return }
        let first = region.pointee.sampleStart, last = region.pointee.sampleEnd
        // Int(_:) truncates toward zero, as FluidSynth truncates the summed offsets.
        func moved(_ frame: Int, by frames: Float, within bounds: ClosedRange<Int>) -> Int {
            min(max(frame + Int(frames), bounds.lowerBound), bounds.upperBound)
        }
        let start = moved(region.pointee.start, by: sums.startFrames, within: first...last)
        end = moved(region.pointee.end, by: sums.endFrames, within: start...last)
        loopStart = moved(region.pointee.loopStart, by: sums.loopStartFrames, within: start...end)
        loopEnd = moved(region.pointee.loopEnd, by: sums.loopEndFrames, within: start...end)
        position = Double(start)
    }

    /// Evaluates the voice's modulators against `state` and sets everything they may move while the
    /// note sounds (level, pan, filter, pitch, modulation depths, sends) from the region's values
    /// plus their outputs; returns the sums, for `start` to set the timing with. Called at note-on
    /// and whenever the channel's controller serial has moved since.
    @_noAllocation @_noLocks @discardableResult
    mutating func applyModulators(channel state: UnsafePointer<ChannelState>) -> ModulatorSums {
        controllerSerial = state.pointee.controllerSerial
        guard let region, let modulators else { return ModulatorSums() }
        var sources = state.pointee.modulatorSources(key: playedKey, velocity: playedVelocity, pressedKey: key)
        sources.curves = UnsafePointer(bitPattern: region.pointee.curveTableAddress)
        let sums = ModulatorSums(modulators, count: modulatorCount, sources: sources)
        let base = region
        // The SF2 ranges (§8.1.3), applied to the sums as FluidSynth applies them.
        attenuationCentibels = min(max(base.pointee.attenuationCentibels + attenuationOffsetCentibels + sums.attenuation,
                                       base.pointee.leastAttenuationCentibels), 1_440)
        pan = base.pointee.pan + sums.pan / 500
        pan += SamplerRegion.stereoPan(side: base.pointee.stereoSide, width: sums.width / 100, position: sums.position / 100)
        cutoffCents = base.pointee.filterCutoffCents + sums.cutoff + randomCutoffCents
        let resonance = min(max(base.pointee.filterResonanceCentibels + sums.resonance, 0), 960)
        resonanceCentibels = resonance
        filterQ = Self.filterQ(resonanceCentibels: resonance)
        // SF2.04 §8.1.3 (initialFilterQ): "the gain at DC is reduced by half the specified gain":
        // a 10 dB peak stands 5 dB above unity, the passband 5 dB below it. FluidSynth lowers its
        // gain by √q, the same half of the peak in dB, but of a q it has already taken 3.01 dB off,
        // which leaves every FluidSynth voice 1.5 dB above unity whatever its resonance. That
        // departs from the spec and is the same for every voice (a song's balance does not move,
        // only its overall level), so it is not copied: no resonance is unity gain here.
        filterPassbandGain = centibelsToAmplitude(resonance / 2)
        modulatedPitchCents = sums.pitch
        modulationEnvelopeToPitch = base.pointee.modulationEnvelopeToPitchCents + sums.modEnvToPitch
        modulationEnvelopeToCutoff = base.pointee.modulationEnvelopeToCutoffCents + sums.modEnvToCutoff
        modulationLFOToPitch = base.pointee.modulationLFOToPitchCents + sums.modLfoToPitch
        modulationLFOToCutoff = base.pointee.modulationLFOToCutoffCents + sums.modLfoToCutoff
        modulationLFOToVolume = base.pointee.modulationLFOToVolumeCentibels + sums.modLfoToVolume
        vibratoLFOToPitch = base.pointee.vibratoLFOToPitchCents + sums.vibLfoToPitch
        reverbSend = min(max(base.pointee.reverbSend + sums.reverbSend / 1_000, 0), 1)
        chorusSend = min(max(base.pointee.chorusSend + sums.chorusSend / 1_000, 0), 1)
        return sums
    }

    /// Sets the second filter and the equalizer the voice runs from its region, the note and the
    /// channel's controllers: at the note-on (`reset`: their state at rest) and when a controller
    /// moves.
    @_noAllocation @_noLocks
    mutating func setFilterStages(channel state: UnsafePointer<ChannelState>, sampleRate: Double, reset: Bool) {
        guard runsEqualizer || runsSecondFilter, let filterStages, let region else { return }
        if runsEqualizer {
            filterStages.pointee.setEqualizer(region.pointee.equalizer, velocity: playedVelocity, controllers: state.pointee.controllers,
                                              sampleRate: sampleRate, reset: reset)
        }
        if runsSecondFilter {
            filterStages.pointee.setSecondFilter(region.pointee.secondFilter, key: playedKey, velocity: playedVelocity,
                                                 controllers: state.pointee.controllers,
                                                 curves: UnsafePointer(bitPattern: region.pointee.curveTableAddress), sampleRate: sampleRate, reset: reset)
        }
    }

    /// The filter's Q for a resonance of `resonanceCentibels` (0…960): Q in dB = cB/10 − 3.01, as
    /// FluidSynth has it, so 0 cB is a Butterworth filter, no peak; exactly `butterworthQ` at 0, so
    /// an unresonant voice is not taken for a resonant one.
    @_noAllocation @_noLocks
    static func filterQ(resonanceCentibels resonance: Float) -> Float {
        resonance > 0 ? centibelsToAmplitude(-(resonance - 30.1)) : VoiceFilter.butterworthQ
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

    /// The result of a voice's control-rate update for one block: whether it is still reading its
    /// sample and how many frames it read, whether its filter runs, and its left/right and send
    /// gains ramped across the block.
    struct ControlBlock {
        @_noAllocation @_noLocks init() {}
        var isReading = false
        /// The voice's next frames are not yet decoded (`sampleFrontier`): it ends, silent, and
        /// the sampler counts an underrun.
        var isStarved = false
        /// A voice still waiting out its region's start delay: silent, and not at its end.
        var isWaiting = false
        var produced = 0
        var filterActive = false
        var leftStart: Float = 0, leftStep: Float = 0
        var rightStart: Float = 0, rightStep: Float = 0
        var reverbStart: Float = 0, reverbStep: Float = 0
        var chorusStart: Float = 0, chorusStep: Float = 0
        /// What the voice's frames are multiplied by to reach full scale: its pool's
        /// `SampleEncoding.scale`, which the sampler folds into the lane's gains.
        var sampleScale: Float = 1
        /// Between `prepare` and `complete`: the pitch, cutoff and attenuation the block ends at,
        /// whose exponentials the group's lanes compute together (`LaneControlMath`), and the
        /// level's other factors.
        var cents: Double = 0
        var cutoffCents: Float = 0
        var levelCentibels: Float = 0
        var envelopeStart: Float = 0, envelopeEnd: Float = 0
        var amplitude: Float = 1
        var pan: Float = 0
        /// `prepare` left the rest of the update to `complete`.
        var isPending = false
        /// `complete` left the two-pole filter's coefficients to `setFilter(sine:cosine:)`, at this
        /// cutoff in turns of the rate.
        var setsFilter = false
        var filterTurns: Double = 0
        /// Whether the voice reaches the reverb or the chorus bus anywhere in the block.
        var sendsReverb: Bool { @_noAllocation @_noLocks get { reverbStart != 0 || reverbStep != 0 } }
        var sendsChorus: Bool { @_noAllocation @_noLocks get { chorusStart != 0 || chorusStep != 0 } }
    }

    /// Runs the control-rate update for the next `frameCount` (≤ `controlBlockFrameCount`) frames,
    /// in two steps around the exponentials, which the group computes for its lanes together
    /// (`LaneControlMath`): a moving voice needs three every block, each a chain of dependent
    /// steps, and eight lanes take about the time of one. `prepare` steps the envelopes, LFOs and
    /// modulators and leaves in `block` the pitch, cutoff and attenuation the block ends at;
    /// `complete` takes their exponentials and sets `lastIncrement` (the read speed), the filter
    /// and the block's gains. Envelope, fade and pan are evaluated at the block's ends and ramped
    /// linearly across it: at most 64 frames (1.3 ms) of granularity. The caller then reads the
    /// sample (the group's SIMD reader, then `readSample` for frames near a boundary), filters when
    /// `filterActive`, mixes, and calls `finish`.
    /// `state` is a pointer because copying the channel's state for every voice every block costs
    /// more than the few fields read from it.
    @_noAllocation @_noLocks
    mutating func prepare(frameCount: Int, channel state: UnsafePointer<ChannelState>, sampleRate: Double,
                          into block: inout ControlBlock) {
        block = ControlBlock()
        guard let samples else { return }
        if waitingFrames > 0 {
            waitingFrames -= Int32(frameCount)
            block.isWaiting = true
            return
        }
        block.isReading = true
        block.sampleScale = samples.encoding.scale
        if state.pointee.controllerSerial != controllerSerial {
            applyModulators(channel: state)
            setFilterStages(channel: state, sampleRate: sampleRate, reset: false)
        }
        // Modulators with no destination are not stepped: most zones route none of them.
        var modulationDepth: Float = 0
        if modulationEnvelopeToPitch != 0 || modulationEnvelopeToCutoff != 0 {
            modulationDepth = modulationEnvelope.currentValue
            _ = modulationEnvelope.advance(by: frameCount)
        }
        var modulationLFOValue: Float = 0
        if modulationLFOToPitch != 0 || modulationLFOToCutoff != 0 || modulationLFOToVolume != 0 {
            modulationLFOValue = modulationLFO.valueThenAdvance(by: frameCount)
        }
        var vibratoValue: Float = 0
        if vibratoLFOToPitch != 0 {
            vibratoValue = vibratoLFO.valueThenAdvance(by: frameCount)
        }
        // What the flex routes add (nothing, for a voice without them).
        var flexPitch: Float = 0, flexCutoff: Float = 0, flexResonance: Float = 0, flexVolume: Float = 0, flexAmplitude: Float = 1
        var flexPan: Float = 0
        if runsFlex, let flex {
            var flexed = FlexVoiceState.Outputs()
            flex.pointee.advance(by: frameCount, controllers: state.pointee.controllers, sampleRate: sampleRate, into: &flexed)
            flexPitch = flexed.output(.pitch)
            flexCutoff = flexed.output(.cutoff)
            flexResonance = flexed.output(.resonance)
            flexVolume = flexed.output(.volume)
            flexAmplitude = flexed.output(.amplitude)
            flexPan = flexed.output(.pan) + SamplerRegion.stereoPan(side: region?.pointee.stereoSide ?? 0, width: flexed.output(.width),
                                                                    position: flexed.output(.position))
            if runsEqualizer, flex.pointee.movesEqualizer, let filterStages, let region {
                filterStages.pointee.setEqualizer(region.pointee.equalizer, velocity: playedVelocity, controllers: state.pointee.controllers,
                                                  sampleRate: sampleRate, reset: false, moved: flexed.equalizerMoves)
            }
        }
        block.cents = pitchCents + Double(modulatedPitchCents + state.pointee.tuningCents + modulationDepth * modulationEnvelopeToPitch
            + modulationLFOValue * modulationLFOToPitch + vibratoValue * vibratoLFOToPitch + flexPitch)
        block.cutoffCents = cutoffCents + modulationDepth * modulationEnvelopeToCutoff + modulationLFOValue * modulationLFOToCutoff
            + flexCutoff
        if runsFlex, let flex, flex.pointee.movesResonance {
            // As `applyModulators` sets the Q, from the resonance the routes move (SFZ's decibels
            // are ten centibels each); every block, so that a sum back at 0 restores it.
            filterQ = Self.filterQ(resonanceCentibels: min(max(resonanceCentibels + 10 * flexResonance, 0), 960))
        }
        // Level at both ends of the block: envelope × fade × attenuation × pan.
        block.envelopeStart = volumeEnvelope.currentValue * fadeGain
        fadeGain = max(0, fadeGain + fadeStep * Float(frameCount))
        block.envelopeEnd = volumeEnvelope.advance(by: frameCount) * fadeGain
        block.levelCentibels = attenuationCentibels + modulationLFOValue * modulationLFOToVolume - 10 * flexVolume
        block.amplitude = flexAmplitude
        block.pan = min(max(pan + flexPan, -1), 1)
        block.isPending = true
    }

    /// Whether the block's pitch, cutoff or attenuation moved since the last: only then does
    /// `complete` read the exponentials it is given, and only then does the group compute them.
    @_noAllocation @_noLocks
    func moves(_ block: ControlBlock) -> Bool {
        block.cents != lastCents || block.cutoffCents != lastCutoffCents || block.levelCentibels != lastLevelCentibels
    }

    /// The second step of the control update (see `prepare`): `ratio`, `cutoffHertz` and `level` are
    /// `centsToRatio(block.cents)`, `absoluteCentsToHertz(block.cutoffCents)` and
    /// `centibelsToAmplitude(block.levelCentibels)`, read only where they moved. With `sends` false
    /// (effects off) the send gains stay 0 and the voice reaches no effects bus.
    @_noAllocation @_noLocks
    mutating func complete(frameCount: Int, ratio: Double, cutoffHertz: Float, level: Float, sampleRate: Double, sends: Bool,
                           into block: inout ControlBlock) {
        block.isPending = false
        if block.cents != lastCents {
            lastCents = block.cents
            lastIncrement = rateRatio * ratio
        }
        // A sample still being decoded: the block reads up to its loop's end (looping) or a few
        // frames past where it ends, interpolation's reach included. Past what is written, the
        // voice ends here, silent, and is counted: it never reads a frame not yet written.
        if let frontier = sampleFrontier {
            let reach = Int(position + lastIncrement * Double(frameCount)) + 4
            let needed = min(reach, (isLooping ? loopEnd : end) + 2)
            let written = frontier.pointee.load(ordering: .acquiring)
            if written != .max {
                // Where this voice has got to, for the thread that streams the body ahead of it
                // (the furthest of its sample's voices; a lost race only waits a block).
                let reached = frontier.advanced(by: 3)
                if reached.pointee.load(ordering: .relaxed) < needed { reached.pointee.store(needed, ordering: .relaxed) }
            }
            if written < needed {
                block.isReading = false
                block.isStarved = true
                return
            }
        }
        if block.cutoffCents != lastCutoffCents {
            lastCutoffCents = block.cutoffCents
            lastCutoffHertz = block.cutoffCents < 13_500 ? cutoffHertz : .infinity
        }
        // Near Nyquist the filter is inaudible; skipping it saves a large share of a voice's cost.
        // A resonant one still runs there (at its 0.45 × rate clamp): its resonance lowers the
        // passband (`filterPassbandGain`) wherever the cutoff is, as FluidSynth's filter does.
        // Any other kind of filter is heard wherever its cutoff is.
        if lastCutoffHertz < Float(sampleRate) * 0.42 || filterQ > VoiceFilter.butterworthQ || filterKind.rawValue != VoiceFilter.Kind.lowPass2.rawValue {
            if let turns = filter.update(filterKind, cutoff: lastCutoffHertz, q: filterQ, passbandGain: filterPassbandGain,
                                         sampleRate: Float(sampleRate)),
               !filter.setIfOnePole(filterKind, turns: turns, passbandGain: filterPassbandGain) {
                block.setsFilter = true
                block.filterTurns = turns
            }
            block.filterActive = true
        }
        if block.levelCentibels != lastLevelCentibels {
            lastLevelCentibels = block.levelCentibels
            lastLevel = level
        }
        let panned = block.pan
        if panned != lastPan {
            // Constant-power pan: θ from 0 (left) to π/2 (right); cos/sin from the sine kernel.
            lastPan = panned
            let turns = Double(panned + 1) * 0.125
            lastPanLeft = Float(sineOfTurns(turns + 0.25))
            lastPanRight = Float(sineOfTurns(turns))
        }
        let envelopeStart = block.envelopeStart, envelopeEnd = block.envelopeEnd
        let level = lastLevel * block.amplitude
        let targetLeft = level * lastPanLeft
        let targetRight = level * lastPanRight
        block.leftStart = gainLeft * envelopeStart
        block.rightStart = gainRight * envelopeStart
        // One division for both sides (exact for the usual 64-frame block, a power of two).
        let perFrame = 1 / Float(frameCount)
        block.leftStep = (targetLeft * envelopeEnd - block.leftStart) * perFrame
        block.rightStep = (targetRight * envelopeEnd - block.rightStart) * perFrame
        gainLeft = targetLeft
        gainRight = targetRight
        // The sends take the voice before the pan, as FluidSynth's do: the effects have one input.
        guard sends else { return }
        let targetReverb = level * reverbSend, targetChorus = level * chorusSend
        block.reverbStart = gainReverb * envelopeStart
        block.reverbStep = (targetReverb * envelopeEnd - block.reverbStart) * perFrame
        block.chorusStart = gainChorus * envelopeStart
        block.chorusStep = (targetChorus * envelopeEnd - block.chorusStart) * perFrame
        gainReverb = targetReverb
        gainChorus = targetChorus
    }

    /// Sets the two-pole filter `complete` left pending (`ControlBlock.setsFilter`) from the sine
    /// and cosine of its cutoff, which the group computes for its lanes together.
    @_noAllocation @_noLocks
    mutating func setFilter(sine: Float, cosine: Float) {
        filter.setTwoPole(filterKind, sine: sine, cosine: cosine, q: filterQ, passbandGain: filterPassbandGain)
    }

    /// Ends the voice if it ran out of sample, its envelope finished or its fade reached zero.
    @_noAllocation @_noLocks
    mutating func finish(_ block: ControlBlock, frameCount: Int) {
        if block.isWaiting && !isReleased { return }
        if block.produced < frameCount || volumeEnvelope.isFinished || fadeGain <= 0 { isActive = false }
        if runsFlex, let flex, flex.pointee.amplitudeEnvelopeFinished { isActive = false }
    }

    /// Frames (at most `limit`) that can be read at `lastIncrement` without coming within two frames
    /// of the loop end or the sample end: the stretch the group's SIMD reader may take.
    @_noAllocation @_noLocks
    func clearFrameCount(limit: Int) -> Int {
        let boundary = isLooping ? loopEnd : end
        let clear = (Double(boundary - 2) - position) / lastIncrement
        return clear <= 0 ? 0 : min(limit, Int(clear))
    }

    /// Reads up to `frameCount` interpolated frames into `output`, at the pool's stored scale (as
    /// the kernels read them: the sampler's gains carry `SampleEncoding.scale`); returns how many
    /// (fewer when an unlooped sample ends).
    @_noAllocation @_noLocks
    mutating func readSample(into output: UnsafeMutablePointer<Float>, stride: Int, frameCount: Int, increment: Double,
                             interpolation: Interpolation) -> Int {
        guard let samples else { return 0 }
        var index = 0
        while index < frameCount {
            let boundary = isLooping ? loopEnd : end
            let whole = Int(position)
            if whole >= boundary - 2 {
                if !isLooping && whole >= end - 1 { return index }
                // Within two frames of the loop end: read across the wrap point.
                output[index * stride] = sampleAcrossLoop(samples, whole: whole, fraction: Float(position - Double(whole)), interpolation)
                position += increment
                // As many loop lengths as it passed: a step longer than a short loop (a few frames,
                // played octaves up) would otherwise leave the loop for good and read on past it.
                while isLooping && position >= Double(loopEnd) { position -= Double(loopEnd - loopStart) }
                index += 1
                continue
            }
            // Fast path: as many frames as stay clear of the boundary, in 32.32 fixed point —
            // cheaper than converting a Double to an index and a fraction every frame.
            let clear = Int((Double(boundary - 2) - position) / increment)
            let run = max(1, min(frameCount - index, clear))
            let step = UInt64(increment * 4_294_967_296)
            var phase = UInt64(position * 4_294_967_296)
            let scale: Float = 1 / 4_294_967_296
            if interpolation.isCubic {
                for offset in index ..< index + run {
                    let whole = Int(truncatingIfNeeded: phase >> 32)
                    let fraction = Float(UInt32(truncatingIfNeeded: phase)) * scale
                    output[offset * stride] = cubic(samples.stored(whole - 1), samples.stored(whole), samples.stored(whole + 1),
                                                    samples.stored(whole + 2), fraction)
                    phase &+= step
                }
            } else {
                for offset in index ..< index + run {
                    let whole = Int(truncatingIfNeeded: phase >> 32)
                    let fraction = Float(UInt32(truncatingIfNeeded: phase)) * scale
                    output[offset * stride] = samples.stored(whole) + (samples.stored(whole + 1) - samples.stored(whole)) * fraction
                    phase &+= step
                }
            }
            // Keep the Double position exact: advance it by the same fixed-point steps.
            position = Double(phase) / 4_294_967_296
            index += run
        }
        return frameCount
    }

    /// A sample read near the loop end: frames at or past `loopEnd` come from the loop start.
    @_noAllocation @_noLocks
    func sampleAcrossLoop(_ samples: SampleFrames, whole: Int, fraction: Float, _ interpolation: Interpolation) -> Float {
        func at(_ frame: Int) -> Float {
            isLooping && frame >= loopEnd ? samples.stored(loopStart + (frame - loopEnd)) : samples.stored(frame)
        }
        if !interpolation.isCubic { return at(whole) + (at(whole + 1) - at(whole)) * fraction }
        return cubic(at(whole - 1), at(whole), at(whole + 1), at(whole + 2), fraction)
    }
}

/// 4-point, 3rd-order Catmull-Rom (cubic Hermite) interpolation between `y0` and `y1`, factored
/// to nine floating-point operations.
@inline(__always) @_noAllocation @_noLocks
func cubic(_ ym1: Float, _ y0: Float, _ y1: Float, _ y2: Float, _ t: Float) -> Float {
    let slope = (y1 - ym1) * 0.5
    let v = y0 - y1
    let w = slope + v
    let a = w + v + (y2 - y0) * 0.5
    let b = w + a
    return ((a * t - b) * t + slope) * t + y0
}
