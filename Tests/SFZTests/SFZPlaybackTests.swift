import AudioFile
import DrumKitLoader
import Engine
import Foundation
import MIDI
import Render
import SampleSet
import SFZ
import TestSupport
import XCTest

// What each opcode group does to the sound: level, pitch and placement, filters, loops, round
// robins, keyswitches, triggers, controllers and groups.
extension SFZTests {
    // MARK: Level, pitch, placement

    func testVolumeAmplitudeTuneTransposeAndPanChangeTheSoundByTheirValues() throws {
        let folder = try TemporaryFolder(self)
        try writeSine(folder.file("a.wav"))
        func measure(_ opcodes: String) throws -> (frequency: Double, left: Float, right: Float) {
            let path = folder.file("i\(abs(opcodes.hashValue)).sfz")
            try write("<region> sample=a.wav key=69 \(opcodes)", to: path)
            let (left, right) = try play(path)
            let steady = 4_800 ..< 19_200
            return (SignalAnalysis.frequency(of: left[steady], sampleRate: rate) ?? 0,
                    SignalAnalysis.rms(left[steady]), SignalAnalysis.rms(right[steady]))
        }
        let plain = try measure("")
        XCTAssertEqual(plain.frequency, 440, accuracy: 0.5)
        XCTAssertEqual(plain.left, plain.right, accuracy: plain.left * 1e-4, "centred")
        XCTAssertEqual(decibels(try measure("volume=-6").left / plain.left), -6, accuracy: 0.05)
        XCTAssertEqual(decibels(try measure("amplitude=50").left / plain.left), -6.02, accuracy: 0.05)
        XCTAssertEqual(try measure("transpose=12").frequency, 880, accuracy: 1)
        XCTAssertEqual(try measure("tune=100").frequency, 440 * pow(2, 1.0 / 12), accuracy: 0.5)
        XCTAssertEqual(try measure("pitch_keycenter=57").frequency, 880, accuracy: 1)
        let right = try measure("pan=100")
        XCTAssertLessThan(right.left, plain.left * 0.01, "pan=100: nothing on the left")
        XCTAssertGreaterThan(right.right, plain.right, "pan=100: all on the right")
    }

    // MARK: Filter

    /// `cutoff` and `resonance` on a two-pole low-pass: the level of sines around the cutoff
    /// against a 100 Hz sine's through the same region, within 0.5 dB of the RBJ low-pass at the
    /// Q sfizz gives `resonance` (its value in dB as a linear gain).
    func testCutoffAndResonanceFollowTheTwoPoleResponse() throws {
        let folder = try TemporaryFolder(self)
        let cutoff = 1_000.0
        func level(_ frequency: Double, resonance: Double) throws -> Double {
            let sample = "s\(Int(frequency)).wav"
            if !FileManager.default.fileExists(atPath: folder.file(sample)) { try writeSine(folder.file(sample), frequency: frequency, seconds: 0.5) }
            let path = folder.file("f\(Int(frequency))-\(Int(resonance)).sfz")
            try write("<region> sample=\(sample) key=69 volume=-12 fil_type=lpf_2p cutoff=\(cutoff) resonance=\(resonance)", to: path)
            return decibels(SignalAnalysis.rms(try play(path).left[9_600 ..< 19_200]))
        }
        for resonance in [0.0, 6, 12] {
            let passband = try level(100, resonance: resonance)
            for frequency in [500.0, 1_000, 2_000, 4_000] {
                let measured = try level(frequency, resonance: resonance) - passband
                let q = pow(10, resonance / 20)
                func response(_ frequency: Double) -> Double {
                    let ratio = tan(Double.pi * frequency / rate) / tan(Double.pi * cutoff / rate)
                    return -10 * log10(pow(1 - ratio * ratio, 2) + pow(ratio / q, 2))
                }
                let expected = response(frequency) - response(100)
                print("cutoff \(Int(cutoff)) Hz, resonance \(Int(resonance)) dB, sine \(Int(frequency)) Hz: \(measured.formatted(.number.precision(.fractionLength(2)))) dB, RBJ \(expected.formatted(.number.precision(.fractionLength(2)))) dB")
                XCTAssertEqual(measured, expected, accuracy: 0.5, "sine \(frequency) Hz, resonance \(resonance) dB")
            }
            // The passband stays where the unfiltered region is (volume=-12 leaves room to give
            // back what the filter takes).
            let openPath = folder.file("open.sfz")
            try write("<region> sample=s100.wav key=69 volume=-12", to: openPath)
            let open = decibels(SignalAnalysis.rms(try play(openPath).left[9_600 ..< 19_200]))
            XCTAssertEqual(passband, open + response100(q: pow(10, resonance / 20), cutoff: cutoff), accuracy: 0.5, "passband, resonance \(resonance) dB")
        }
    }

