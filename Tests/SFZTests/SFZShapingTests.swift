import AudioFile
import Engine
import Foundation
import MIDI
import Render
import SampleSet
import SFZ
import TestSupport
import XCTest

/// SFZ opcodes that shape a note once it is chosen, each held to a known answer: every filter type
/// against its formula, envelopes stage by stage to within one control period, the start delay,
/// velocity curves and envelope times, key and velocity crossfades, controller ranges, and the
/// filter and pitch envelopes.
extension SFZTests {
    /// A control period: envelopes are evaluated at its ends and ramped across it.
    var controlPeriod: Int { RenderQuantum.frameCount }

    /// Writes a mono file holding `value` in every frame, `seconds` long.
    func writeConstant(_ path: String, value: Float = 0.5, seconds: Double = 2) throws {
        let writer = try AudioFileWriter(path: path, sampleRate: Int(rate), channelCount: 1)
        try writer.write([Float](repeating: value, count: Int(seconds * rate)))
        try writer.close()
    }

    /// The left channel of `messages` through a dry engine playing the instrument `text` (written
    /// into `folder` under a name of its own).
    func render(_ text: String, in folder: TemporaryFolder, _ messages: [(FrameTime, MIDIMessage)], frames: Int) throws -> [Float] {
        let path = folder.file("i\(abs(text.hashValue)).sfz")
        try write(text, to: path)
        XCTAssertEqual(try SFZLoader.load(path: path, sampleRate: rate).loadWarnings, [], text)
        return try render(path, messages, frames: frames)
    }

    // MARK: Filters

    /// Every `fil_type` played: a sine's level through the filter against the same sine unfiltered,
    /// within 0.5 dB of the analogue prototype at the frequency the bilinear transform maps it to
    /// (the RBJ cookbook's two-pole filters at Q = `resonance` as a linear gain, the one-pole at
    /// its −3 dB cutoff), and the passband at unity whatever the resonance.
    func testEveryFilterTypeFollowsItsFormula() throws {
        let folder = try TemporaryFolder(self)
        let cutoff = 1_000.0
        let frequencies = [125.0, 500, 800, 1_250, 2_000, 8_000]
        for frequency in frequencies { try writeSine(folder.file("s\(Int(frequency)).wav"), frequency: frequency, seconds: 0.5) }
        func level(_ frequency: Double, _ opcodes: String) throws -> Double {
            let left = try render("<region> sample=s\(Int(frequency)).wav key=69 \(opcodes)", in: folder,
                                  [(0, .noteOn(channel: 0, key: 69, velocity: 127))], frames: 19_200)
            return decibels(SignalAnalysis.rms(left[9_600 ..< 19_200]))
        }
        /// |H| in dB of the analogue prototype at the prewarped frequency ratio.
        func formula(_ type: String, _ frequency: Double, q: Double) -> Double {
            let r = tan(Double.pi * frequency / rate) / tan(Double.pi * cutoff / rate)
            let twoPole = pow(1 - r * r, 2) + pow(r / q, 2)
            let power: Double = switch type {
            case "lpf_1p": 1 / (1 + r * r)
            case "hpf_1p": r * r / (1 + r * r)
            case "lpf_2p": 1 / twoPole
            case "hpf_2p": pow(r, 4) / twoPole
            case "bpf_2p": pow(r / q, 2) / twoPole
            default: pow(1 - r * r, 2) / twoPole  // brf_2p
            }
            return 10 * log10(power)
        }
        for type in ["lpf_1p", "hpf_1p", "lpf_2p", "hpf_2p", "bpf_2p", "brf_2p"] {
            for resonance in type.hasSuffix("1p") ? [0.0] : [0.0, 6] {
                for frequency in frequencies {
                    let expected = formula(type, frequency, q: pow(10, resonance / 20))
                    // Far down a skirt the measure is the rounding of the samples, not the filter.
                    guard expected > -40 else { continue }
                    let measured = try level(frequency, "fil_type=\(type) cutoff=\(cutoff) resonance=\(resonance)") - level(frequency, "")
                    XCTAssertEqual(measured, expected, accuracy: 0.5, "\(type), resonance \(resonance) dB, \(frequency) Hz")
                }
            }
        }
        // The filter types SFZ names but the voice does not have play unfiltered, and say so.
        let path = folder.file("peq.sfz")
        try write("<region> sample=s125.wav key=69 fil_type=pkf_2p cutoff=100", to: path)
        XCTAssertEqual(try SFZLoader.load(path: path, sampleRate: rate).loadWarnings, ["not played yet: fil_type=pkf_2p (played unfiltered) (1 region)"])
    }

