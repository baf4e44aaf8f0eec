import AudioFile
import Foundation

/// Builds small SoundFont 2 files in memory for tests: the RIFF layout written out by hand from
/// the specification (not with the loader's code), so the tests check the loader against the
/// format rather than against itself.
struct SF2Builder {
    typealias Generator = (op: UInt16, amount: UInt16)
    /// A modulator record (SF2 §7.4 sfModList) as stored: sources in the sfModulator encoding.
    typealias Modulator = (source: UInt16, destination: UInt16, amount: Int16, amountSource: UInt16, transform: UInt16)

    /// Generator numbers (SF2 §8.1.2), spelled out independently of the loader's table.
    enum Op {
        static let startAddrsOffset: UInt16 = 0, endAddrsOffset: UInt16 = 1, startloopAddrsOffset: UInt16 = 2
        static let endloopAddrsOffset: UInt16 = 3, startAddrsCoarseOffset: UInt16 = 4, modLfoToPitch: UInt16 = 5
        static let vibLfoToPitch: UInt16 = 6, modEnvToPitch: UInt16 = 7, initialFilterFc: UInt16 = 8
        static let initialFilterQ: UInt16 = 9, modLfoToFilterFc: UInt16 = 10, modEnvToFilterFc: UInt16 = 11
        static let endAddrsCoarseOffset: UInt16 = 12, modLfoToVolume: UInt16 = 13, chorusEffectsSend: UInt16 = 15
        static let reverbEffectsSend: UInt16 = 16, pan: UInt16 = 17, delayModLFO: UInt16 = 21, freqModLFO: UInt16 = 22
        static let delayVibLFO: UInt16 = 23, freqVibLFO: UInt16 = 24, delayModEnv: UInt16 = 25, attackModEnv: UInt16 = 26
        static let holdModEnv: UInt16 = 27, decayModEnv: UInt16 = 28, sustainModEnv: UInt16 = 29, releaseModEnv: UInt16 = 30
        static let keynumToModEnvHold: UInt16 = 31, keynumToModEnvDecay: UInt16 = 32, delayVolEnv: UInt16 = 33
        static let attackVolEnv: UInt16 = 34, holdVolEnv: UInt16 = 35, decayVolEnv: UInt16 = 36, sustainVolEnv: UInt16 = 37
        static let releaseVolEnv: UInt16 = 38, keynumToVolEnvHold: UInt16 = 39, keynumToVolEnvDecay: UInt16 = 40
        static let instrument: UInt16 = 41, keyRange: UInt16 = 43, velRange: UInt16 = 44
        static let startloopAddrsCoarseOffset: UInt16 = 45, keynum: UInt16 = 46, velocity: UInt16 = 47
        static let initialAttenuation: UInt16 = 48, endloopAddrsCoarseOffset: UInt16 = 50, coarseTune: UInt16 = 51
        static let fineTune: UInt16 = 52, sampleID: UInt16 = 53, sampleModes: UInt16 = 54, scaleTuning: UInt16 = 56
        static let exclusiveClass: UInt16 = 57, overridingRootKey: UInt16 = 58
    }

    static func gen(_ op: UInt16, _ value: Int) -> Generator { (op, UInt16(bitPattern: Int16(value))) }
    static func range(_ op: UInt16, _ low: UInt8, _ high: UInt8) -> Generator { (op, UInt16(low) | UInt16(high) << 8) }

    struct Sample {
        var name: String
        var frames: [Int16]
        /// Low bytes for sm24, one per frame, or nil for zeros.
        var lowBytes: [UInt8]? = nil
        /// Loop points relative to the sample's first frame.
        var loopStart: Int
        var loopEnd: Int
        var sampleRate: UInt32 = 44_100
        var originalPitch: UInt8 = 60
        var pitchCorrection: Int8 = 0
        var type: UInt16 = 1
        /// SF3: the frames are written as an Ogg Vorbis stream (through libsndfile) and `type`
        /// gains the compressed bit 0x10; the loop points stay relative to the sample's start.
        var vorbisBytes: [UInt8]? = nil
    }

    /// `sample` with its frames encoded to Ogg Vorbis by the project's `AudioFileWriter` (a
    /// temporary .ogg whose bytes are embedded), as an SF3 compressed sample.
    static func compressed(_ sample: Sample) throws -> Sample {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sf3-\(UUID().uuidString).ogg").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try AudioFileWriter(path: path, sampleRate: Int(sample.sampleRate), channelCount: 1)
        try writer.write(sample.frames.map { Float($0) / 32_768 })
        try writer.close()
        var result = sample
        result.vorbisBytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        result.type |= 0x10
        return result
    }