    func response100(q: Double, cutoff: Double) -> Double {
        let ratio = tan(Double.pi * 100 / rate) / tan(Double.pi * cutoff / rate)
        return -10 * log10(pow(1 - ratio * ratio, 2) + pow(ratio / q, 2))
    }

    // MARK: Loops and one-shots

    func testLoopModesAndOneShotsPlayAsTheyAreNamed() throws {
        let folder = try TemporaryFolder(self)
        try writeSine(folder.file("short.wav"), seconds: 0.2)
        func level(_ opcodes: String, release: FrameTime?, at frames: Range<Int>) throws -> Float {
            let path = folder.file("l\(abs(opcodes.hashValue)).sfz")
            try write("<region> sample=short.wav key=69 \(opcodes)", to: path)
            return SignalAnalysis.rms(try play(path, releaseFrame: release).left[frames])
        }
        let late = 14_400 ..< 19_200  // 0.3-0.4 s: past the 0.2 s sample
        let sounding = 0.75 * (try level("", release: nil, at: 2_400 ..< 7_200))  // the held note's level, less a margin
        XCTAssertEqual(try level("loop_mode=no_loop", release: nil, at: late), 0, "no_loop ends with its sample")
        XCTAssertGreaterThan(try level("loop_mode=loop_continuous loop_start=0 loop_end=9599", release: nil, at: late), sounding,
                             "a loop sounds on past the sample's end")
        XCTAssertGreaterThan(try level("loop_start=0 loop_end=9599", release: nil, at: late), sounding, "loop points alone loop")
        // A note-off at 0.05 s: one_shot plays on to its end, no_loop stops (release 1 ms).
        let afterRelease = 4_800 ..< 7_200
        XCTAssertGreaterThan(try level("loop_mode=one_shot", release: 2_400, at: afterRelease), sounding)
        XCTAssertLessThan(try level("loop_mode=no_loop", release: 2_400, at: afterRelease), 1e-4)
        XCTAssertGreaterThan(try level("loop_mode=no_loop ampeg_release=1", release: 2_400, at: afterRelease), sounding / 5,
                             "ampeg_release: a second's release")
        // loop_sustain loops while held and plays out after the note-off.
        XCTAssertGreaterThan(try level("loop_mode=loop_sustain loop_start=0 loop_end=9599 ampeg_release=5", release: nil, at: late), sounding)
    }

    // MARK: Choosing what plays

    /// `messages` (at their frames) through a dry engine playing `path`: the left channel.
    func render(_ path: String, _ messages: [(FrameTime, MIDIMessage)], frames: Int) throws -> [Float] {
        let engine = try engine(path)
        for (frame, message) in messages { XCTAssertTrue(engine.send(midi: message, at: frame)) }
        return SignalAnalysis.channel(0, of: engine.renderOffline(frameCount: frames, blockFrameCount: 256), channelCount: 2)
    }

