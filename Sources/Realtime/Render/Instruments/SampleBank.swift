import Synchronization

/// A loaded sampled instrument set: one pool of mono samples (`SamplePool`, at their stored width)
/// and the presets that play from it. Built on the control thread (by the SoundFont or sample-set
/// loader), then swapped into the renderer by pointer; its tables never change after that. A bank
/// with a `residency` may be installed before every sample is decoded: the loader's decoding
/// threads go on writing samples no voice reads yet, each made playable by its frontier. When the renderer lets go of a
/// bank it goes back on the return ring and is freed on the control thread.
///
/// Everything the audio thread reads is in unsafe buffers owned by the bank, so reading costs no
/// reference counting and cannot trigger copy-on-write.
@dynamicMemberLookup
public final class SampleBank: @unchecked Sendable {
    /// Frames of silence kept before and after every sample in `samples`, so 4-point interpolation
    /// never reads outside the pool.
    /// - Thread: any.
    public static var guardFrameCount: Int { 8 }

    /// A preset: what a bank-select/program-change pair picks.
    public struct Preset: Sendable, BitwiseCopyable, Equatable {
        /// MIDI bank (SF2 bank; 128 is the percussion bank).
        public var bank: UInt16
        public var program: UInt8
        /// First region in `regions`, and how many belong to this preset.
        public var firstRegion: Int
        public var regionCount: Int
        /// The keys that switch articulations (SFZ `sw_lokey`...`sw_hikey`): a note-on there sets the
        /// channel's keyswitch, which regions with a `SamplerRegion.keyswitch` answer to. Empty
        /// (low above high) when the preset has none.
        public var lowKeyswitch: UInt8 = 1
        public var highKeyswitch: UInt8 = 0
        /// The keyswitch a channel starts with when it selects the preset (SFZ `sw_default`);
        /// `SamplerRegion.anyKeyswitch` when none is given.
        public var defaultKeyswitch: UInt8 = SamplerRegion.anyKeyswitch
        /// - Thread: any.
        public init(bank: UInt16, program: UInt8, firstRegion: Int, regionCount: Int) {
            self.bank = bank
            self.program = program
            self.firstRegion = firstRegion
            self.regionCount = regionCount
        }

        /// The SF2 bank of drum kits: what GM's percussion channel plays.
        /// - Thread: any.
        public static var percussionBank: UInt16 {
            @_noAllocation @_noLocks get { 128 }
        }

        /// The preset a channel plays when it asks for `bank`:`program`, falling back as FluidSynth
        /// does when the font lacks it: a drum channel plays kit `program` of the percussion bank,
        /// else kit 0; a melodic channel plays `bank`:`program`, else bank 0 of the same program,
        /// else 0:0, else the first melodic preset of the font. -1 when nothing fits (a melodic
        /// channel in a font of drum kits only, a drum channel in a font without kits). The
        /// renderer picks with it and the control thread foresees the picks with it, so what a
        /// warning says is what plays.
        /// - Thread: any.
        @_noAllocation @_noLocks
        public static func index(playing bank: UInt16, program: UInt8, percussion: Bool,
                                 in presets: UnsafeBufferPointer<Preset>) -> Int {
            var sameProgramInBankZero = -1, firstOfBankZero = -1, firstMelodic = -1, firstKit = -1
            for index in 0..<presets.count {
                let preset = presets[index]
                let isKit = preset.bank == percussionBank
                guard isKit == percussion else { continue }
                if percussion {
                    if preset.program == program { return index }
                    if preset.program == 0 && firstKit < 0 { firstKit = index }
                    continue
                }
                if preset.bank == bank && preset.program == program { return index }
                if preset.bank == 0 && preset.program == program && sameProgramInBankZero < 0 { sameProgramInBankZero = index }
                if preset.bank == 0 && preset.program == 0 && firstOfBankZero < 0 { firstOfBankZero = index }
                if firstMelodic < 0 { firstMelodic = index }
            }
            if percussion { return firstKit }
            if sameProgramInBankZero >= 0 { return sameProgramInBankZero }
            return firstOfBankZero >= 0 ? firstOfBankZero : firstMelodic
        }
    }

