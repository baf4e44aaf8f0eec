import Synchronization
import DSP

/// What every thread that renders voices reads and none writes while a block's items render: the
/// channels' state (the voices' modulators read it), the rate, the sends switch and the reading
/// and mixing loops.
struct VoiceRenderContext {
    let channels: UnsafeMutablePointer<ChannelState>
    let sampleRate: Double
    let sendsEnabled: Bool
    let interpolation: SamplerVoice.Interpolation
    let kernel: SamplerKernelVariant
    /// Voices ended because their sample's next frames were not yet decoded
    /// (`SamplerVoice.ControlBlock.isStarved`), counted by whichever thread rendered them.
    let starvedVoices: UnsafeMutablePointer<Atomic<Int>>
    /// Charged with each stage's time when the render profiles its stages.
    let stageClock: RenderStageClock
}

/// The scratch one thread renders voices with, `Sampler.laneCount` at a time so their reads,
/// filters and gains share SIMD lanes: the lanes' control blocks, the SIMD reader's positions, and
/// per-lane mix buses that a work item's groups add into and that are summed across the lanes once
/// per item. The audio thread has one and every voice worker has its own; nothing in it is shared.
/// - Thread: audio. Or the one worker that owns it.
struct VoiceLaneWorkspace {
    typealias Lanes = Sampler.Lanes

    /// One control block of interleaved lanes: the voices being rendered together.
    let scratch: UnsafeMutablePointer<Lanes>
    /// Per-lane mix buses, a quantum long: an item's groups add into their lanes, and the lanes
    /// are summed across once per item, not once per group. The thread's own, so they stay in its
    /// cache; only the item's sums (`VoiceItemMix`) go to the audio thread.
    let busLeft: UnsafeMutablePointer<Lanes>
    let busRight: UnsafeMutablePointer<Lanes>
    /// Per-lane send buses, likewise; written only in an item where some voice sends to them.
    let busReverb: UnsafeMutablePointer<Lanes>
    let busChorus: UnsafeMutablePointer<Lanes>
    /// Whether a group of the item being rendered has mixed into the dry buses, or sent to the reverb
    /// or chorus bus, yet. The first mix into a bus starts from `zeroLanes` when it covers the
    /// item's whole block (a group mixes one control block, a quantum, so it always does), rather
    /// than the bus being cleared first.
    var dryBusesInUse = false
    var reverbBusInUse = false
    var chorusBusInUse = false
    /// A quantum of zero frames, never written: where a bus's first mix starts from.
    let zeroLanes: UnsafeMutablePointer<Lanes>
    /// Frames of the item being rendered: what a bus's first mix covers to start from zeros.
    var blockFrameCount = 0
    /// Eight zero frames (of either encoding): what an empty lane of the SIMD reader reads.
    let silence: UnsafeMutablePointer<Float>
    /// A second control block of lanes, for a group whose voices' pools are stored at two widths.
    let otherEncodingScratch: UnsafeMutablePointer<Lanes>
    /// The voices of the group being rendered (up to `laneCount`): a window on the block's list.
    var group: UnsafeMutablePointer<UnsafeMutablePointer<SamplerVoice>>
    /// What `group` points at before the first item: never read.
    let placeholderGroup: UnsafeMutablePointer<UnsafeMutablePointer<SamplerVoice>>
    let groupBlocks: UnsafeMutablePointer<SamplerVoice.ControlBlock>
    /// Where the SIMD reader's lanes start (one frame before the first they interpolate from) and
    /// how they step, gathered lane by lane in memory and then loaded whole: writing single lanes
    /// of a vector held in registers goes through the stack and stalls on every write.
    let laneBases: UnsafeMutablePointer<UnsafeRawPointer>
    let lanePositions: UnsafeMutablePointer<LanePositions>
    /// Where a lane that loops in the reader reads the two windows that reach across its loop end:
    /// its stitch (`SamplerVoice.stitchLoop`) in `laneStitches`, offset so that the lane's whole
    /// count finds it as it finds its sample.
    let laneCrossingBases: UnsafeMutablePointer<UnsafeRawPointer>
    /// `stitchByteCount` bytes a lane.
    let laneStitches: UnsafeMutableRawPointer
    static var stitchByteCount: Int { @_noAllocation @_noLocks get { 32 } }
    /// The group's ramped gains for the block, gathered the same way.
    let laneGains: UnsafeMutablePointer<LaneGains>
    /// Each lane's filter for the block: the voice's own, or `passthrough` when it does not filter.
    let laneFilters: UnsafeMutablePointer<UnsafeMutablePointer<VoiceFilter>>
    /// Each lane's filter stage for one pass of `runFilterStages`: the voice's own, or `passthrough`.
    let laneBands: UnsafeMutablePointer<UnsafeMutablePointer<VoiceFilter>>
    let passthrough: UnsafeMutablePointer<VoiceFilter>
    /// Byte offset of `filter` in a `SamplerVoice`: lanes filter voices in place in the pool.
    let filterOffset: Int
    /// Byte offsets of the three vectors in `LanePositions`: a lane's numbers are stored one by one
    /// as plain scalars, which the reader then loads whole.
    let fractionOffset: Int
    let fractionStepOffset: Int
    let wholeOffset: Int
    let wholeStepOffset: Int
    let crossingFromOffset: Int
    let wrapFromOffset: Int
    let loopLengthOffset: Int
    /// The group's exponentials and filter sines for the block, and where their lanes' inputs lie.
    let laneMath: UnsafeMutablePointer<LaneControlMath>
    let laneMathOffsets: LaneControlMath.Offsets
    /// The group's flex envelope levels and LFO waves for the block.
    let laneFlex: UnsafeMutablePointer<LaneFlexMath>

