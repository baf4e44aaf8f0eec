import DSP

/// One playable zone of a sampled instrument, fully resolved at load time: every SoundFont
/// generator already combined (instrument values absolute, preset values added, ranges
/// intersected) and converted to physical units, so a note-on only copies numbers.
///
/// Plain data, trivially copyable; lives in a `SampleBank`'s region table.
public struct SamplerRegion: Sendable, BitwiseCopyable, Equatable {
    // MARK: Selection
    public var lowKey: UInt8 = 0
    public var highKey: UInt8 = 127
    public var lowVelocity: UInt8 = 0
    public var highVelocity: UInt8 = 127
    /// The keyswitch the region answers to (SFZ `sw_last`): it plays only while the channel's last
    /// keyswitch is this key. `SamplerRegion.anyKeyswitch`: whatever the keyswitch.
    public var keyswitch: UInt8 = SamplerRegion.anyKeyswitch
    /// Round robin (SFZ `seq_length`, `seq_position`): of every `sequenceLength` notes on its key
    /// and channel, the region plays the `sequencePosition`-th (1-based). 1 and 1: every note.
    public var sequenceLength: UInt8 = 1
    public var sequencePosition: UInt8 = 1
    /// Random choice (SFZ `lorand`, `hirand`): the region plays when the note's random number,
    /// drawn once per note in 0..<1, is at least `lowRandom` and below `highRandom`.
    public var lowRandom: Float = 0
    public var highRandom: Float = 1
    /// What starts the region: its key going down, or up (SFZ `trigger`).
    public var trigger: Trigger = .attack
    /// The MIDI channels (0-15) the region answers on (SFZ `lochan`/`hichan`, counted from 1 there).
    public var lowChannel: UInt8 = 0
    public var highChannel: UInt8 = 15
    /// Controller ranges the region plays within (SFZ `loccN`/`hiccN`): up to two controllers, each
    /// checked at the note-on; `ControllerRange.any` for none.
    public var firstControllerRange = ControllerRange.any
    public var secondControllerRange = ControllerRange.any
    /// A controller that starts the region when it moves into the range (SFZ `on_loccN`,
    /// `on_hiccN`: a piano's pedal noise), at its recorded pitch and full level, whatever key is
    /// down; `ControllerRange.any` for none. Its key range says whether notes start it too.
    public var controllerTrigger = ControllerRange.any
    /// A release-triggered region's loss of level per second its key was held, in centibels
    /// (SFZ `rt_decay`, dB/s × 10): a piano's release noise is quieter after a long note.
    public var releaseDecayCentibelsPerSecond: Float = 0
    /// Each note's own draw (SFZ `*_random`), from the renderer's fixed sequence, so a render is
    /// the same every time: up to this much louder, in decibels (`amp_random`).
    public var randomLouderDecibels: Float = 0
    /// Up to this many cents sharper or flatter (`pitch_random`).
    public var randomPitchCents: Float = 0
    /// Up to this many frames later into the sample, at the pool's rate (`offset_random`).
    public var randomOffsetFrames: Int32 = 0
    /// Up to this many seconds later (`delay_random`).
    public var randomDelaySeconds: Float = 0
    /// How long a voice of the region takes to fade out when its group cuts it off (SFZ
    /// `off_time`), in seconds; 0: at once (`cutOffByRelease` false) or through its release.
    public var offSeconds: Float = 0
    /// Up to this many cents higher or lower cutoff (`fil_random`).
    public var randomCutoffCents: Float = 0
    /// Whether a note draws any of the above.
    /// - Thread: any.
    @inlinable public var drawsRandomly: Bool {
        @_noAllocation @_noLocks get {
            randomLouderDecibels != 0 || randomPitchCents != 0 || randomOffsetFrames != 0 || randomDelaySeconds != 0 || randomCutoffCents != 0
        }
    }