    /// Where the bank came from, for messages.
    public let name: String
    /// What its loader said of the file while building it and did not refuse (an SFZ's opcodes
    /// that do not play, what it chose instead): one line each, for the command to print.
    /// - Thread: control.
    public var loadWarnings: [String] = []
    /// Mono samples, every sample surrounded by `guardFrameCount` zero frames.
    public let samples: SamplePool
    /// Which samples are in memory, for a bank installed before its loader has decoded them all
    /// (`SampleResidency`); nil when every region's frames were written before the bank was built.
    public let residency: SampleResidency?
    /// SFZ 2's flex envelopes, LFOs and routes (`SamplerFlex`), which regions name ranges of; one
    /// empty slot each when no region has any.
    public let flexPoints: UnsafeBufferPointer<SamplerFlex.Point>
    public let flexEnvelopes: UnsafeBufferPointer<SamplerFlex.Envelope>
    public let flexLFOs: UnsafeBufferPointer<SamplerFlex.LFO>
    public let flexRoutes: UnsafeBufferPointer<SamplerFlex.Route>
    /// The four tables as plain pointers, whose address each region with flex modulation holds.
    public let flexLayout: UnsafePointer<SamplerFlex.Layout>
    /// Names of the presets, parallel to `presets`: the audio thread never reads them.
    /// - Thread: control.
    public let presetNames: [String]
    /// The bank's tables as plain data, for the audio thread, which must not touch the class
    /// itself (that would mean metadata and reference counting). Lives as long as the bank.
    public let layout: UnsafePointer<Layout>

    /// The tables by name, read through `layout` (`bank.regions` is `bank.layout.pointee.regions`):
    /// `Layout` is their one list, so the class does not repeat it field for field.
    /// - Thread: any.
    @inlinable
    public subscript<Value>(dynamicMember keyPath: KeyPath<Layout, Value>) -> Value { layout.pointee[keyPath: keyPath] }

    /// Whether the bank has a drum kit (a preset in the percussion bank): a song's channel 10
    /// plays the shipped kit where it has none.
    /// - Thread: control.
    public var hasDrumKit: Bool { layout.pointee.presets.contains { $0.bank == Preset.percussionBank } }

    /// Where a bank's data is, as trivially copyable pointers.
    public struct Layout: @unchecked Sendable, BitwiseCopyable {
        /// The pool's frames, as the audio thread reads them.
        public let samples: SampleFrames
        public let regions: UnsafeBufferPointer<SamplerRegion>
        public let presets: UnsafeBufferPointer<Preset>
        /// For preset `p` and key `k`, entries `keyRegionStarts[p * 128 + k] ..< keyRegionStarts[p * 128 + k + 1]`
        /// of `keyRegions` are the preset's regions whose key range holds `k` (ascending): a note-on
        /// tests those few rather than every region of its preset (dozens for a piano, a few hundred
        /// bytes each), the largest part of its cost in a burst of note-ons. Entry `e` is two numbers:
        /// `keyRegions[2 * e]` the region's index and `keyRegions[2 * e + 1]` its velocity range
        /// (`Layout.velocityRange(low:high:)`), so that of a key's velocity layers (18 regions a key in the
        /// shipped piano) only those the note plays are read.
        public let keyRegionStarts: UnsafeBufferPointer<Int32>
        public let keyRegions: UnsafeBufferPointer<Int32>
        /// Every region's resolved modulators, each region holding a range of it; the table begins with
        /// `SamplerModulator.defaults`, the range a region has by default.
        public let modulators: UnsafeBufferPointer<SamplerModulator>
        /// Curves, `Layout.curveLength` values each (for 0…127), that regions name by index: velocity
        /// curves, gains 0…1 (`SamplerRegion.velocityCurve`), and controller curves, -1…1
        /// (`SamplerModulator.curve`); empty when no region has one.
        public let curves: UnsafeBufferPointer<Float>
        /// Controller values the bank sets on every channel when it is installed (SFZ `set_ccN`): each
        /// entry the controller number in its high byte and the value in its low one.
        public let initialControllers: UnsafeBufferPointer<UInt16>
        /// The controllers some region's `controllerTrigger` names, a bit each (controller n: bit
        /// n % 64 of word n / 64): a controller change looks for regions to start only when its bit is set.
        public let triggeringControllers: (UInt64, UInt64)
        /// `SampleResidency.cells`, nil when every sample is in memory.
        public let residentSamples: UnsafePointer<Atomic<Int>>?
        /// `SampleResidency.requests` and `.pendingRequests`, nil when every sample is in memory.
        public let sampleRequests: UnsafePointer<Atomic<Bool>>?
        public let pendingSampleRequests: UnsafePointer<Atomic<Int>>?
        /// Entries of one curve in `curves`: one per velocity.
        /// - Thread: any.
        @inlinable public static var curveLength: Int { @_noAllocation @_noLocks get { 128 } }

