import AudioFile
import Engine
import Foundation
import MIDI
import Render
import SampleSet
import SFZ
import TestSupport
import XCTest

// Which regions a note plays and how they share it: velocity curves, crossfades between layers,
// controller ranges, polyphony, LFOs, key tracking, programs.
extension SFZTests {
    // MARK: Velocity and crossfades

    /// `amp_velcurve_N`: the level follows the points, straight lines between them.
    func testVelocityCurvePointsSetTheLevel() throws {
        let folder = try TemporaryFolder(self)
        try writeSine(folder.file("a.wav"), seconds: 0.5)
        func level(_ velocity: UInt8, _ opcodes: String) throws -> Double {
            decibels(SignalAnalysis.rms(try render("<region> sample=a.wav key=69 \(opcodes)", in: folder,
                                                   [(0, .noteOn(channel: 0, key: 69, velocity: velocity))], frames: 19_200)[9_600 ..< 19_200]))
        }
        let curve = "amp_velcurve_64=0.25 amp_veltrack=100"
        let full = try level(127, curve)
        XCTAssertEqual(full, try level(127, ""), accuracy: 0.01, "velocity 127: the curve's 1, full level")
        XCTAssertEqual(try level(64, curve) - full, 20 * log10(0.25), accuracy: 0.05)
        XCTAssertEqual(try level(32, curve) - full, 20 * log10(0.125), accuracy: 0.05, "halfway from 0 to 0.25")
        XCTAssertEqual(try level(96, curve) - full, 20 * log10(0.25 + 0.75 * 32 / 63), accuracy: 0.05)
    }

    /// `xfin_*`/`xfout_*`: a layer fades out over a key range while the next fades in, at −3 dB
    /// each halfway with the power curve and −6 dB with the gain curve; velocity likewise.
    func testKeyAndVelocityCrossfadesHandOverBetweenLayers() throws {
        let folder = try TemporaryFolder(self)
        try writeSine(folder.file("a.wav"), seconds: 0.5)
        func level(key: UInt8 = 66, velocity: UInt8 = 127, _ opcodes: String) throws -> Double? {
            let left = try render("<region> sample=a.wav lokey=60 hikey=72 pitch_keycenter=66 amp_veltrack=0 \(opcodes)", in: folder,
                                  [(0, .noteOn(channel: 0, key: key, velocity: velocity))], frames: 19_200)
            let rms = SignalAnalysis.rms(left[9_600 ..< 19_200])
            return rms > 0 ? decibels(rms) : nil
        }
        // Each against the same key without a crossfade: the key moves the pitch.
        func full(_ key: UInt8) throws -> Double { try XCTUnwrap(try level(key: key, "")) }
        let fadingOut = "xfout_lokey=64 xfout_hikey=68", fadingIn = "xfin_lokey=64 xfin_hikey=68"
        XCTAssertEqual(try XCTUnwrap(try level(key: 64, fadingOut)), try full(64), accuracy: 0.01)
        XCTAssertEqual(try XCTUnwrap(try level(key: 66, fadingOut)) - full(66), -3.01, accuracy: 0.05)
        XCTAssertNil(try level(key: 68, fadingOut), "faded out at the top of the range")
        XCTAssertNil(try level(key: 64, fadingIn), "not yet faded in at the bottom")
        XCTAssertEqual(try XCTUnwrap(try level(key: 66, fadingIn)) - full(66), -3.01, accuracy: 0.05)
        XCTAssertEqual(try XCTUnwrap(try level(key: 70, fadingIn)), try full(70), accuracy: 0.01)
        XCTAssertEqual(try XCTUnwrap(try level(key: 66, fadingIn + " xf_keycurve=gain")) - full(66), -6.02, accuracy: 0.05)
        let full = try full(66)
        // Velocity: in over 32-96, so 64 is halfway; under 32 silent.
        XCTAssertEqual(try XCTUnwrap(try level(velocity: 64, "xfin_lovel=32 xfin_hivel=96")) - full, -3.01, accuracy: 0.05)
        XCTAssertEqual(try XCTUnwrap(try level(velocity: 64, "xfin_lovel=32 xfin_hivel=96 xf_velcurve=gain")) - full, -6.02, accuracy: 0.05)
        XCTAssertNil(try level(velocity: 20, "xfin_lovel=32 xfin_hivel=96"))
        XCTAssertNil(try level(velocity: 100, "xfout_lovel=32 xfout_hivel=96"), "past the fade-out: silent")
    }

