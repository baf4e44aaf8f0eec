import AudioFile
import Engine
import Foundation
import MIDI
import Render
import SampleSet
import SFZ
import TestSupport
import XCTest

/// SFZ 2's flex envelopes and LFOs held to known answers: an envelope's points, shapes, sustain
/// and release within one control period, its times and levels on controllers; every LFO wave at
/// its rate, delay, fade and phase; and each target (pitch, volume, amplitude, pan, width,
/// position, cutoff) moved by its depth and by a controller.
extension SFZTests {
    /// The left channel of a DC sample at key 60 through `opcodes`, over `frames`, divided by the
    /// same note's level with none of them; the note released at `release`.
    func flexLevels(_ opcodes: String, in folder: TemporaryFolder, controllers: [(UInt8, UInt8)] = [],
                    release: FrameTime? = nil, frames: Int = 48_000) throws -> [Float] {
        if !FileManager.default.fileExists(atPath: folder.file("dc.wav")) { try writeConstant(folder.file("dc.wav"), seconds: 3) }
        let plain = try render("<region> sample=dc.wav key=60 pitch_keytrack=0 amp_veltrack=0", in: folder,
                               [(0, .noteOn(channel: 0, key: 60, velocity: 127))], frames: 4_800)[2_400]
        var messages: [(FrameTime, MIDIMessage)] = controllers.map { (0, .controlChange(channel: 0, controller: $0.0, value: $0.1)) }
        messages.append((0, .noteOn(channel: 0, key: 60, velocity: 127)))
        if let release { messages.append((release, .noteOff(channel: 0, key: 60, velocity: 0))) }
        return try render("<region> sample=dc.wav key=60 pitch_keytrack=0 amp_veltrack=0 \(opcodes)", in: folder, messages, frames: frames)
            .map { $0 / plain }
    }

    /// A flex envelope in the amplitude envelope's place (`egN_ampeg`): straight lines from point
    /// to point, each point reached within one control period of its time, held at the sustain
    /// point until the key is up, then on to the last point, where the voice ends. Shapes bend
    /// the lines (x^(1 + shape) above 0, its mirror below); a controller lengthens a point's time
    /// and raises its level.
    func testFlexEnvelopePointsLandWithinOneControlPeriod() throws {
        let folder = try TemporaryFolder(self)
        let points = "eg1_ampeg=1 eg1_time0=0 eg1_level0=0 eg1_time1=0.2 eg1_level1=1 eg1_time2=0.3 eg1_level2=0.5 eg1_sustain=2 eg1_time3=0.5 eg1_level3=0"
        let release = 36_000
        let env = try flexLevels(points, in: folder, release: FrameTime(release), frames: 72_000)
        func firstFrame(_ from: Int = 0, where test: (Float) -> Bool) -> Int { (from..<env.count).first { test(env[$0]) } ?? env.count }
        let period = Double(controlPeriod)
        XCTAssertEqual(Double(env[4_800]), 0.5, accuracy: 0.01, "halfway to point 1: half its level")
        XCTAssertEqual(Double(firstFrame { $0 > 0.999 }), 9_600, accuracy: period, "point 1 at 0.2 s")
        XCTAssertEqual(Double(env[9_600 + 7_200]), 0.75, accuracy: 0.01, "halfway to point 2")
        XCTAssertEqual(Double(firstFrame(9_600) { $0 < 0.5001 }), 24_000, accuracy: period, "point 2 at 0.5 s")
        XCTAssertEqual(Double(env[33_000]), 0.5, accuracy: 0.001, "held at the sustain point")
        XCTAssertEqual(Double(env[release + 12_000]), 0.25, accuracy: 0.01, "halfway from the sustain to point 3 after the release")
        XCTAssertEqual(Double(firstFrame(release) { $0 == 0 }), Double(release + 24_000), accuracy: 2 * period, "the voice ends at the last point")
        XCTAssertEqual(env[(release + 24_000 + 2 * controlPeriod)...].map(abs).max(), 0)
        print("flex envelope: point 1 at \(firstFrame { $0 > 0.999 }) (9600), point 2 at \(firstFrame(9_600) { $0 < 0.5001 }) (24000), end \(firstFrame(release) { $0 == 0 }) (\(release + 24_000))")

        // Shapes: halfway through a rise of shape 2 is 0.5³ of it; of shape -2, 1 − 0.5³.
        let attack = "eg1_ampeg=1 eg1_time1=0.2 eg1_level1=1 eg1_sustain=1"
        XCTAssertEqual(Double(try flexLevels(attack + " eg1_shape1=2", in: folder)[4_800]), 0.125, accuracy: 0.01)
        XCTAssertEqual(Double(try flexLevels(attack + " eg1_shape1=-2", in: folder)[4_800]), 0.875, accuracy: 0.01)
        // Time and level on a controller, read as the point begins: CC1 at 127 adds all of it.
        let longer = try flexLevels(attack + " eg1_time1_oncc1=0.2", in: folder, controllers: [(1, 127)])
        XCTAssertEqual(Double((0..<longer.count).first { longer[$0] > 0.999 } ?? 0), 19_200, accuracy: period, "0.2 s more at CC1 127")
        let lower = try flexLevels(attack + " eg1_level1_oncc1=-0.5", in: folder, controllers: [(1, 64)])
        XCTAssertEqual(Double(lower[24_000]), 1 - 0.5 * 64 / 127, accuracy: 0.002)
        // Onto the amplitude without taking the envelope's place: the SFZ 1 envelope still plays.
        let both = try flexLevels("ampeg_attack=0.2 eg1_amplitude=100 eg1_time0=0 eg1_level0=0.5 eg1_sustain=0", in: folder)
        XCTAssertEqual(Double(both[4_800]), 0.25, accuracy: 0.01, "half the attack times half the envelope")
        XCTAssertEqual(Double(both[24_000]), 0.5, accuracy: 0.001)
    }