    /// The pitch of `samples[start ..< start + 4000]`, rounded to the hertz; 0 when silent.
    func pitch(_ samples: [Float], at start: Int) -> Int {
        let window = samples[start ..< start + 4_000]
        guard SignalAnalysis.rms(window) > 0.01 else { return 0 }
        return Int((SignalAnalysis.frequency(of: window, sampleRate: rate) ?? 0).rounded())
    }

    func testRoundRobinTakesTurnsPerKeyAndRandomSetsPickOneEachTime() throws {
        let folder = try TemporaryFolder(self)
        for (name, frequency) in [("a", 440.0), ("b", 550.0), ("c", 660.0)] { try writeSine(folder.file("\(name).wav"), frequency: frequency) }
        try write("""
            <group> seq_length=3 key=69
            <region> sample=a.wav seq_position=1
            <region> sample=b.wav seq_position=2
            <region> sample=c.wav seq_position=3
            <group> key=60
            <region> sample=a.wav hirand=0.5
            <region> sample=b.wav lorand=0.5
            """, to: folder.file("choice.sfz"))
        XCTAssertEqual(try SFZLoader.load(path: folder.file("choice.sfz"), sampleRate: rate).loadWarnings, [])
        // Key 69 seven times, 0.1 s each: a, b, c, a, b, c, a. Key 60 between them does not move
        // key 69's count.
        var messages: [(FrameTime, MIDIMessage)] = []
        for note in 0..<7 {
            let start = FrameTime(note * 9_600)
            messages += [(start, .noteOn(channel: 0, key: 69, velocity: 127)), (start + 4_800, .noteOff(channel: 0, key: 69, velocity: 0)),
                         (start + 4_900, .noteOn(channel: 0, key: 60, velocity: 127)), (start + 9_000, .noteOff(channel: 0, key: 60, velocity: 0))]
        }
        let left = try render(folder.file("choice.sfz"), messages, frames: 7 * 9_600)
        let roundRobin = (0..<7).map { pitch(left, at: $0 * 9_600 + 200) }
        XCTAssertEqual(roundRobin, [440, 550, 660, 440, 550, 660, 440])
        // Key 60: one of its two regions each time, never both (their sum would be twice as loud),
        // both heard over seven notes, and the same ones in a second render.
        let random = (0..<7).map { pitch(left, at: $0 * 9_600 + 5_000) }
        print("SFZ round robin \(roundRobin); random set \(random)")
        XCTAssertTrue(random.allSatisfy { $0 == 440 || $0 == 550 }, "\(random)")
        XCTAssertEqual(Set(random), [440, 550], "both of the random set sound: \(random)")
        XCTAssertEqual(try render(folder.file("choice.sfz"), messages, frames: 7 * 9_600), left, "the same choices every render")
    }

    func testKeyswitchesChangeTheArticulationAndStartOnTheDefault() throws {
        let folder = try TemporaryFolder(self)
        for (name, frequency) in [("a", 440.0), ("c", 660.0)] { try writeSine(folder.file("\(name).wav"), frequency: frequency) }
        for (defaultLine, first) in [("sw_default=25", 660), ("", 440)] {
            try write("""
                <group> sw_lokey=24 sw_hikey=25 \(defaultLine) key=70
                <region> sample=a.wav sw_last=24
                <region> sample=c.wav sw_last=25
                """, to: folder.file("switch.sfz"))
            // Key 70, switch to 24, key 70, switch to 25, key 70; the switches themselves are silent.
            let messages: [(FrameTime, MIDIMessage)] = [
                (0, .noteOn(channel: 0, key: 70, velocity: 100)), (4_800, .noteOff(channel: 0, key: 70, velocity: 0)),
                (9_000, .noteOn(channel: 0, key: 24, velocity: 100)), (9_100, .noteOff(channel: 0, key: 24, velocity: 0)),
                (9_600, .noteOn(channel: 0, key: 70, velocity: 100)), (14_400, .noteOff(channel: 0, key: 70, velocity: 0)),
                (18_600, .noteOn(channel: 0, key: 25, velocity: 100)), (18_700, .noteOff(channel: 0, key: 25, velocity: 0)),
                (19_200, .noteOn(channel: 0, key: 70, velocity: 100)), (24_000, .noteOff(channel: 0, key: 70, velocity: 0)),
            ]
            let left = try render(folder.file("switch.sfz"), messages, frames: 28_800)
            let played = [0, 9_600, 19_200].map { pitch(left, at: $0 + 200) }
            XCTAssertEqual(played, [first, 440, 660], "\(defaultLine.isEmpty ? "no default: the lowest switch" : defaultLine)")
            XCTAssertEqual(SignalAnalysis.rms(left[9_000 ..< 9_500]), 0, accuracy: 1e-6, "a keyswitch plays nothing")
        }
    }