    // MARK: Controllers

    /// `loccN`/`hiccN`: the controller's value at the note-on picks the region. (The mod wheel
    /// moved here adds no vibrato: SF2's default for it is not an SFZ region's.)
    func testControllerRangesPickTheRegionAtTheNoteOn() throws {
        let folder = try TemporaryFolder(self)
        try writeSine(folder.file("a.wav"), seconds: 1)
        try writeSine(folder.file("b.wav"), frequency: 550, seconds: 1)
        let text = """
            <region> sample=a.wav key=69 hicc1=63
            <region> sample=b.wav key=69 pitch_keycenter=69 locc1=64 locc11=100
            """
        func pitchAfter(modulation: UInt8, expression: UInt8 = 127) throws -> Int {
            pitch(try render(text, in: folder, [(0, .controlChange(channel: 0, controller: 1, value: modulation)),
                                                (0, .controlChange(channel: 0, controller: 11, value: expression)),
                                                (64, .noteOn(channel: 0, key: 69, velocity: 127))], frames: 12_000), at: 4_800)
        }
        XCTAssertEqual(try pitchAfter(modulation: 0), 440)
        XCTAssertEqual(try pitchAfter(modulation: 127), 550)
        XCTAssertEqual(try pitchAfter(modulation: 127, expression: 50), 0, "the second condition fails: no region plays")
    }

    /// `amplitude_onccN`: the controller scales the amplitude by its value over 127.
    func testAmplitudeFollowsItsController() throws {
        let folder = try TemporaryFolder(self)
        try writeSine(folder.file("a.wav"), seconds: 0.5)
        func level(_ value: UInt8, _ opcodes: String) throws -> Double {
            decibels(SignalAnalysis.rms(try render("<region> sample=a.wav key=69 \(opcodes)", in: folder,
                                                   [(0, .controlChange(channel: 0, controller: 20, value: value)),
                                                    (0, .noteOn(channel: 0, key: 69, velocity: 127))], frames: 19_200)[9_600 ..< 19_200]))
        }
        let full = try level(0, "")
        XCTAssertEqual(try level(127, "amplitude_oncc20=100") - full, 0, accuracy: 0.05)
        XCTAssertEqual(try level(64, "amplitude_oncc20=100") - full, 20 * log10(64.0 / 127), accuracy: 0.05)
        XCTAssertEqual(try level(127, "amplitude_oncc20=50") - full, 20 * log10(0.5), accuracy: 0.05)
        XCTAssertLessThan(try level(0, "amplitude_oncc20=100") - full, -45, "nearly silent at 0")
    }

    /// `set_ccN` in `<control>`: the controllers start where the instrument says.
    func testSetCCStartsTheControllers() throws {
        let folder = try TemporaryFolder(self)
        try writeSine(folder.file("a.wav"), seconds: 1)
        try writeSine(folder.file("b.wav"), frequency: 550, seconds: 1)
        let text = """
            <control> set_cc1=100
            <region> sample=a.wav key=69 hicc1=63
            <region> sample=b.wav key=69 locc1=64
            """
        XCTAssertEqual(pitch(try render(text, in: folder, [(0, .noteOn(channel: 0, key: 69, velocity: 127))], frames: 12_000), at: 4_800), 550)
        XCTAssertEqual(pitch(try render(text, in: folder, [(0, .controlChange(channel: 0, controller: 1, value: 0)),
                                                           (0, .noteOn(channel: 0, key: 69, velocity: 127))], frames: 12_000), at: 4_800), 440,
                       "a song's own controller moves it from there")
    }