    /// A flex envelope onto the pitch, the volume and the cutoff moves each by its depth, and a
    /// controller moves the depth (`egN_pitch_onccN`) while the note sounds.
    func testFlexEnvelopesMovePitchVolumeAndCutoffByTheirDepth() throws {
        let folder = try TemporaryFolder(self)
        try writeSine(folder.file("a.wav"), seconds: 2)
        func pitch(_ opcodes: String, _ controllers: [(UInt8, UInt8)] = []) throws -> Int {
            var messages: [(FrameTime, MIDIMessage)] = controllers.map { (0, .controlChange(channel: 0, controller: $0.0, value: $0.1)) }
            messages.append((0, .noteOn(channel: 0, key: 69, velocity: 127)))
            return self.pitch(try render("<region> sample=a.wav key=69 \(opcodes)", in: folder, messages, frames: 24_000), at: 12_000)
        }
        let held = "eg1_time0=0 eg1_level0=1 eg1_sustain=0"
        XCTAssertEqual(try pitch(held + " eg1_pitch=1200"), 880, accuracy: 2, "an octave up at level 1")
        XCTAssertEqual(try pitch("eg1_time0=0 eg1_level0=-0.5 eg1_sustain=0 eg1_pitch=1200"), 311, accuracy: 2, "half an octave down at -0.5")
        XCTAssertEqual(try pitch(held + " eg1_pitch_oncc1=1200", [(1, 127)]), 880, accuracy: 2, "the controller's full depth")
        XCTAssertEqual(try pitch(held + " eg1_pitch_oncc1=1200", [(1, 0)]), 440, accuracy: 2, "none at 0")

        let quieter = try flexLevels(held + " eg1_volume=-6", in: folder)
        XCTAssertEqual(decibels(quieter[12_000]), -6, accuracy: 0.01)

        // An octave down on the cutoff plays as a cutoff an octave lower.
        try writeSine(folder.file("s1000.wav"), frequency: 1_000, seconds: 0.5)
        func level(_ opcodes: String) throws -> Double {
            let left = try render("<region> sample=s1000.wav key=69 \(opcodes)", in: folder, [(0, .noteOn(channel: 0, key: 69, velocity: 127))], frames: 19_200)
            return decibels(SignalAnalysis.rms(left[9_600 ..< 19_200]))
        }
        XCTAssertEqual(try level("cutoff=2000 " + held + " eg1_cutoff=-1200"), try level("cutoff=1000"), accuracy: 0.05)
        // Onto a region with no filter, a cutoff route has nothing to move.
        XCTAssertEqual(try level(held + " eg1_cutoff=-1200"), try level(""), accuracy: 0.01)
    }