    // MARK: Sample (indices into `SampleBank.samples`, in frames of the bank's mono pool)
    /// First frame played.
    public var start: Int = 0
    /// One past the last frame played (without a loop).
    public var end: Int = 0
    /// First frame of the loop.
    public var loopStart: Int = 0
    /// One past the last frame of the loop: the frame after `loopEnd - 1` is `loopStart`.
    public var loopEnd: Int = 0
    /// The whole sample's first frame and one past its last: how far a SoundFont modulator on the
    /// sample address offsets may move the four above at note-on. Equal (the default): they stay.
    public var sampleStart: Int = 0
    public var sampleEnd: Int = 0
    /// Which of its bank's samples the region plays, for the bank's `SampleResidency`: a note
    /// starts the region only once that sample is in memory. -1 (the default): the region's
    /// frames are always there, as in a bank whose loader decoded everything before handing it over.
    public var sampleIndex: Int32 = -1
    /// Frames in one step of a SoundFont coarse address offset (SF2 §8.1.3), for the generators
    /// the loader applies and the modulators a voice applies.
    /// - Thread: any.
    public static var coarseAddressOffsetFrames: Int {
        @_noAllocation @_noLocks get { 32_768 }
    }
    public var loopMode: LoopMode = .none
    /// The rate the sample was recorded at, in frames per second.
    public var sampleRate: Double = 48_000

    // MARK: Pitch
    /// The key at which the sample plays at its recorded pitch (SF2 overridingRootKey or the
    /// sample's original pitch).
    public var rootKey: Double = 60
    /// Cents of pitch change per key away from `rootKey` (SF2 scaleTuning; 100 is normal).
    public var centsPerKey: Double = 100
    /// Fixed transposition in cents: coarse tune × 100 + fine tune + the sample's pitch correction.
    public var tuneCents: Double = 0

    // MARK: Level and placement
    /// Initial attenuation in centibels (0 = full level): for a SoundFont, its initialAttenuation
    /// as the loader scales it (`SoundFontLoader.Options.attenuationScale`). It may lie outside
    /// 0…1440: a voice clamps it to that range only after its modulators add to it.
    public var attenuationCentibels: Float = 0
    /// The least attenuation a voice of the region reaches once its modulators have added theirs:
    /// 0 for SF2, whose range is 0…1440 cB; below 0 for SFZ, whose `volume` (up to +48 dB) boosts.
    public var leastAttenuationCentibels: Float = 0
    /// -1 (left) … +1 (right); SF2 pan -500…500 maps to -1…1.
    public var pan: Float = 0
    /// The velocity curve the region's level follows (SFZ `amp_velcurve_N`): an index into its
    /// bank's `curves`, whose gain for the note's velocity is fixed at note-on; -1 for none (the
    /// velocity modulator sets the level).
    public var velocityCurve: Int32 = -1
    /// Where its bank's `curves` are, as an address (0 for none), which `SampleBank` sets: what a
    /// modulator that reads a curve (`SamplerModulator.curve`) reads it from. An address rather
    /// than a pointer keeps the region a plain, sendable value.
    public var curveTableAddress: UInt = 0
    /// Key and velocity crossfades (SFZ): a gain fixed at note-on.
    public var crossfade = Crossfade()
    /// 0…1 of the voice sent to the reverb (SF2 reverbEffectsSend / 1000).
    public var reverbSend: Float = 0
    /// 0…1 sent to the chorus (SF2 chorusEffectsSend / 1000).
    public var chorusSend: Float = 0
    /// The class a note of this region announces when it starts (SF2 exclusive class, SFZ
    /// `group`): voices on its channel whose `offBy` is that class are cut off (hi-hat pairs). 0: none.
    public var exclusiveClass: UInt16 = 0
    /// The class whose start cuts this region's voices off (SFZ `off_by`; an SF2 zone's own
    /// exclusive class, so voices of one class cut each other off). 0: none.
    public var offBy: UInt16 = 0
    /// Notes of the same key and polyphony group that may sound at once (SFZ `note_polyphony`); a
    /// note beyond it takes the oldest one's place. 0: no limit.
    public var notePolyphony: UInt8 = 0
    /// Notes of the polyphony group that may sound at once (SFZ `polyphony`): the group is
    /// `exclusiveClass` where it is not 0, else the region alone. 0: no limit.
    public var polyphony: UInt16 = 0
    /// The right channel of a stereo sample, started with its left (a region of its own in the
    /// table): one note, not two, when polyphony is counted.
    public var isStereoCompanion = false
    /// Whether a voice cut off releases through its envelope (SFZ `off_mode=normal`) rather than
    /// fading out in a few milliseconds (SF2, SFZ `off_mode=fast`).
    public var cutOffByRelease = false
    /// SF2 keynum: the key this zone always plays as (for pitch and key scaling), or -1.
    public var fixedKey: Int16 = -1
    /// SF2 velocity: the velocity this zone always plays with (for level and filter), or -1.
    public var fixedVelocity: Int16 = -1

