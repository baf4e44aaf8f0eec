import AudioFile
import FileChecks
import Foundation
import ProcessLimits
import Render
import SampleSet
import SampleStreaming
import Synchronization

/// An SFZ instrument read headers first: its text planned (`SFZPlan`), each sample file's header
/// read (frames, rate, channels, its sampler chunk), the pool laid out for every file's channels
/// at the engine's rate, and every region built; no sample decoded. A channel of a file is one
/// sample of the bank (`SamplerRegion.sampleIndex`): what `makeBank` decodes, now or behind the
/// voices, and what a song's notes reach (`samplesReached`).
/// - Thread: control.
final class SFZIndex {
    let path: String
    let plan: SFZPlan
    let sampleRate: Double
    /// The distinct sample files, sorted.
    let files: [String]
    /// Each bank sample: its file (an index into `files`) and channel.
    let samples: [(file: Int, channel: Int)]
    /// Where each bank sample starts in the pool, and its frames there (at the engine's rate).
    let slots: [Int]
    let frameCounts: [Int]
    /// Frames of the whole pool.
    let poolFrameCount: Int
    /// The regions of every preset, laid out as the bank holds them, and for each its sample.
    let regions: [SamplerRegion]
    let presets: [SampleBank.Preset]
    let presetNames: [String]
    let modulators: [SamplerModulator]
    let curves: [Float]
    /// The regions' flex envelopes, LFOs and routes.
    let flex: SamplerFlex.Tables
    /// Files whose header could not be read: their regions are left out.
    let warnings: [String]