    func testFirstAndLegatoTriggersAndChannelRangesPickTheRegion() throws {
        let folder = try TemporaryFolder(self)
        for (name, frequency) in [("a", 440.0), ("b", 550.0), ("c", 660.0)] { try writeSine(folder.file("\(name).wav"), frequency: frequency) }
        try write("""
            <region> sample=a.wav lokey=60 hikey=72 pitch_keycenter=69 trigger=first
            <region> sample=b.wav lokey=60 hikey=72 pitch_keycenter=69 trigger=legato
            <region> sample=c.wav key=50 pitch_keycenter=50 lochan=2 hichan=3
            """, to: folder.file("legato.sfz"))
        XCTAssertEqual(try SFZLoader.load(path: folder.file("legato.sfz"), sampleRate: rate).loadWarnings, [])
        // Key 69 alone: the first region; key 69 while 80 (which no region plays) is held: the
        // legato one; again alone: first.
        let left = try render(folder.file("legato.sfz"), [
            (0, .noteOn(channel: 0, key: 69, velocity: 127)), (4_800, .noteOff(channel: 0, key: 69, velocity: 0)),
            (9_600, .noteOn(channel: 0, key: 80, velocity: 127)), (14_400, .noteOn(channel: 0, key: 69, velocity: 127)),
            (19_200, .noteOff(channel: 0, key: 69, velocity: 0)), (19_200, .noteOff(channel: 0, key: 80, velocity: 0)),
            (24_000, .noteOn(channel: 0, key: 69, velocity: 127)),
        ], frames: 28_800)
        XCTAssertEqual([0, 14_400, 24_000].map { pitch(left, at: $0 + 200) }, [440, 550, 440])
        // lochan=2 hichan=3: MIDI channels 2 and 3 (1 and 2 counted from 0) play key 50, 1 and 4 do not.
        let heard = try [UInt8(0), 1, 2, 3].map { channel in
            let samples = try render(folder.file("legato.sfz"), [(0, .noteOn(channel: channel, key: 50, velocity: 127))], frames: 4_800)
            return SignalAnalysis.rms(samples[1_000 ..< 4_800]) > 0.01
        }
        XCTAssertEqual(heard, [false, true, true, false])
        try write("<region> sample=a.wav lochan=5 hichan=4", to: folder.file("empty.sfz"))
        XCTAssertThrowsError(try SFZLoader.load(path: folder.file("empty.sfz"), sampleRate: rate)) { error in
            XCTAssertTrue("\(error)".hasSuffix("empty.sfz: no region that plays (\(folder.file("empty.sfz")):1: channel range 5...4 is empty)"), "\(error)")
        }
    }