    /// The buffers are written now, so that no page of them is first touched (faulted in) on the
    /// thread that renders: a group's first use of a bus would.
    /// - Thread: control.
    init() {
        let laneCount = Sampler.laneCount
        let frameCount = RenderQuantum.frameCount
        busLeft = .allocate(capacity: frameCount)
        busLeft.initialize(repeating: Lanes(), count: frameCount)
        busRight = .allocate(capacity: frameCount)
        busRight.initialize(repeating: Lanes(), count: frameCount)
        busReverb = .allocate(capacity: frameCount)
        busReverb.initialize(repeating: Lanes(), count: frameCount)
        busChorus = .allocate(capacity: frameCount)
        busChorus.initialize(repeating: Lanes(), count: frameCount)
        zeroLanes = .allocate(capacity: frameCount)
        zeroLanes.initialize(repeating: Lanes(), count: frameCount)
        scratch = .allocate(capacity: SamplerVoice.controlBlockFrameCount)
        scratch.initialize(repeating: Lanes(), count: SamplerVoice.controlBlockFrameCount)
        silence = .allocate(capacity: 8)
        silence.initialize(repeating: 0, count: 8)
        otherEncodingScratch = .allocate(capacity: SamplerVoice.controlBlockFrameCount)
        otherEncodingScratch.initialize(repeating: Lanes(), count: SamplerVoice.controlBlockFrameCount)
        placeholderGroup = .allocate(capacity: laneCount)
        group = placeholderGroup
        groupBlocks = .allocate(capacity: laneCount)
        groupBlocks.initialize(repeating: SamplerVoice.ControlBlock(), count: laneCount)
        laneBases = .allocate(capacity: laneCount)
        laneBases.initialize(repeating: UnsafeRawPointer(silence), count: laneCount)
        lanePositions = .allocate(capacity: 1)
        lanePositions.initialize(to: LanePositions())
        laneCrossingBases = .allocate(capacity: laneCount)
        laneCrossingBases.initialize(repeating: UnsafeRawPointer(silence), count: laneCount)
        laneStitches = .allocate(byteCount: laneCount * Self.stitchByteCount, alignment: 64)
        laneStitches.initializeMemory(as: UInt8.self, repeating: 0, count: laneCount * Self.stitchByteCount)
        laneGains = .allocate(capacity: 1)
        laneGains.initialize(to: LaneGains())
        passthrough = .allocate(capacity: 1)
        passthrough.initialize(to: VoiceFilter())
        laneFilters = .allocate(capacity: laneCount)
        laneFilters.initialize(repeating: passthrough, count: laneCount)
        laneBands = .allocate(capacity: laneCount)
        laneBands.initialize(repeating: passthrough, count: laneCount)
        filterOffset = MemoryLayout<SamplerVoice>.offset(of: \SamplerVoice.filter)!
        fractionOffset = MemoryLayout<LanePositions>.offset(of: \LanePositions.fraction)!
        fractionStepOffset = MemoryLayout<LanePositions>.offset(of: \LanePositions.fractionStep)!
        wholeOffset = MemoryLayout<LanePositions>.offset(of: \LanePositions.whole)!
        wholeStepOffset = MemoryLayout<LanePositions>.offset(of: \LanePositions.wholeStep)!
        crossingFromOffset = MemoryLayout<LanePositions>.offset(of: \LanePositions.crossingFrom)!
        wrapFromOffset = MemoryLayout<LanePositions>.offset(of: \LanePositions.wrapFrom)!
        loopLengthOffset = MemoryLayout<LanePositions>.offset(of: \LanePositions.loopLength)!
        laneMath = .allocate(capacity: 1)
        laneMath.initialize(to: LaneControlMath())
        laneMathOffsets = LaneControlMath.Offsets()
        laneFlex = .allocate(capacity: 1)
        laneFlex.initialize(to: LaneFlexMath())
    }