    init(path: String, sampleRate: Double) throws(SampleSetError) {
        precondition(sampleRate > 0 && sampleRate.isFinite, "sample rate must be positive")
        self.path = path
        self.sampleRate = sampleRate
        plan = try SFZPlan(path: path)
        files = Array(Set(plan.regions.map(\.samplePath))).sorted()

        // The pool: guard frames, then each file's channels, each followed by guard frames, as
        // the files' headers give their lengths at the engine's rate.
        var placed: [String: [(sample: Int, placed: SamplePoolBuilder.Placed)]] = [:]
        var samples: [(file: Int, channel: Int)] = [], slots: [Int] = [], frameCounts: [Int] = []
        var position = SampleBank.guardFrameCount
        var damaged: [SampleSetError] = []
        for (fileIndex, file) in files.enumerated() {
            let header: (frameCount: Int, sampleRate: Int, channelCount: Int)
            do { header = try Self.header(file, sampleRate: sampleRate) } catch {
                damaged.append(error)
                continue
            }
            guard header.channelCount == 1 || header.channelCount == 2 else {
                damaged.append(SampleSetError(path: file, reason: "\(header.channelCount) channels; expected mono or stereo"))
                continue
            }
            guard header.frameCount > 0 else {
                damaged.append(SampleSetError(path: file, reason: "no audio frames"))
                continue
            }
            let frames = Resampler.Converter.outputFrameCount(header.frameCount, from: Double(header.sampleRate), to: sampleRate)
            let chunk = SFZOscillator(rawValue: file) == nil ? SamplerChunk.read(path: file) : nil
            for channel in 0..<header.channelCount {
                placed[file, default: []].append((samples.count, SamplePoolBuilder.Placed(
                    start: position, frameCount: frames, sourceFrameCount: header.frameCount, sourceRate: Double(header.sampleRate),
                    samplerChunk: chunk)))
                samples.append((fileIndex, channel))
                slots.append(position)
                frameCounts.append(frames)
                position += frames + SampleBank.guardFrameCount
            }
        }
        if damaged.count == files.count, let first = damaged.first { throw first }
        self.samples = samples
        self.slots = slots
        self.frameCounts = frameCounts
        poolFrameCount = position

        var regions: [SamplerRegion] = []
        // One copy of each distinct modulator list (most regions have the defaults alone).
        var modulators = SamplerModulator.defaults
        var listStarts: [[SamplerModulator]: Int32] = [SamplerModulator.defaults: 0]
        // One copy of each distinct velocity curve.
        var curves: [Float] = []
        var curveIndices: [[Float]: Int32] = [:]
        // Each built region, and the programs its planned region plays on (nil: every one).
        var programsOfRegion: [ClosedRange<UInt8>?] = []
        var unplayable: [String] = []
        var curveOfUse: [SFZPlan.CurveUse: Int32] = [:]
        let sfzPlan = plan
        // One copy of each distinct flex set (a group's regions share theirs).
        var flex = SamplerFlex.Tables()
        var flexRanges: [SamplerFlex.Tables: SamplerFlex.Ranges] = [:]
        for planned in plan.regions {
            var ranges = SamplerFlex.Ranges()
            if !planned.flex.isEmpty {
                if let known = flexRanges[planned.flex] {
                    ranges = known
                } else {
                    ranges.firstEnvelope = Int32(flex.envelopes.count)
                    ranges.envelopeCount = UInt8(planned.flex.envelopes.count)
                    ranges.firstLFO = Int32(flex.lfos.count)
                    ranges.lfoCount = UInt8(planned.flex.lfos.count)
                    ranges.firstRoute = Int32(flex.routes.count)
                    ranges.routeCount = Int32(planned.flex.routes.count)
                    let firstPoint = Int32(flex.points.count)
                    flex.points += planned.flex.points
                    flex.envelopes += planned.flex.envelopes.map { envelope in
                        var envelope = envelope
                        envelope.firstPoint += firstPoint
                        return envelope
                    }
                    flex.lfos += planned.flex.lfos
                    flex.routes += planned.flex.routes
                    flexRanges[planned.flex] = ranges
                }
                ranges.amplitudeEnvelope = Int8(planned.flexAmplitudeEnvelope)
            }
            // Its modulators' curves, each laid out once in the bank's table.
            // A curve the file does not define reads as its controller does without one.
            func laidOut(_ local: Int32) -> Int32 {
                let use = planned.curveUses[Int(local)]
                if curveOfUse[use] == nil, let table = sfzPlan.table(for: use) {
                    curveOfUse[use] = Int32(curves.count / SampleBank.Layout.curveLength)
                    curves += table
                }
                return curveOfUse[use] ?? -1
            }
            var list = planned.modulators
            for index in list.indices where list[index].curve >= 0 { list[index].curve = laidOut(list[index].curve) }
            let secondFilterCurve = planned.template.secondFilter.cutoffCurve >= 0 ? laidOut(planned.template.secondFilter.cutoffCurve) : -1
            // `offset_onccN` moves the start by frames of the file: as many of the pool's rate.
            if let sourceRate = placed[planned.samplePath]?.first?.placed.sourceRate, sourceRate != sampleRate {
                for index in list.indices where list[index].destination == .startAddrsOffset { list[index].amount *= Float(sampleRate / sourceRate) }
            }
            let firstModulator = listStarts[list] ?? Int32(modulators.count)
            if listStarts[list] == nil {
                listStarts[list] = firstModulator
                modulators += list
            }
            let channels = placed[planned.samplePath] ?? []
            for (index, channel) in channels.enumerated() {
                let side: Float = channels.count == 1 ? 0 : (index == 0 ? -1 : 1)
                var region: SamplerRegion
                do throws(SampleSetError) {
                    region = try planned.region(in: channel.placed, side: side, sampleRate: sampleRate)
                } catch {
                    // Its sample is shorter than it says (an offset past the end): dropped, named.
                    if channel.placed.start == channels[0].placed.start { unplayable.append("\(error.path): \(error.reason); the region is dropped") }
                    continue
                }
                region.firstModulator = firstModulator
                region.flex = ranges
                region.secondFilter.cutoffCurve = secondFilterCurve
                region.modulatorCount = Int32(list.count)
                region.sampleIndex = Int32(channel.sample)
                if let curve = planned.velocityCurve {
                    region.velocityCurve = curveIndices[curve] ?? Int32(curves.count / SampleBank.Layout.curveLength)
                    if curveIndices[curve] == nil { curveIndices[curve] = region.velocityCurve; curves += curve }
                }
                regions.append(region)
                programsOfRegion.append(planned.programs)
            }
        }
        guard !regions.isEmpty else {
            throw SampleSetError(path: path, reason: "no region that plays (\((unplayable + damaged.map(\.description)).prefix(3).joined(separator: "; ")))")
        }
        // `loprog`/`hiprog`: a preset (bank 0) for each program a region names, holding the regions
        // that play on it (those that name none play on all); with none named, one preset,
        // program 0, which every program falls back to.
        let named = Set(programsOfRegion.compactMap { $0 }.flatMap { Array($0) }).sorted()
        var presets: [SampleBank.Preset] = [], presetRegions: [SamplerRegion] = [], presetNames: [String] = []
        for program in named.isEmpty ? [0] : named {
            var preset = SampleBank.Preset(bank: 0, program: program, firstRegion: presetRegions.count, regionCount: 0)
            for (region, programs) in zip(regions, programsOfRegion) where programs?.contains(program) ?? true {
                presetRegions.append(region)
                preset.regionCount += 1
            }
            if let keyswitches = plan.keyswitches { (preset.lowKeyswitch, preset.highKeyswitch) = (keyswitches.lowerBound, keyswitches.upperBound) }
            preset.defaultKeyswitch = plan.defaultKeyswitch ?? SamplerRegion.anyKeyswitch
            presets.append(preset)
            presetNames.append(named.isEmpty ? plan.name : "\(plan.name) (program \(program))")
        }
        self.regions = presetRegions
        self.presets = presets
        self.presetNames = presetNames
        self.modulators = modulators
        self.curves = curves
        self.flex = flex
        warnings = plan.warnings + unplayable + damaged.map { "\($0); its regions are left out" }
    }