    func testReleaseTriggersPlayAtTheKeysReleaseOrThePedalsAndDecayWithTheTimeHeld() throws {
        let folder = try TemporaryFolder(self)
        try writeSine(folder.file("a.wav"), seconds: 2)
        try writeSine(folder.file("r.wav"), frequency: 880, seconds: 0.5)
        try write("""
            <region> sample=a.wav key=71 loop_mode=loop_continuous
            <region> sample=r.wav key=71 trigger=release rt_decay=6
            """, to: folder.file("release.sfz"))
        // Held 0.25 s: the release sample follows the note-off.
        let short = try render(folder.file("release.sfz"), [(0, .noteOn(channel: 0, key: 71, velocity: 127)),
                                                            (12_000, .noteOff(channel: 0, key: 71, velocity: 0))], frames: 36_000)
        XCTAssertEqual(pitch(short, at: 2_000), 440)
        XCTAssertEqual(pitch(short, at: 13_000), 880, "the release sample after the key comes up")
        // The sustain pedal holds the note and its release until the pedal comes up at 0.75 s.
        let pedalled = try render(folder.file("release.sfz"), [
            (0, .controlChange(channel: 0, controller: 64, value: 127)), (0, .noteOn(channel: 0, key: 71, velocity: 127)),
            (12_000, .noteOff(channel: 0, key: 71, velocity: 0)), (36_000, .controlChange(channel: 0, controller: 64, value: 0)),
        ], frames: 60_000)
        XCTAssertEqual(pitch(pedalled, at: 13_000), 440, "the pedal holds the note; no release yet")
        XCTAssertEqual(pitch(pedalled, at: 37_000), 880, "the release sample when the pedal comes up")
        // rt_decay=6: held 0.75 s instead of 0.25 s, the release sample is 3 dB quieter.
        let early = SignalAnalysis.rms(short[13_000 ..< 17_800]), late = SignalAnalysis.rms(pedalled[37_000 ..< 41_800])
        print("SFZ release trigger: \(decibels(early)) dB after 0.25 s held, \(decibels(late)) dB after 0.75 s")
        XCTAssertEqual(decibels(late) - decibels(early), -3, accuracy: 0.1)
        // All Notes Off ends the note without its release sample.
        let panicked = try render(folder.file("release.sfz"), [(0, .noteOn(channel: 0, key: 71, velocity: 127)),
                                                               (12_000, .controlChange(channel: 0, controller: 123, value: 0)),
                                                               (12_100, .noteOff(channel: 0, key: 71, velocity: 0))], frames: 24_000)
        XCTAssertLessThan(SignalAnalysis.rms(panicked[14_000 ..< 18_800]), 1e-4, "no release sample after All Notes Off")
        // trigger=release_key: the key's own release starts it, though the pedal holds the note.
        try write("""
            <region> sample=a.wav key=71 loop_mode=loop_continuous
            <region> sample=r.wav key=71 trigger=release_key
            """, to: folder.file("key.sfz"))
        let keyReleased = try render(folder.file("key.sfz"), [
            (0, .controlChange(channel: 0, controller: 64, value: 127)), (0, .noteOn(channel: 0, key: 71, velocity: 127)),
            (12_000, .noteOff(channel: 0, key: 71, velocity: 0)), (36_000, .controlChange(channel: 0, controller: 64, value: 0)),
        ], frames: 60_000)
        // Two sines of equal level: √2 the held note's RMS.
        XCTAssertEqual(SignalAnalysis.rms(keyReleased[13_000 ..< 17_000]) / SignalAnalysis.rms(keyReleased[2_000 ..< 6_000]), Float(2).squareRoot(),
                       accuracy: 0.05, "the held note and the release sample together")
        XCTAssertLessThan(SignalAnalysis.rms(keyReleased[37_000 ..< 41_000]), SignalAnalysis.rms(keyReleased[2_000 ..< 6_000]) / 10,
                          "nothing more when the pedal comes up: the note releases (1 ms), its release sample has played")
    }

