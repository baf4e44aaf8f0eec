import AudioFile
import Engine
import Foundation
import MIDI
import Render
import SampleSet
import SFZ
import TestSupport
import XCTest

/// SFZ's controls past the first 128 controllers and on a stereo sample's placement, each to a
/// known answer: ARIA's extended controllers (the wheel, the pressures, velocity), `width_onccN`
/// and `position_onccN`, `offset_onccN` at a file's own rate, `pan_keytrack` and `fil_random`.
extension SFZTests {
    /// Writes `stereo.wav` (a second of 0.5 in the left channel, silence in the right) and
    /// `mono.wav` (a second of 0.5) into `folder`: where a stereo sample's channels end up shows.
    func writeStereoAndMono(in folder: TemporaryFolder) throws {
        let writer = try AudioFileWriter(path: folder.file("stereo.wav"), sampleRate: Int(rate), channelCount: 2)
        try writer.write((0..<Int(rate)).flatMap { _ in [Float(0.5), Float(0)] })
        try writer.close()
        try writeConstant(folder.file("mono.wav"), seconds: 1)
    }

    /// Both channels of `messages` through a dry engine playing the instrument `text`.
    func renderStereo(_ text: String, in folder: TemporaryFolder, _ messages: [(FrameTime, MIDIMessage)], frames: Int) throws -> (left: [Float], right: [Float]) {
        let path = folder.file("c\(abs(text.hashValue)).sfz")
        try write(text, to: path)
        XCTAssertEqual(try SFZLoader.load(path: path, sampleRate: rate).loadWarnings, [], text)
        let engine = try engine(path)
        for (frame, message) in messages { XCTAssertTrue(engine.send(midi: message, at: frame)) }
        let output = engine.renderOffline(frameCount: frames, blockFrameCount: 256)
        return (SignalAnalysis.channel(0, of: output, channelCount: 2), SignalAnalysis.channel(1, of: output, channelCount: 2))
    }

    /// ARIA's controllers 128 (the wheel), 129 (channel pressure), 130 (the key's pressure) and 131
    /// (velocity) move what their opcodes name as a controller would.
    func testExtendedControllersReadTheWheelThePressuresAndVelocity() throws {
        let folder = try TemporaryFolder(self)
        try writeSine(folder.file("a.wav"), seconds: 1)
        func note(_ opcodes: String, _ before: [MIDIMessage] = [], velocity: UInt8 = 127, after: [MIDIMessage] = []) throws -> (left: [Float], right: [Float]) {
            var messages: [(FrameTime, MIDIMessage)] = before.map { (0, $0) }
            messages.append((0, .noteOn(channel: 0, key: 69, velocity: velocity)))
            messages += after.map { (10, $0) }
            return try renderStereo("<region> sample=a.wav key=69 amp_veltrack=0 \(opcodes)", in: folder, messages, frames: 24_000)
        }
        // 129: channel pressure at full raises the pitch by the opcode's whole amount.
        XCTAssertEqual(pitch(try note("pitch_oncc129=1200", [.channelPressure(channel: 0, pressure: 127)]).left, at: 12_000), 880, accuracy: 2)
        XCTAssertEqual(pitch(try note("pitch_oncc129=1200").left, at: 12_000), 440, accuracy: 2)
        // 128: the wheel, -1…1 (the channel's own bend range set to nothing).
        XCTAssertEqual(pitch(try note("bend_up=0 bend_down=0 pitch_oncc128=1200", [.pitchBend(channel: 0, value: 16_383)]).left, at: 12_000), 880, accuracy: 2)
        XCTAssertEqual(pitch(try note("bend_up=0 bend_down=0 pitch_oncc128=1200", [.pitchBend(channel: 0, value: 0)]).left, at: 12_000), 220, accuracy: 2)
        // 130: the note's own key pressure, after the note-on.
        let pressed = try note("pan_oncc130=100", after: [.polyPressure(channel: 0, key: 69, pressure: 127)])
        XCTAssertLessThan(SignalAnalysis.rms(pressed.left[12_000...]), 0.01 * SignalAnalysis.rms(pressed.right[12_000...]), "pressure 127: hard right")
        // 131: velocity, through amplitude: velocity 64 plays 64/127 of the level.
        let soft = try note("amplitude_oncc131=100", velocity: 64), loud = try note("amplitude_oncc131=100")
        XCTAssertEqual(decibels(SignalAnalysis.rms(soft.left[12_000...]) / SignalAnalysis.rms(loud.left[12_000...])), 20 * log10(64.0 / 127), accuracy: 0.1)
    }