    /// `volume` above 0 dB boosts (SF2's attenuation stops at 0; SFZ's does not).
    func testVolumeAboveZeroBoosts() throws {
        let folder = try TemporaryFolder(self)
        try writeSine(folder.file("a.wav"), seconds: 0.5)
        func level(_ opcodes: String) throws -> Double {
            decibels(SignalAnalysis.rms(try render("<region> sample=a.wav key=69 \(opcodes)", in: folder,
                                                   [(0, .noteOn(channel: 0, key: 69, velocity: 127))], frames: 19_200)[9_600 ..< 19_200]))
        }
        XCTAssertEqual(try level("volume=6") - level(""), 6, accuracy: 0.05)
    }

    // MARK: Envelopes

    /// The amplitude envelope of a constant sample, stage by stage: each boundary within one control
    /// period of its time, and the levels between as the envelope's law says (attack a straight
    /// line, decay and release 100 dB per `ampeg_decay`/`ampeg_release` seconds).
    func testEnvelopeStagesLandWithinOneControlPeriod() throws {
        let folder = try TemporaryFolder(self)
        try writeConstant(folder.file("dc.wav"))
        let release = 36_000
        func envelope(_ opcodes: String, velocity: UInt8 = 127) throws -> [Float] {
            let plain = try render("<region> sample=dc.wav key=60 pitch_keytrack=0", in: folder,
                                   [(0, .noteOn(channel: 0, key: 60, velocity: 127))], frames: 4_800)
            let full = plain[2_400]
            return try render("<region> sample=dc.wav key=60 pitch_keytrack=0 amp_veltrack=0 \(opcodes)", in: folder,
                              [(0, .noteOn(channel: 0, key: 60, velocity: velocity)), (FrameTime(release), .noteOff(channel: 0, key: 60, velocity: 0))],
                              frames: 60_000).map { $0 / full }
        }
        func firstFrame(_ values: [Float], from start: Int = 0, where test: (Float) -> Bool) -> Int {
            (start..<values.count).first { test(values[$0]) } ?? values.count
        }
        let shape = "ampeg_delay=0.1 ampeg_attack=0.2 ampeg_hold=0.1 ampeg_decay=1 ampeg_sustain=50 ampeg_release=1"
        let env = try envelope(shape)
        let delayEnd = 4_800, attackEnd = delayEnd + 9_600, holdEnd = attackEnd + 4_800
        // Decay: 6.02 dB of the 100 dB a second covers.
        let decayEnd = holdEnd + Int(20 * log10(2.0) / 100 * rate)
        XCTAssertEqual(Double(firstFrame(env) { $0 > 1e-4 }), Double(delayEnd), accuracy: Double(controlPeriod), "delay")
        XCTAssertEqual(Double(env[delayEnd + 4_800]), 0.5, accuracy: 0.01, "halfway up the attack: half the level")
        XCTAssertEqual(Double(firstFrame(env) { $0 > 0.999 }), Double(attackEnd), accuracy: Double(controlPeriod), "attack")
        XCTAssertEqual(Double(firstFrame(env, from: attackEnd) { $0 < 0.999 }), Double(holdEnd), accuracy: Double(controlPeriod), "hold")
        XCTAssertEqual(Double(firstFrame(env, from: holdEnd) { $0 < 0.5005 }), Double(decayEnd), accuracy: Double(controlPeriod), "decay")
        XCTAssertEqual(Double(env[30_000]), 0.5, accuracy: 0.001, "sustain")
        // Release: 20 dB down 0.2 s after the note-off.
        XCTAssertEqual(Double(env[release + 9_600]), 0.05, accuracy: 0.001, "release")
        print("envelope: delay ends \(firstFrame(env) { $0 > 1e-4 }) (\(delayEnd)), attack \(firstFrame(env) { $0 > 0.999 }) (\(attackEnd)), decay \(firstFrame(env, from: holdEnd) { $0 < 0.5005 }) (\(decayEnd))")

        // `delay` holds the whole region back (its envelope with it), at most a control period late.
        let delayed = try envelope(shape + " delay=0.05")
        let shift = firstFrame(delayed) { $0 > 1e-4 } - firstFrame(env) { $0 > 1e-4 }
        XCTAssertGreaterThanOrEqual(shift, 2_400)
        XCTAssertLessThan(shift, 2_400 + controlPeriod)
        // A note released before its delay is over never sounds.
        let early = try render("<region> sample=dc.wav key=60 delay=0.5", in: folder,
                               [(0, .noteOn(channel: 0, key: 60, velocity: 127)), (4_800, .noteOff(channel: 0, key: 60, velocity: 0))], frames: 48_000)
        XCTAssertEqual(early.map(abs).max(), 0)

        // ampeg_vel2attack: velocity 127 adds all of it, velocity 64 about half.
        let attackAt = { (velocity: UInt8) throws -> Int in
            firstFrame(try envelope("ampeg_attack=0.2 ampeg_vel2attack=-0.1", velocity: velocity)) { $0 > 0.999 }
        }
        XCTAssertEqual(Double(try attackAt(127)), 0.1 * rate, accuracy: Double(controlPeriod))
        XCTAssertEqual(Double(try attackAt(64)), (0.2 - 0.1 * 64 / 127) * rate, accuracy: Double(controlPeriod))
        // ampeg_vel2sustain: velocity 127 lowers the sustain by all of it.
        XCTAssertEqual(Double(try envelope("ampeg_decay=0.1 ampeg_sustain=80 ampeg_vel2sustain=-40")[30_000]), 0.4, accuracy: 0.002)
    }