    func testControllersAndVelocityMoveLevelPanPitchAndCutoffByTheirOpcodes() throws {
        let folder = try TemporaryFolder(self)
        try writeSine(folder.file("a.wav"), seconds: 1)
        try write("""
            <region> sample=a.wav key=69 volume_oncc20=-12 pan_oncc21=100 tune_oncc22=1200
            <region> sample=a.wav key=70 pitch_keycenter=70 amp_veltrack=0
            <region> sample=a.wav key=71 pitch_keycenter=71 amp_veltrack=50
            <region> sample=a.wav key=72 pitch_keycenter=72 pitch_veltrack=1200 amp_veltrack=0
            <region> sample=a.wav key=73 pitch_keycenter=73 cutoff=10000 cutoff_oncc23=-7200
            """, to: folder.file("cc.sfz"))
        XCTAssertEqual(try SFZLoader.load(path: folder.file("cc.sfz"), sampleRate: rate).loadWarnings, [])
        /// Key `key` at `velocity` after controller `controller` is set to `value`: both channels' RMS and the pitch.
        func note(_ key: UInt8, velocity: UInt8 = 127, controller: UInt8 = 20, value: UInt8 = 0) throws -> (left: Float, right: Float, pitch: Int) {
            let engine = try engine(folder.file("cc.sfz"))
            engine.send(midi: .controlChange(channel: 0, controller: controller, value: value), at: 0)
            engine.send(midi: .noteOn(channel: 0, key: key, velocity: velocity), at: 1)
            let output = engine.renderOffline(frameCount: 12_000, blockFrameCount: 256)
            let left = SignalAnalysis.channel(0, of: output, channelCount: 2), right = SignalAnalysis.channel(1, of: output, channelCount: 2)
            return (SignalAnalysis.rms(left[4_000 ..< 12_000]), SignalAnalysis.rms(right[4_000 ..< 12_000]), pitch(right, at: 4_000))
        }
        let plain = try note(69)
        XCTAssertEqual(decibels(try note(69, value: 127).left / plain.left), -12, accuracy: 0.1, "volume_oncc20=-12 at CC20 127")
        XCTAssertEqual(decibels(try note(69, value: 64).left / plain.left), -12 * 64 / 127, accuracy: 0.1, "halfway: half the decibels")
        let panned = try note(69, controller: 21, value: 127)
        XCTAssertLessThan(decibels(panned.left / panned.right), -40, "pan_oncc21=100 at 127: right")
        XCTAssertEqual(try note(69, controller: 22, value: 127).pitch, 880, "tune_oncc22=1200 at 127: an octave up")
        // amp_veltrack: 0 %, velocity does not change the level; 50 %, half the decibels of 100 %.
        XCTAssertEqual(decibels(try note(70, velocity: 40).left / note(70).left), 0, accuracy: 0.01)
        let fullTrack = decibels(try note(69, velocity: 40).left / plain.left)
        XCTAssertEqual(decibels(try note(71, velocity: 40).left / note(71).left), fullTrack / 2, accuracy: 0.05, "full track \(fullTrack) dB")
        // pitch_veltrack=1200: an octave up at 127, half of one at 64 (440 × 2^(64/127)).
        XCTAssertEqual(try note(72).pitch, 880)
        XCTAssertEqual(Double(try note(72, velocity: 64).pitch), 440 * pow(2, 64.0 / 127), accuracy: 1)
        // cutoff_oncc23=-7200: at 127 the 10 kHz cutoff falls six octaves, to 156 Hz, under the 440 Hz tone.
        XCTAssertLessThan(decibels(try note(73, controller: 23, value: 127).left / note(73, controller: 23, value: 0).left), -12)
    }