    /// `width_onccN` and `position_onccN` move a stereo sample's channels as `width` and
    /// `position` do; `pan_keytrack` pans by the key from `pan_keycenter`.
    func testWidthPositionAndPanFollowControllersAndKeys() throws {
        let folder = try TemporaryFolder(self)
        try writeStereoAndMono(in: folder)
        func levels(_ opcodes: String, sample: String = "stereo.wav", key: UInt8 = 60, modulation: UInt8 = 127) throws -> (left: Float, right: Float) {
            let output = try renderStereo("<region> sample=\(sample) lokey=0 hikey=127 pitch_keycenter=60 pitch_keytrack=0 amp_veltrack=0 \(opcodes)", in: folder,
                                          [(0, .controlChange(channel: 0, controller: 1, value: modulation)), (0, .noteOn(channel: 0, key: key, velocity: 127))],
                                          frames: 9_600)
            return (output.left[4_800], output.right[4_800])
        }
        let middle = try levels("width_oncc1=-100")
        XCTAssertEqual(middle.left, middle.right, accuracy: 1e-6, "width 100 − 100 at CC1 127: the left channel in the middle")
        let apart = try levels("width_oncc1=-100", modulation: 0)
        XCTAssertEqual(apart.right, 0, accuracy: 1e-6, "CC1 at 0: full width")
        let moved = try levels("width=0 position_oncc1=100")
        XCTAssertEqual(moved.left, 0, accuracy: 1e-6, "position 100: the pair hard right")
        XCTAssertGreaterThan(moved.right, 0.1)
        let high = try levels("pan_keytrack=10 pan_keycenter=60", sample: "mono.wav", key: 70)
        XCTAssertEqual(high.left, 0, accuracy: 1e-6, "ten keys up at 10 % a key: hard right")
        let centre = try levels("pan_keytrack=10 pan_keycenter=60", sample: "mono.wav", key: 60)
        XCTAssertEqual(centre.left, centre.right, accuracy: 1e-6, "the key centre: the middle")
    }

    /// `offset_onccN` starts the sample later by its frames at the controller's full value, frames
    /// of the file at its own rate.
    func testOffsetOnAControllerCountsFramesOfTheFile() throws {
        let folder = try TemporaryFolder(self)
        // 44.1 kHz: half a second at 440 Hz, then half a second at 880 Hz.
        let writer = try AudioFileWriter(path: folder.file("two.wav"), sampleRate: 44_100, channelCount: 1)
        let frames: [Float] = (0..<44_100).map { frame in
            let frequency: Double = frame < 22_050 ? 440 : 880
            return Float(0.5 * sin(2 * Double.pi * frequency * Double(frame) / 44_100))
        }
        try writer.write(frames)
        try writer.close()
        func pitchAt(_ modulation: UInt8) throws -> Int {
            let left = try renderStereo("<region> sample=two.wav key=69 offset_oncc1=22050", in: folder,
                                        [(0, .controlChange(channel: 0, controller: 1, value: modulation)), (0, .noteOn(channel: 0, key: 69, velocity: 127))],
                                        frames: 12_000).left
            return pitch(left, at: 2_000)
        }
        XCTAssertEqual(try pitchAt(0), 440, accuracy: 2, "no offset: the first half")
        XCTAssertEqual(try pitchAt(127), 880, accuracy: 2, "22,050 frames of the file in: the second half from the start")
    }