    /// - Thread: stopped.
    func deallocate() {
        busLeft.deallocate()
        busRight.deallocate()
        busReverb.deallocate()
        busChorus.deallocate()
        zeroLanes.deallocate()
        scratch.deallocate()
        silence.deallocate()
        otherEncodingScratch.deallocate()
        laneMath.deallocate()
        laneFlex.pointee.deallocate()
        laneFlex.deallocate()
        placeholderGroup.deallocate()
        groupBlocks.deallocate()
        laneBases.deallocate()
        lanePositions.deallocate()
        laneCrossingBases.deallocate()
        laneStitches.deallocate()
        laneGains.deallocate()
        laneFilters.deallocate()
        laneBands.deallocate()
        passthrough.deallocate()
    }

    /// Renders `voiceCount` voices from `voices`, `laneCount` at a time in the list's order, for
    /// `frameCount` frames (at most a quantum), and stores their sum in `mix`: the lane buses
    /// summed across, frame by frame, and the send buses when some voice sent to them.
    @_noAllocation @_noLocks
    mutating func renderItem(voices: UnsafeMutablePointer<UnsafeMutablePointer<SamplerVoice>>, voiceCount: Int,
                             frameCount: Int, context: VoiceRenderContext, into mix: VoiceItemMix) {
        dryBusesInUse = false
        reverbBusInUse = false
        chorusBusInUse = false
        blockFrameCount = frameCount
        var first = 0
        while first < voiceCount {
            group = voices + first
            renderGroup(count: min(Sampler.laneCount, voiceCount - first), frameCount: frameCount, context: context)
            first += Sampler.laneCount
        }
        let mark = context.stageClock.now()
        // Summed across in the kernels' builds: in module Render's baseline build the pairwise sums
        // took 8 % of a dense song's render.
        context.kernel.sumLanes(busLeft, into: mix.left, frameCount: frameCount)
        context.kernel.sumLanes(busRight, into: mix.right, frameCount: frameCount)
        if reverbBusInUse { context.kernel.sumLanes(busReverb, into: mix.reverb, frameCount: frameCount) }
        if chorusBusInUse { context.kernel.sumLanes(busChorus, into: mix.chorus, frameCount: frameCount) }
        _ = context.stageClock.charge(.sum, since: mark)
        mix.sends.pointee = (reverbBusInUse ? VoiceItemMix.reverbSent : 0) | (chorusBusInUse ? VoiceItemMix.chorusSent : 0)
    }