    /// Every SFZ LFO wave at its rate: the level through a 6 dB `lfoN_volume` at points of the
    /// period where each wave's value is known; the rate on a controller; the delay, the fade-in
    /// and the starting phase.
    func testFlexLFOWavesRatesDelaysFadesAndPhases() throws {
        let folder = try TemporaryFolder(self)
        func volume(_ opcodes: String, _ controllers: [(UInt8, UInt8)] = []) throws -> (Double) -> Double {
            let levels = try flexLevels("lfo1_freq=2 lfo1_volume=6 " + opcodes, in: folder, controllers: controllers, frames: 96_000)
            return { seconds in self.decibels(levels[Int(seconds * 48_000)]) }
        }
        // (seconds into a 0.5 s period, the wave's value there)
        let expected: [(Int, [(Double, Double)])] = [
            (0, [(0.5 / 12, 1.0 / 3), (0.125, 1), (0.25, 0), (0.375, -1)]),          // triangle
            (1, [(0.5 / 12, 0.5), (0.125, 1), (0.375, -1)]),                        // sine
            (2, [(0.1, 1), (0.37, 1), (0.38, 0), (0.45, 0)]),                        // pulse 75 %
            (3, [(0.1, 1), (0.24, 1), (0.26, 0), (0.3, 0)]),                         // square
            (4, [(0.1, 1), (0.12, 1), (0.13, 0), (0.2, 0)]),                         // pulse 25 %
            (5, [(0.05, 1), (0.06, 1), (0.065, 0), (0.1, 0)]),                       // pulse 12.5 %
            (6, [(0.125, -0.5), (0.375, 0.5)]),                                      // ramp up
            (7, [(0.125, 0.5), (0.375, -0.5)]),                                      // ramp down
        ]
        // A control period late at most: a wave's value at the block's end, so read where it is flat
        // enough, or allow the slope of a period (6 dB × 4 × 2 Hz × 1.3 ms).
        for (wave, points) in expected {
            let level = try volume("lfo1_wave=\(wave)")
            for (seconds, value) in points {
                XCTAssertEqual(level(seconds), 6 * value, accuracy: 0.15, "wave \(wave) at \(seconds) s")
            }
        }
        // Rate on a controller: 2 Hz more at CC1 127, a 4 Hz sine peaks at 1/16 s.
        XCTAssertEqual(try volume("lfo1_wave=1 lfo1_freq_oncc1=2", [(1, 127)])(0.0625), 6, accuracy: 0.15)
        // Delay: nothing for half a second, then the wave from its start.
        let delayed = try volume("lfo1_wave=1 lfo1_delay=0.5")
        XCTAssertEqual(delayed(0.45), 0, accuracy: 1e-6)
        XCTAssertEqual(delayed(0.625), 6, accuracy: 0.15)
        // Fade: an eighth of the depth at the first peak of a one-second fade, all of it at 1.125 s.
        let faded = try volume("lfo1_wave=1 lfo1_fade=1")
        XCTAssertEqual(faded(0.125), 0.75, accuracy: 0.15)
        XCTAssertEqual(faded(1.125), 6, accuracy: 0.15)
        // Phase: a sine started a quarter in starts at its peak.
        XCTAssertEqual(try volume("lfo1_wave=1 lfo1_phase=0.25")(0.01), 6 * cos(2 * .pi * 2 * 0.01), accuracy: 0.15)
        // Depth on a controller.
        let wheel = try flexLevels("lfo1_freq=2 lfo1_wave=1 lfo1_volume_oncc1=6", in: folder, controllers: [(1, 127)])
        XCTAssertEqual(decibels(wheel[6_000]), 6, accuracy: 0.15)
    }