    /// `fil_random`: each note its own cutoff within the range either way, spread across it, the
    /// same every render.
    func testFilterRandomDrawsEachNotesCutoff() throws {
        let folder = try TemporaryFolder(self)
        try writeSine(folder.file("k.wav"), frequency: 2_000, seconds: 0.3)
        let text = "<region> sample=k.wav key=69 pitch_keytrack=0 amp_veltrack=0 ampeg_release=0.01 cutoff=2000 fil_type=lpf_2p fil_random=2400"
        var messages: [(FrameTime, MIDIMessage)] = []
        for note in 0..<16 {
            let start = FrameTime(note * 9_600)
            messages.append((start, .noteOn(channel: 0, key: 69, velocity: 127)))
            messages.append((start + 7_200, .noteOff(channel: 0, key: 69, velocity: 0)))
        }
        let first = try renderStereo(text, in: folder, messages, frames: 16 * 9_600).left
        XCTAssertEqual(first, try renderStereo(text, in: folder, messages, frames: 16 * 9_600).left, "the same draws every render")
        let plain = try renderStereo("<region> sample=k.wav key=69 pitch_keytrack=0 amp_veltrack=0", in: folder,
                                     [(0, .noteOn(channel: 0, key: 69, velocity: 127))], frames: 9_600).left
        let reference = SignalAnalysis.rms(plain[2_400 ..< 7_200])
        let levels = (0..<16).map { decibels(SignalAnalysis.rms(first[($0 * 9_600 + 2_400) ..< ($0 * 9_600 + 7_200)]) / reference) }
        // A 2 kHz sine through a two-pole low-pass at Q 1 (resonance 0 dB) whose cutoff lies two
        // octaves either way: from 0 dB at its cutoff, up to a few dB above, down to -24 dB below.
        XCTAssertTrue(levels.allSatisfy { $0 > -26 && $0 < 6 }, "\(levels)")
        XCTAssertGreaterThan(levels.max()! - levels.min()!, 6, "spread: \(levels)")
    }
}

extension SFZTests {
    /// `off_time`: a voice its group cuts off fades out over that time (half way down half way
    /// through), where `off_mode=fast` stops it within a few milliseconds.
    func testOffTimeFadesACutOffVoiceOverItsTime() throws {
        let folder = try TemporaryFolder(self)
        try writeConstant(folder.file("dc.wav"), seconds: 2)
        func levels(_ opcodes: String) throws -> [Float] {
            let text = """
                <region> sample=dc.wav key=60 pitch_keytrack=0 amp_veltrack=0 group=1 off_by=2 \(opcodes)
                <region> sample=*silence key=62 group=2
                """
            let left = try renderStereo(text, in: folder, [(0, .noteOn(channel: 0, key: 60, velocity: 127)), (24_000, .noteOn(channel: 0, key: 62, velocity: 127))],
                                        frames: 72_000).left
            return left.map { $0 / left[12_000] }
        }
        let timed = try levels("off_time=0.5")
        XCTAssertEqual(Double(timed[23_000]), 1, accuracy: 1e-4, "before the cut")
        XCTAssertEqual(Double(timed[24_000 + 12_000]), 0.5, accuracy: 0.01, "half way through the fade")
        XCTAssertEqual(timed[(24_000 + 24_000 + controlPeriod)...].map(abs).max(), 0, "ended")
        let fast = try levels("off_mode=fast")
        XCTAssertEqual(fast[(24_000 + 480)...].map(abs).max(), 0, "fast: gone within 10 ms")
    }
}