    func testGroupsCutOffTheVoicesTheirOffByNamesFastOrThroughTheRelease() throws {
        let folder = try TemporaryFolder(self)
        try writeSine(folder.file("open.wav"), seconds: 2)
        try writeSine(folder.file("closed.wav"), frequency: 660, seconds: 0.01)
        try write("""
            <region> sample=open.wav key=46 group=1 off_by=2 ampeg_release=0.5
            <region> sample=open.wav key=47 group=1 off_by=2 ampeg_release=0.5 off_mode=normal
            <region> sample=closed.wav key=42 group=2
            """, to: folder.file("hats.sfz"))
        XCTAssertEqual(try SFZLoader.load(path: folder.file("hats.sfz"), sampleRate: rate).loadWarnings, [])
        /// The open hat (`key`), then at 0.1 s key `then`: the open hat's level 20-40 ms after that.
        func openLevel(_ key: UInt8, then: UInt8) throws -> Float {
            let left = try render(folder.file("hats.sfz"), [(0, .noteOn(channel: 0, key: key, velocity: 127)),
                                                            (4_800, .noteOn(channel: 0, key: then, velocity: 127))], frames: 9_600)
            // The closed hat is over by then (10 ms).
            return SignalAnalysis.rms(left[(4_800 + 960) ..< (4_800 + 1_920)])
        }
        let ringing = try openLevel(46, then: 60)  // no region at 60: nothing cuts it
        XCTAssertGreaterThan(ringing, 0.1)
        XCTAssertLessThan(try openLevel(46, then: 42), ringing * 0.001, "the closed hat (group 2) cuts the open one off at once (off_mode=fast)")
        let released = try openLevel(47, then: 42) / ringing
        XCTAssertLessThan(released, 0.99, "off_mode=normal: the open hat releases...")
        XCTAssertGreaterThan(released, 0.5, "...through its 0.5 s release, not at once: \(released)")
        // A group 1 note does not cut group 1 off: off_by names 2, not its own group.
        XCTAssertGreaterThan(try openLevel(46, then: 47), ringing * 0.9)
    }

    /// Appends a RIFF `smpl` chunk looping `start...end` to the WAV at `path`, as sample editors
    /// write it after the audio, and fixes the RIFF size.
    func addSmplLoop(to path: String, start: UInt32, end: UInt32) throws {
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        func word(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }
        // Manufacturer, product, period, unity note 69, fraction, SMPTE format and offset, one
        // loop, no sampler data; the loop: id, forward, start, end (inclusive), fraction, forever.
        let body = [0, 0, 20_833, 69, 0, 0, 0, 1, 0].flatMap(word) + [0, 0, start, end, 0, 0].flatMap(word)
        data.append(contentsOf: Array("smpl".utf8) + word(UInt32(body.count)) + body)
        data.replaceSubrange(4..<8, with: word(UInt32(data.count - 8)))
        try data.write(to: URL(fileURLWithPath: path))
    }

    func testASamplesOwnLoopPlaysWhereTheRegionNamesNone() throws {
        let folder = try TemporaryFolder(self)
        // Half a second of 440 Hz, then silence: only a loop inside the tone keeps it sounding.
        let tone = (0..<48_000).map { $0 < 24_000 ? 0.5 * Float(sin(2 * Double.pi * 440 * Double($0) / 48_000)) : 0 }
        let writer = try AudioFileWriter(path: folder.file("looped.wav"), sampleRate: 48_000, channelCount: 1)
        try writer.write(tone)
        try writer.close()
        // A loop of 1,200 frames holds 11 whole cycles of 440 Hz: seamless.
        try addSmplLoop(to: folder.file("looped.wav"), start: 12_000, end: 13_199)
        XCTAssertEqual(SamplerChunk.read(path: folder.file("looped.wav"))?.loop, SamplerChunk.Loop(start: 12_000, end: 13_199))
        for (line, loops) in [("", true), ("loop_mode=no_loop", false), ("loop_mode=loop_sustain", true)] {
            try write("<region> sample=looped.wav key=69 \(line)", to: folder.file("loop.sfz"))
            let bank = try SFZLoader.load(path: folder.file("loop.sfz"), sampleRate: rate)
            let region = try XCTUnwrap(bank.regions.first)
            if loops {
                XCTAssertEqual(region.loopStart - region.start, 12_000, line)
                XCTAssertEqual(region.loopEnd - region.start, 13_200, "the frame after the inclusive end: \(line)")
            }
            // Held for a second: the tone still sounds after its half second where the file loops.
            let left = try render(folder.file("loop.sfz"), [(0, .noteOn(channel: 0, key: 69, velocity: 127))], frames: 48_000)
            let late = SignalAnalysis.rms(left[36_000 ..< 40_000])
            XCTAssertEqual(late > 0.1, loops, "\(line.isEmpty ? "no loop_mode" : line): RMS \(late) at 0.75 s")
            if loops { XCTAssertEqual(pitch(left, at: 36_000), 440) }
        }
    }