        /// A velocity range as `keyRegions` holds it: the low velocity, then the high one a byte up.
        /// - Thread: any.
        @inlinable @_noAllocation @_noLocks
        public static func velocityRange(low: UInt8, high: UInt8) -> Int32 { Int32(low) | Int32(high) << 8 }

        /// True when `velocity` lies in `range` (`velocityRange(low:high:)`).
        /// - Thread: any.
        @inlinable @_noAllocation @_noLocks
        public static func velocity(_ velocity: UInt8, isIn range: Int32) -> Bool {
            Int32(velocity) >= range & 0xFF && Int32(velocity) <= range >> 8
        }
    }

    /// Copies `samples` into a Float pool of its own, then as `init(name:takingSamples:...)`: for
    /// tests and small banks, where a second copy of the pool costs nothing worth avoiding.
    /// - Thread: control. Not real-time safe: allocates.
    public convenience init(name: String, samples: [Float], regions: [SamplerRegion], presets: [Preset], presetNames: [String],
                            modulators: [SamplerModulator] = SamplerModulator.defaults, curves: [Float] = [],
                            initialControllers: [UInt16] = [], flex: SamplerFlex.Tables = SamplerFlex.Tables()) {
        self.init(name: name, takingSamples: SamplePool.copying(samples),
                  regions: regions, presets: presets, presetNames: presetNames, modulators: modulators, curves: curves,
                  initialControllers: initialControllers, flex: flex)
    }

    /// Takes over `samples` as the bank's pool, and copies `regions` into a buffer of its own, then
    /// as `init(name:takingSamples:takingRegions:...)`.
    /// - Thread: control. Not real-time safe: allocates.
    public convenience init(name: String, takingSamples samples: SamplePool, regions: [SamplerRegion],
                            presets: [Preset], presetNames: [String], modulators: [SamplerModulator] = SamplerModulator.defaults,
                            curves: [Float] = [], initialControllers: [UInt16] = [], residency: SampleResidency? = nil,
                            flex: SamplerFlex.Tables = SamplerFlex.Tables()) {
        self.init(name: name, takingSamples: samples, takingRegions: UnsafeMutableBufferPointer(mutating: UnsafeBufferPointer.copying(regions)),
                  presets: presets, presetNames: presetNames, modulators: modulators, curves: curves, initialControllers: initialControllers,
                  residency: residency, flex: flex)
    }

