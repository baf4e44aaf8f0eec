import AudioFile
import DSP
import Foundation
import Glibc
import Render
import SampleStreaming
import Synchronization

/// Writes a font's samples into a bank's pool: each sample read from the file (`pread`, safe from
/// any thread) or its SF3 stream decoded, straight into its own slot, then marked resident. Made
/// with the pool laid out (`SoundFontIndex.makeBank`); used for the samples decoded before the bank
/// plays and by `BackgroundDecoding` for the rest.
/// - Thread: any. Each sample is written by one thread, once.
final class SampleDecoder: StreamedSamples, @unchecked Sendable {
    let hydra: Hydra
    let file: SoundFontFile
    let streams: [Int: Range<Int>]
    let pool: SamplePool
    /// Where sample `i` starts in the pool, -1 for a sample without a slot.
    let slots: [Int]
    let residency: SampleResidency?

    /// Lays out a pool with a slot for every sample a region plays, in file order, between guard
    /// frames: the layout a whole load has, whatever is decoded, so a voice's position in the pool
    /// (a Double, whose fraction depends on how far into the pool it is) and so the render are
    /// the same bits as with everything loaded. Only `samples` are ever written: the guard frames
    /// around each are written here (so the pages a voice of theirs reads are resident before it
    /// starts), and the pages of the others are never touched, so they cost address space, not
    /// memory. Checks that the machine can hold the samples `samples` name.
    /// - Parameter budgetBytes: the most of it a bank under a sample cache keeps written at once
    ///   (`SoundFontLoader.Options.sampleCacheBytes`): what the memory check asks for, when less.
    init(index: SoundFontIndex, samples: [Int], residency: SampleResidency?, budgetBytes: Int? = nil) throws(SoundFontError) {
        hydra = index.hydra
        file = index.file
        streams = index.streams
        self.residency = residency
        let guardFrames = SampleBank.guardFrameCount
        var slots = [Int](repeating: -1, count: hydra.samples.count)
        var poolSize = guardFrames
        var decodedFrames = 0
        for sampleIndex in index.usedSamples {
            let sample = hydra.samples[sampleIndex]
            slots[sampleIndex] = poolSize
            poolSize += sample.end - sample.start + guardFrames
            if streams[sampleIndex] != nil { decodedFrames += sample.end }
        }
        let smplFrames = file.smpl.count / 2
        guard poolSize <= SoundFontLoader.maximumPoolExpansion * smplFrames + decodedFrames + guardFrames * hydra.samples.count + guardFrames else {
            throw SoundFontError(file: hydra.file, chunk: "pdta/shdr", offset: hydra.samples[0].offset,
                                 reason: "the samples' ranges overlap so much that decoding them needs \(poolSize) frames for a smpl chunk of \(smplFrames)")
        }
        // 24-bit samples need more than a word; a Float holds them exactly.
        let encoding: SampleEncoding = file.sm24 == nil ? .int16 : .float32
        let headers = index.hydra.samples
        let wantedFrames = samples.reduce(0) { $0 + headers[$1].end - headers[$1].start + 2 * guardFrames }
        let wantedBytes = min(wantedFrames * encoding.bytesPerFrame, budgetBytes ?? .max)
        try SoundFontLoader.requireMemory(wantedBytes + SoundFontLoader.memoryReserve, for: hydra.file, "of sample memory")
        try SoundFontLoader.requireMemory(poolSize * encoding.bytesPerFrame + SoundFontLoader.memoryReserve, for: hydra.file,
                                          "of address space for its sample pool", addressSpaceOnly: true)
        let pool = SamplePool.allocate(encoding: encoding, frameCount: poolSize)
        let frameBytes = encoding.bytesPerFrame
        func zero(_ frame: Int, _ count: Int) { (pool.storage + frame * frameBytes).initializeMemory(as: UInt8.self, repeating: 0, count: count * frameBytes) }
        zero(0, guardFrames)
        for sampleIndex in samples {
            precondition(slots[sampleIndex] >= 0, "a sample no region plays")
            zero(slots[sampleIndex] - guardFrames, guardFrames)
            zero(slots[sampleIndex] + hydra.samples[sampleIndex].end - hydra.samples[sampleIndex].start, guardFrames)
        }
        self.pool = pool
        self.slots = slots
    }

    /// The bytes of smpl sample `index` takes, for the progress: its Ogg Vorbis stream, or its
    /// 16-bit words.
    func byteCount(ofSample index: Int) -> Int {
        streams[index]?.count ?? 2 * (hydra.samples[index].end - hydra.samples[index].start)
    }

    /// Decodes sample `index` into its slot, or with `headFrames` only its first frames, and
    /// moves its frontier; a sample whose head is in already gets the rest after it. Returns the
    /// bytes of smpl it took.
    func decode(_ index: Int, upTo: Int?) throws(StreamedSampleFailure) {
        do throws(SoundFontError) {
            _ = try write(index, headFrames: upTo)
        } catch {
            throw StreamedSampleFailure(file: error.file, description: error.description)
        }
    }