extension SFZTests {
    /// `on_loccN`/`on_hiccN`: a piano's pedal noises, on no key (`hikey=-1`), start when the pedal
    /// moves into their range, at their recorded pitch, once per move (a repeated value starts
    /// nothing), and not from the bank's own `set_ccN`; keys never start them.
    func testControllersStartTheRegionsTheyTrigger() throws {
        let folder = try TemporaryFolder(self)
        try writeSine(folder.file("down.wav"), frequency: 440, seconds: 0.2)
        try writeSine(folder.file("up.wav"), frequency: 660, seconds: 0.2)
        let text = """
            <control> set_cc64=127
            <group> hikey=-1 lokey=-1 on_locc64=64 on_hicc64=127 pitch_keycenter=69
            <region> sample=down.wav
            <group> hikey=-1 lokey=-1 on_locc64=0 on_hicc64=63 pitch_keycenter=69
            <region> sample=up.wav
            """
        func played(_ messages: [(FrameTime, MIDIMessage)]) throws -> [Float] {
            try renderStereo(text, in: folder, messages, frames: 48_000).left
        }
        let quiet = try played([(0, .noteOn(channel: 0, key: 69, velocity: 127))])
        XCTAssertEqual(quiet.map(abs).max(), 0, "no key plays them, and the bank's set_cc64 starts nothing")
        let pedal = try played([(0, .controlChange(channel: 0, controller: 64, value: 0)),
                                (12_000, .controlChange(channel: 0, controller: 64, value: 127)),
                                (13_000, .controlChange(channel: 0, controller: 64, value: 127))])
        XCTAssertEqual(pitch(pedal, at: 2_000), 660, accuracy: 2, "pedal up: the up noise")
        XCTAssertEqual(pitch(pedal, at: 14_000), 440, accuracy: 2, "pedal down: the down noise (the up one over)")
        let repeated = try played([(0, .controlChange(channel: 0, controller: 64, value: 0)), (0, .controlChange(channel: 0, controller: 64, value: 0))])
        let once = try played([(0, .controlChange(channel: 0, controller: 64, value: 0))])
        XCTAssertEqual(repeated, once, "a repeated value starts nothing more")
    }
}

extension SFZTests {
    /// SFZ 1's sends: `effect1` reaches the reverb and `effect2` the chorus by their percentage; a
    /// note with `effect1=100` leaves a reverb tail after it ends where one without leaves little.
    func testEffectSendsReachTheReverbAndTheChorus() throws {
        let folder = try TemporaryFolder(self)
        try writeSine(folder.file("a.wav"), seconds: 0.2)
        let path = folder.file("sends.sfz")
        try write("<region> sample=a.wav key=69 effect1=50 effect2=25", to: path)
        let region = try XCTUnwrap(try SFZLoader.load(path: path, sampleRate: rate).regions.first)
        XCTAssertEqual(region.reverbSend, 0.5)
        XCTAssertEqual(region.chorusSend, 0.25)
        func tail(_ opcodes: String) throws -> Double {
            let path = folder.file("t\(abs(opcodes.hashValue)).sfz")
            try write("<region> sample=a.wav key=69 \(opcodes)", to: path)
            let engine = Engine(configuration: EngineConfiguration(render: RenderConfiguration(sampleRate: rate, outputLimiter: false, effects: true)))
            XCTAssertTrue(engine.install(try SFZLoader.load(path: path, sampleRate: rate)))
            engine.send(midi: .controlChange(channel: 0, controller: 91, value: 0), at: 0)
            engine.send(midi: .noteOn(channel: 0, key: 69, velocity: 127), at: 0)
            let left = SignalAnalysis.channel(0, of: engine.renderOffline(frameCount: 48_000, blockFrameCount: 256), channelCount: 2)
            return Double(SignalAnalysis.rms(left[14_400 ..< 48_000]))  // after the 0.2 s sample
        }
        XCTAssertGreaterThan(try tail("effect1=100"), 10 * (try tail("")), "a reverb tail")
    }
}
