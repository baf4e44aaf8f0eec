/// SFZ 2's flex modulation, as a bank holds it: envelopes of any number of points (`egN_*`), LFOs
/// of SFZ's waves (`lfoN_*`), and routes from each onto a voice parameter with a depth a controller
/// may move (`egN_pitch`, `lfoN_volume_onccN`, ...).
///
/// Plain data in four tables of the bank (`Tables`), which a region names ranges of
/// (`SamplerRegion.flex`); a voice keeps its running state in a `FlexVoiceState`.
public enum SamplerFlex {
    /// The most envelopes, and the most LFOs, one region plays (a voice's state holds this many of
    /// each); a file that names more is told which do not play.
    /// - Thread: any.
    public static var capacity: Int { @_noAllocation @_noLocks get { 8 } }
    /// No controller (`Point.timeController`, `Route.controller`, ...).
    /// - Thread: any.
    public static var noController: UInt8 { @_noAllocation @_noLocks get { 255 } }

    /// A flex envelope's point (`egN_timeX`, `egN_levelX`, `egN_shapeX`): the envelope goes from
    /// where it is to `level` over `seconds`, along `shape`.
    public struct Point: Sendable, BitwiseCopyable, Hashable {
        public var seconds: Float = 0
        /// -1…1.
        public var level: Float = 0
        /// 0 a straight line; above 0 it starts slowly (x^(1 + shape)), below 0 quickly.
        public var shape: Float = 0
        /// `egN_timeX_onccY`: seconds added at a controller's full value, read as the point begins.
        public var timeController = SamplerFlex.noController
        public var secondsAtFullController: Float = 0
        /// `egN_levelX_onccY`: level added at a controller's full value.
        public var levelController = SamplerFlex.noController
        public var levelAtFullController: Float = 0
        /// - Thread: any.
        public init() {}
    }

    /// A flex envelope: points `firstPoint ..< firstPoint + pointCount` of the bank's points.
    public struct Envelope: Sendable, BitwiseCopyable, Hashable {
        public var firstPoint: Int32 = 0
        public var pointCount: Int32 = 0
        /// The point it holds at while the key is down (`egN_sustain`, 0 by default as in ARIA);
        /// a release goes on to the point after it.
        public var sustainPoint: Int32 = 0
        /// - Thread: any.
        public init() {}
    }

    /// SFZ 2's LFO waves (`lfoN_wave`), numbered as the format numbers them. Pulses and the square
    /// swing 0…1, as in ARIA; the others -1…1.
    public enum Wave: UInt8, Sendable, BitwiseCopyable {
        case triangle = 0, sine = 1, pulse75 = 2, square = 3, pulse25 = 4, pulse12 = 5, rampUp = 6, rampDown = 7
        /// A new random value twice a period (ARIA's 12), from the voice's own fixed sequence.
        case sampleAndHold = 12
    }

    /// A flex LFO (`lfoN_freq`, `_delay`, `_fade`, `_phase`, `_wave`).
    public struct LFO: Sendable, BitwiseCopyable, Hashable {
        public var frequency: Float = 0
        /// `lfoN_freq_onccN`: hertz added at the controller's full value, followed as it moves.
        public var frequencyController = SamplerFlex.noController
        public var frequencyAtFullController: Float = 0
        public var delaySeconds: Float = 0
        /// `lfoN_delay_onccN`: seconds added at the controller's full value, at the note-on.
        public var delayController = SamplerFlex.noController
        public var delayAtFullController: Float = 0
        /// Seconds over which its depth rises from 0 to full, after the delay.
        public var fadeSeconds: Float = 0
        public var fadeController = SamplerFlex.noController
        public var fadeAtFullController: Float = 0
        /// Where in its period it starts, 0 ..< 1.
        public var phase: Float = 0
        public var wave = Wave.triangle
        /// - Thread: any.
        public init() {}
    }