    // MARK: Envelopes and modulation
    public var volumeEnvelope = Envelope()
    /// What velocity 127 adds to the volume envelope's times (seconds) and sustain level (SFZ
    /// `ampeg_vel2*`), in proportion to the note's velocity; zero for SF2.
    public var volumeEnvelopeVelocity = Envelope(zero: ())
    /// Seconds from the note-on before the region starts at all (SFZ `delay`): its sample, envelopes
    /// and LFOs wait, counted in whole control blocks (at most 64 frames late).
    public var startDelaySeconds: Double = 0
    public var modulationEnvelope = Envelope()
    /// What velocity 127 adds to the modulation envelope's times and sustain level (SFZ
    /// `fileg_vel2*`, `pitcheg_vel2*`), in proportion to the note's velocity; zero for SF2.
    public var modulationEnvelopeVelocity = Envelope(zero: ())
    /// Pitch swing of the modulation envelope at its peak, in cents.
    public var modulationEnvelopeToPitchCents: Float = 0
    /// Filter cutoff swing of the modulation envelope at its peak, in cents.
    public var modulationEnvelopeToCutoffCents: Float = 0
    public var modulationLFO = LFO()
    /// Filter cutoff swing of the modulation LFO, ± cents.
    public var modulationLFOToCutoffCents: Float = 0
    /// Volume swing of the modulation LFO, ± centibels.
    public var modulationLFOToVolumeCentibels: Float = 0
    /// Pitch swing of the modulation LFO, ± cents.
    public var modulationLFOToPitchCents: Float = 0
    public var vibratoLFO = LFO()
    /// Pitch swing of the vibrato LFO, ± cents.
    public var vibratoLFOToPitchCents: Float = 0

    // MARK: Filter
    /// Filter cutoff as absolute cents (8.176 Hz × 2^(cents/1200)); for the low-pass, 13500
    /// (≈ 20 kHz) and above means the filter is open.
    public var filterCutoffCents: Float = 13_500
    /// Resonance in centibels above DC gain (SF2 initialFilterQ, 0…960).
    public var filterResonanceCentibels: Float = 0
    /// The filter's response (SFZ `fil_type`); SF2 voices are all low-pass. Any kind but the
    /// two-pole low-pass runs whatever the cutoff, so an SFZ region names a cutoff with it.
    public var filterKind: VoiceFilter.Kind = .lowPass2

    // MARK: Modulators
    /// The region's modulators: entries `firstModulator ..< firstModulator + modulatorCount` of its
    /// bank's `modulators` table. By default the SF2 default modulators, which every bank's table
    /// begins with.
    public var firstModulator: Int32 = 0
    public var modulatorCount: Int32 = Int32(SamplerModulator.defaults.count)
    /// Its SFZ 2 flex envelopes, LFOs and their routes, in its bank's flex tables.
    public var flex = SamplerFlex.Ranges()
    /// Its three-band equalizer (SFZ `eqN_`); inactive unless a band has a gain to give.
    public var equalizer = SamplerEqualizer()
    /// Its second filter (SFZ `fil2_type`, `cutoff2`, ...); inactive unless it names a cutoff.
    public var secondFilter = SamplerSecondFilter()
    /// Which channel of a stereo sample the region plays: -1 left, 1 right, 0 a mono sample; what
    /// a flex route onto the width moves apart.
    public var stereoSide: Float = 0