    /// Renders the `count` voices in `group` for `frameCount` frames into the lane buses, a control
    /// block at a time.
    @_noAllocation @_noLocks
    mutating func renderGroup(count: Int, frameCount: Int, context: VoiceRenderContext) {
        var offset = 0
        let clock = context.stageClock
        var mark = clock.now()
        while offset < frameCount {
            let blockFrames = min(SamplerVoice.controlBlockFrameCount, frameCount - offset)
            // The control update in passes: each voice up to its exponentials; the exponentials of
            // every lane whose pitch, cutoff or level moved, at once; each voice's gains and filter
            // from them; the sines of the lanes whose two-pole filter moved, at once, and those
            // filters' coefficients.
            // The flex envelopes and LFOs first, so that their levels and waves are computed for
            // every lane at once before each voice sums its routes.
            var flexing = false
            for lane in 0..<count where group[lane].pointee.stepsFlex {
                if !flexing { laneFlex.pointee.begin() }
                flexing = true
                let voice = group[lane]
                voice.pointee.stepFlex(frameCount: blockFrames, channel: context.channels + Int(voice.pointee.channel),
                                       sampleRate: context.sampleRate, lane: lane, into: &laneFlex.pointee)
            }
            if flexing { laneFlex.pointee.compute() }
            var moved = LaneControlMath.Movement()
            for lane in 0..<Sampler.laneCount {
                if lane < count && group[lane].pointee.isActive {
                    let voice = group[lane]
                    voice.pointee.prepare(frameCount: blockFrames, channel: context.channels + Int(voice.pointee.channel),
                                          sampleRate: context.sampleRate, flexMath: laneFlex, lane: lane, into: &groupBlocks[lane])
                    if groupBlocks[lane].isPending {
                        let movement = voice.pointee.movement(groupBlocks[lane])
                        if movement.any {
                            LaneControlMath.setLane(lane, of: laneMath, from: groupBlocks[lane], offsets: laneMathOffsets)
                            moved.add(movement)
                        }
                    }
                } else {
                    groupBlocks[lane] = SamplerVoice.ControlBlock()
                }
            }
            if moved.any { laneMath.pointee.computeExponentials(of: moved) }
            var filtering = false, settingFilters = false
            for lane in 0..<Sampler.laneCount {
                if groupBlocks[lane].isPending {
                    group[lane].pointee.complete(frameCount: blockFrames, ratio: laneMath.pointee.ratio[lane],
                                                 cutoffHertz: laneMath.pointee.cutoffHertz[lane], level: laneMath.pointee.level[lane],
                                                 sampleRate: context.sampleRate, sends: context.sendsEnabled, into: &groupBlocks[lane])
                    if groupBlocks[lane].isStarved { context.starvedVoices.pointee.add(1, ordering: .relaxed) }
                    if groupBlocks[lane].setsFilter {
                        LaneControlMath.setFilterLane(lane, of: laneMath, from: groupBlocks[lane], q: group[lane].pointee.filterQ,
                                                      passbandGain: group[lane].pointee.filterPassbandGain, offsets: laneMathOffsets)
                        settingFilters = true
                    }
                }
                if groupBlocks[lane].filterActive {
                    laneFilters[lane] = (UnsafeMutableRawPointer(group[lane]) + filterOffset).assumingMemoryBound(to: VoiceFilter.self)
                    filtering = true
                } else {
                    laneFilters[lane] = passthrough
                }
            }
            if settingFilters {
                laneMath.pointee.computeFilters(context.kernel)
                for lane in 0..<count where groupBlocks[lane].setsFilter {
                    group[lane].pointee.setFilter(lane: lane, of: laneMath)
                }
            }
            if clock.counts { countVoiceBlocks(count: count, frameCount: blockFrames, clock: clock) }
            mark = clock.charge(.control, since: mark)
            readLanes(count: count, frameCount: blockFrames, context: context, mark: &mark)
            var staged = false
            for lane in 0..<count where groupBlocks[lane].isReading && (group[lane].pointee.runsEqualizer || group[lane].pointee.runsSecondFilter) {
                staged = true
            }
            if staged { runFilterStages(count: count, frameCount: blockFrames) }
            // Every passthrough lane writes its (zero) state back into the one shared filter:
            // clearing it each block keeps anything stray from carrying over.
            if filtering {
                passthrough.pointee.reset()
                var filter = VoiceFilterLanes(laneFilters)
                mixGroup(frameCount: blockFrames, filtering: true, filter: &filter, offset: offset, context: context)
                filter.store(into: laneFilters)
            } else {
                var unused = VoiceFilterLanes()
                mixGroup(frameCount: blockFrames, filtering: false, filter: &unused, offset: offset, context: context)
            }
            mark = clock.charge(.filterAndMix, since: mark)
            for lane in 0..<count where group[lane].pointee.isActive {
                let voice = group[lane]
                // A voice that ends here is counted out by the sampler once every item is done.
                voice.pointee.finish(groupBlocks[lane], frameCount: blockFrames)
            }
            offset += blockFrames
        }
        _ = clock.charge(.control, since: mark)
    }

