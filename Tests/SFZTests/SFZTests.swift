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

    /// Libraries authored on Windows end their lines with CRLF, some old ones with CR alone, and
    /// files edited on both mix them: every line end separates opcodes, so the same instrument
    /// reads the same whichever it has.
    func testEveryLineEndSeparatesOpcodes() throws {
        let folder = try TemporaryFolder(self)
        try writeSine(folder.file("a.wav"))
        try writeSine(folder.file("b.wav"), frequency: 220)
        let lines = ["// two regions", "<group> pitch_keycenter=69", "<region> sample=a.wav", "lokey=60 hikey=70",
                     "<region>", "sample=b.wav", "lokey=40 hikey=50 /* a comment", "across */ lovel=10"]
        var expected: [String]? = nil
        for (name, ends) in [("LF", ["\n"]), ("CRLF", ["\r\n"]), ("CR", ["\r"]), ("mixed", ["\r\n", "\n", "\r"])] {
            let text = lines.enumerated().map { $1 + ends[$0 % ends.count] }.joined()
            try write(text, to: folder.file("\(name).sfz"))
            let contents = try SFZLoader.contents(path: folder.file("\(name).sfz"))
            let described = contents.regions.map { "\(URL(fileURLWithPath: $0.sample).lastPathComponent) \($0.keys) \($0.velocities) line \($0.line)" }
            XCTAssertEqual(described, ["a.wav 60...70 0...127 line 3", "b.wav 40...50 10...127 line 5"], name)
            XCTAssertTrue(contents.warnings.isEmpty, "\(name): \(contents.warnings)")
            if let expected { XCTAssertEqual(described, expected, name) } else { expected = described }
        }
    }

    /// General MIDI banks put an `#include` after a header's opcodes on one line: the opcodes
    /// apply, the included regions follow them, and the line's text after the name reads on.
    func testAnIncludeAfterOtherTextOnALineIsRead() throws {
        let folder = try TemporaryFolder(self)
        try FileManager.default.createDirectory(atPath: folder.file("Melodic"), withIntermediateDirectories: true)
        try writeSine(folder.file("Melodic/a.wav"))
        // Sample paths are the main file's folder's, as SFZ says, included or not.
        try write("<region> sample=Melodic/a.wav lokey=60 hikey=70\r\n", to: folder.file("Melodic/Piano.sfz"))
        try write("""
            <master> loprog=0 hiprog=0 master_label=Piano #include "Melodic/Piano.sfz"\r
            <master> loprog=1 hiprog=1 #include "Melodic/Piano.sfz" <group> lovel=64\r
            <region> sample=Melodic/a.wav key=30\r

            """, to: folder.file("bank.sfz"))
        let contents = try SFZLoader.contents(path: folder.file("bank.sfz"))
        XCTAssertEqual(contents.regions.map(\.keys), [60...70, 60...70, 30...30])
        XCTAssertEqual(contents.regions.map(\.velocities), [0...127, 0...127, 64...127], "the group after the name applies to what follows")
        let bank = try SFZLoader.load(path: folder.file("bank.sfz"), sampleRate: rate)
        XCTAssertEqual(bank.presets.map(\.program), [0, 1])
    }

    // MARK: Headers first, a song's samples, heads and bodies

    /// Eight regions over the keyboard, each its own file (stereo and mono, at two rates, so the
    /// resampler and the channel split run): returns the instrument's path.
    func writeKeyboard(in folder: TemporaryFolder) throws -> String {
        var text = "<group> ampeg_release=0.2\n"
        for step in 0..<8 {
            let name = "tone\(step).wav"
            let rate = step % 2 == 0 ? 48_000 : 44_100
            let count = rate * 2
            let frequency = 110.0 * pow(2, Double(step) / 2)
            let channels = step % 3 == 0 ? 2 : 1
            var samples: [Float] = []
            samples.reserveCapacity(count * channels)
            for frame in 0..<count {
                for channel in 0..<channels {
                    let time = Double(frame) / Double(rate) + Double(channel) * 0.01
                    samples.append(0.4 * Float(sin(2 * Double.pi * frequency * time)))
                }
            }
            let writer = try AudioFileWriter(path: folder.file(name), sampleRate: rate, channelCount: channels)
            try writer.write(samples)
            try writer.close()
            text += "<region> sample=\(name) lokey=\(step * 16) hikey=\(step * 16 + 15) pitch_keycenter=\(step * 16 + 8)\r\n"
        }
        try write(text, to: folder.file("keyboard.sfz"))
        return folder.file("keyboard.sfz")
    }

    /// A song of three keys in two regions: rendered through the instrument loaded for it (its
    /// two regions' files alone decoded), it is the render through the whole instrument, bit for bit.
    func testASongDecodesOnlyTheSamplesItPlaysAndRendersTheSameBits() throws {
        let folder = try TemporaryFolder(self)
        let path = try writeKeyboard(in: folder)
        let song = MIDIFile(format: 0, division: .ticksPerQuarter(480), tracks: [[
            TrackEvent(tick: 0, kind: .channel(.noteOn(channel: 0, key: 20, velocity: 100))),
            TrackEvent(tick: 240, kind: .channel(.noteOn(channel: 0, key: 30, velocity: 60))),
            TrackEvent(tick: 480, kind: .channel(.noteOn(channel: 0, key: 100, velocity: 127))),
            TrackEvent(tick: 960, kind: .channel(.noteOff(channel: 0, key: 20, velocity: 0))),
            TrackEvent(tick: 960, kind: .channel(.noteOff(channel: 0, key: 30, velocity: 0))),
            TrackEvent(tick: 960, kind: .channel(.noteOff(channel: 0, key: 100, velocity: 0))),
            TrackEvent(tick: 960, kind: .endOfTrack),
        ]])
        let notes = MIDISequencer(song, sampleRate: rate).playedNotes(kitPlaysPercussion: false)
        let whole = try SFZLoader.load(path: path, sampleRate: rate)
        XCTAssertNil(whole.residency)
        let selective = try SFZLoader.load(path: path, sampleRate: rate, notes: notes)
        let residency = try XCTUnwrap(selective.residency)
        // Keys 20 and 30 are region 1's (a mono file), key 100 region 6's (stereo): three samples.
        XCTAssertEqual(residency.residentCount, 3)
        func render(_ bank: SampleBank) -> [Float] {
            let engine = Engine(configuration: EngineConfiguration(render: RenderConfiguration(sampleRate: rate)))
            engine.install(bank)
            var samples: [Float] = []
            let summary = engine.render(song) { samples.append(contentsOf: $0) }
            XCTAssertEqual(summary.statistics.sampleUnderruns, 0)
            return samples
        }
        let expected = render(whole), got = render(selective)
        XCTAssertGreaterThan(expected.map(abs).max() ?? 0, 0.05)
        XCTAssertTrue(got.elementsEqual(expected) { $0.bitPattern == $1.bitPattern }, "the song's samples alone render the same bits")
    }

    /// Opened for its first notes, the instrument plays from its samples' heads at once, and a
    /// sample's rest, written behind the voices, is the same frames a whole load writes.
    func testAnOpenedInstrumentWritesHeadsThenBodiesAsAWholeLoadDoes() throws {
        let folder = try TemporaryFolder(self)
        let path = try writeKeyboard(in: folder)
        let first = PlayedNotes.startingPresets(kitPlaysPercussion: true, channels: 0..<1)
        let opened = try SFZLoader.open(path: path, sampleRate: rate, first: first)
        opened.decoding.wait()
        XCTAssertEqual(opened.decoding.failedCount, 0)
        let residency = try XCTUnwrap(opened.bank.residency)
        let whole = try SFZLoader.load(path: path, sampleRate: rate)
        XCTAssertEqual(opened.bank.samples.frameCount, whole.samples.frameCount, "the same layout")
        for (region, expected) in zip(opened.bank.regions, whole.regions) {
            XCTAssertTrue(residency.isResident(Int(region.sampleIndex)))
            XCTAssertEqual(region.start, expected.start)
            let frames = region.start..<region.end
            XCTAssertTrue(opened.bank.samples[frames].elementsEqual(whole.samples[frames]) { $0.bitPattern == $1.bitPattern },
                          "head and body written apart are the whole load's frames")
        }
        // A cache too small for the heads is one line.
        XCTAssertThrowsError(try SFZLoader.open(path: path, sampleRate: rate, first: first, sampleCacheBytes: 100_000)) { error in
            XCTAssertTrue("\(error)".contains("a sample cache of 0 MB cannot hold the samples' heads"), "\(error)")
        }
    }

    // MARK: Mistakes

    /// A region that cannot play is dropped, named by file, line and reason in one warning line,
    /// and the others play; only a file with no region that plays is refused, in one line.
    func testABadRegionIsDroppedAndNamedWhileTheRestPlays() throws {
        let folder = try TemporaryFolder(self)
        try writeSine(folder.file("a.wav"))
        func dropped(_ bad: String) throws -> String {
            let path = folder.file("bad\(abs(bad.hashValue)).sfz")
            try write("<region> sample=a.wav key=69\n" + bad, to: path)
            let bank = try SFZLoader.load(path: path, sampleRate: rate)
            XCTAssertEqual(bank.regions.map(\.lowKey), [69], "the good region plays: \(bad)")
            let lines = bank.loadWarnings.filter { $0.hasSuffix("; the region is dropped") }
            XCTAssertEqual(lines.count, 1, bank.loadWarnings.joined(separator: "\n"))
            return (lines.first ?? "").replacingOccurrences(of: path, with: "FILE")
        }
        XCTAssertEqual(try dropped("<region> sample=missing.wav"), "FILE:2: sample=missing.wav: no such file in \(folder.path); the region is dropped")
        XCTAssertEqual(try dropped("<region>\n  sample=a.wav volume=loud"), "FILE:3: volume=loud: not a number; the region is dropped")
        XCTAssertEqual(try dropped("<region> sample=a.wav lokey=70 hikey=60"), "FILE:2: key range 70...60 is empty; the region is dropped")
        XCTAssertEqual(try dropped("<region> sample=a.wav loop_mode=forever"),
                       "FILE:2: loop_mode=forever: expected no_loop, one_shot, loop_continuous or loop_sustain; the region is dropped")
        XCTAssertEqual(try dropped("<region> key=60"), "FILE:2: a <region> with no sample=; the region is dropped")
        XCTAssertEqual(try dropped("<region> sample=a.wav offset=2000000 key=60"),
                       "FILE:2: offset=2000000 is past the end of \(folder.file("a.wav")) (48000 frames); the region is dropped")

        func refusal(_ text: String) throws -> String {
            let path = folder.file("refused\(abs(text.hashValue)).sfz")
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
        XCTAssertEqual(try refusal("<region> key=60"), "FILE: no region that plays (FILE:1: a <region> with no sample=)")
        XCTAssertEqual(try refusal("// nothing here\n<group> volume=1"), "FILE: no <region> in the file")
    }

    /// Dropped regions beyond a dozen are counted, not listed: a library whose samples are all
    /// missing says so in a few lines.
    func testManyDroppedRegionsAreCounted() throws {
        let folder = try TemporaryFolder(self)
        try writeSine(folder.file("a.wav"))
        let text = "<region> sample=a.wav key=69\n" + (0..<30).map { "<region> sample=gone\($0).wav key=\($0)" }.joined(separator: "\n")
        try write(text, to: folder.file("many.sfz"))
        let bank = try SFZLoader.load(path: folder.file("many.sfz"), sampleRate: rate)
        XCTAssertEqual(bank.regions.count, 1)
        XCTAssertEqual(bank.loadWarnings.filter { $0.hasSuffix("; the region is dropped") }.count, 12)
        XCTAssertTrue(bank.loadWarnings.contains("18 more regions dropped (30 in all)"), bank.loadWarnings.joined(separator: "\n"))
    }

    /// A number followed by other text reads its leading number, as sfizz does, and says so; two
    /// opcodes written with no space between them are both read.
    func testAValueWithTextAfterItsNumberReadsTheNumber() throws {
        let folder = try TemporaryFolder(self)
        try writeSine(folder.file("a.wav"))
        try write("<region> sample=a.wav lokey=60 hikey=72offset=320 volume=-6dB pitch_keycenter=69", to: folder.file("loose.sfz"))
        let bank = try SFZLoader.load(path: folder.file("loose.sfz"), sampleRate: rate)
        let region = try XCTUnwrap(bank.regions.first)
        XCTAssertEqual(region.highKey, 72)
        XCTAssertEqual(region.end - region.start, 48_000 - 320, "offset=320 read too")
        XCTAssertEqual(region.attenuationCentibels, 60, accuracy: 0.001, "volume=-6")
        let warnings = bank.loadWarnings.joined(separator: "\n")
        XCTAssertTrue(warnings.contains("loose.sfz:1: hikey=72offset=320: read as hikey=72 offset=320 (no space between two opcodes)"), warnings)
        XCTAssertTrue(warnings.contains("loose.sfz:1: volume=-6dB: read as -6 (the rest is not a number)"), warnings)
    }

    /// Opcode names written with capitals read as the lowercase opcode; a value outside its
    /// opcode's range is brought to the nearer end; both are said. `set_hdccN` starts a
    /// controller at a share of its range.
    func testCapitalsAndOutOfRangeValuesAreReadAsMeantAndSaid() throws {
        let folder = try TemporaryFolder(self)
        try writeSine(folder.file("a.wav"))
        try write("""
            <control> set_hdcc1=0.5
            <region> Sample=a.wav key=60 ampeg_Sustain=50 amplitude=250 locc1=60 hicc1=70
            """, to: folder.file("loose.sfz"))
        let bank = try SFZLoader.load(path: folder.file("loose.sfz"), sampleRate: rate)
        let region = try XCTUnwrap(bank.regions.first)
        XCTAssertEqual(region.volumeEnvelope.sustainLevel, 0.5, accuracy: 1e-9)
        XCTAssertEqual(region.attenuationCentibels, 0, accuracy: 1e-4, "amplitude=250 read as 100")
        XCTAssertEqual(Array(bank.initialControllers), [UInt16(1) << 8 | 64], "set_hdcc1=0.5: CC1 at 64")
        let warnings = bank.loadWarnings.joined(separator: "\n")
        XCTAssertTrue(warnings.contains("loose.sfz:2: Sample= read as sample= (opcode names are lowercase)"), warnings)
        XCTAssertTrue(warnings.contains("loose.sfz:2: ampeg_Sustain= read as ampeg_sustain= (opcode names are lowercase)"), warnings)
        XCTAssertTrue(warnings.contains("loose.sfz:2: amplitude=250: outside 0…100, read as 100"), warnings)
    }

    /// `#define` anywhere on a line, the line read on after its one-word value, as the Headroom
    /// and Maestro pianos write each region.
    func testADefineMidLineSetsItsValueAndTheLineGoesOn() throws {
        let folder = try TemporaryFolder(self)
        try writeSine(folder.file("a.wav"))
        try write("<region> #define $KEY 64 lokey=$KEY hikey=$KEY sample=a.wav pitch_keycenter=$KEY", to: folder.file("define.sfz"))
        let bank = try SFZLoader.load(path: folder.file("define.sfz"), sampleRate: rate)
        XCTAssertEqual(bank.loadWarnings, [])
        XCTAssertEqual(bank.regions.map(\.lowKey), [64])
        XCTAssertEqual(bank.regions.first?.rootKey, 64)
    }

    /// `sample=*sine` and the other generated sounds play at the note's pitch (the keycenter's
    /// own pitch at the keycenter), looped for as long as the note is held.
    func testGeneratedSoundsPlayAtTheirNotesPitch() throws {
        let folder = try TemporaryFolder(self)
        for (name, key, frequency) in [("*sine", UInt8(69), 440.0), ("*sine", 81, 880), ("*triangle", 57, 220), ("*saw", 64, 329.63), ("*square", 72, 523.25)] {
            let path = folder.file("gen\(abs(name.hashValue))\(key).sfz")
            try write("<region> sample=\(name) ampeg_release=0.1", to: path)
            let left = try render(path, [(0, .noteOn(channel: 0, key: key, velocity: 127))], frames: 96_000)
            let heard = try XCTUnwrap(SignalAnalysis.frequency(of: left[72_000 ..< 91_200], sampleRate: rate), name)
            XCTAssertEqual(1_200 * log2(heard / frequency), 0, accuracy: 5, "\(name) key \(key), still sounding after 1.5 s")
        }
        let noise = folder.file("noise.sfz")
        try write("<region> sample=*noise key=60", to: noise)
        XCTAssertGreaterThan(SignalAnalysis.rms(try render(noise, [(0, .noteOn(channel: 0, key: 60, velocity: 127))], frames: 96_000)[72_000...]), 0.01)
    }

    /// `default_path` applies to the regions after it: a General MIDI bank gives each
    /// instrument's folder in a `<control>` before its regions.
    func testDefaultPathAppliesToTheRegionsAfterIt() throws {
        let folder = try TemporaryFolder(self)
        try FileManager.default.createDirectory(atPath: folder.file("Piano"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder.file("Strings"), withIntermediateDirectories: true)
        try writeSine(folder.file("Piano/c.wav"), frequency: 440)
        try writeSine(folder.file("Strings/c.wav"), frequency: 660)
        try write("""
            <control> default_path=Piano\\
            <region> sample=c.wav key=60
            <control> default_path=Strings/
            <region> sample=c.wav key=62
            """, to: folder.file("bank.sfz"))
        let bank = try SFZLoader.load(path: folder.file("bank.sfz"), sampleRate: rate)
        XCTAssertEqual(bank.regions.count, 2, bank.loadWarnings.joined(separator: "\n"))
        XCTAssertNotEqual(bank.regions[0].start, bank.regions[1].start, "two files, one for each folder")
    }

    func testADamagedSampleIsNamedAndTheRestPlays() throws {
        let folder = try TemporaryFolder(self)
        try write("RIFF, but not a WAV", to: folder.file("broken.wav"))
        try writeSine(folder.file("a.wav"))
        try write("<region> sample=broken.wav key=60\n<region> sample=a.wav key=69", to: folder.file("kit.sfz"))
        let bank = try SFZLoader.load(path: folder.file("kit.sfz"), sampleRate: rate)
        XCTAssertEqual(bank.regions.count, 1, "the sound sample's region")
        XCTAssertEqual(bank.loadWarnings.count, 1, "\(bank.loadWarnings)")
        XCTAssertTrue(bank.loadWarnings[0].hasPrefix(folder.file("broken.wav")) && bank.loadWarnings[0].hasSuffix("its regions are left out"),
                      bank.loadWarnings[0])
        XCTAssertEqual(pitch(try render(folder.file("kit.sfz"), [(0, .noteOn(channel: 0, key: 69, velocity: 127))], frames: 9_600), at: 2_000), 440)
        // Every sample damaged: nothing would play, an error naming the first.
        try write("<region> sample=broken.wav", to: folder.file("broken.sfz"))
        XCTAssertThrowsError(try SFZLoader.load(path: folder.file("broken.sfz"), sampleRate: rate)) { error in
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
        XCTAssertTrue(hats.allSatisfy { $0.exclusiveClass == 1 && $0.offBy == 1 }, "the hi-hats choke each other")
    }

    /// The same pattern on the JSON kit (channel 10, the drum player) and on its SFZ twin (channel
    /// 1, the sampler's voices): each hit at its level, within 0.2 dB on either side. (The
    /// hi-hats' two stereo voices share a class: before a note's own voices were spared, the
    /// right one cut the left one off, 17 dB down, as it would a stereo hi-hat in an SF2 kit.)
    func testTheShippedKitAsSFZSoundsAsTheJSONKit() throws {
        let folder = CommandRunner.repositoryRoot.appendingPathComponent("samples/drums").path
        // kick, snare, closed hat, open hat, closed hat (choking it), low tom, crash; loud and soft.
        let notes: [(UInt8, UInt8)] = [(36, 127), (38, 100), (42, 127), (46, 90), (42, 64), (45, 127), (49, 110), (36, 40)]
        func render(_ engine: Engine, channel: UInt8) -> (left: [Float], right: [Float]) {
            for (index, (key, velocity)) in notes.enumerated() {
                engine.send(midi: .noteOn(channel: channel, key: key, velocity: velocity), at: FrameTime(index * 14_400))
                engine.send(midi: .noteOff(channel: channel, key: key, velocity: 0), at: FrameTime(index * 14_400 + 2_400))
            }
            let output = engine.renderOffline(frameCount: notes.count * 14_400 + 24_000, blockFrameCount: 256)
            return (SignalAnalysis.channel(0, of: output, channelCount: 2), SignalAnalysis.channel(1, of: output, channelCount: 2))
        }
        // Both follow the channel's volume (CC7, 100 by General MIDI's default: -4.15 dB) as
        // SF2's default modulator says.
        let sfz = render(try engine(folder + "/kit.sfz"), channel: 0)
        let jsonEngine = Engine(configuration: EngineConfiguration(render: RenderConfiguration(
            sampleRate: rate, outputLimiter: false, minimumNoteSeconds: 0, effects: false, songGainDecibels: 0)))
        jsonEngine.install(try DrumKitLoader.load(manifest: folder + "/kit.json", sampleRate: rate))
        let json = render(jsonEngine, channel: 9)
        var report: [String] = []
        for (index, (key, velocity)) in notes.enumerated() {
            // Each hit's first 100 ms, and (for the choked open hat) what rings after the choke.
            let start = index * 14_400
            for (name, range) in [("hit", start ..< start + 4_800), ("after", start + 9_600 ..< start + 14_400)] {
                let levels = [json.left, json.right, sfz.left, sfz.right].map { SignalAnalysis.rms($0[range]) }
                report.append("\(key)/\(velocity) \(name): JSON \(levels[0]), \(levels[1]); SFZ \(levels[2]), \(levels[3])")
                for side in 0..<2 where levels[side] > 1e-3 {
                    XCTAssertEqual(decibels(levels[side + 2] / levels[side]), 0, accuracy: 0.2, "key \(key) velocity \(velocity) \(name), channel \(side)")
                }
            }
        }
        print("shipped kit, JSON vs SFZ:\n" + report.joined(separator: "\n"))
    }
}