    /// `note_polyphony` ends the oldest notes of a key beyond it (a stereo sample's two voices
    /// counted as one note); `polyphony` the oldest of a group.
    func testNoteAndGroupPolyphonyEndTheOldestNotes() throws {
        let folder = try TemporaryFolder(self)
        // A stereo sample: one note is two voices.
        let writer = try AudioFileWriter(path: folder.file("stereo.wav"), sampleRate: Int(rate), channelCount: 2)
        try writer.write((0..<48_000).flatMap { frame -> [Float] in
            let value = 0.25 * Float(sin(2 * Double.pi * 440 * Double(frame) / rate))
            return [value, value]
        })
        try writer.close()
        /// Voices sounding after `notes` note-ons of `keys` (every 0.1 s, each held).
        func voices(_ opcodes: String, keys: [UInt8]) throws -> Int {
            let path = folder.file("p\(abs(opcodes.hashValue)).sfz")
            try write("<region> sample=stereo.wav lokey=60 hikey=72 loop_mode=loop_continuous \(opcodes)", to: path)
            let engine = try engine(path)
            for (index, key) in keys.enumerated() {
                engine.send(midi: .noteOn(channel: 0, key: key, velocity: 127), at: FrameTime(index * 4_800))
                // A key played again releases its old note, which rings on in its release.
                engine.send(midi: .noteOff(channel: 0, key: key, velocity: 0), at: FrameTime(index * 4_800 + 2_400))
            }
            _ = engine.renderOffline(frameCount: keys.count * 4_800 + 1_200, blockFrameCount: 256)
            return engine.renderer.statistics.activeVoices
        }
        let ringing = "ampeg_release=10"
        XCTAssertEqual(try voices(ringing, keys: [60, 60, 60, 60]), 8, "four notes of two voices, each ringing in its release")
        XCTAssertEqual(try voices(ringing + " note_polyphony=2", keys: [60, 60, 60, 60]), 4, "two notes of the key")
        XCTAssertEqual(try voices(ringing + " note_polyphony=2", keys: [60, 61, 62, 60]), 8, "other keys do not count")
        XCTAssertEqual(try voices(ringing + " polyphony=3", keys: [60, 61, 62, 63, 64]), 6, "three notes of the region")
        XCTAssertEqual(try voices(ringing + " group=5 polyphony=1", keys: [60, 61]), 2, "one note of the group")
    }

    // MARK: LFOs, key tracking, the wheel

    /// `pitchlfo_*` swings the pitch by its depth at its rate, `amplfo_*` the level, and
    /// `pitchlfo_depthccN` brings the vibrato in with the controller; an SFZ region with none has
    /// no vibrato, whatever the mod wheel says.
    func testLFOsSwingPitchAndLevelByTheirDepth() throws {
        let folder = try TemporaryFolder(self)
        try writeSine(folder.file("a.wav"), seconds: 2)
        try writeConstant(folder.file("dc.wav"))
        func pitches(_ opcodes: String, modulation: UInt8 = 0) throws -> (low: Int, high: Int) {
            let left = try render("<region> sample=a.wav key=69 \(opcodes)", in: folder,
                                  [(0, .controlChange(channel: 0, controller: 1, value: modulation)),
                                   (0, .noteOn(channel: 0, key: 69, velocity: 127))], frames: 72_000)
            // Half-period windows of 1/16 s over 1.2 s: the lowest and highest pitch seen.
            let found = stride(from: 4_800, to: 62_400, by: 1_500).map { pitchOf(left[$0 ..< $0 + 1_500]) }
            return (found.min()!, found.max()!)
        }
        let still = try pitches("", modulation: 127)
        XCTAssertEqual(still.low, 440, accuracy: 2)
        XCTAssertEqual(still.high, 440, accuracy: 2, "the mod wheel alone: no vibrato")
        let vibrato = try pitches("pitchlfo_freq=2 pitchlfo_depth=100")
        XCTAssertEqual(Double(vibrato.low), 440 / pow(2, 1.0 / 12), accuracy: 4, "a semitone down at the trough")
        XCTAssertEqual(Double(vibrato.high), 440 * pow(2, 1.0 / 12), accuracy: 4, "a semitone up at the peak")
        let wheel = try pitches("pitchlfo_freq=2 pitchlfo_depthcc1=100", modulation: 127)
        XCTAssertEqual(Double(wheel.high), 440 * pow(2, 1.0 / 12), accuracy: 4, "the wheel's full depth")
        XCTAssertEqual(try pitches("pitchlfo_freq=2 pitchlfo_depthcc1=100", modulation: 0).high, 440, accuracy: 2)

        let tremolo = try render("<region> sample=dc.wav key=60 pitch_keytrack=0 amplfo_freq=2 amplfo_depth=6", in: folder,
                                 [(0, .noteOn(channel: 0, key: 60, velocity: 127))], frames: 48_000)
        let plain = try render("<region> sample=dc.wav key=60 pitch_keytrack=0", in: folder,
                               [(0, .noteOn(channel: 0, key: 60, velocity: 127))], frames: 4_800)[2_400]
        let levels = tremolo[4_800 ..< 48_000].map { decibels($0 / plain) }
        XCTAssertEqual(levels.max()!, 6, accuracy: 0.1)
        XCTAssertEqual(levels.min()!, -6, accuracy: 0.1)
    }