    /// `ampeg_<stage>_onccN` (and SFZ 1's `ampeg_<stage>ccN`) add seconds, or sustain percent, in
    /// proportion to the controller at the note-on: every stage within one control period, the
    /// sustain level exact; `set_ccN` is the controller's value until a song moves it.
    func testEnvelopeStagesFollowTheirControllers() throws {
        let folder = try TemporaryFolder(self)
        try writeConstant(folder.file("dc.wav"), seconds: 3)
        // After the longest delay, attack, hold and decay (2 s at CC1 127) have reached the sustain.
        let release = 110_000
        let plain = try render("<region> sample=dc.wav key=60 pitch_keytrack=0", in: folder,
                               [(0, .noteOn(channel: 0, key: 60, velocity: 127))], frames: 4_800)
        let full = plain[2_400]
        func envelope(_ opcodes: String, modulation: UInt8?) throws -> [Float] {
            let controller: [(FrameTime, MIDIMessage)] = modulation.map { [(0, .controlChange(channel: 0, controller: 1, value: $0))] } ?? []
            return try render("<region> sample=dc.wav key=60 pitch_keytrack=0 amp_veltrack=0 \(opcodes)", in: folder,
                              controller + [(0, .noteOn(channel: 0, key: 60, velocity: 127)), (FrameTime(release), .noteOff(channel: 0, key: 60, velocity: 0))],
                              frames: 130_000).map { $0 / full }
        }
        func firstFrame(_ values: [Float], from start: Int = 0, where test: (Float) -> Bool) -> Int {
            (start..<values.count).first { test(values[$0]) } ?? values.count
        }
        let period = Double(controlPeriod)
        // Each stage: 0.1 s, plus up to 0.4 s with the modulation wheel.
        let shape = "ampeg_delay=0.1 ampeg_attack=0.1 ampeg_hold=0.1 ampeg_decay=0.1 ampeg_sustain=20 ampeg_release=0.1 "
            + "ampeg_delay_oncc1=0.4 ampeg_attack_oncc1=0.4 ampeg_holdcc1=0.4 ampeg_decay_oncc1=0.4 ampeg_sustain_oncc1=60 ampeg_release_oncc1=0.4"
        for (value, share) in [(UInt8(0), 0.0), (127, 1.0), (64, 64.0 / 127)] {
            let env = try envelope(shape, modulation: value)
            let stage = 0.1 + 0.4 * share
            let delayEnd = stage * rate, attackEnd = 2 * stage * rate, holdEnd = 3 * stage * rate
            let sustain = 0.2 + 0.6 * share
            XCTAssertEqual(Double(firstFrame(env) { $0 > 1e-4 }), delayEnd, accuracy: period, "delay at CC1 \(value)")
            XCTAssertEqual(Double(firstFrame(env) { $0 > 0.999 }), attackEnd, accuracy: period, "attack at CC1 \(value)")
            XCTAssertEqual(Double(firstFrame(env, from: Int(attackEnd) + controlPeriod) { $0 < 0.999 }), holdEnd, accuracy: period, "hold at CC1 \(value)")
            XCTAssertEqual(Double(env[release - 100]), sustain, accuracy: 0.002, "sustain at CC1 \(value)")
            // The decay falls 100 dB a second's worth of its time: the sustain is reached well before the note-off.
            let afterRelease = Double(env[release + Int(stage * rate * 0.2)]) / sustain
            XCTAssertEqual(20 * log10(afterRelease), -20, accuracy: 0.5, "a fifth of the release: 20 dB down at CC1 \(value)")
        }
        // A saxophone's way: no sustain of its own, all of it from a controller that set_cc raises.
        let sax = try render("<control> set_cc103=127\n<region> sample=dc.wav key=60 pitch_keytrack=0 amp_veltrack=0 ampeg_sustain=0 ampeg_decay=0.2 ampeg_sustain_oncc103=100",
                             in: folder, [(0, .noteOn(channel: 0, key: 60, velocity: 127))], frames: 48_000).map { $0 / full }
        XCTAssertEqual(Double(sax[40_000]), 1, accuracy: 0.002, "the sustain comes from set_cc103")
    }

