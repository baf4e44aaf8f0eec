import DSP

/// The levels of a group's flex envelopes and the values of its flex LFOs, computed for its eight
/// lanes at once. Each voice steps its own envelopes and LFOs through the block
/// (`FlexVoiceState.step`: stages entered, delays counted down, phases moved) and writes where
/// each now is; `compute` then turns those into levels and wave values eight lanes at a time, and
/// each voice sums its routes from them (`FlexVoiceState.route`). A curve or a sine is a chain of
/// dependent steps that a voice alone would wait on every block, for every envelope and LFO: one
/// voice at a time they took a fifth of a flex voice's time. Each lane's result is bit for bit what
/// the same steps give one value alone, so a voice sounds the same in any group.
///
/// Rows of eight lanes: envelope `k`'s inputs in row `k` of each envelope table, LFO `k`'s in row
/// `k` of each LFO table, and the values by source as `SamplerFlex.Route.source` numbers them
/// (envelopes, then LFOs). A lane's inputs are written as plain scalars and then loaded whole, as
/// `LaneControlMath`'s are. Rows a lane did not write this block hold another voice's numbers:
/// computed, and never read.
/// - Thread: audio. Or the one worker whose workspace holds it.
struct LaneFlexMath {
    private static var capacity: Int { @_noAllocation @_noLocks get { SamplerFlex.capacity } }
    /// The tables, each `capacity` rows, in one allocation.
    private enum Table: Int {
        case envelopeFrom, envelopeTo, envelopeFraction, envelopeShape, envelopePower, lfoPhase, lfoFade, lfoHeld, lfoWave
        /// The values: `2 × capacity` rows.
        case values
        /// Rows in all.
        @_noAllocation @_noLocks
        static func rowCount() -> Int { 11 * LaneFlexMath.capacity }
        var firstRow: Int {
            @_noAllocation @_noLocks get {
                switch self {
                case .envelopeFrom: 0
                case .envelopeTo: 1 * LaneFlexMath.capacity
                case .envelopeFraction: 2 * LaneFlexMath.capacity
                case .envelopeShape: 3 * LaneFlexMath.capacity
                case .envelopePower: 4 * LaneFlexMath.capacity
                case .lfoPhase: 5 * LaneFlexMath.capacity
                case .lfoFade: 6 * LaneFlexMath.capacity
                case .lfoHeld: 7 * LaneFlexMath.capacity
                case .lfoWave: 8 * LaneFlexMath.capacity
                case .values: 9 * LaneFlexMath.capacity
                }
            }
        }
    }

    private let rows: UnsafeMutablePointer<SIMD8<Float>>
    /// The most envelopes, and the most LFOs, a lane wrote this block: the rows `compute` reads.
    private var envelopeRows = 0
    private var lfoRows = 0
    /// The waves the lanes' LFOs run, a bit each (1 << `SamplerFlex.Wave.rawValue`).
    private var waves: UInt32 = 0
    /// The curves the lanes' envelopes wrote.
    private var curves = Curves()

    /// - Thread: control.
    init() {
        rows = .allocate(capacity: Table.rowCount())
        rows.initialize(repeating: SIMD8(), count: Table.rowCount())
    }

    /// - Thread: stopped.
    func deallocate() { rows.deallocate() }

    /// Starts a block: no lane has written anything yet.
    @_noAllocation @_noLocks
    mutating func begin() {
        envelopeRows = 0
        lfoRows = 0
        waves = 0
        curves = Curves()
    }

    @inline(__always) @_noAllocation @_noLocks
    private func store(_ value: Float, _ table: Table, row: Int, lane: Int) {
        UnsafeMutableRawPointer(rows + table.firstRow + row).storeBytes(of: value, toByteOffset: lane * MemoryLayout<Float>.stride, as: Float.self)
    }