    /// Takes over `samples` as the bank's pool and `regions` as its region table, without copying
    /// either (a large font's pool is hundreds of megabytes, and its regions a few hundred bytes
    /// each, tens of thousands of them; a copy would hold them twice while loading), and copies the
    /// other arrays into buffers the audio thread can read without reference counting.
    /// `modulators` is the table the regions' modulator ranges index, starting with the defaults.
    /// - Parameters:
    ///   - samples: every frame written; from here on the bank owns the pool and frees it in
    ///     `deinit`, so the caller must neither free nor write it again.
    ///   - regions: allocated with `UnsafeMutableBufferPointer.allocate` (at least one slot, so its
    ///     base address is the allocation's) and every region initialized; owned by the bank from
    ///     here on, as `samples`.
    /// - Precondition: every region's sample indices lie inside `samples` and its modulators inside
    ///   `modulators`; every preset's regions lie inside `regions`. Loaders validate before calling;
    ///   this checks again.
    /// - Thread: control. Not real-time safe: allocates.
    public init(name: String, takingSamples samples: SamplePool, takingRegions regions: UnsafeMutableBufferPointer<SamplerRegion>,
                presets: [Preset], presetNames: [String], modulators: [SamplerModulator] = SamplerModulator.defaults,
                curves: [Float] = [], initialControllers: [UInt16] = [], residency: SampleResidency? = nil,
                flex: SamplerFlex.Tables = SamplerFlex.Tables()) {
        precondition(regions.baseAddress != nil, "the region table must be an allocated buffer")
        precondition(presetNames.count == presets.count)
        precondition(modulators.starts(with: SamplerModulator.defaults), "the modulator table must begin with the defaults")
        for region in regions {
            precondition(region.start >= 0 && region.start <= region.end && region.end <= samples.frameCount
                         && region.loopStart >= region.start && region.loopEnd <= samples.frameCount,
                         "region outside the sample pool")
            precondition(region.firstModulator >= 0 && region.modulatorCount >= 0
                         && Int(region.firstModulator) + Int(region.modulatorCount) <= modulators.count,
                         "region modulators outside the modulator table")
            precondition(region.velocityCurve < curves.count / Layout.curveLength, "region velocity curve outside the curve table")
            precondition(residency == nil || Int(region.sampleIndex) < residency!.sampleCount, "region sample outside the residency table")
            let ranges = region.flex
            precondition(ranges.firstEnvelope >= 0 && Int(ranges.firstEnvelope) + Int(ranges.envelopeCount) <= flex.envelopes.count
                         && ranges.firstLFO >= 0 && Int(ranges.firstLFO) + Int(ranges.lfoCount) <= flex.lfos.count
                         && ranges.firstRoute >= 0 && Int(ranges.firstRoute) + Int(ranges.routeCount) <= flex.routes.count
                         && Int(ranges.envelopeCount) <= SamplerFlex.capacity && Int(ranges.lfoCount) <= SamplerFlex.capacity
                         && Int(ranges.amplitudeEnvelope) < Int(ranges.envelopeCount), "region flex modulation outside the flex tables")
        }
        for envelope in flex.envelopes {
            precondition(envelope.firstPoint >= 0 && envelope.pointCount >= 0 && Int(envelope.firstPoint) + Int(envelope.pointCount) <= flex.points.count,
                         "flex envelope points outside the point table")
        }
        precondition(flex.routes.allSatisfy { Int($0.source) < 2 * SamplerFlex.capacity }, "flex route from no envelope or LFO")
        precondition(curves.count % Layout.curveLength == 0 && curves.allSatisfy { $0 >= -1 && $0 <= 1 }, "curves of 128 values in -1…1")
        for preset in presets {
            precondition(preset.firstRegion >= 0 && preset.regionCount >= 0 && preset.firstRegion + preset.regionCount <= regions.count)
        }
        self.name = name
        self.samples = samples
        self.residency = residency
        let regionTable = UnsafeBufferPointer(regions)
        let presetTable = UnsafeBufferPointer.copying(presets)
        // Counted, then written in place: grown as arrays and copied, the entries (a few hundred
        // thousand in a GM font) would be held two or three times over while the bank is built.
        var entryCount = 0
        for preset in presets {
            for index in preset.firstRegion ..< preset.firstRegion + preset.regionCount
                where regions[index].lowKey <= regions[index].highKey && Int(regions[index].lowKey) < MIDILimits.keyCount {
                entryCount += Int(min(regions[index].highKey, 127)) - Int(regions[index].lowKey) + 1
            }
        }
        let starts = UnsafeMutableBufferPointer<Int32>.allocate(capacity: presets.count * MIDILimits.keyCount + 1)
        let keyRegions = UnsafeMutableBufferPointer<Int32>.allocate(capacity: max(1, 2 * entryCount))
        var entry = 0
        for (presetIndex, preset) in presets.enumerated() {
            for key in 0..<MIDILimits.keyCount {
                starts[presetIndex * MIDILimits.keyCount + key] = Int32(entry)
                for index in preset.firstRegion ..< preset.firstRegion + preset.regionCount
                    where Int(regions[index].lowKey) <= key && key <= Int(regions[index].highKey) {
                    keyRegions[2 * entry] = Int32(index)
                    keyRegions[2 * entry + 1] = Layout.velocityRange(low: regions[index].lowVelocity, high: regions[index].highVelocity)
                    entry += 1
                }
            }
        }
        precondition(entry == entryCount)
        starts[presets.count * MIDILimits.keyCount] = Int32(entry)
        let keyRegionTable = UnsafeBufferPointer(rebasing: keyRegions[..<(2 * entryCount)])
        self.presetNames = presetNames
        let modulatorTable = UnsafeBufferPointer.copying(modulators)
        let curveTable = UnsafeBufferPointer.copying(curves)
        // The regions' modulators read the bank's curves from here (none: 0, so that the regions
        // of two banks without curves compare equal).
        let curveTableAddress = curves.isEmpty ? 0 : UInt(bitPattern: curveTable.baseAddress)
        for index in regions.indices { regions[index].curveTableAddress = curveTableAddress }
        // The flex tables, one slot at least each, so that every pointer is an allocation's.
        flexPoints = UnsafeBufferPointer.copying(flex.points.isEmpty ? [SamplerFlex.Point()] : flex.points)
        flexEnvelopes = UnsafeBufferPointer.copying(flex.envelopes.isEmpty ? [SamplerFlex.Envelope()] : flex.envelopes)
        flexLFOs = UnsafeBufferPointer.copying(flex.lfos.isEmpty ? [SamplerFlex.LFO()] : flex.lfos)
        flexRoutes = UnsafeBufferPointer.copying(flex.routes.isEmpty ? [SamplerFlex.Route(source: 0, target: .pitch, depth: 0)] : flex.routes)
        let flexLayout = UnsafeMutablePointer<SamplerFlex.Layout>.allocate(capacity: 1)
        flexLayout.initialize(to: SamplerFlex.Layout(points: flexPoints.baseAddress!, envelopes: flexEnvelopes.baseAddress!,
                                                     lfos: flexLFOs.baseAddress!, routes: flexRoutes.baseAddress!))
        self.flexLayout = UnsafePointer(flexLayout)
        // Regions without flex modulation keep 0, so that equal regions of two banks compare equal.
        for index in regions.indices where !regions[index].flex.isEmpty {
            regions[index].flex.layoutAddress = UInt(bitPattern: self.flexLayout)
        }
        precondition(initialControllers.allSatisfy { $0 >> 8 < 128 && $0 & 0xFF < 128 }, "controller numbers and values 0-127")
        let layout = UnsafeMutablePointer<Layout>.allocate(capacity: 1)
        layout.initialize(to: Layout(samples: samples.frames, regions: regionTable, presets: presetTable,
                                   keyRegionStarts: UnsafeBufferPointer(starts), keyRegions: keyRegionTable,
                                   modulators: modulatorTable, curves: curveTable,
                                   initialControllers: UnsafeBufferPointer.copying(initialControllers),
                                   triggeringControllers: Self.triggeringControllers(of: UnsafeBufferPointer(regions)),
                                   residentSamples: residency?.cells,
                                   sampleRequests: residency?.requests, pendingSampleRequests: residency?.pendingRequests))
        self.layout = UnsafePointer(layout)
    }