    /// A stereo sample's channels stand at `position` ± `width`: full width keeps them apart,
    /// none puts both in the middle, and `position` moves the pair; a mono sample ignores both.
    /// The levels' `global_volume`, `master_volume` and `group_volume` add to the region's.
    func testWidthAndPositionPlaceAStereoSamplesChannels() throws {
        let folder = try TemporaryFolder(self)
        try writeStereoAndMono(in: folder)
        func levels(_ opcodes: String, sample: String = "stereo.wav") throws -> (left: Double, right: Double) {
            let path = folder.file("w\(abs(opcodes.hashValue)).sfz")
            try write("<region> sample=\(sample) key=60 pitch_keytrack=0 amp_veltrack=0 \(opcodes)", to: path)
            let engine = try engine(path)
            engine.send(midi: .noteOn(channel: 0, key: 60, velocity: 127), at: 0)
            let output = engine.renderOffline(frameCount: 9_600, blockFrameCount: 256)
            let left = SignalAnalysis.channel(0, of: output, channelCount: 2), right = SignalAnalysis.channel(1, of: output, channelCount: 2)
            return (Double(left[4_800]), Double(right[4_800]))
        }
        let apart = try levels("")
        XCTAssertGreaterThan(apart.left, 0.1)
        XCTAssertEqual(apart.right, 0, accuracy: 1e-6, "full width: the left channel hard left")
        let middle = try levels("width=0")
        XCTAssertEqual(middle.left, middle.right, accuracy: 1e-6, "no width: the left channel in the middle")
        let moved = try levels("width=0 position=100")
        XCTAssertEqual(moved.left, 0, accuracy: 1e-6, "position=100 moves the pair hard right")
        XCTAssertGreaterThan(moved.right, 0.1)
        let mono = try levels("width=0 position=100", sample: "mono.wav"), monoPlain = try levels("", sample: "mono.wav")
        XCTAssertEqual(mono.left, monoPlain.left, accuracy: 1e-6, "a mono sample ignores width and position")
        let quieter = try levels("global_volume=-3 master_volume=-2 group_volume=-1", sample: "mono.wav")
        XCTAssertEqual(20 * log10(quieter.left / monoPlain.left), -6, accuracy: 0.01)
    }