    /// Counts the block of each voice that reads into the profile's voice census
    /// (`RenderVoiceCensus`): the loudest of its gains at the block's two ends (they ramp between).
    @_noAllocation @_noLocks
    func countVoiceBlocks(count: Int, frameCount: Int, clock: RenderStageClock) {
        let frames = Float(frameCount)
        for lane in 0..<count where groupBlocks[lane].isReading {
            let block = groupBlocks[lane]
            let left = max(abs(block.leftStart), abs(block.leftStart + block.leftStep * frames))
            let right = max(abs(block.rightStart), abs(block.rightStart + block.rightStep * frames))
            clock.countVoiceBlock(released: group[lane].pointee.isReleased, peakGain: max(left, right))
        }
    }

    /// Runs the second filter and the equalizer of every lane whose voice has them over the block
    /// in `scratch`, stage after stage, eight lanes at a time (the others pass through; a stage no
    /// lane has is skipped), before the mix and the voice's own filter.
    @_noAllocation @_noLocks
    mutating func runFilterStages(count: Int, frameCount: Int) {
        for stage in 0..<VoiceFilterStages.count {
            var anyLane = false
            for lane in 0..<Sampler.laneCount {
                let voice = group[lane]
                let runs = stage == 0 ? lane < count && voice.pointee.runsSecondFilter : lane < count && voice.pointee.runsEqualizer
                if runs, groupBlocks[lane].isReading, let stages = voice.pointee.filterStages {
                    laneBands[lane] = VoiceFilterStages.stage(stage, of: stages)
                    anyLane = true
                } else {
                    laneBands[lane] = passthrough
                }
            }
            guard anyLane else { continue }
            var filter = VoiceFilterLanes(laneBands)
            for frame in 0..<frameCount {
                let input = scratch[frame]
                let output = filter.b0 * input + filter.z1
                filter.z1 = filter.b1 * input - filter.a1 * output + filter.z2
                filter.z2 = filter.b2 * input - filter.a2 * output
                scratch[frame] = output
            }
            filter.store(into: laneBands)
            passthrough.pointee.reset()
        }
    }

    /// Reads one control block of every lane into `scratch` and sets each lane's `produced`. Runs
    /// that no lane's sample end interrupts go through the SIMD reader, which takes the lanes'
    /// loops itself (`SamplerVoice.loopsInReader`); the frame or two where some lane reaches its
    /// sample's end (or the end of a loop too short for the reader) are read lane by lane, and the
    /// SIMD reader resumes.
    /// `mark` is the stage clock's last reading: the lane reader's frames are charged to
    /// `RenderStage.read`, the others to `.readAtEnds`.
    @_noAllocation @_noLocks
    mutating func readLanes(count: Int, frameCount: Int, context: VoiceRenderContext, mark: inout UInt64) {
        let lanes = UnsafeMutableRawPointer(scratch).assumingMemoryBound(to: Float.self)
        var done = 0
        while done < frameCount {
            var clear = frameCount - done
            for lane in 0..<count where groupBlocks[lane].isReading {
                clear = min(clear, group[lane].pointee.clearFrameCount(limit: clear))
            }
            if clear > 0 {
                readGroup(count: count, from: done, frameCount: clear, context: context)
                mark = context.stageClock.charge(.read, since: mark)
                done += clear
                continue
            }
            for lane in 0..<Sampler.laneCount {
                let output = lanes + done * Sampler.laneCount + lane
                output.pointee = 0
                guard lane < count, groupBlocks[lane].isReading else { continue }
                let voice = group[lane]
                if voice.pointee.readSample(into: output, stride: 1, frameCount: 1, increment: voice.pointee.lastIncrement,
                                            interpolation: context.interpolation) == 0 {
                    // The sample ended: the lane reads silence from here on.
                    groupBlocks[lane].isReading = false
                    groupBlocks[lane].produced = done
                }
            }
            mark = context.stageClock.charge(.readAtEnds, since: mark)
            done += 1
        }
        for lane in 0..<count where groupBlocks[lane].isReading { groupBlocks[lane].produced = frameCount }
    }