    /// The sample-and-hold wave holds a value for half a period, a new one each half, drawn from
    /// the voice's own sequence: the same every render, and at any block size.
    func testSampleAndHoldDrawsTheSameValuesEveryRender() throws {
        let folder = try TemporaryFolder(self)
        let opcodes = "lfo1_freq=4 lfo1_wave=12 lfo1_volume=6"
        let first = try flexLevels(opcodes, in: folder)
        let again = try flexLevels(opcodes, in: folder)
        XCTAssertEqual(first, again)
        // Values held across each eighth of a second, differing between them, within ±6 dB.
        let held = stride(from: 0.0625, to: 0.9, by: 0.125).map { decibels(first[Int($0 * 48_000)]) }
        XCTAssertEqual(Set(held.map { Int($0 * 100) }).count, held.count, "a new value each half period: \(held)")
        XCTAssertTrue(held.allSatisfy { abs($0) <= 6 }, "\(held)")
        XCTAssertEqual(decibels(first[Int(0.0625 * 48_000)]), decibels(first[Int(0.1 * 48_000)]), accuracy: 1e-4, "held")
    }

    /// Routes onto the pan, the width and the position, and onto the amplitude by a controller.
    func testFlexRoutesMovePanWidthPositionAndAmplitude() throws {
        let folder = try TemporaryFolder(self)
        try writeStereoAndMono(in: folder)
        func levels(_ opcodes: String, sample: String, _ controllers: [(UInt8, UInt8)] = []) throws -> (left: Double, right: Double) {
            let path = folder.file("f\(abs(opcodes.hashValue))\(sample).sfz")
            try write("<region> sample=\(sample) key=60 pitch_keytrack=0 amp_veltrack=0 \(opcodes)", to: path)
            let engine = try engine(path)
            for (controller, value) in controllers { engine.send(midi: .controlChange(channel: 0, controller: controller, value: value), at: 0) }
            engine.send(midi: .noteOn(channel: 0, key: 60, velocity: 127), at: 0)
            let output = engine.renderOffline(frameCount: 9_600, blockFrameCount: 256)
            return (Double(SignalAnalysis.channel(0, of: output, channelCount: 2)[4_800]), Double(SignalAnalysis.channel(1, of: output, channelCount: 2)[4_800]))
        }
        let held = "eg1_time0=0 eg1_level0=1 eg1_sustain=0"
        let right = try levels(held + " eg1_pan=100", sample: "mono.wav")
        XCTAssertEqual(right.left, 0, accuracy: 1e-6, "pan 100: hard right")
        XCTAssertGreaterThan(right.right, 0.1)
        let narrowed = try levels(held + " eg1_width=-100", sample: "stereo.wav")
        XCTAssertEqual(narrowed.left, narrowed.right, accuracy: 1e-6, "width 100 − 100: the left channel in the middle")
        let moved = try levels("width=0 " + held + " eg1_position=100", sample: "stereo.wav")
        XCTAssertEqual(moved.left, 0, accuracy: 1e-6, "position 100: the pair hard right")
        let plain = try levels("", sample: "mono.wav")
        let half = try levels(held + " eg1_amplitude_oncc1=100", sample: "mono.wav", [(1, 64)])
        XCTAssertEqual(half.left / plain.left, 64.0 / 127, accuracy: 0.002, "amplitude 100 % × 64/127")
    }