    /// Where SFZ's `width` and `position` (-1…1 each, percent over 100) put the channel of a
    /// stereo sample on `side`, as a pan: apart by the width, together by the position; a mono
    /// sample (side 0) ignores both, as sfizz does. The loader, the controllers and the flex
    /// routes all place a channel through this.
    /// - Thread: any.
    @inlinable @_noAllocation @_noLocks
    public static func stereoPan(side: Float, width: Float, position: Float) -> Float {
        side == 0 ? 0 : side * width + position
    }

    /// - Thread: any.
    public init() {}

    /// Loop behaviour (SF2 sampleModes 0, 1, 3).
    /// `keyswitch` for a region every keyswitch plays.
    /// - Thread: any.
    public static var anyKeyswitch: UInt8 {
        @_noAllocation @_noLocks get { 255 }
    }

    /// What starts a region.
    public enum Trigger: UInt8, Sendable, BitwiseCopyable {
        /// Its key's note-on.
        case attack = 0
        /// Its key's release: the note-off, or the pedal's release when a pedal held the note.
        /// The region plays at the note-on's velocity and is not released by a key.
        case release = 1
        /// A note-on while no other key of the channel is down (SFZ `trigger=first`).
        case first = 2
        /// A note-on while another key of the channel is down (SFZ `trigger=legato`).
        case legato = 3
        /// Its key's release, whatever a pedal does (SFZ `trigger=release_key`); played as `release`.
        case releaseKey = 4

        /// Whether a key's release starts the region (`release` or `releaseKey`).
        /// - Thread: any.
        @inlinable public var isRelease: Bool {
            @_noAllocation @_noLocks get {
                switch self {
                case .release, .releaseKey: true
                case .attack, .first, .legato: false
                }
            }
        }
    }

    public enum LoopMode: UInt8, Sendable, BitwiseCopyable {
        /// Play start…end once.
        case none = 0
        /// Loop loopStart…loopEnd for as long as the voice sounds, release included.
        case continuous = 1
        /// Loop while the key is held, then play on from the loop to the end during the release.
        case untilRelease = 3
        /// Play start…end once, whatever the key does: a note-off (or a pedal) does not release
        /// it (SFZ `one_shot`, as drum kits use it). Steals and all-sound-off still fade it.
        case oneShot = 4
    }

    /// A DAHDSR envelope in seconds and a linear sustain level, with SF2's key scaling.
    public struct Envelope: Sendable, BitwiseCopyable, Equatable {
        public var delay: Double = 0
        public var attack: Double = 0
        public var hold: Double = 0
        public var decay: Double = 0
        /// Level held after the decay: for the volume envelope, linear amplitude 0…1
        /// (10^(−sustainCentibels/200)); for the modulation envelope, 0…1 of the peak.
        public var sustainLevel: Double = 1
        public var release: Double = 0
        /// Timecents per key above 60 added to hold and decay (SF2 keynumToHold, keynumToDecay):
        /// hold × 2^((60 − key) × holdKeyScaling / 1200).
        public var holdKeyScalingTimecents: Double = 0
        public var decayKeyScalingTimecents: Double = 0
        /// - Thread: any.
        public init() {}
        /// Every time and the sustain level 0: an envelope of increments.
        /// - Thread: any.
        public init(zero: Void) { sustainLevel = 0 }

        /// This envelope with `increments` × `scale` added to its times and sustain level (the
        /// sustain kept within 0…1); itself when the increments are all 0, as for every SF2 zone.
        /// - Thread: audio | control.
        @inlinable @_noAllocation @_noLocks
        public func adding(_ increments: Envelope, times scale: Double) -> Envelope {
            guard increments.delay != 0 || increments.attack != 0 || increments.hold != 0 || increments.decay != 0
                || increments.sustainLevel != 0 || increments.release != 0 else { return self }
            var sum = self
            sum.delay = max(0, delay + increments.delay * scale)
            sum.attack = max(0, attack + increments.attack * scale)
            sum.hold = max(0, hold + increments.hold * scale)
            sum.decay = max(0, decay + increments.decay * scale)
            sum.sustainLevel = min(1, max(0, sustainLevel + increments.sustainLevel * scale))
            sum.release = max(0, release + increments.release * scale)
            return sum
        }
        /// The hold and decay times for `key`, key scaling applied.
        /// - Thread: audio | control.
        @inlinable @_noAllocation @_noLocks
        public func hold(key: UInt8) -> Double { Self.scale(hold, timecentsPerKey: holdKeyScalingTimecents, key: key) }
        /// - Thread: any.
        @inlinable @_noAllocation @_noLocks
        public func decay(key: UInt8) -> Double { Self.scale(decay, timecentsPerKey: decayKeyScalingTimecents, key: key) }