    func testAFLACsRiffBlockCarriesItsLoop() throws {
        // "fLaC", a STREAMINFO block (34 bytes of zeros will do for the reader), then a last
        // APPLICATION block "riff" holding a smpl chunk.
        func word(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }
        let smpl = Array("smpl".utf8) + word(60) + [0, 0, 0, 60, 0, 0, 0, 1, 0].flatMap(word) + [0, 0, 4_000, 7_999, 0, 0].flatMap(word)
        let application = Array("riff".utf8) + smpl
        var bytes = Array("fLaC".utf8) + [0, 0, 0, 34] + [UInt8](repeating: 0, count: 34)
        bytes += [0x80 | 2, 0, UInt8(application.count >> 8), UInt8(application.count & 0xFF)] + application
        let folder = try TemporaryFolder(self)
        try Data(bytes).write(to: URL(fileURLWithPath: folder.file("loop.flac")))
        XCTAssertEqual(SamplerChunk.read(path: folder.file("loop.flac"))?.loop, SamplerChunk.Loop(start: 4_000, end: 7_999))
        // Damaged: the block runs past the end of the file.
        try Data(bytes.prefix(60)).write(to: URL(fileURLWithPath: folder.file("short.flac")))
        XCTAssertNil(SamplerChunk.read(path: folder.file("short.flac")))
    }

    func testWhatDoesNotPlayYetIsSaidOnceAndPicked() throws {
        let folder = try TemporaryFolder(self)
        try writeSine(folder.file("a.wav"))
        try write("""
            <region> sample=a.wav key=71 trigger=release_key
            <region> sample=a.wav key=72 lfo01_count=2 eq1_type=hshelf mystery=1 another_unknown=2
            <region> sample=a.wav key=73 locc1=64 locc2=1 locc3=1
            <region> sample=a.wav key=74 trigger=release loop_mode=loop_continuous
            <region> sample=*pulse key=75
            """, to: folder.file("rest.sfz"))
        let bank = try SFZLoader.load(path: folder.file("rest.sfz"), sampleRate: rate)
        XCTAssertEqual(bank.regions.count, 4, "the unknown generated sound is left out")
        let warnings = bank.loadWarnings.joined(separator: "\n")
        XCTAssertTrue(warnings.contains("2 unknown opcodes ignored: another_unknown (1 region), mystery (1 region)"), warnings)
        XCTAssertTrue(warnings.contains("not played yet: a loop in a release-triggered region (played once) (1 region), eqN_type (1 region), lfoN_count (1 region), loccN/hiccN of a third controller (not checked) (1 region)"), warnings)
        XCTAssertTrue(warnings.contains("1 region not played: sample=*pulse (no such generated sound)"), warnings)
        XCTAssertEqual(bank.loadWarnings.count, 3, "one line each: unknown, not played yet, left out")
        XCTAssertEqual(bank.regions.first { $0.trigger == .release }?.loopMode, SamplerRegion.LoopMode.none, "a release region is played once")
        XCTAssertEqual(bank.regions.first { $0.lowKey == 73 }?.firstControllerRange, SamplerRegion.ControllerRange(controller: 1, low: 64, high: 127))
    }
}