    /// The bank samples `notes` reach (by key and velocity: a superset of what the regions'
    /// other conditions let play), those played first first.
    func samplesReached(by notes: PlayedNotes) -> [Int] {
        let firstOfRegion = regions.withUnsafeBufferPointer { regions in
            presets.withUnsafeBufferPointer { notes.firstFrames(ofRegions: regions, presets: $0) }
        }
        var firstOfSample = [Int64?](repeating: nil, count: samples.count)
        for (region, frame) in firstOfRegion.enumerated() {
            guard let frame else { continue }
            let sample = Int(regions[region].sampleIndex)
            if firstOfSample[sample].map({ frame < $0 }) ?? true { firstOfSample[sample] = frame }
        }
        return firstOfSample.indices.filter { firstOfSample[$0] != nil }.sorted { (firstOfSample[$0]!, $0) < (firstOfSample[$1]!, $1) }
    }

    /// A sample file's frames, rate and channels, from its header; a generated sound's
    /// (`SFZOscillator`) as the loader writes it, at the engine's rate.
    static func header(_ file: String, sampleRate: Double) throws(SampleSetError) -> (frameCount: Int, sampleRate: Int, channelCount: Int) {
        if let oscillator = SFZOscillator(rawValue: file) { return (oscillator.frameCount(sampleRate: sampleRate), Int(sampleRate), 1) }
        do { return try AudioFileReader.header(file) } catch { throw SampleSetError(path: error.path, reason: error.reason) }
    }

    /// The converter from `rate` to the engine's.
    func converter(from rate: Double) -> Resampler.Converter { Resampler.Converter.shared(from: rate, to: sampleRate) }