    /// What a flex opcode cannot play is said: a ninth envelope, a controller above 127, a second
    /// controller on one depth; `info` names none of the played ones.
    func testFlexOpcodesThatDoNotPlayAreSaid() throws {
        let folder = try TemporaryFolder(self)
        try writeConstant(folder.file("dc.wav"))
        let path = folder.file("many.sfz")
        let envelopes = (1...9).map { "eg\($0)_time0=0 eg\($0)_level0=1 eg\($0)_pitch=1" }.joined(separator: " ")
        try write("<region> sample=dc.wav \(envelopes) lfo1_pitch_oncc300=10 lfo1_freq=1 lfo1_volume_oncc1=1 lfo1_volume_oncc2=1", to: path)
        let warnings = try SFZLoader.load(path: path, sampleRate: rate).loadWarnings
        XCTAssertEqual(warnings, ["not played yet: egN past the 8th of a region (1 region), lfoN_pitch_onccN with a controller above 127 (1 region), "
                                  + "lfoN_volume_onccN on a second controller (the first plays) (1 region)"])
    }
}

/// SFZ's equalizer: each band a peaking filter, held to the cookbook's response.
extension SFZTests {
    /// A sine's level through one band against the same sine without it, within 0.5 dB of RBJ's
    /// peaking equalizer (its digital response, computed here) at frequencies around the band; the
    /// gain by velocity and by a controller, at the band's centre.
    func testEqualizerBandsFollowThePeakingFormula() throws {
        let folder = try TemporaryFolder(self)
        let frequencies = [125.0, 400, 700, 1_000, 1_400, 2_500, 8_000]
        for frequency in frequencies { try writeSine(folder.file("s\(Int(frequency)).wav"), frequency: frequency, seconds: 0.5) }
        func level(_ frequency: Double, _ opcodes: String, velocity: UInt8 = 127, controllers: [(UInt8, UInt8)] = []) throws -> Double {
            var messages: [(FrameTime, MIDIMessage)] = controllers.map { (0, .controlChange(channel: 0, controller: $0.0, value: $0.1)) }
            messages.append((0, .noteOn(channel: 0, key: 69, velocity: velocity)))
            let left = try render("<region> sample=s\(Int(frequency)).wav key=69 pitch_keytrack=0 amp_veltrack=0 \(opcodes)", in: folder,
                                  messages, frames: 19_200)
            return decibels(SignalAnalysis.rms(left[9_600 ..< 19_200]))
        }
        /// |H(e^jw)| in dB of the cookbook's peaking filter.
        func formula(_ frequency: Double, center: Double, octaves: Double, gain: Double) -> Double {
            let w0 = 2 * Double.pi * center / rate, w = 2 * Double.pi * frequency / rate
            let alpha = sin(w0) * sinh(log(2) / 2 * octaves * w0 / sin(w0))
            let a = pow(10, gain / 40)
            let b = [1 + alpha * a, -2 * cos(w0), 1 - alpha * a], d = [1 + alpha / a, -2 * cos(w0), 1 - alpha / a]
            func magnitude(_ c: [Double]) -> Double {
                let real = c[0] + c[1] * cos(w) + c[2] * cos(2 * w), imaginary = -c[1] * sin(w) - c[2] * sin(2 * w)
                return (real * real + imaginary * imaginary).squareRoot()
            }
            return 20 * log10(magnitude(b) / magnitude(d))
        }
        var worst = 0.0
        for (band, octaves, gain) in [(2, 1.0, 12.0), (1, 2.0, -9.0), (3, 0.5, 6.0)] {
            let opcodes = "eq\(band)_freq=1000 eq\(band)_bw=\(octaves) eq\(band)_gain=\(gain)"
            for frequency in frequencies {
                let measured = try level(frequency, opcodes) - level(frequency, "")
                let expected = formula(frequency, center: 1_000, octaves: octaves, gain: gain)
                XCTAssertEqual(measured, expected, accuracy: 0.5, "\(opcodes) at \(frequency) Hz")
                worst = max(worst, abs(measured - expected))
            }
        }
        print("equalizer: worst error \(String(format: "%.3f", worst)) dB over three bands at \(frequencies.count) frequencies")
        let plain = try level(1_000, "")
        XCTAssertEqual(try level(1_000, "eq2_freq=1000 eq2_vel2gain=12", velocity: 64) - plain, 12.0 * 64 / 127, accuracy: 0.1)
        XCTAssertEqual(try level(1_000, "eq2_freq=1000 eq2_gain_oncc1=12", controllers: [(1, 127)]) - plain, 12, accuracy: 0.1)
        XCTAssertEqual(try level(1_000, "eq2_freq=1000 eq2_gain_oncc1=12", controllers: [(1, 0)]) - plain, 0, accuracy: 0.01)
        // A flex envelope onto a band's gain (`egN_eqNgain`): the band follows it, with no gain of its own.
        XCTAssertEqual(try level(1_000, "eq2_freq=1000 eg1_time0=0 eg1_level0=0.5 eg1_sustain=0 eg1_eq2gain=12") - plain, 6, accuracy: 0.1)
        // SFZ's default bands: 50 Hz, 500 Hz, 5 kHz, an octave wide.
        XCTAssertEqual(try level(400, "eq2_gain=6") - level(400, ""), formula(400, center: 500, octaves: 1, gain: 6), accuracy: 0.5)
    }
}

