import Foundation
import Render

/// Small sample banks built in memory, so sampler behaviour is tested apart from any file loader.
public enum SyntheticBank {
    public static let rate = 48_000.0

    /// A looped sine recorded at `frequency` (an exact number of cycles in the loop), root `rootKey`,
    /// played by every preset in `presets` (bank:program pairs; by default only 0:0).
    public static func sine(frequency: Double = 440, rootKey: Double = 69, cycles: Int = 200,
                     presets: [(bank: UInt16, program: UInt8)] = [(0, 0)],
                     flex: SamplerFlex.Tables = SamplerFlex.Tables(),
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
        if !flex.isEmpty {
            region.flex.envelopeCount = UInt8(flex.envelopes.count)
            region.flex.lfoCount = UInt8(flex.lfos.count)
            region.flex.routeCount = Int32(flex.routes.count)
            region.flex.amplitudeEnvelope = flex.envelopes.isEmpty ? -1 : 0
        }
        configure(&region)
        return SampleBank(name: "sine", samples: pool, regions: [region],
                          presets: presets.map { SampleBank.Preset(bank: $0.bank, program: $0.program, firstRegion: 0, regionCount: 1) },
                          presetNames: presets.map { "Sine \($0.bank):\($0.program)" }, flex: flex)
    }

    /// An equalizer with every band at work (gains, velocity and a controller, CC1) and a
    /// second filter on CC1.
    public static func equalize(_ region: inout SamplerRegion) {
        region.secondFilter.isActive = true
        region.secondFilter.kind = .highPass2
        region.secondFilter.cutoffCents = 6_000
        region.secondFilter.cutoffController = 1
        region.secondFilter.centsAtFullController = 1_200
        region.equalizer.first.gainDecibels = 6
        region.equalizer.second.gainAtFullVelocity = -9
        region.equalizer.third.gainController = 1
        region.equalizer.third.gainAtFullController = 12
        region.equalizer.isActive = true
    }

    /// Flex modulation with every part at work: an envelope of four points in the amplitude
    /// envelope's place (its times and levels on CC1), a sine and a sample-and-hold LFO (rate on
    /// CC1), routed onto every target, depths on CC1.
    public static var everyFlexPart: SamplerFlex.Tables {
        var tables = SamplerFlex.Tables()
        for (seconds, level) in [(0.0, 0.0), (0.02, 1), (0.1, 0.6), (0.2, 0)] as [(Float, Float)] {
            var point = SamplerFlex.Point()
            (point.seconds, point.level, point.shape) = (seconds, level, level > 0.5 ? 1.5 : -1)
            (point.timeController, point.secondsAtFullController) = (1, 0.05)
            (point.levelController, point.levelAtFullController) = (1, -0.2)
            tables.points.append(point)
        }
        var envelope = SamplerFlex.Envelope()
        (envelope.pointCount, envelope.sustainPoint) = (4, 2)
        tables.envelopes = [envelope]
        var sine = SamplerFlex.LFO()
        (sine.frequency, sine.wave, sine.delaySeconds, sine.fadeSeconds) = (5, .sine, 0.01, 0.05)
        (sine.frequencyController, sine.frequencyAtFullController) = (1, 3)
        var held = SamplerFlex.LFO()
        (held.frequency, held.wave) = (7, .sampleAndHold)
        tables.lfos = [sine, held]
        let targets: [SamplerFlex.Target] = [.pitch, .volume, .amplitude, .pan, .width, .position, .cutoff, .resonance,
                                             .equalizer1Gain, .equalizer2Frequency, .equalizer3Octaves]
        for (index, target) in targets.enumerated() {
            var route = SamplerFlex.Route(source: UInt8(index % 2 == 0 ? 0 : SamplerFlex.capacity + index % 4 / 2), target: target,
                                          depth: target == .amplitude ? 100 : 10)
            (route.controller, route.depthAtFullController) = (1, 5)
            tables.routes.append(route)
        }
        return tables
    }
}