    /// A controller read through a curve (`*_curveccN`): ARIA's built-in ones (1 bipolar, 4
    /// concave) and a file's own `<curve>`, its points joined by straight lines, each level and
    /// time exact.
    func testControllersFollowTheirCurves() throws {
        let folder = try TemporaryFolder(self)
        try writeConstant(folder.file("dc.wav"), seconds: 3)
        func output(_ opcodes: String, _ controllers: [(UInt8, UInt8)], release: Bool = false, frames: Int = 9_600) throws -> (left: [Float], right: [Float]) {
            let path = folder.file("c\(abs(opcodes.hashValue)).sfz")
            try write("<curve> curve_index=7 v000=1 v001=0 v127=0\n<curve> curve_index=9 v000=0 v063=1 v127=0.5\n"
                      + "<region> sample=dc.wav key=60 pitch_keytrack=0 amp_veltrack=0 \(opcodes)", to: path)
            let engine = try engine(path)
            for (controller, value) in controllers { engine.send(midi: .controlChange(channel: 0, controller: controller, value: value), at: 0) }
            engine.send(midi: .noteOn(channel: 0, key: 60, velocity: 127), at: 0)
            if release { engine.send(midi: .noteOff(channel: 0, key: 60, velocity: 0), at: 4_800) }
            let samples = engine.renderOffline(frameCount: frames, blockFrameCount: 256)
            return (SignalAnalysis.channel(0, of: samples, channelCount: 2), SignalAnalysis.channel(1, of: samples, channelCount: 2))
        }
        // Curve 1, bipolar: CC at 64 is the middle (SF2's pan sum would put it half right).
        let pan = "pan_oncc20=100 pan_curvecc20=1"
        let centre = try output(pan, [(20, 64)]), left = try output(pan, [(20, 0)]), right = try output(pan, [(20, 127)])
        XCTAssertEqual(Double(centre.left[4_800] / centre.right[4_800]), 1, accuracy: 0.02, "CC 64 through curve 1: the middle")
        XCTAssertEqual(Double(left.right[4_800]), 0, accuracy: 1e-5, "CC 0: hard left")
        XCTAssertEqual(Double(right.left[4_800]), 0, accuracy: 1e-5, "CC 127: hard right")
        // Curve 4, x²: CC7 at 64 plays (64/127)² of the level at 127.
        let amplitude = "amplitude_oncc21=100 amplitude_curvecc21=4"
        let full = try output(amplitude, [(21, 127)]), half = try output(amplitude, [(21, 64)])
        XCTAssertEqual(20 * log10(Double(half.left[4_800] / full.left[4_800])), 40 * log10(64.0 / 127), accuracy: 0.05)
        // A file's curve, 0 → 1 at 63 → 0.5 at 127: volume_oncc22=-20 gives -20 dB at 63, -10 dB at 127.
        let volume = "volume_oncc22=-20 volume_curvecc22=9"
        let none = try output(volume, [(22, 0)]), peak = try output(volume, [(22, 63)]), top = try output(volume, [(22, 127)])
        XCTAssertEqual(20 * log10(Double(peak.left[4_800] / none.left[4_800])), -20, accuracy: 0.05)
        XCTAssertEqual(20 * log10(Double(top.left[4_800] / none.left[4_800])), -10, accuracy: 0.05)
        // SFZ 1's spelling (`tune_ccN`) with its curve; `set_cc41=63.5`, a fraction, the middle step.
        try writeSine(folder.file("a.wav"), frequency: 440, seconds: 1)
        let tune = folder.file("tune.sfz")
        try write("<control> set_cc41=63.5\n<region> sample=a.wav key=69 tune_cc41=1200 tune_curvecc41=1", to: tune)
        XCTAssertEqual(pitch(try render(tune, [(0, .noteOn(channel: 0, key: 69, velocity: 127))], frames: 9_600), at: 4_800), 442,
                       "the bipolar curve's middle: +9 cents (64 of 127), not the linear curve's +605")
        // A switch: curve 7 is 1 at 0, 0 above; a damper pedal's release, long only with the pedal up.
        let damper = "ampeg_release=0.1 ampeg_release_oncc67=2 ampeg_release_curvecc67=7"
        let up = try output(damper, [(67, 0)], release: true, frames: 48_000), down = try output(damper, [(67, 100)], release: true, frames: 48_000)
        let after = 4_800 + 14_400  // 0.3 s after the note-off
        // SFZ releases fall 100 dB in their time: 0.3 s of 2.1 s is 14.3 dB; of 0.1 s, all of it.
        XCTAssertEqual(20 * log10(Double(up.left[after] / up.left[4_700])), -100 * 0.3 / 2.1, accuracy: 0.5, "pedal up: the 2.1 s release")
        XCTAssertLessThan(Double(down.left[after]), 1e-5, "pedal down: the 0.1 s release is over")
    }