extension SFZTests {
    /// The shipped piano with flex modulation (`samples/piano/piano-flex.sfz`, the polyphony
    /// benchmark's) loads with nothing left unplayed, every region with its envelope, two LFOs
    /// and three routes, and sounds, unlike the piano without them.
    func testTheShippedFlexPianoPlaysItsModulation() throws {
        let folder = CommandRunner.repositoryRoot.appendingPathComponent("samples/piano")
        let bank = try SFZLoader.load(path: folder.appendingPathComponent("piano-flex.sfz").path, sampleRate: rate)
        XCTAssertEqual(bank.loadWarnings, [])
        XCTAssertTrue(bank.regions.allSatisfy { $0.flex.envelopeCount == 1 && $0.flex.lfoCount == 2 && $0.flex.routeCount == 3 })
        func note(_ name: String) throws -> [Float] {
            let engine = try engine(folder.appendingPathComponent(name).path)
            engine.send(midi: .noteOn(channel: 0, key: 69, velocity: 100), at: 0)
            return SignalAnalysis.channel(0, of: engine.renderOffline(frameCount: 96_000, blockFrameCount: 256), channelCount: 2)
        }
        let flexed = try note("piano-flex.sfz"), plain = try note("piano.sfz")
        // The same attack (the modulation has hardly begun), then a note of its own.
        XCTAssertEqual(Double(SignalAnalysis.rms(flexed[0 ..< 2_400])), Double(SignalAnalysis.rms(plain[0 ..< 2_400])), accuracy: 0.1 * Double(SignalAnalysis.rms(plain[0 ..< 2_400])))
        let difference = zip(flexed[48_000...], plain[48_000...]).map { $0 - $1 }
        XCTAssertGreaterThan(SignalAnalysis.rms(difference[...]), 0.1 * SignalAnalysis.rms(plain[48_000...]))
    }
}

