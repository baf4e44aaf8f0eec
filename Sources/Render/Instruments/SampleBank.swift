/// A loaded sampled instrument set: one pool of decoded mono float samples and the presets that
/// play from it. Built whole on the control thread (by the SoundFont or sample-set loader), then
/// swapped into the renderer by pointer; never changed after that. When the renderer lets go of a
/// bank it goes back on the return ring and is freed on the control thread.
///
/// Everything the audio thread reads is in unsafe buffers owned by the bank, so reading costs no
/// reference counting and cannot trigger copy-on-write.
public final class SampleBank: @unchecked Sendable {
    /// Frames of silence kept before and after every sample in `samples`, so 4-point interpolation
    /// never reads outside the pool.
    public static var guardFrameCount: Int { 8 }

    /// A preset: what a bank-select/program-change pair picks.
    public struct Preset: Sendable, BitwiseCopyable, Equatable {
        /// MIDI bank (SF2 bank; 128 is the percussion bank).
        public var bank: UInt16
        public var program: UInt8
        /// First region in `regions`, and how many belong to this preset.
        public var firstRegion: Int
        public var regionCount: Int
        public init(bank: UInt16, program: UInt8, firstRegion: Int, regionCount: Int) {
            self.bank = bank
            self.program = program
            self.firstRegion = firstRegion
            self.regionCount = regionCount
        }

        /// The SF2 bank of drum kits: what GM's percussion channel plays.
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
    /// Mono float samples, every sample surrounded by `guardFrameCount` zero frames.
    public let samples: UnsafeBufferPointer<Float>
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
    /// Names of the presets, parallel to `presets` (control thread only).
    public let presetNames: [String]
    /// The buffers above as plain data, for the audio thread, which must not touch the class
    /// itself (that would mean metadata and reference counting). Lives as long as the bank.
    public let layout: UnsafePointer<Layout>

    /// Where a bank's data is, as trivially copyable pointers.
    public struct Layout: @unchecked Sendable, BitwiseCopyable {
        public let samples: UnsafeBufferPointer<Float>
        public let regions: UnsafeBufferPointer<SamplerRegion>
        public let presets: UnsafeBufferPointer<Preset>
        public let keyRegionStarts: UnsafeBufferPointer<Int32>
        public let keyRegions: UnsafeBufferPointer<Int32>
        public let modulators: UnsafeBufferPointer<SamplerModulator>

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

    /// Copies `samples` into a buffer of its own, then as `init(name:takingSamples:...)`: for tests
    /// and small banks, where a second copy of the pool costs nothing worth avoiding.
    /// - Thread: control. Not real-time safe: allocates.
    public convenience init(name: String, samples: [Float], regions: [SamplerRegion], presets: [Preset], presetNames: [String],
                            modulators: [SamplerModulator] = SamplerModulator.defaults) {
        self.init(name: name, takingSamples: UnsafeMutableBufferPointer(mutating: UnsafeBufferPointer.copying(samples)),
                  regions: regions, presets: presets, presetNames: presetNames, modulators: modulators)
    }

    /// Takes over `samples` as the bank's pool, without copying it (a large font's pool is hundreds
    /// of megabytes; a copy would hold it twice while loading), and copies the other arrays into
    /// buffers the audio thread can read without reference counting. `modulators` is the table the
    /// regions' modulator ranges index, starting with the defaults.
    /// - Parameter samples: allocated with `UnsafeMutableBufferPointer.allocate` (its base address
    ///   is the allocation's, never nil) and fully initialized; from here on the bank owns it and
    ///   deallocates it in `deinit`, so the caller must neither free nor write it again.
    /// - Precondition: every region's sample indices lie inside `samples` and its modulators inside
    ///   `modulators`; every preset's regions lie inside `regions`. Loaders validate before calling;
    ///   this checks again.
    /// - Thread: control. Not real-time safe: allocates.
    public init(name: String, takingSamples samples: UnsafeMutableBufferPointer<Float>, regions: [SamplerRegion],
                presets: [Preset], presetNames: [String], modulators: [SamplerModulator] = SamplerModulator.defaults) {
        precondition(samples.baseAddress != nil, "the sample pool must be an allocated buffer")
        precondition(presetNames.count == presets.count)
        precondition(modulators.starts(with: SamplerModulator.defaults), "the modulator table must begin with the defaults")
        for region in regions {
            precondition(region.start >= 0 && region.start <= region.end && region.end <= samples.count
                         && region.loopStart >= region.start && region.loopEnd <= samples.count,
                         "region outside the sample pool")
            precondition(region.firstModulator >= 0 && region.modulatorCount >= 0
                         && Int(region.firstModulator) + Int(region.modulatorCount) <= modulators.count,
                         "region modulators outside the modulator table")
        }
        for preset in presets {
            precondition(preset.firstRegion >= 0 && preset.regionCount >= 0 && preset.firstRegion + preset.regionCount <= regions.count)
        }
        self.name = name
        self.samples = UnsafeBufferPointer(samples)
        self.regions = UnsafeBufferPointer.copying(regions)
        self.presets = UnsafeBufferPointer.copying(presets)
        var starts: [Int32] = []
        starts.reserveCapacity(presets.count * 128 + 1)
        var keyRegions: [Int32] = []
        for preset in presets {
            for key in 0..<128 {
                starts.append(Int32(keyRegions.count / 2))
                for index in preset.firstRegion ..< preset.firstRegion + preset.regionCount
                    where Int(regions[index].lowKey) <= key && key <= Int(regions[index].highKey) {
                    keyRegions.append(Int32(index))
                    keyRegions.append(Layout.velocityRange(low: regions[index].lowVelocity, high: regions[index].highVelocity))
                }
            }
        }
        starts.append(Int32(keyRegions.count / 2))
        keyRegionStarts = UnsafeBufferPointer.copying(starts)
        self.keyRegions = UnsafeBufferPointer.copying(keyRegions)
        self.presetNames = presetNames
        self.modulators = UnsafeBufferPointer.copying(modulators)
        let layout = UnsafeMutablePointer<Layout>.allocate(capacity: 1)
        layout.initialize(to: Layout(samples: self.samples, regions: self.regions, presets: self.presets,
                                   keyRegionStarts: keyRegionStarts, keyRegions: self.keyRegions,
                                   modulators: self.modulators))
        self.layout = UnsafePointer(layout)
    }

    deinit {
        UnsafeMutablePointer(mutating: layout).deallocate()
        samples.deallocate()
        regions.deallocate()
        presets.deallocate()
        keyRegionStarts.deallocate()
        keyRegions.deallocate()
        modulators.deallocate()
    }

    /// The index of the preset for `bank`/`program`, or nil.
    /// - Thread: any.
    @inlinable
    public func presetIndex(bank: UInt16, program: UInt8) -> Int? {
        for index in 0..<presets.count where presets[index].bank == bank && presets[index].program == program {
            return index
        }
        return nil
    }

    /// Bytes of sample memory held (for reports).
    public var sampleByteCount: Int { samples.count * MemoryLayout<Float>.stride }
}