    /// Envelope `row` of `lane` is `fraction` (clamped to 0…1) of the way from `from` to `to`
    /// along `shape` (`SamplerFlex.Point.shape`), whose curve is `power`
    /// (`FlexVoiceState.EnvelopeState.power`).
    @_noAllocation @_noLocks
    func setEnvelope(row: Int, lane: Int, from: Float, to: Float, fraction: Float, shape: Float, power: Float) {
        store(from, .envelopeFrom, row: row, lane: lane)
        store(to, .envelopeTo, row: row, lane: lane)
        store(fraction, .envelopeFraction, row: row, lane: lane)
        store(shape, .envelopeShape, row: row, lane: lane)
        store(power, .envelopePower, row: row, lane: lane)
    }

    /// LFO `row` of `lane` is at `phase` (turns) of the wave numbered `waveCode` (`code`), faded
    /// in by `fade`.
    @_noAllocation @_noLocks
    func setLFO(row: Int, lane: Int, phase: Float, fade: Float, waveCode: Float) {
        store(phase, .lfoPhase, row: row, lane: lane)
        store(fade, .lfoFade, row: row, lane: lane)
        store(waveCode, .lfoWave, row: row, lane: lane)
    }

    /// LFO `row` of `lane` is a sample-and-hold wave holding `held`.
    @_noAllocation @_noLocks
    func setHeld(row: Int, lane: Int, held: Float) {
        store(held, .lfoHeld, row: row, lane: lane)
    }

    /// The curves a lane's envelopes wrote: whether any is curved, the longest whole power among
    /// them, and whether any power is not whole (`FlexVoiceState.EnvelopeState.power`).
    struct Curves {
        var curved = false
        var longestWhole: Float = 1
        var anyFractional = false
        @_noAllocation @_noLocks init() {}

        @_noAllocation @_noLocks
        mutating func add(_ power: Float) {
            guard power != 0 else { return }
            curved = true
            if power > 0 { longestWhole = max(longestWhole, power) } else { anyFractional = true }
        }

        /// Adds another lane's curves to these.
        @_noAllocation @_noLocks
        mutating func add(_ other: Curves) {
            curved = curved || other.curved
            longestWhole = max(longestWhole, other.longestWhole)
            anyFractional = anyFractional || other.anyFractional
        }
    }

    /// A lane wrote `envelopeCount` envelopes and `lfoCount` LFOs of `waves` (`waveBit`s), their
    /// curves `curves`.
    @_noAllocation @_noLocks
    mutating func note(envelopeCount: Int, lfoCount: Int, waves: UInt32, curves: Curves) {
        envelopeRows = max(envelopeRows, envelopeCount)
        lfoRows = max(lfoRows, lfoCount)
        self.waves |= waves
        self.curves.add(curves)
    }

    /// The value of source `source` (`SamplerFlex.Route.source`) in `lane`, after `compute`.
    @_noAllocation @_noLocks
    func value(source: Int, lane: Int) -> Float {
        UnsafeRawPointer(rows + Table.values.firstRow + source).load(fromByteOffset: lane * MemoryLayout<Float>.stride, as: Float.self)
    }

    /// A wave's bit in `waves`.
    @_noAllocation @_noLocks
    static func waveBit(_ wave: SamplerFlex.Wave) -> UInt32 { 1 << UInt32(code(wave)) }

    /// A wave's number (its raw value, read by a pattern match the real-time checker sees into).
    @_noAllocation @_noLocks
    static func code(_ wave: SamplerFlex.Wave) -> Float {
        switch wave {
        case .triangle: 0
        case .sine: 1
        case .pulse75: 2
        case .square: 3
        case .pulse25: 4
        case .pulse12: 5
        case .rampUp: 6
        case .rampDown: 7
        case .sampleAndHold: 12
        }
    }

    /// Row `row` of `table` as eight plain floats.
    @inline(__always) @_noAllocation @_noLocks
    private func lanes(_ table: Table, row: Int) -> UnsafeMutablePointer<Float> {
        UnsafeMutableRawPointer(rows + table.firstRow + row).assumingMemoryBound(to: Float.self)
    }

    // The computations below are loops over a row's eight lanes of plain scalar steps, with no
    // branch a lane could take alone, which the compiler turns into vector instructions: written
    // with SIMD8's masks, its selections and comparisons became a loop over the lanes each.

    /// Computes the value of every envelope and LFO the lanes wrote.
    @_noAllocation @_noLocks
    mutating func compute() {
        for row in 0..<envelopeRows { envelopeLevels(row: row) }
        for row in 0..<lfoRows { lfoValues(row: row) }
    }

