import Foundation
import Render

/// Small sample banks built in memory, so sampler behaviour is tested apart from any file loader.
enum SyntheticBank {
    static let rate = 48_000.0

    /// A looped sine recorded at `frequency` (an exact number of cycles in the loop), root `rootKey`,
    /// played by every preset in `presets` (bank:program pairs; by default only 0:0).
    static func sine(frequency: Double = 440, rootKey: Double = 69, cycles: Int = 200,
                     presets: [(bank: UInt16, program: UInt8)] = [(0, 0)],
                     configure: (inout SamplerRegion) -> Void = { _ in }) -> SampleBank {
        let guardFrames = SampleBank.guardFrameCount
        // A whole number of cycles: choose the length so the loop is seamless.
        let loopFrames = Int((Double(cycles) * rate / frequency).rounded())
        let exactFrequency = Double(cycles) * rate / Double(loopFrames)
        var pool = [Float](repeating: 0, count: guardFrames)
        let start = pool.count
        let totalFrames = loopFrames * 3
        for frame in 0..<totalFrames {
            pool.append(Float(sin(2 * Double.pi * exactFrequency * Double(frame) / rate)) * 0.5)
        }
        let end = pool.count
        pool += [Float](repeating: 0, count: guardFrames)
        var region = SamplerRegion()
        region.start = start
        region.end = end
        region.loopStart = start + loopFrames
        region.loopEnd = start + 2 * loopFrames
        region.loopMode = .continuous
        region.sampleRate = rate
        // The recorded pitch of `exactFrequency`, expressed as a fractional root key.
        region.rootKey = rootKey + 12 * log2(exactFrequency / frequency)
        region.volumeEnvelope.release = 0.3
        configure(&region)
        return SampleBank(name: "sine", samples: pool, regions: [region],
                          presets: presets.map { SampleBank.Preset(bank: $0.bank, program: $0.program, firstRegion: 0, regionCount: 1) },
                          presetNames: presets.map { "Sine \($0.bank):\($0.program)" })
    }
}