    /// `amp_veltrack_onccN` adds velocity tracking in proportion to its controller: at 127 a soft
    /// note is as much quieter as `amp_veltrack=100` makes it, at 0 as loud as a hard one.
    func testVelocityTrackingFollowsItsController() throws {
        let folder = try TemporaryFolder(self)
        try writeConstant(folder.file("dc.wav"))
        func level(_ opcodes: String, velocity: UInt8, modulation: UInt8) throws -> Double {
            let left = try render("<region> sample=dc.wav key=60 pitch_keytrack=0 \(opcodes)", in: folder,
                                  [(0, .controlChange(channel: 0, controller: 1, value: modulation)), (0, .noteOn(channel: 0, key: 60, velocity: velocity))],
                                  frames: 4_800)
            return Double(left[2_400])
        }
        let tracked = try level("amp_veltrack=100", velocity: 64, modulation: 0) / level("amp_veltrack=100", velocity: 127, modulation: 0)
        let onController = "amp_veltrack=0 amp_veltrack_oncc1=100"
        XCTAssertEqual(try level(onController, velocity: 64, modulation: 127) / level(onController, velocity: 127, modulation: 127), tracked, accuracy: 0.01)
        XCTAssertEqual(try level(onController, velocity: 64, modulation: 0) / level(onController, velocity: 127, modulation: 0), 1, accuracy: 0.001)
    }