    deinit {
        let tables = layout.pointee
        tables.regions.deallocate()
        tables.presets.deallocate()
        tables.keyRegionStarts.deallocate()
        tables.keyRegions.deallocate()
        tables.modulators.deallocate()
        tables.curves.deallocate()
        tables.initialControllers.deallocate()
        UnsafeMutablePointer(mutating: layout).deallocate()
        UnsafeMutablePointer(mutating: flexLayout).deallocate()
        flexPoints.deallocate()
        flexEnvelopes.deallocate()
        flexLFOs.deallocate()
        flexRoutes.deallocate()
        samples.deallocate()
    }

    /// The controllers `regions`' `controllerTrigger`s name, as `Layout.triggeringControllers` holds them.
    static func triggeringControllers(of regions: UnsafeBufferPointer<SamplerRegion>) -> (UInt64, UInt64) {
        var words: (UInt64, UInt64) = (0, 0)
        for region in regions where region.controllerTrigger.controller < 128 {
            let controller = Int(region.controllerTrigger.controller)
            if controller < 64 { words.0 |= 1 << UInt64(controller) } else { words.1 |= 1 << UInt64(controller - 64) }
        }
        return words
    }

    /// The index of the preset for `bank`/`program`, or nil.
    /// - Thread: any.
    @inlinable
    public func presetIndex(bank: UInt16, program: UInt8) -> Int? {
        let presets = layout.pointee.presets
        for index in 0..<presets.count where presets[index].bank == bank && presets[index].program == program {
            return index
        }
        return nil
    }

    /// Bytes of sample memory held (for reports).
    /// - Thread: any.
    public var sampleByteCount: Int { samples.byteCount }
}
