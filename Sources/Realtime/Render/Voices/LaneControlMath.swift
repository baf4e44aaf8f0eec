import DSP

/// The exponentials and sines of a group's control update, computed for its eight lanes at once:
/// each voice's read speed from its pitch in cents, its filter's cutoff in hertz and its level
/// from its attenuation (`SamplerVoice.prepare` and `complete`), then the sine and cosine its
/// two-pole filter is set from. A voice whose pitch, cutoff or level moves (a vibrato, a filter
/// envelope, a tremolo) needs these every block, each a chain of dependent steps that one voice at
/// a time would wait on; eight lanes take about the time of one, and each lane's result is bit for
/// bit the scalar function's, so a voice sounds the same in any group.
///
/// The inputs are written lane by lane as plain scalars and then loaded whole, as the reader's
/// positions are (`LanePositions`): writing single lanes of a vector held in registers stalls.
/// - Thread: audio. Or the one worker whose workspace holds it.
struct LaneControlMath {
    var cents = SIMD8<Double>()
    var cutoffCents = SIMD8<Float>()
    var levelCentibels = SIMD8<Float>()
    var ratio = SIMD8<Double>()
    var cutoffHertz = SIMD8<Float>()
    var level = SIMD8<Float>()
    /// The filters' cutoffs in turns of the rate, and the sine and cosine of each.
    var filterTurns = SIMD8<Double>()
    var filterSine = SIMD8<Float>()
    var filterCosine = SIMD8<Float>()
    /// The filters' Q and passband gain, and the coefficients of a two-pole low-pass from them
    /// (`VoiceFilter.twoPoleTerms`, as `VoiceFilter.setTwoPole` computes them): b2 is b0.
    var filterQ = SIMD8<Float>()
    var filterGain = SIMD8<Float>()
    var lowPassB0 = SIMD8<Float>()
    var lowPassB1 = SIMD8<Float>()
    var lowPassA1 = SIMD8<Float>()
    var lowPassA2 = SIMD8<Float>()

    @_noAllocation @_noLocks
    init() {}

    /// Where the inputs lie in the struct, for writing one lane at a time; measured once, off the
    /// audio thread (a static would be initialised lazily, behind a lock).
    struct Offsets {
        let cents = MemoryLayout<LaneControlMath>.offset(of: \LaneControlMath.cents)!
        let cutoffCents = MemoryLayout<LaneControlMath>.offset(of: \LaneControlMath.cutoffCents)!
        let levelCentibels = MemoryLayout<LaneControlMath>.offset(of: \LaneControlMath.levelCentibels)!
        let filterTurns = MemoryLayout<LaneControlMath>.offset(of: \LaneControlMath.filterTurns)!
        let filterQ = MemoryLayout<LaneControlMath>.offset(of: \LaneControlMath.filterQ)!
        let filterGain = MemoryLayout<LaneControlMath>.offset(of: \LaneControlMath.filterGain)!
    }

    /// Sets `lane`'s inputs from a voice's pending control block.
    @_noAllocation @_noLocks
    static func setLane(_ lane: Int, of exponentials: UnsafeMutablePointer<LaneControlMath>, from block: SamplerVoice.ControlBlock,
                        offsets: Offsets) {
        let raw = UnsafeMutableRawPointer(exponentials)
        raw.storeBytes(of: block.cents, toByteOffset: offsets.cents + lane * MemoryLayout<Double>.stride, as: Double.self)
        raw.storeBytes(of: block.cutoffCents, toByteOffset: offsets.cutoffCents + lane * MemoryLayout<Float>.stride, as: Float.self)
        raw.storeBytes(of: block.levelCentibels, toByteOffset: offsets.levelCentibels + lane * MemoryLayout<Float>.stride, as: Float.self)
    }

    /// Sets `lane`'s filter cutoff from a voice's control block, and its Q and passband gain.
    @_noAllocation @_noLocks
    static func setFilterLane(_ lane: Int, of math: UnsafeMutablePointer<LaneControlMath>, from block: SamplerVoice.ControlBlock,
                              q: Float, passbandGain: Float, offsets: Offsets) {
        let raw = UnsafeMutableRawPointer(math)
        raw.storeBytes(of: block.filterTurns, toByteOffset: offsets.filterTurns &+ lane &* MemoryLayout<Double>.stride, as: Double.self)
        raw.storeBytes(of: q, toByteOffset: offsets.filterQ &+ lane &* MemoryLayout<Float>.stride, as: Float.self)
        raw.storeBytes(of: passbandGain, toByteOffset: offsets.filterGain &+ lane &* MemoryLayout<Float>.stride, as: Float.self)
    }

    /// Computes the sine and cosine of every lane's filter cutoff, and the coefficients of a
    /// two-pole low-pass from them, in `kernel`'s build: most moving filters are that, and their
    /// two divisions a lane are a chain each voice would wait on.
    @_noAllocation @_noLocks
    mutating func computeFilters(_ kernel: SamplerKernelVariant) {
        let lowPass = kernel.twoPoleLowPassLanes(turns: filterTurns, q: filterQ, passbandGain: filterGain)
        (filterSine, filterCosine) = (lowPass.sine, lowPass.cosine)
        (lowPassB0, lowPassB1, lowPassA1, lowPassA2) = (lowPass.b0, lowPass.b1, lowPass.a1, lowPass.a2)
    }

    /// Which of a voice's pitch, cutoff and level moved this block, or of a group's voices'.
    struct Movement {
        var pitch = false, cutoff = false, level = false
        @_noAllocation @_noLocks init() {}
        @_noAllocation @_noLocks init(pitch: Bool, cutoff: Bool, level: Bool) { (self.pitch, self.cutoff, self.level) = (pitch, cutoff, level) }
        var any: Bool { @_noAllocation @_noLocks get { pitch || cutoff || level } }
        @_noAllocation @_noLocks
        mutating func add(_ other: Movement) {
            pitch = pitch || other.pitch
            cutoff = cutoff || other.cutoff
            level = level || other.level
        }
    }

    /// Computes every lane's exponentials of the kinds that moved in some lane: a held note's
    /// vibrato moves its pitch every block while its cutoff stays. A lane reads only those of its
    /// own that moved (`SamplerVoice.complete`).
    @_noAllocation @_noLocks
    mutating func computeExponentials(of moved: Movement) {
        if moved.pitch { ratio = centsToRatio(cents) }
        if moved.cutoff { cutoffHertz = absoluteCentsToHertz(cutoffCents) }
        if moved.level { level = centibelsToAmplitude(levelCentibels) }
    }
}