    /// Reads `frameCount` frames from frame `from` of the block for every lane at once (no lane is
    /// near its sample's end, and a lane near its loop end loops in the reader) through the
    /// kernel's SIMD reader. Lanes not reading read silence at a standstill.
    @_noAllocation @_noLocks
    func readGroup(count: Int, from: Int, frameCount: Int, context: VoiceRenderContext) {
        // Within a run each lane's position is split into a whole frame count from its base and a
        // Float fraction: cheap to step and convert. The error (under 1e-5 frames a block) never
        // accumulates: the Double position is advanced exactly at the end.
        lanePositions.pointee.reset()
        let positions = UnsafeMutableRawPointer(lanePositions)
        // A lane's numbers, stored as scalars (a single lane written into a vector value goes
        // through the stack and stalls on every write); a silent lane's stay zero, so it stands
        // still on the silence rather than stepping past its eight frames.
        func place(lane: Int, fraction: Float, fractionStep: Float, wholeStep: UInt32) {
            positions.storeBytes(of: fraction, toByteOffset: fractionOffset + 4 * lane, as: Float.self)
            positions.storeBytes(of: fractionStep, toByteOffset: fractionStepOffset + 4 * lane, as: Float.self)
            positions.storeBytes(of: wholeStep, toByteOffset: wholeStepOffset + 4 * lane, as: UInt32.self)
        }
        func placeLoop(lane: Int, whole: Int, crossingFrom: Int, wrapFrom: Int, loopLength: Int) {
            positions.storeBytes(of: UInt32(truncatingIfNeeded: whole), toByteOffset: wholeOffset + 4 * lane, as: UInt32.self)
            positions.storeBytes(of: Int32(truncatingIfNeeded: crossingFrom), toByteOffset: crossingFromOffset + 4 * lane, as: Int32.self)
            positions.storeBytes(of: Int32(truncatingIfNeeded: wrapFrom), toByteOffset: wrapFromOffset + 4 * lane, as: Int32.self)
            positions.storeBytes(of: UInt32(truncatingIfNeeded: loopLength), toByteOffset: loopLengthOffset + 4 * lane, as: UInt32.self)
        }
        var wordLanes = 0, floatLanes = 0, anyLaneLoops = false
        for lane in 0..<Sampler.laneCount {
            guard lane < count, groupBlocks[lane].isReading, let samples = group[lane].pointee.samples else {
                laneBases[lane] = UnsafeRawPointer(silence + 1)
                continue
            }
            let voice = group[lane]
            let start = Int(voice.pointee.position)
            laneBases[lane] = samples.address(ofFrame: start - 1)
            if samples.encoding == .int16 { wordLanes |= 1 << lane } else { floatLanes |= 1 << lane }
            let increment = voice.pointee.lastIncrement
            place(lane: lane, fraction: Float(voice.pointee.position - Double(start)),
                  fractionStep: Float(increment - Double(UInt32(increment))), wholeStep: UInt32(increment))
            // A lane that may come near its loop end in this run (the frame of slack covers the
            // Float fraction's drift over the run): its whole count starts at the loop's start or
            // its own position, whichever is earlier (so that stepping back never takes the count
            // below 0), its base a frame before that, and its loop and the stitch its windows there
            // read are counted from there. (Every other lane's loop stays out of the reader's way,
            // at `Int32.max`.)
            if voice.pointee.loopsInReader,
               voice.pointee.position + Double(frameCount) * increment + 1 >= Double(voice.pointee.loopEnd - 2) {
                let loopStart = voice.pointee.loopStart, loopEnd = voice.pointee.loopEnd
                let countOrigin = min(start, loopStart)
                laneBases[lane] = samples.address(ofFrame: countOrigin - 1)
                let crossingFrom = loopEnd &- 2 &- countOrigin
                placeLoop(lane: lane, whole: start &- countOrigin, crossingFrom: crossingFrom, wrapFrom: loopEnd &- countOrigin,
                          loopLength: loopEnd &- loopStart)
                let stitch = laneStitches + lane * Self.stitchByteCount
                voice.pointee.stitchLoop(samples, into: stitch)
                laneCrossingBases[lane] = UnsafeRawPointer(stitch) - crossingFrom * samples.encoding.bytesPerFrame
                anyLaneLoops = true
            }
        }
        let output = scratch + from
        if floatLanes == 0 || wordLanes == 0 {
            context.kernel.readLanes(cubic: context.interpolation.isCubic, encoding: floatLanes == 0 ? .int16 : .float32, anyLaneLoops: anyLaneLoops,
                                     bases: laneBases,
                                     crossingBases: laneCrossingBases, positions: lanePositions, into: output, frameCount: frameCount)
        } else {
            // Voices of two banks stored at different widths (one ringing out after a switch): each
            // width is read in a pass of its own with the other's lanes silent, and the passes are
            // summed; a silent lane adds exact zeros, so every lane's frames are as one pass reads them.
            let all = lanePositions.pointee
            var bases = SIMD8<UInt>()
            for lane in 0..<Sampler.laneCount { bases[lane] = UInt(bitPattern: laneBases[lane]) }
            func silence(lanes: Int) {
                for lane in 0..<Sampler.laneCount where lanes & (1 << lane) != 0 {
                    laneBases[lane] = UnsafeRawPointer(self.silence + 1)
                    place(lane: lane, fraction: 0, fractionStep: 0, wholeStep: 0)
                    placeLoop(lane: lane, whole: 0, crossingFrom: Int(Int32.max), wrapFrom: Int(Int32.max), loopLength: 0)
                }
            }
            silence(lanes: floatLanes)
            context.kernel.readLanes(cubic: context.interpolation.isCubic, encoding: .int16, anyLaneLoops: anyLaneLoops, bases: laneBases,
                                     crossingBases: laneCrossingBases, positions: lanePositions, into: output, frameCount: frameCount)
            lanePositions.pointee = all
            for lane in 0..<Sampler.laneCount { laneBases[lane] = UnsafeRawPointer(bitPattern: bases[lane])! }
            silence(lanes: wordLanes)
            context.kernel.readLanes(cubic: context.interpolation.isCubic, encoding: .float32, anyLaneLoops: anyLaneLoops, bases: laneBases,
                                     crossingBases: laneCrossingBases, positions: lanePositions, into: otherEncodingScratch,
                                     frameCount: frameCount)
            for frame in 0..<frameCount { output[frame] += otherEncodingScratch[frame] }
        }
        for lane in 0..<count where groupBlocks[lane].isReading {
            group[lane].pointee.advance(by: frameCount)
        }
    }