    /// The bank, with `samples` written: all of them before it returns, on every core, when
    /// `decodeNow`, else none (the caller writes heads and hands the rest to
    /// `BackgroundDecoding`), and the decoder that writes them. Without `residency` every sample
    /// must be in `samples` and written now: the bank then has no residency flags.
    func makeBank(decoding wanted: [Int], decodeNow: Bool, residency: Bool, budgetBytes: Int? = nil,
                  progress: (@Sendable (Double) -> Void)?) throws(SampleSetError) -> (bank: SampleBank, decoder: SFZSampleDecoder) {
        precondition(residency || (decodeNow && wanted.count == samples.count), "a bank without residency holds every sample")
        let flags = residency ? SampleResidency(sampleCount: samples.count) : nil
        let decoder = try SFZSampleDecoder(index: self, wanted: wanted, residency: flags, budgetBytes: budgetBytes)
        var poolHandedOver = false
        defer { if !poolHandedOver { decoder.pool.deallocate() } }
        var failures: [SampleSetError] = []
        if decodeNow { failures = decoder.decodeInParallel(wanted, progress: progress) }
        var regions = self.regions, presets = self.presets
        if !residency {
            // Every region's frames are written: no sample to name. A file that did not decode
            // leaves its regions out of the bank (their slots are never read).
            let failed = Set(failures.map(\.path))
            var kept: [SamplerRegion] = []
            for index in presets.indices {
                let first = kept.count
                for region in regions[presets[index].firstRegion ..< presets[index].firstRegion + presets[index].regionCount]
                    where !failed.contains(files[samples[Int(region.sampleIndex)].file]) {
                    var region = region
                    region.sampleIndex = -1
                    kept.append(region)
                }
                presets[index].firstRegion = first
                presets[index].regionCount = kept.count - first
            }
            regions = kept
        }
        poolHandedOver = true
        let bank = SampleBank(name: path, takingSamples: decoder.pool, regions: regions, presets: presets, presetNames: presetNames,
                              modulators: modulators, curves: curves,
                              initialControllers: plan.initialControllers.map { UInt16($0.controller) << 8 | UInt16($0.value) },
                              residency: flags, flex: flex)
        bank.loadWarnings = warnings + failures.map { "\($0); its regions are left out" }
        return (bank, decoder)
    }
}

/// Writes an SFZ instrument's samples into its bank's pool: a file decoded (its head's part
/// alone, for a head) and resampled to the engine's rate, one channel into its slot, its frontier
/// moved. The head and the body of a channel are the frames a whole resampling gives
/// (`Resampler.Converter.convert(_:of:outputs:)`).
/// - Thread: any. Each sample is written by one thread at a time.
final class SFZSampleDecoder: StreamedSamples, @unchecked Sendable {
    let index: SFZIndex
    let pool: SamplePool
    let residency: SampleResidency?

    /// Lays the pool out (`SFZIndex`), writing the guard frames around each of `wanted`, and
    /// checks that the machine can hold what will be written (`budgetBytes` at most).
    init(index: SFZIndex, wanted: [Int], residency: SampleResidency?, budgetBytes: Int?) throws(SampleSetError) {
        self.index = index
        self.residency = residency
        let guardFrames = SampleBank.guardFrameCount
        let wantedBytes = min(wanted.reduce(0) { $0 + index.frameCounts[$1] + 2 * guardFrames } * 4, budgetBytes ?? .max)
        for (bytes, purpose, addressSpace) in [(wantedBytes, "of sample memory", false),
                                               (index.poolFrameCount * 4, "of address space for its sample pool", true)] {
            guard let available = addressSpace ? MemoryHeadroom.addressSpaceBytes() : MemoryHeadroom.availableBytes(),
                  bytes + (64 << 20) > available else { continue }
            let megabytes = MemoryHeadroom.shortfall(needed: bytes + (64 << 20), available: available)
            throw SampleSetError(path: index.path, reason: "needs \(megabytes.neededMB) MB \(purpose), only \(megabytes.availableMB) MB can be had")
        }
        pool = SamplePool.allocate(encoding: .float32, frameCount: index.poolFrameCount)
        let floats = pool.storage.assumingMemoryBound(to: Float.self)
        floats.initialize(repeating: 0, count: guardFrames)
        for sample in wanted {
            (floats + index.slots[sample] - guardFrames).initialize(repeating: 0, count: guardFrames)
            (floats + index.slots[sample] + index.frameCounts[sample]).initialize(repeating: 0, count: guardFrames)
        }
    }

    var sampleCount: Int { index.samples.count }
    func slot(of sample: Int) -> Int { index.slots[sample] }
    var bytesPerFrame: Int { 4 }
    func frameCount(of sample: Int) -> Int { index.frameCounts[sample] }
    func headFrames(of sample: Int) -> Int { SampleStreaming.headFrames(rate: index.sampleRate) }

