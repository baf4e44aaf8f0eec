import AudioFile
import Engine
import Foundation
import MIDI
import Render
import SampleSet
import TestSupport
import XCTest

/// SFZ instruments written by the tests over generated sines, loaded and played: the syntax, what
/// each opcode group does to the sound, what the loader chooses and says where a library relies
/// on what does not play yet, and every mistake named by file and line.
final class SFZTests: XCTestCase {
    let rate = 48_000.0

    /// Writes a mono sine of `frequency` Hz, `seconds` long, at half scale.
    func writeSine(_ path: String, frequency: Double = 440, seconds: Double = 1, sampleRate: Int = 48_000) throws {
        let count = Int(seconds * Double(sampleRate))
        let tone = (0..<count).map { 0.5 * Float(sin(2 * Double.pi * frequency * Double($0) / Double(sampleRate))) }
        let writer = try AudioFileWriter(path: path, sampleRate: sampleRate, channelCount: 1)
        try writer.write(tone)
        try writer.close()
    }

    func write(_ text: String, to path: String) throws {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// A dry engine at unity gain playing `path`.
    func engine(_ path: String) throws -> Engine {
        let engine = Engine(configuration: EngineConfiguration(render: RenderConfiguration(
            sampleRate: rate, outputLimiter: false, minimumNoteSeconds: 0, effects: false, songGainDecibels: 0)))
        XCTAssertTrue(engine.install(try SFZLoader.load(path: path, sampleRate: rate)))
        return engine
    }

    /// Key `key` played at velocity 127 from frame 0, released at `releaseFrame` (never: nil), for
    /// `frames` frames: both channels.
    func play(_ path: String, key: UInt8 = 69, releaseFrame: FrameTime? = nil, frames: Int = 24_000) throws -> (left: [Float], right: [Float]) {
        let engine = try engine(path)
        engine.send(midi: .noteOn(channel: 0, key: key, velocity: 127), at: 0)
        if let releaseFrame { engine.send(midi: .noteOff(channel: 0, key: key, velocity: 64), at: releaseFrame) }
        let output = engine.renderOffline(frameCount: frames, blockFrameCount: 256)
        return (SignalAnalysis.channel(0, of: output, channelCount: 2), SignalAnalysis.channel(1, of: output, channelCount: 2))
    }

    func decibels(_ ratio: Float) -> Double { 20 * log10(Double(ratio)) }

    // MARK: Syntax

    func testHeadersInheritDefinesIncludesCommentsAndPathsAsLibrariesWriteThem() throws {
        let folder = try TemporaryFolder(self)
        try FileManager.default.createDirectory(atPath: folder.file("Sub Dir"), withIntermediateDirectories: true)
        try writeSine(folder.file("Sub Dir/Tone A.wav"))
        try write("<global> hivel=100 // the global range\n", to: folder.file("common.sfz"))
        try write("""
            /* An instrument made
               the way libraries write them */
            #define $ROOT 69
            #include "common.sfz"
            <control> default_path=sub dir\\ label_cc1=Mod Wheel label_key60=Middle C
            <group> pitch_keycenter=$ROOT lokey=60 hikey=80
            <region> sample=TONE a.wav
            <region> sample=Tone A.wav key=40 lovel=50
            """, to: folder.file("instrument.sfz"))
        let contents = try SFZLoader.contents(path: folder.file("instrument.sfz"))
        XCTAssertEqual(contents.regions.count, 2)
        // The first region takes the group's range and root ($ROOT) and the included global's velocities.
        XCTAssertEqual(contents.regions[0].keys, 60...80)
        XCTAssertEqual(contents.regions[0].rootKey, 69)
        XCTAssertEqual(contents.regions[0].velocities, 0...100)
        // `key` in the region overrides the group's range and root at once; its own lovel wins.
        XCTAssertEqual(contents.regions[1].keys, 40...40)
        XCTAssertEqual(contents.regions[1].rootKey, 40)
        XCTAssertEqual(contents.regions[1].velocities, 50...100)
        // A backslash, another case and a space: the file on disk is found.
        XCTAssertTrue(contents.regions[0].sample.hasSuffix("Sub Dir/Tone A.wav"), contents.regions[0].sample)
        XCTAssertEqual(contents.controllerLabels[1], "Mod Wheel")
        XCTAssertEqual(contents.keyLabels[60], "Middle C")
    }

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

    // MARK: What does not play yet: chosen and said

    func testRoundRobinKeyswitchesAndReleaseTriggersPlayTheirFirstChoiceAndSaySo() throws {
        let folder = try TemporaryFolder(self)
        try writeSine(folder.file("a.wav"))
        try write("""
            <group> seq_length=2 key=69
            <region> sample=a.wav seq_position=1
            <region> sample=a.wav seq_position=2
            <group> sw_lokey=24 sw_hikey=25 sw_default=24 key=70
            <region> sample=a.wav sw_last=24
            <region> sample=a.wav sw_last=25
            <region> sample=a.wav key=71 trigger=release
            <region> sample=a.wav key=72 fileg_attack=1 xfin_lovel=10 mystery=1 another_unknown=2
            """, to: folder.file("rr.sfz"))
        let bank = try SFZLoader.load(path: folder.file("rr.sfz"), sampleRate: rate)
        XCTAssertEqual(bank.regions.count, 3, "one of the round robin, the default articulation, and the plain region")
        let warnings = bank.loadWarnings.joined(separator: "\n")
        XCTAssertTrue(warnings.contains("2 unknown opcodes ignored: another_unknown, mystery"), warnings)
        XCTAssertTrue(warnings.contains("not played yet: fileg_* (1 region), xfin_* (1 region)"), warnings)
        XCTAssertTrue(warnings.contains("1 region not played: seq_position (only the first of each round robin plays)"), warnings)
        XCTAssertTrue(warnings.contains("1 region not played: sw_last (only the default articulation plays)"), warnings)
        XCTAssertTrue(warnings.contains("1 region not played: trigger=release (left out)"), warnings)
        XCTAssertEqual(bank.loadWarnings.count, 3, "one line each: unknown, not played yet, left out")
    }

    // MARK: Mistakes

    func testMistakesAreOneLineNamingTheFileAndLine() throws {
        let folder = try TemporaryFolder(self)
        try writeSine(folder.file("a.wav"))
        func error(_ text: String) throws -> String {
            let path = folder.file("bad\(abs(text.hashValue)).sfz")
            try write(text, to: path)
            do {
                _ = try SFZLoader.load(path: path, sampleRate: rate)
                XCTFail("loaded: \(text)")
                return ""
            } catch {
                XCTAssertFalse(error.description.contains("\n"))
                return error.description.replacingOccurrences(of: path, with: "FILE")
            }
        }
        XCTAssertEqual(try error("<region> sample=a.wav\n<region> sample=missing.wav"), "FILE:2: sample=missing.wav: no such file in \(folder.path)")
        XCTAssertEqual(try error("<region>\n  sample=a.wav volume=loud"), "FILE:2: volume=loud: not a number")
        XCTAssertEqual(try error("<region> sample=a.wav lokey=70 hikey=60"), "FILE:1: key range 70...60 is empty")
        XCTAssertEqual(try error("<region> sample=a.wav loop_mode=forever"),
                       "FILE:1: loop_mode=forever: expected no_loop, one_shot, loop_continuous or loop_sustain")
        XCTAssertEqual(try error("<region> key=60"), "FILE:1: a <region> with no sample=")
        XCTAssertEqual(try error("// nothing here\n<group> volume=1"), "FILE: no <region> in the file")
    }

    func testADamagedSampleIsNamed() throws {
        let folder = try TemporaryFolder(self)
        try write("RIFF, but not a WAV", to: folder.file("broken.wav"))
        try write("<region> sample=broken.wav", to: folder.file("kit.sfz"))
        XCTAssertThrowsError(try SFZLoader.load(path: folder.file("kit.sfz"), sampleRate: rate)) { error in
            XCTAssertTrue("\(error)".hasPrefix(folder.file("broken.wav")), "\(error)")
        }
    }

    // MARK: The shipped kit as SFZ

    func testTheShippedDrumKitWrittenAsSFZLoadsWhole() throws {
        let path = CommandRunner.repositoryRoot.appendingPathComponent("samples/drums/kit.sfz").path
        XCTAssertTrue(SFZLoader.isSFZ(path: path))
        let contents = try SFZLoader.contents(path: path)
        XCTAssertEqual(contents.regions.count, 16)
        XCTAssertEqual(contents.keyLabels[36], "kick")
        XCTAssertEqual(contents.warnings, [])
        let bank = try SFZLoader.load(path: path, sampleRate: rate)
        // Stereo samples: two regions each, panned apart.
        XCTAssertEqual(bank.regions.count, 32)
        XCTAssertEqual(Set(bank.regions.map(\.pan)), [-1, 1])
        XCTAssertTrue(bank.regions.allSatisfy { $0.loopMode == .oneShot })
        let hats = bank.regions.filter { [42, 44, 46].contains($0.lowKey) }
        XCTAssertEqual(hats.count, 6)
        XCTAssertTrue(hats.allSatisfy { $0.exclusiveClass == 1 }, "the hi-hats choke each other")
    }
}