    var sampleCount: Int { slots.count }
    func slot(of index: Int) -> Int { slots[index] }
    var bytesPerFrame: Int { pool.encoding.bytesPerFrame }
    func frameCount(of index: Int) -> Int { hydra.samples[index].end - hydra.samples[index].start }

    /// `decode`, with the loader's own error; returns the bytes of smpl it took.
    func write(_ index: Int, headFrames: Int? = nil) throws(SoundFontError) -> Int {
        let sample = hydra.samples[index]
        let frameCount = sample.end - sample.start
        // What is written already (a head), and what this call writes: an SF3 stream is decoded
        // from its start whatever is asked, so after its head it is decoded to its end at once.
        let written = residency.map { min(frameCount, max(0, $0.frontier(index) - slots[index])) } ?? 0
        let upTo = streams[index] != nil && written > 0 ? frameCount : min(frameCount, headFrames ?? frameCount)
        guard written < upTo else { return 0 }
        guard let stream = streams[index] else {
            try SoundFontLoader.copy(sample, from: file, into: pool.storage + (slots[index] + written) * pool.encoding.bytesPerFrame,
                                     encoding: pool.encoding, frames: written..<upTo)
            advanceFrontier(index, upTo: upTo, of: frameCount)
            return 2 * (upTo - written)
        }
        let subject = "sample \(index) '\(sample.name)'"
        let bytes = try file.smpl.bytes(stream.lowerBound, stream.count)
        do {
            try bytes.withUnsafeBytes { bytes in
                try AudioFileReader.decodeMono(bytes: bytes, name: subject, into: pool.storage + (slots[index] + written) * pool.encoding.bytesPerFrame,
                                               wordsNotFloats: pool.encoding == .int16, frameCount: frameCount, frames: written..<upTo)
            }
        } catch {
            let reason = (error as? AudioFileError)?.reason ?? "\(error)"
            throw file.smpl.error(at: stream.lowerBound, "\(subject): the Ogg Vorbis data does not decode (\(reason))")
        }
        advanceFrontier(index, upTo: upTo, of: frameCount)
        return upTo == frameCount ? stream.count : 0
    }

    /// Moves sample `index`'s frontier once its first `upTo` of `frameCount` frames are written.
    private func advanceFrontier(_ index: Int, upTo: Int, of frameCount: Int) {
        if upTo == frameCount {
            residency?.markResident(index)
        } else {
            residency?.markWritten(index, below: slots[index] + upTo)
        }
    }

    /// Frames of sample `index` decoded as its head before a live player starts: half a second
    /// at the rate it was recorded at (`SampleStreaming.headSeconds`).
    func headFrames(of index: Int) -> Int {
        SampleStreaming.headFrames(rate: Double(hydra.samples[index].sampleRate))
    }

    /// Decodes `indices` on as many threads as there are cores: a Vorbis decoder runs on one core,
    /// and filling a large pool is mostly the kernel making its pages resident, which two cores do
    /// in half the time. Each thread takes the next sample in order and writes only that sample's
    /// slot. The first failure in that order is thrown; the threads stop taking samples once one
    /// has failed.
    func decodeInParallel(_ indices: ArraySlice<Int>, headsOnly: Bool = false,
                          progress: inout SoundFontLoader.DecodingProgress) throws(SoundFontError) {
        guard !indices.isEmpty else { return }
        let indices = Array(indices)
        progress.totalBytes += indices.reduce(0) { $0 + byteCount(ofSample: $1) }
        let shared = SharedDecoding(progress: progress)
        let threadCount = min(indices.count, max(1, ProcessInfo.processInfo.activeProcessorCount))
        DispatchQueue.concurrentPerform(iterations: threadCount) { _ in
            while true {
                let next = shared.nextJob.wrappingAdd(1, ordering: .relaxed).oldValue
                // A sample before the first failure so far is still decoded: it may fail first.
                guard next < indices.count, next < shared.firstFailure.load(ordering: .relaxed) else { return }
                do throws(SoundFontError) {
                    let index = indices[next]
                    _ = try write(index, headFrames: headsOnly ? headFrames(of: index) : nil)
                    shared.state.withLock { $0.progress.advance(byteCount(ofSample: index)) }
                } catch {
                    shared.state.withLock { state in
                        guard state.failure.map({ $0.order > next }) ?? true else { return }
                        state.failure = (next, error)
                        shared.firstFailure.store(next, ordering: .relaxed)
                    }
                    return
                }
            }
        }
        let outcome = shared.state.withLock { $0 }
        progress = outcome.progress
        if let failure = outcome.failure { throw failure.error }
    }

    /// What the decoding threads share: the next sample to take, the first (in order) to have
    /// failed so far (`Int.max`: none), and, locked, the progress and that failure.
    private final class SharedDecoding: Sendable {
        struct State: Sendable {
            var progress: SoundFontLoader.DecodingProgress
            var failure: (order: Int, error: SoundFontError)?
        }
        let nextJob = Atomic<Int>(0)
        let firstFailure = Atomic<Int>(.max)
        let state: Mutex<State>
        init(progress: SoundFontLoader.DecodingProgress) { state = Mutex(State(progress: progress, failure: nil)) }
    }
}