    func decode(_ sample: Int, upTo: Int?) throws(StreamedSampleFailure) {
        do throws(SampleSetError) { try write([sample], headFrames: upTo) } catch {
            throw StreamedSampleFailure(file: error.path, description: error.description)
        }
    }

    /// Writes bank samples `samples`, channels of one file, each from what is written up to its
    /// end, or up to `headFrames` frames from its start: the part of the file they need decoded
    /// once and resampled to the engine's rate.
    func write(_ samples: [Int], headFrames: Int? = nil) throws(SampleSetError) {
        let ranges = samples.map { sample in
            let frameCount = index.frameCounts[sample], slot = index.slots[sample]
            let written = residency.map { min(frameCount, max(0, $0.frontier(sample) - slot)) } ?? 0
            return written..<min(frameCount, headFrames ?? frameCount)
        }
        guard ranges.contains(where: { !$0.isEmpty }), let fileIndex = samples.first.map({ index.samples[$0].file }) else { return }
        let file = index.files[fileIndex]
        let header = try SFZIndex.header(file, sampleRate: index.sampleRate)
        let converter = index.converter(from: Double(header.sampleRate))
        guard samples.allSatisfy({ index.samples[$0].file == fileIndex && header.channelCount > index.samples[$0].channel
                                   && converter.outputFrameCount(header.frameCount) == index.frameCounts[$0] }) else {
            throw SampleSetError(path: file, reason: "changed since it was opened: its header no longer says what the instrument was laid out for")
        }
        // The input those frames read: a head, the beginning of the file; a stretch of a body, the
        // frames around it; a whole body, the file from the body's start on.
        let inputs = ranges.filter { !$0.isEmpty }.map { converter.inputFrames(for: $0, of: header.frameCount) }
        let needed = (inputs.map(\.lowerBound).min() ?? 0)..<(inputs.map(\.upperBound).max() ?? 0)
        let audio: DecodedAudio
        do {
            if let oscillator = SFZOscillator(rawValue: file) {
                audio = DecodedAudio(sampleRate: header.sampleRate, channelCount: 1, samples: Array(oscillator.frames(sampleRate: index.sampleRate)[needed]))
            } else {
                audio = needed == 0..<header.frameCount ? try AudioFileReader.read(file) : try AudioFileReader.readRange(file, frames: needed)
            }
        } catch {
            throw SampleSetError(path: error.path, reason: error.reason)
        }
        for (sample, range) in zip(samples, ranges) where !range.isEmpty {
            let channel = index.samples[sample].channel
            let input = audio.channelCount == 1 ? audio.samples : (0..<audio.frameCount).map { audio.samples[$0 * audio.channelCount + channel] }
            let frames = converter.convert(input, startingAt: needed.lowerBound, of: header.frameCount, outputs: range)
            let target = pool.storage.assumingMemoryBound(to: Float.self) + index.slots[sample] + range.lowerBound
            frames.withUnsafeBufferPointer { target.update(from: $0.baseAddress!, count: frames.count) }
            if range.upperBound == index.frameCounts[sample] {
                residency?.markResident(sample)
            } else {
                residency?.markWritten(sample, below: index.slots[sample] + range.upperBound)
            }
        }
    }

    /// Writes `samples` on every core, a file at a time, whole or their first `headFrames`;
    /// returns the files that failed.
    func decodeInParallel(_ samples: [Int], headFrames: Int? = nil, progress: (@Sendable (Double) -> Void)?) -> [SampleSetError] {
        var byFile: [Int: [Int]] = [:]
        for sample in samples { byFile[index.samples[sample].file, default: []].append(sample) }
        let groups = byFile.keys.sorted().map { byFile[$0]! }
        let failures = Mutex<[SampleSetError]>([])
        let done = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: groups.count) { item in
            do throws(SampleSetError) { try write(groups[item], headFrames: headFrames) } catch {
                failures.withLock { $0.append(error) }
            }
            let finished = done.add(1, ordering: .relaxed).newValue
            progress?(Double(finished) / Double(max(1, groups.count)))
        }
        return failures.withLock { $0.sorted { $0.path < $1.path } }
    }
}