        /// `seconds` × 2^((60 − key) × timecentsPerKey / 1200). Most zones scale nothing: their
        /// exponentials (exactly 1) were a large part of starting a voice in a burst of note-ons.
        @inlinable @_noAllocation @_noLocks
        static func scale(_ seconds: Double, timecentsPerKey: Double, key: UInt8) -> Double {
            timecentsPerKey == 0 ? seconds : seconds * fastExp2((60 - Double(key)) * timecentsPerKey / 1_200)
        }
    }

    /// An LFO: silent for `delay` seconds, then `frequency` Hz, reaching its depth over `fade`
    /// seconds; a triangle (SF2) or a sine (SFZ).
    public struct LFO: Sendable, BitwiseCopyable, Equatable {
        public var delay: Double = 0
        public var frequency: Double = 8.176
        public var fade: Double = 0
        public var shape = VoiceLFO.Shape.triangle
        /// - Thread: any.
        public init() {}
    }

    /// True when `key` and `velocity` fall inside this region's ranges. Always inlined: called on a
    /// region in place, a call copied the whole region first, for every region a note-on tests.
    /// - Thread: any.
    @inlinable @inline(__always) @_noAllocation @_noLocks
    public func contains(key: UInt8, velocity: UInt8) -> Bool {
        key >= lowKey && key <= highKey && velocity >= lowVelocity && velocity <= highVelocity
    }

    /// Whether the region plays for a note whose key and velocity it covers, given its channel, the
    /// channel's keyswitch, the note's count on its key (`KeyMemory.noteOnCount` before the note) and its
    /// random number in 0..<1.
    /// - Thread: any.
    @inlinable @inline(__always) @_noAllocation @_noLocks
    public func answers(channel: UInt8, keyswitch channelKeyswitch: UInt8, noteCount: UInt32, random: Float,
                        controllers: UnsafePointer<UInt8>) -> Bool {
        channel >= lowChannel && channel <= highChannel
            && (keyswitch == Self.anyKeyswitch || keyswitch == channelKeyswitch)
            && (sequenceLength <= 1 || noteCount % UInt32(sequenceLength) + 1 == UInt32(sequencePosition))
            && random >= lowRandom && random < highRandom
            && firstControllerRange.contains(controllers) && secondControllerRange.contains(controllers)
    }

    /// A controller's range of values (SFZ `loccN=low hiccN=high`).
    public struct ControllerRange: Sendable, BitwiseCopyable, Equatable {
        /// The controller's number; 255 for no condition.
        public var controller: UInt8
        public var low: UInt8
        public var high: UInt8
        /// - Thread: any.
        @inlinable @_noAllocation @_noLocks
        public init(controller: UInt8, low: UInt8, high: UInt8) {
            self.controller = controller
            self.low = low
            self.high = high
        }
        /// No condition.
        /// - Thread: any.
        public static var any: ControllerRange { @_noAllocation @_noLocks get { ControllerRange(controller: 255, low: 0, high: 127) } }
        /// Whether the channel's `controllers` (128 values) hold one inside the range.
        /// - Thread: audio | control.
        @inlinable @inline(__always) @_noAllocation @_noLocks
        public func contains(_ controllers: UnsafePointer<UInt8>) -> Bool {
            controller > 127 || (controllers[Int(controller)] >= low && controllers[Int(controller)] <= high)
        }
    }
}