    struct Instrument {
        var name: String
        /// Each zone's generator list in file order; a zone that plays a sample ends with sampleID.
        var zones: [[Generator]]
        /// Each zone's modulators (imod), parallel to `zones`; missing entries mean none.
        var modulators: [[Modulator]] = []
    }

    struct Preset {
        var name: String
        var bank: UInt16 = 0
        var program: UInt16 = 0
        /// Each zone's generator list; a zone that plays an instrument ends with instrument.
        var zones: [[Generator]]
        /// Each zone's modulators (pmod), parallel to `zones`; missing entries mean none.
        var modulators: [[Modulator]] = []
    }

    var version: (major: UInt16, minor: UInt16) = (2, 4)
    var bankName = "Test bank"
    var samples: [Sample] = []
    var instruments: [Instrument] = []
    var presets: [Preset] = []
    /// Write an sm24 chunk (from the samples' `lowBytes`).
    var includeSM24 = false

    /// Frames of zeros after each sample, as the specification requires (46 minimum).
    static let sampleGap = 46

    /// Where each sample starts in smpl: in frames (16-bit words), or for a compressed sample in
    /// bytes, as SF3 addresses it.
    var sampleStarts: [Int] { sampleLayout.map(\.start) }

    /// Each sample's `[start, end)` in smpl (frames, or bytes for a compressed sample) and its
    /// bytes there. A compressed stream is padded to an even length so the PCM samples after it
    /// stay on word boundaries.
    var sampleLayout: [(start: Int, end: Int, bytes: [UInt8])] {
        var layout: [(start: Int, end: Int, bytes: [UInt8])] = []
        var byteOffset = 0
        for sample in samples {
            if let vorbis = sample.vorbisBytes {
                let padded = vorbis + (vorbis.count % 2 == 1 ? [0] : [])
                layout.append((byteOffset, byteOffset + vorbis.count, padded))
                byteOffset += padded.count
            } else {
                let bytes = sample.frames.flatMap { Self.u16(UInt16(bitPattern: $0)) } + [UInt8](repeating: 0, count: 2 * Self.sampleGap)
                layout.append((byteOffset / 2, byteOffset / 2 + sample.frames.count, bytes))
                byteOffset += bytes.count
            }
        }
        return layout
    }

    /// The pdta sub-chunks in their required order; tests may edit them before assembly.
    func pdtaChunks() -> [(id: String, data: [UInt8])] {
        func record(_ modulator: Modulator) -> [UInt8] {
            Self.u16(modulator.source) + Self.u16(modulator.destination) + Self.u16(UInt16(bitPattern: modulator.amount))
                + Self.u16(modulator.amountSource) + Self.u16(modulator.transform)
        }
        var phdr: [UInt8] = [], pbag: [UInt8] = [], pgen: [UInt8] = [], pmod: [UInt8] = []
        var bagCount = 0, genCount = 0, modCount = 0
        for preset in presets {
            phdr += Self.name(preset.name) + Self.u16(preset.program) + Self.u16(preset.bank) + Self.u16(UInt16(bagCount))
                + Self.u32(0) + Self.u32(0) + Self.u32(0)
            for (index, zone) in preset.zones.enumerated() {
                pbag += Self.u16(UInt16(genCount)) + Self.u16(UInt16(modCount))
                bagCount += 1
                for generator in zone { pgen += Self.u16(generator.op) + Self.u16(generator.amount); genCount += 1 }
                for modulator in index < preset.modulators.count ? preset.modulators[index] : [] { pmod += record(modulator); modCount += 1 }
            }
        }
        phdr += Self.name("EOP") + Self.u16(0) + Self.u16(0) + Self.u16(UInt16(bagCount)) + Self.u32(0) + Self.u32(0) + Self.u32(0)
        pbag += Self.u16(UInt16(genCount)) + Self.u16(UInt16(modCount))
        pgen += [0, 0, 0, 0]
        pmod += [UInt8](repeating: 0, count: 10)

        var inst: [UInt8] = [], ibag: [UInt8] = [], igen: [UInt8] = [], imod: [UInt8] = []
        bagCount = 0
        genCount = 0
        modCount = 0
        for instrument in instruments {
            inst += Self.name(instrument.name) + Self.u16(UInt16(bagCount))
            for (index, zone) in instrument.zones.enumerated() {
                ibag += Self.u16(UInt16(genCount)) + Self.u16(UInt16(modCount))
                bagCount += 1
                for generator in zone { igen += Self.u16(generator.op) + Self.u16(generator.amount); genCount += 1 }
                for modulator in index < instrument.modulators.count ? instrument.modulators[index] : [] { imod += record(modulator); modCount += 1 }
            }
        }
        inst += Self.name("EOI") + Self.u16(UInt16(bagCount))
        ibag += Self.u16(UInt16(genCount)) + Self.u16(UInt16(modCount))
        igen += [0, 0, 0, 0]
        imod += [UInt8](repeating: 0, count: 10)

        var shdr: [UInt8] = []
        for (sample, place) in zip(samples, sampleLayout) {
            // SF3 loop points of a compressed sample count decoded frames from its start.
            let loopBase = sample.vorbisBytes == nil ? place.start : 0
            shdr += Self.name(sample.name) + Self.u32(UInt32(place.start)) + Self.u32(UInt32(place.end))
                + Self.u32(UInt32(loopBase + sample.loopStart)) + Self.u32(UInt32(loopBase + sample.loopEnd))
                + Self.u32(sample.sampleRate) + [sample.originalPitch, UInt8(bitPattern: sample.pitchCorrection)]
                + Self.u16(0) + Self.u16(sample.type)
        }
        shdr += Self.name("EOS") + [UInt8](repeating: 0, count: 26)
        return [("phdr", phdr), ("pbag", pbag), ("pmod", pmod), ("pgen", pgen),
                ("inst", inst), ("ibag", ibag), ("imod", imod), ("igen", igen), ("shdr", shdr)]
    }