    /// SFZ 1's LFOs are sines, and reach their depth over `*_fade`: a 2 Hz tremolo of 6 dB is
    /// +3 dB a twelfth of a period in (a triangle would give +2), and with a one-second fade an
    /// eighth of its depth at its first peak, all of it two periods later.
    func testSFZLFOsAreSinesThatFadeIn() throws {
        let folder = try TemporaryFolder(self)
        try writeConstant(folder.file("dc.wav"), seconds: 3)
        func decibels(_ opcodes: String) throws -> (Double) -> Double {
            let plain = try render("<region> sample=dc.wav key=60 pitch_keytrack=0 amp_veltrack=0", in: folder,
                                   [(0, .noteOn(channel: 0, key: 60, velocity: 127))], frames: 4_800)
            let left = try render("<region> sample=dc.wav key=60 pitch_keytrack=0 amp_veltrack=0 \(opcodes)", in: folder,
                                  [(0, .noteOn(channel: 0, key: 60, velocity: 127))], frames: 96_000)
            return { seconds in 20 * log10(Double(left[Int(seconds * 48_000)] / plain[2_400])) }
        }
        let tremolo = try decibels("amplfo_freq=2 amplfo_depth=6")
        XCTAssertEqual(tremolo(0.5 / 12), 3, accuracy: 0.1, "a twelfth of a period: sin 30° of the depth")
        XCTAssertEqual(tremolo(0.125), 6, accuracy: 0.1, "a quarter: the peak")
        XCTAssertEqual(tremolo(0.375), -6, accuracy: 0.1, "three quarters: the trough")
        let faded = try decibels("amplfo_freq=2 amplfo_depth=6 amplfo_fade=1")
        XCTAssertEqual(faded(0.125), 6 * 0.125, accuracy: 0.1, "an eighth of the way through the fade")
        XCTAssertEqual(faded(1.125), 6, accuracy: 0.1, "faded in")
    }

    /// `pitch_random`, `amp_random`, `delay_random`: every note its own draw, within the range
    /// (pitch either way, level louder only, delay later only), spread across it, and the same
    /// draws every render and at any block size.
    func testRandomOpcodesDrawEachNoteTheSameEveryRender() throws {
        let folder = try TemporaryFolder(self)
        try writeSine(folder.file("a.wav"), frequency: 440, seconds: 1)
        let path = folder.file("random.sfz")
        try write("<region> sample=a.wav key=69 amp_veltrack=0 pitch_random=100 amp_random=6 delay_random=0.01", to: path)
        let plainPath = folder.file("plain.sfz")
        try write("<region> sample=a.wav key=69 amp_veltrack=0", to: plainPath)
        let notes = 16, slot = 14_400
        let messages: [(FrameTime, MIDIMessage)] = (0..<notes).flatMap { note -> [(FrameTime, MIDIMessage)] in
            [(FrameTime(note * slot), .noteOn(channel: 0, key: 69, velocity: 127)), (FrameTime(note * slot + 12_000), .noteOff(channel: 0, key: 69, velocity: 0))]
        }
        let engine = try self.engine(path)
        for (frame, message) in messages { engine.send(midi: message, at: frame) }
        let left = SignalAnalysis.channel(0, of: engine.renderOffline(frameCount: notes * slot, blockFrameCount: 256), channelCount: 2)
        let plain = try render(plainPath, [(0, .noteOn(channel: 0, key: 69, velocity: 127))], frames: 9_600)
        let plainLevel = Double(SignalAnalysis.rms(plain[2_400 ..< 9_600]))
        var cents: [Double] = [], decibels: [Double] = [], onsets: [Int] = []
        for note in 0..<notes {
            let window = left[(note * slot + 2_400) ..< (note * slot + 9_600)]
            cents.append(1_200 * log2((SignalAnalysis.frequency(of: window, sampleRate: rate) ?? 0) / 440))
            decibels.append(20 * log10(Double(SignalAnalysis.rms(window)) / plainLevel))
            onsets.append((note * slot ..< note * slot + 2_400).first { abs(left[$0]) > 1e-4 }.map { $0 - note * slot } ?? -1)
        }
        XCTAssertTrue(cents.allSatisfy { abs($0) <= 101 }, "\(cents)")
        XCTAssertGreaterThan(cents.max()! - cents.min()!, 60, "spread across the range: \(cents)")
        XCTAssertTrue(decibels.allSatisfy { $0 >= -0.1 && $0 <= 6.1 }, "\(decibels)")
        XCTAssertGreaterThan(decibels.max()! - decibels.min()!, 2, "\(decibels)")
        XCTAssertTrue(onsets.allSatisfy { $0 >= 0 && $0 <= 480 + controlPeriod }, "within 10 ms later: \(onsets)")
        // The same draws again, at another block size.
        let again = try self.engine(path)
        for (frame, message) in messages { again.send(midi: message, at: frame) }
        let second = SignalAnalysis.channel(0, of: again.renderOffline(frameCount: notes * slot, blockFrameCount: 64), channelCount: 2)
        XCTAssertTrue(left.elementsEqual(second) { $0.bitPattern == $1.bitPattern }, "the same bits every render")
    }