    /// The levels of envelope `row`: from + (to − from) × the stage's curve at its fraction, the
    /// curve x^(1 + shape) for a shape above 0, 1 − (1 − x)^(1 − shape) below.
    @_noAllocation @_noLocks
    private func envelopeLevels(row: Int) {
        let from = lanes(.envelopeFrom, row: row), to = lanes(.envelopeTo, row: row)
        let fraction = lanes(.envelopeFraction, row: row), shape = lanes(.envelopeShape, row: row)
        let wholePower = lanes(.envelopePower, row: row)
        let level = lanes(.values, row: row)
        let laneCount = 8
        guard curves.curved else {
            for lane in 0..<laneCount { level[lane] = from[lane] + (to[lane] - from[lane]) * min(max(fraction[lane], 0), 1) }
            return
        }
        // Each lane's base and exponent, then its power by multiplying as often as the longest
        // whole power needs (a lane stops at its own), then through the exponential where its
        // power is not whole (-1).
        var base = SIMD8<Float>(), exponent = SIMD8<Float>(), power = SIMD8<Float>()
        for lane in 0..<laneCount {
            let curve = min(max(fraction[lane], 0), 1)
            base[lane] = shape[lane] > 0 ? curve : 1 - curve
            exponent[lane] = 1 + abs(shape[lane])
        }
        power = base
        var multiplications: Float = 2
        while multiplications <= curves.longestWhole {
            for lane in 0..<laneCount { power[lane] = wholePower[lane] >= multiplications ? power[lane] * base[lane] : power[lane] }
            multiplications += 1
        }
        if curves.anyFractional {
            var logarithm = SIMD8<Float>()
            for lane in 0..<laneCount { logarithm[lane] = log2Approximation(base[lane]) }
            let exponential = fastExp2(exponent * logarithm)
            for lane in 0..<laneCount { power[lane] = wholePower[lane] < 0 ? exponential[lane] : power[lane] }
        }
        for lane in 0..<laneCount {
            let curve = min(max(fraction[lane], 0), 1)
            let rising = shape[lane] > 0 && curve > 0, falling = shape[lane] < 0 && curve < 1
            let shaped = rising ? power[lane] : falling ? 1 - power[lane] : curve
            level[lane] = from[lane] + (to[lane] - from[lane]) * shaped
        }
    }

    /// The values of LFO `row`: its wave at its phase (SFZ's shapes, the pulses and the square
    /// 0…1 as in ARIA, the others -1…1) times its fade.
    @_noAllocation @_noLocks
    private func lfoValues(row: Int) {
        let phase = lanes(.lfoPhase, row: row), fade = lanes(.lfoFade, row: row)
        let value = lanes(.values, row: Self.capacity + row)
        let laneCount = 8
        let sineOnly = Self.waveBit(.sine)
        if waves == sineOnly {
            for lane in 0..<laneCount { value[lane] = fade[lane] * fastSineOfTurns(phase[lane]) }
            return
        }
        let wave = lanes(.lfoWave, row: row), held = lanes(.lfoHeld, row: row)
        var result = SIMD8<Float>()
        for code in 0...12 where waves & (1 << UInt32(code)) != 0 {
            let number = Float(code)
            for lane in 0..<laneCount {
                let p = phase[lane]
                let shaped: Float
                switch code {
                case 0: shaped = p < 0.25 ? 4 * p : p < 0.75 ? 2 - 4 * p : 4 * p - 4
                case 1: shaped = fastSineOfTurns(p)
                case 2: shaped = p < 0.75 ? 1 : 0
                case 3: shaped = p < 0.5 ? 1 : 0
                case 4: shaped = p < 0.25 ? 1 : 0
                case 5: shaped = p < 0.125 ? 1 : 0
                case 6: shaped = 2 * p - 1
                case 7: shaped = 1 - 2 * p
                default: shaped = held[lane]
                }
                result[lane] = wave[lane] == number ? shaped : result[lane]
            }
        }
        for lane in 0..<laneCount { value[lane] = fade[lane] * result[lane] }
    }
}