    /// What a route moves, in the unit its depth is given in.
    public enum Target: UInt8, Sendable, BitwiseCopyable {
        /// Cents.
        case pitch
        /// Decibels.
        case volume
        /// Percent: the level is multiplied by source × depth / 100.
        case amplitude
        /// Percent of the way to one side (-100 left, 100 right).
        case pan
        /// Percent: a stereo sample's channels move apart or together.
        case width
        /// Percent: a stereo sample's channels move together to one side.
        case position
        /// Cents.
        case cutoff
        /// Decibels.
        case resonance
        /// An equalizer band's gain (decibels), frequency (hertz) and width (octaves), bands 1-3.
        case equalizer1Gain, equalizer2Gain, equalizer3Gain
        case equalizer1Frequency, equalizer2Frequency, equalizer3Frequency
        case equalizer1Octaves, equalizer2Octaves, equalizer3Octaves

        /// Where a voice sums what its routes add to this target (`FlexVoiceState.Outputs`): a
        /// plain number the audio thread indexes with (a pattern match, where reading the raw
        /// value is a call the real-time checker cannot see into).
        /// - Thread: any.
        @inlinable public var slot: Int {
            @_noAllocation @_noLocks get {
                switch self {
                case .pitch: 0
                case .volume: 1
                case .amplitude: 2
                case .pan: 3
                case .width: 4
                case .position: 5
                case .cutoff: 6
                case .resonance: 7
                case .equalizer1Gain: 8
                case .equalizer2Gain: 9
                case .equalizer3Gain: 10
                case .equalizer1Frequency: 11
                case .equalizer2Frequency: 12
                case .equalizer3Frequency: 13
                case .equalizer1Octaves: 14
                case .equalizer2Octaves: 15
                case .equalizer3Octaves: 16
                }
            }
        }
        /// Slots in all.
        /// - Thread: any.
        @inlinable public static var slotCount: Int { @_noAllocation @_noLocks get { 17 } }
    }

    /// A source (envelope or LFO of the region) onto a target, by `depth` plus
    /// `depthAtFullController` × the controller's value (0…1), followed as it moves.
    public struct Route: Sendable, BitwiseCopyable, Hashable {
        /// The region's envelope `index` (0…`capacity` − 1), or its LFO `index − capacity`.
        public var source: UInt8 = 0
        public var target = Target.pitch { didSet { targetSlot = UInt8(target.slot) } }
        /// `target.slot`, kept beside it so that the audio thread reads a number.
        public private(set) var targetSlot: UInt8 = 0
        public var depth: Float = 0
        public var controller = SamplerFlex.noController
        public var depthAtFullController: Float = 0
        /// - Thread: any.
        public init(source: UInt8, target: Target, depth: Float) {
            self.source = source
            self.target = target
            targetSlot = UInt8(target.slot)
            self.depth = depth
        }
    }

    /// A region's ranges of the bank's tables. All zero: no flex modulation.
    public struct Ranges: Sendable, BitwiseCopyable, Equatable {
        public var firstEnvelope: Int32 = 0
        public var envelopeCount: UInt8 = 0
        public var lfoCount: UInt8 = 0
        /// The envelope that takes the amplitude envelope's place (`egN_ampeg`), or -1: the voice
        /// is multiplied by it and ends when it ends.
        public var amplitudeEnvelope: Int8 = -1
        public var firstLFO: Int32 = 0
        public var firstRoute: Int32 = 0
        public var routeCount: Int32 = 0
        /// Where the bank's tables are (`Layout`), set by the bank; 0 for none.
        public var layoutAddress: UInt = 0
        /// - Thread: any.
        public init() {}
        /// Whether the region has any flex modulation to run.
        /// - Thread: any.
        @inlinable public var isEmpty: Bool { @_noAllocation @_noLocks get { envelopeCount == 0 && lfoCount == 0 } }
    }

    /// A bank's flex tables as the loader builds them.
    public struct Tables: Sendable, Hashable {
        public var points: [Point] = []
        public var envelopes: [Envelope] = []
        public var lfos: [LFO] = []
        public var routes: [Route] = []
        /// - Thread: any.
        public init() {}
        /// - Thread: any.
        public var isEmpty: Bool { envelopes.isEmpty && lfos.isEmpty }
    }

    /// The bank's tables as the audio thread reads them.
    public struct Layout: @unchecked Sendable, BitwiseCopyable {
        public let points: UnsafePointer<Point>
        public let envelopes: UnsafePointer<Envelope>
        public let lfos: UnsafePointer<LFO>
        public let routes: UnsafePointer<Route>
    }
}