    /// `pitcheg_*` moves the pitch and `fileg_*` the cutoff, by their depths in cents.
    func testPitchAndFilterEnvelopesMoveByTheirDepth() throws {
        let folder = try TemporaryFolder(self)
        try writeSine(folder.file("a.wav"), seconds: 1)
        try writeSine(folder.file("b.wav"), frequency: 2_000, seconds: 1)
        let on: [(FrameTime, MIDIMessage)] = [(0, .noteOn(channel: 0, key: 69, velocity: 127))]
        let raised = try render("<region> sample=a.wav key=69 pitcheg_depth=1200 pitcheg_sustain=100", in: folder, on, frames: 24_000)
        XCTAssertEqual(pitch(raised, at: 9_600), 880, "an octave up while the envelope sustains at full depth")
        let settled = try render("<region> sample=a.wav key=69 pitcheg_depth=1200 pitcheg_decay=0.1 pitcheg_sustain=0", in: folder, on, frames: 24_000)
        XCTAssertEqual(pitch(settled, at: 9_600), 440, "back to pitch once it has decayed to 0")
        func level(_ opcodes: String) throws -> Double {
            decibels(SignalAnalysis.rms(try render("<region> sample=b.wav key=69 \(opcodes)", in: folder, on, frames: 19_200)[9_600 ..< 19_200]))
        }
        let open = try level("")
        XCTAssertLessThan(try level("cutoff=250") - open, -30, "a 2 kHz tone three octaves over the cutoff")
        // Two octaves up from 500 Hz: the cutoff reaches the tone (Q 1: 0 dB there).
        XCTAssertEqual(try level("cutoff=500 fileg_depth=2400 fileg_sustain=100") - open, 0, accuracy: 0.5)
        // The vel2 forms: the depth by velocity, the sustain by velocity.
        func level(_ opcodes: String, velocity: UInt8) throws -> Double {
            decibels(SignalAnalysis.rms(try render("<region> sample=b.wav key=69 amp_veltrack=0 \(opcodes)", in: folder,
                                                   [(0, .noteOn(channel: 0, key: 69, velocity: velocity))], frames: 19_200)[9_600 ..< 19_200]))
        }
        let byVelocity = "cutoff=500 fileg_vel2depth=2400 fileg_sustain=100"
        XCTAssertEqual(try level(byVelocity, velocity: 127) - open, 0, accuracy: 0.5, "velocity 127: the whole depth")
        XCTAssertLessThan(try level(byVelocity, velocity: 64) - open, -6, "velocity 64: about half the depth, the cutoff an octave under the tone")
        let sustainByVelocity = "amp_veltrack=0 pitcheg_depth=1200 pitcheg_sustain=0 pitcheg_vel2sustain=100"
        XCTAssertEqual(pitch(try render("<region> sample=a.wav key=69 \(sustainByVelocity)", in: folder, on, frames: 24_000), at: 9_600), 880)
        XCTAssertEqual(pitch(try render("<region> sample=a.wav key=69 \(sustainByVelocity)", in: folder,
                                        [(0, .noteOn(channel: 0, key: 69, velocity: 1))], frames: 24_000), at: 9_600), 440, accuracy: 5)
    }
}