    /// The whole file; `edit` may change the pdta sub-chunks first.
    func build(edit: (inout [(id: String, data: [UInt8])]) -> Void = { _ in }) -> [UInt8] {
        let smpl = sampleLayout.flatMap(\.bytes)
        var sm24: [UInt8] = []
        for sample in samples {
            sm24 += (sample.lowBytes ?? [UInt8](repeating: 0, count: sample.frames.count)) + [UInt8](repeating: 0, count: Self.sampleGap)
        }
        if sm24.count % 2 == 1 { sm24.append(0) }
        let info = Self.chunk("ifil", Self.u16(version.major) + Self.u16(version.minor))
            + Self.chunk("isng", Array("EMU8000".utf8) + [0])
            + Self.chunk("INAM", Array(bankName.utf8) + [0])
        var sdta = Self.chunk("smpl", smpl)
        if includeSM24 { sdta += Self.chunk("sm24", sm24) }
        var pdtaParts = pdtaChunks()
        edit(&pdtaParts)
        let pdta = pdtaParts.flatMap { Self.chunk($0.id, $0.data) }
        let body = Array("sfbk".utf8) + Self.list("INFO", info) + Self.list("sdta", sdta) + Self.list("pdta", pdta)
        return Array("RIFF".utf8) + Self.u32(UInt32(body.count)) + body
    }

    static func u16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xff), UInt8(value >> 8)] }
    static func u32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xff) } }
    static func name(_ text: String) -> [UInt8] { Array((Array(text.utf8) + [UInt8](repeating: 0, count: 20)).prefix(20)) }
    static func chunk(_ id: String, _ data: [UInt8]) -> [UInt8] {
        Array(id.utf8) + u32(UInt32(data.count)) + data + (data.count % 2 == 1 ? [0] : [])
    }
    static func list(_ type: String, _ data: [UInt8]) -> [UInt8] { chunk("LIST", Array(type.utf8) + data) }
}

extension SF2Builder {
    /// One sample (by default a 1000-frame ramp, looped over 100…900), one instrument whose zones are
    /// `instrumentZones` (sampleID 0 appended to each unless the zone is nil-terminated by the
    /// caller), one preset 0:0 with `presetZones` (instrument 0 appended to each).
    /// Pass a first zone without a link via `instrumentGlobal` / `presetGlobal`.
    static func simple(instrumentGlobal: [Generator]? = nil, instrumentZones: [[Generator]] = [[]],
                       presetGlobal: [Generator]? = nil, presetZones: [[Generator]] = [[]],
                       sample: Sample = rampSample()) -> SF2Builder {
        var builder = SF2Builder()
        builder.samples = [sample]
        builder.instruments = [Instrument(name: "Instrument", zones: (instrumentGlobal.map { [$0] } ?? [])
                                            + instrumentZones.map { $0 + [gen(Op.sampleID, 0)] })]
        builder.presets = [Preset(name: "Preset", zones: (presetGlobal.map { [$0] } ?? [])
                                    + presetZones.map { $0 + [gen(Op.instrument, 0)] })]
        return builder
    }

    static func rampSample(frames: Int = 1_000) -> Sample {
        Sample(name: "Ramp", frames: (0..<frames).map { Int16(truncatingIfNeeded: $0 * 16 - 8_000) },
               loopStart: frames / 10, loopEnd: frames - frames / 10)
    }
}