extension SFZTests {
    /// The second filter (`cutoff2`, `fil2_type`, `resonance2`) follows the two-pole formula on its
    /// own and in series after the first (their decibels add), and its cutoff follows a controller.
    func testTheSecondFilterFollowsItsFormulaAfterTheFirst() throws {
        let folder = try TemporaryFolder(self)
        for frequency in [500.0, 2_000, 4_000] { try writeSine(folder.file("s\(Int(frequency)).wav"), frequency: frequency, seconds: 0.5) }
        func level(_ frequency: Double, _ opcodes: String, modulation: UInt8 = 0) throws -> Double {
            let left = try render("<region> sample=s\(Int(frequency)).wav key=69 pitch_keytrack=0 amp_veltrack=0 \(opcodes)", in: folder,
                                  [(0, .controlChange(channel: 0, controller: 1, value: modulation)), (0, .noteOn(channel: 0, key: 69, velocity: 127))],
                                  frames: 19_200)
            return decibels(SignalAnalysis.rms(left[9_600 ..< 19_200]))
        }
        /// RBJ's two-pole low-pass (high-pass) at `cutoff` and Q, in dB.
        func formula(_ frequency: Double, cutoff: Double, q: Double, highPass: Bool = false) -> Double {
            let r = tan(Double.pi * frequency / rate) / tan(Double.pi * cutoff / rate)
            let twoPole = pow(1 - r * r, 2) + pow(r / q, 2)
            return 10 * log10((highPass ? pow(r, 4) : 1) / twoPole)
        }
        for frequency in [500.0, 2_000, 4_000] {
            let plain = try level(frequency, "")
            XCTAssertEqual(try level(frequency, "cutoff2=1000") - plain, formula(frequency, cutoff: 1_000, q: 1), accuracy: 0.5, "lpf at \(frequency) Hz")
            XCTAssertEqual(try level(frequency, "fil2_type=hpf_2p cutoff2=1000 resonance2=6") - plain,
                           formula(frequency, cutoff: 1_000, q: pow(10, 6.0 / 20), highPass: true), accuracy: 0.5, "hpf at \(frequency) Hz")
            // In series after a first low-pass at 3 kHz: the two responses add.
            XCTAssertEqual(try level(frequency, "cutoff=3000 cutoff2=1000") - plain,
                           formula(frequency, cutoff: 3_000, q: 1) + formula(frequency, cutoff: 1_000, q: 1), accuracy: 0.5, "both at \(frequency) Hz")
        }
        // An octave up on CC1 at 127.
        XCTAssertEqual(try level(2_000, "cutoff2=1000 cutoff2_oncc1=1200", modulation: 127) - level(2_000, ""),
                       formula(2_000, cutoff: 2_000, q: 1), accuracy: 0.5)
        // Through a <curve> of the file: an inverted one gives the whole octave down at CC1 0.
        let inverted = try render("<curve> curve_index=10 v000=1 v127=0\n<region> sample=s2000.wav key=69 pitch_keytrack=0 amp_veltrack=0 "
                                  + "cutoff2=2000 cutoff2_oncc1=-1200 cutoff2_curvecc1=10", in: folder,
                                  [(0, .noteOn(channel: 0, key: 69, velocity: 127))], frames: 19_200)
        XCTAssertEqual(decibels(SignalAnalysis.rms(inverted[9_600 ..< 19_200])) - (try level(2_000, "")), formula(2_000, cutoff: 1_000, q: 1), accuracy: 0.5)
        let path = folder.file("svf.sfz")
        try write("<region> sample=s500.wav key=69 cutoff2=1000 fil2_type=pkf_2p", to: path)
        XCTAssertEqual(try SFZLoader.load(path: path, sampleRate: rate).loadWarnings, ["not played yet: fil2_type=pkf_2p (the second filter left out) (1 region)"])
    }
}

extension SFZTests {
    /// A route onto the resonance moves the filter's peak while its sum is away from 0, and gives
    /// the filter back its own resonance when the sum comes back to 0 (a square LFO's low half).
    func testAResonanceRouteBackAtZeroRestoresTheResonance() throws {
        let folder = try TemporaryFolder(self)
        try writeSine(folder.file("c.wav"), frequency: 1_000, seconds: 1)
        func level(_ opcodes: String, from start: Int) throws -> Double {
            let left = try render("<region> sample=c.wav key=69 pitch_keytrack=0 amp_veltrack=0 cutoff=1000 \(opcodes)", in: folder,
                                  [(0, .noteOn(channel: 0, key: 69, velocity: 127))], frames: 48_000)
            return decibels(SignalAnalysis.rms(left[start ..< start + 4_800]))
        }
        let square = "lfo1_freq=1 lfo1_wave=3 lfo1_resonance=12"
        XCTAssertEqual(try level(square, from: 14_400) - level("", from: 14_400), 12, accuracy: 0.5, "the high half: 12 dB more peak at the cutoff")
        XCTAssertEqual(try level(square, from: 33_600), try level("", from: 33_600), accuracy: 0.05, "the low half: the region's own")
    }
}