    /// Adds the lanes into the lane buses at `offset` in the block, each through its own ramped
    /// gains and, with `filtering`, its lane of `filter`; into the send buses too when some lane
    /// sends (a bus's first mix of the block starts from zeros). Lanes past a voice's end hold
    /// zeros, and empty lanes have zero gains, so all of them mix in one pass.
    @_noAllocation @_noLocks
    mutating func mixGroup(frameCount: Int, filtering: Bool, filter: inout VoiceFilterLanes, offset: Int, context: VoiceRenderContext) {
        let b = groupBlocks
        // Each vector built whole from its eight lanes: single-lane writes into a vector go
        // through the stack and stall on every write.
        var gains = LaneGains()
        gains.leftStart = Lanes(b[0].leftStart, b[1].leftStart, b[2].leftStart, b[3].leftStart, b[4].leftStart, b[5].leftStart, b[6].leftStart, b[7].leftStart)
        gains.leftStep = Lanes(b[0].leftStep, b[1].leftStep, b[2].leftStep, b[3].leftStep, b[4].leftStep, b[5].leftStep, b[6].leftStep, b[7].leftStep)
        gains.rightStart = Lanes(b[0].rightStart, b[1].rightStart, b[2].rightStart, b[3].rightStart, b[4].rightStart, b[5].rightStart, b[6].rightStart, b[7].rightStart)
        gains.rightStep = Lanes(b[0].rightStep, b[1].rightStep, b[2].rightStep, b[3].rightStep, b[4].rightStep, b[5].rightStep, b[6].rightStep, b[7].rightStep)
        gains.reverbStart = Lanes(b[0].reverbStart, b[1].reverbStart, b[2].reverbStart, b[3].reverbStart, b[4].reverbStart, b[5].reverbStart, b[6].reverbStart, b[7].reverbStart)
        gains.reverbStep = Lanes(b[0].reverbStep, b[1].reverbStep, b[2].reverbStep, b[3].reverbStep, b[4].reverbStep, b[5].reverbStep, b[6].reverbStep, b[7].reverbStep)
        gains.chorusStart = Lanes(b[0].chorusStart, b[1].chorusStart, b[2].chorusStart, b[3].chorusStart, b[4].chorusStart, b[5].chorusStart, b[6].chorusStart, b[7].chorusStart)
        gains.chorusStep = Lanes(b[0].chorusStep, b[1].chorusStep, b[2].chorusStep, b[3].chorusStep, b[4].chorusStep, b[5].chorusStep, b[6].chorusStep, b[7].chorusStep)
        // The lanes hold frames at their pools' stored scale: each lane's gains carry its scale (a
        // power of two, so the products are exact and the bits those of scaling every frame).
        let scales = Lanes(b[0].sampleScale, b[1].sampleScale, b[2].sampleScale, b[3].sampleScale,
                           b[4].sampleScale, b[5].sampleScale, b[6].sampleScale, b[7].sampleScale)
        gains.leftStart *= scales
        gains.leftStep *= scales
        gains.rightStart *= scales
        gains.rightStep *= scales
        gains.reverbStart *= scales
        gains.reverbStep *= scales
        gains.chorusStart *= scales
        gains.chorusStep *= scales
        laneGains.pointee = gains
        var sendsReverb = false, sendsChorus = false
        for lane in 0..<Sampler.laneCount {
            if b[lane].sendsReverb { sendsReverb = true }
            if b[lane].sendsChorus { sendsChorus = true }
        }
        // Each bus's first mix of the item starts from zeros (or, were it to cover part of the block,
        // clears the bus first); later ones add to it. The kernel's chorus loop also adds to the
        // reverb bus (a chorus-only loop is not worth having).
        let wholeBlock = offset == 0 && frameCount == blockFrameCount
        func source(_ bus: UnsafeMutablePointer<Lanes>, firstUse: Bool) -> UnsafePointer<Lanes> {
            guard firstUse else { return UnsafePointer(bus + offset) }
            if wholeBlock { return UnsafePointer(zeroLanes) }
            bus.update(repeating: Lanes(), count: blockFrameCount)
            return UnsafePointer(bus + offset)
        }
        let sendsToReverb = sendsReverb || sendsChorus
        let leftFrom = source(busLeft, firstUse: !dryBusesInUse), rightFrom = source(busRight, firstUse: !dryBusesInUse)
        let reverbFrom = source(busReverb, firstUse: sendsToReverb && !reverbBusInUse)
        let chorusFrom = source(busChorus, firstUse: sendsChorus && !chorusBusInUse)
        dryBusesInUse = true
        if sendsToReverb { reverbBusInUse = true }
        if sendsChorus { chorusBusInUse = true }
        context.kernel.mixLanes(scratch, frameCount: frameCount, gains: laneGains, filtering: filtering, filter: &filter,
                                sendsReverb: sendsReverb, sendsChorus: sendsChorus,
                                busLeft: busLeft + offset, busRight: busRight + offset,
                                busReverb: busReverb + offset, busChorus: busChorus + offset,
                                leftFrom: leftFrom, rightFrom: rightFrom, reverbFrom: reverbFrom, chorusFrom: chorusFrom)
    }
}
