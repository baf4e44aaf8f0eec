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
        /// Four rows a curve's computation works in (its bases, exponents, powers and fractions
        /// clamped to 0…1): as rows of
        /// plain floats, its loops become vector instructions, where a local SIMD8 read by lane
        /// went through the stack lane by lane.
        case curveScratch
        /// Rows in all.
        @_noAllocation @_noLocks
        static func rowCount() -> Int { 11 * LaneFlexMath.capacity + 4 }
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
                case .curveScratch: 11 * LaneFlexMath.capacity
                }
            }
        }
    }

    private let rows: UnsafeMutablePointer<SIMD8<Float>>
    /// The most envelopes, and the most LFOs, a lane wrote this block: the rows `compute` reads.
    private var envelopeRows = 0
    private var lfoRows = 0

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
    }

    /// One lane's column of the tables, where a voice writes its inputs and reads its values.
    /// Offsets are computed unchecked: a row and a lane are below `rowCount()` and 8, and the
    /// checks were a tenth of a voice's flex step.
    struct Lane {
        fileprivate let column: UnsafeMutableRawPointer

        @inline(__always) @_noAllocation @_noLocks
        private func offset(_ table: Table, row: Int) -> Int {
            (table.firstRow &+ row) &* MemoryLayout<SIMD8<Float>>.stride
        }

        @inline(__always) @_noAllocation @_noLocks
        private func store(_ value: Float, _ table: Table, row: Int) {
            column.storeBytes(of: value, toByteOffset: offset(table, row: row), as: Float.self)
        }

        /// Envelope `row` is `fraction` (clamped to 0…1) of the way from `from` to `to` along
        /// `shape` (`SamplerFlex.Point.shape`), whose curve is `power`
        /// (`FlexVoiceState.EnvelopeState.power`).
        @inline(__always) @_noAllocation @_noLocks
        func setEnvelope(row: Int, from: Float, to: Float, fraction: Float, shape: Float, power: Float) {
            store(from, .envelopeFrom, row: row)
            store(to, .envelopeTo, row: row)
            store(fraction, .envelopeFraction, row: row)
            store(shape, .envelopeShape, row: row)
            store(power, .envelopePower, row: row)
        }

        /// LFO `row` is at `phase` (turns) of the wave numbered `waveCode` (`code`), faded in by
        /// `fade`.
        @inline(__always) @_noAllocation @_noLocks
        func setLFO(row: Int, phase: Float, fade: Float, waveCode: Float) {
            store(phase, .lfoPhase, row: row)
            store(fade, .lfoFade, row: row)
            store(waveCode, .lfoWave, row: row)
        }

        /// LFO `row` is a sample-and-hold wave holding `held`.
        @inline(__always) @_noAllocation @_noLocks
        func setHeld(row: Int, held: Float) {
            store(held, .lfoHeld, row: row)
        }

        /// The value of source `source` (`SamplerFlex.Route.source`), after `compute`.
        @inline(__always) @_noAllocation @_noLocks
        func value(source: Int) -> Float {
            UnsafeRawPointer(column).load(fromByteOffset: offset(.values, row: source), as: Float.self)
        }
    }

    /// Lane `lane`'s column (0 ..< 8).
    @inline(__always) @_noAllocation @_noLocks
    func lane(_ lane: Int) -> Lane {
        Lane(column: UnsafeMutableRawPointer(rows) + (lane &* MemoryLayout<Float>.stride))
    }

    /// A lane wrote up to `envelopeCount` envelopes and `lfoCount` LFOs.
    @inline(__always) @_noAllocation @_noLocks
    mutating func note(envelopeCount: Int, lfoCount: Int) {
        envelopeRows = max(envelopeRows, envelopeCount)
        lfoRows = max(lfoRows, lfoCount)
    }

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
        // The row's curves: any curved, the longest whole power, any not whole. Lanes nobody wrote
        // this block may add work, never change a lane's level: each lane selects its own.
        // (Reductions over plain lanes, which become vector instructions: SIMD8's masks became
        // a loop over the lanes each.)
        var powerBits: UInt32 = 0, longestWhole: Float = 1
        for lane in 0..<laneCount {
            powerBits |= wholePower[lane].bitPattern
            longestWhole = wholePower[lane] > longestWhole ? wholePower[lane] : longestWhole
        }
        guard powerBits != 0 else {
            for lane in 0..<laneCount { level[lane] = from[lane] + (to[lane] - from[lane]) * min(max(fraction[lane], 0), 1) }
            return
        }
        // Each lane's base and exponent, then its power by multiplying as often as the longest
        // whole power needs (a lane stops at its own), then through the exponential where its
        // power is not whole (-1).
        let base = lanes(.curveScratch, row: 0), exponent = lanes(.curveScratch, row: 1), power = lanes(.curveScratch, row: 2)
        let curve = lanes(.curveScratch, row: 3)
        for lane in 0..<laneCount {
            // (min(max(…)) as selections: Swift's min and max order NaNs, and became branches.)
            let atLeastZero = fraction[lane] > 0 ? fraction[lane] : 0
            curve[lane] = atLeastZero < 1 ? atLeastZero : 1
            base[lane] = shape[lane] > 0 ? curve[lane] : 1 - curve[lane]
            exponent[lane] = 1 + abs(shape[lane])
        }
        for lane in 0..<laneCount { power[lane] = base[lane] }
        var multiplications: Float = 2
        while multiplications <= longestWhole {
            for lane in 0..<laneCount { power[lane] = wholePower[lane] >= multiplications ? power[lane] * base[lane] : power[lane] }
            multiplications += 1
        }
        if powerBits & 0x8000_0000 != 0 {
            var logarithm = SIMD8<Float>()
            for lane in 0..<laneCount { logarithm[lane] = log2Approximation(base[lane]) }
            let exponential = fastExp2(UnsafeRawPointer(exponent).load(as: SIMD8<Float>.self) * logarithm)
            for lane in 0..<laneCount { power[lane] = wholePower[lane] < 0 ? exponential[lane] : power[lane] }
        }
        // The curve where rising (shape above 0) and past 0, 1 − it where falling and short of 1,
        // else the straight line.
        for lane in 0..<laneCount {
            let rising = curve[lane] > 0 ? power[lane] : curve[lane]
            let falling = curve[lane] < 1 ? 1 - power[lane] : curve[lane]
            let shaped = shape[lane] > 0 ? rising : shape[lane] < 0 ? falling : curve[lane]
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
        let wave = lanes(.lfoWave, row: row), held = lanes(.lfoHeld, row: row)
        var notSine: UInt32 = 0
        for lane in 0..<laneCount { notSine |= wave[lane].bitPattern ^ Self.code(.sine).bitPattern }
        if notSine == 0 {
            for lane in 0..<laneCount { value[lane] = fade[lane] * fastSineOfTurns(phase[lane]) }
            return
        }
        // The waves the row's lanes run, a bit each (as with the curves, a lane nobody wrote adds
        // work, not a value).
        var waves: UInt32 = 0
        for lane in 0..<laneCount { waves |= 1 << (UInt32(wave[lane]) & 31) }
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