    /// The pitch of `samples`, rounded to the hertz.
    func pitchOf(_ samples: ArraySlice<Float>) -> Int {
        Int((SignalAnalysis.frequency(of: samples, sampleRate: rate) ?? 0).rounded())
    }

    /// `amp_keytrack` changes the level by its decibels a key from `amp_keycenter`; `bend_up` sets
    /// how far the wheel bends, whatever the channel's bend range.
    func testKeyTrackingAndTheWheelsRange() throws {
        let folder = try TemporaryFolder(self)
        try writeSine(folder.file("a.wav"), seconds: 0.5)
        func level(_ key: UInt8, _ opcodes: String) throws -> Double {
            decibels(SignalAnalysis.rms(try render("<region> sample=a.wav lokey=0 hikey=127 pitch_keycenter=69 \(opcodes)", in: folder,
                                                   [(0, .noteOn(channel: 0, key: key, velocity: 127))], frames: 19_200)[9_600 ..< 19_200]))
        }
        XCTAssertEqual(try level(72, "amp_keytrack=-1 amp_keycenter=69") - level(72, ""), -3, accuracy: 0.05)
        XCTAssertEqual(try level(66, "amp_keytrack=-1 amp_keycenter=69") - level(66, ""), 3, accuracy: 0.05)
        func bent(_ opcodes: String) throws -> Int {
            pitch(try render("<region> sample=a.wav key=69 \(opcodes)", in: folder,
                             [(0, .pitchBend(channel: 0, value: 16_383)), (0, .noteOn(channel: 0, key: 69, velocity: 127))],
                             frames: 12_000), at: 4_800)
        }
        XCTAssertEqual(Double(try bent("")), 440 * pow(2, 2.0 / 12), accuracy: 1, "the channel's two semitones")
        XCTAssertEqual(Double(try bent("bend_up=1200 bend_down=-1200")), 880, accuracy: 1)
    }

    /// `pitch_keycenter=sample`: the key the file's `smpl` chunk names (69 here) plays the sample
    /// at its own pitch; a file with no chunk plays at 60.
    func testPitchKeycenterSampleIsTheFilesUnityNote() throws {
        let folder = try TemporaryFolder(self)
        try writeSine(folder.file("a.wav"), seconds: 1)
        try writeSine(folder.file("plain.wav"), seconds: 1)
        try addSmplLoop(to: folder.file("a.wav"), start: 0, end: 47_999)
        let on = { (key: UInt8) -> [(FrameTime, MIDIMessage)] in [(0, .noteOn(channel: 0, key: key, velocity: 127))] }
        XCTAssertEqual(pitch(try render("<region> sample=a.wav pitch_keycenter=sample", in: folder, on(81), frames: 12_000), at: 4_800), 880)
        XCTAssertEqual(pitch(try render("<region> sample=plain.wav pitch_keycenter=sample", in: folder, on(72), frames: 12_000), at: 4_800), 880)
    }

    /// `loprog`/`hiprog`: a program change picks the regions; a region that names none plays on
    /// every program, and a program no region names falls back to the first.
    func testProgramRangesAreProgramsOfTheInstrument() throws {
        let folder = try TemporaryFolder(self)
        for (name, frequency) in [("a", 440.0), ("b", 550.0), ("c", 660.0)] { try writeSine(folder.file("\(name).wav"), frequency: frequency) }
        let text = """
            <region> sample=a.wav key=69 loprog=0 hiprog=0
            <region> sample=b.wav key=69 pitch_keycenter=69 loprog=1 hiprog=2
            <region> sample=c.wav key=71 pitch_keycenter=71
            """
        func played(program: UInt8, key: UInt8 = 69) throws -> Int {
            pitch(try render(text, in: folder, [(0, .programChange(channel: 0, program: program)),
                                                (0, .noteOn(channel: 0, key: key, velocity: 127))], frames: 12_000), at: 4_800)
        }
        XCTAssertEqual(try played(program: 0), 440)
        XCTAssertEqual(try played(program: 2), 550)
        XCTAssertEqual(try played(program: 1, key: 71), 660, "a region with no program range plays on every one")
        XCTAssertEqual(try played(program: 40), 440, "an unnamed program falls back to the first")
        let bank = try SFZLoader.load(path: folder.file("i\(abs(text.hashValue)).sfz"), sampleRate: rate)
        XCTAssertEqual(bank.presets.map(\.program), [0, 1, 2])
    }
}
