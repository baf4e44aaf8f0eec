import Engine
import Foundation
import MIDI
import Render
import TestSupport
import XCTest

/// Every fixture song through every kind of instrument the project ships (both SoundFonts, the
/// drum kit, the SFZ pianos, the public SFZ libraries' programs through stand-in samples), with
/// each sampler kernel this CPU runs, renders to exactly the samples recorded in
/// `Tests/Fixtures/render-digests.txt`: a change that was meant to move code and not sound (a
/// file split, a module moved) shows here as a changed digest. A change meant to change the sound
/// records the new digests (`STACCATO_RECORD_RENDER_DIGESTS=1`) and says why in its commit.
///
/// The digests are of the generic kernels and of AVX2+FMA, the two builds that round differently;
/// the AVX-512 build, which rounds as AVX2+FMA does, is held to the AVX2+FMA digests. A CPU checks
/// the builds it runs.
final class FixtureRenderIdentityTests: XCTestCase {
    static let root = CommandRunner.repositoryRoot
    static let digestsFile = root.appendingPathComponent("Tests/Fixtures/render-digests.txt").path
    static let songs = root.appendingPathComponent("Tests/Fixtures/midi").path

    /// One render: a song through an instrument.
    struct Case {
        var name: String
        var instrument: String
        var song: String
        var kit: String? = nil
    }

    static func cases(standInLibraries: String) throws -> [Case] {
        let songs = try FileManager.default.contentsOfDirectory(atPath: Self.songs).filter { $0.hasSuffix(".mid") }.sorted()
        var cases: [Case] = []
        for font in ["soundfonts/sf_GMbank_piano_xylo_drums.sf2", "soundfonts/FluidR3_GM_piano_xylo.sf2"] {
            for song in songs {
                cases.append(Case(name: "\((font as NSString).lastPathComponent) \(song)", instrument: root.path + "/" + font, song: Self.songs + "/" + song))
            }
        }
        let bach = Self.songs + "/bach_bwv772_sankey.mid", drums = Self.songs + "/timidity_test_sample_drums.mid"
        for piano in ["piano.sfz", "piano-flex.sfz", "piano-sfz1-modulation.sfz"] {
            cases.append(Case(name: "\(piano) bach_bwv772_sankey.mid", instrument: root.path + "/samples/piano/" + piano, song: bach))
        }
        cases.append(Case(name: "drum kit timidity_test_sample_drums.mid", instrument: root.path + "/soundfonts/FluidR3_GM_piano_xylo.sf2",
                          song: drums, kit: root.path + "/samples/drums/kit.json"))
        cases.append(Case(name: "kit.sfz timidity_test_sample_drums.mid", instrument: root.path + "/samples/drums/kit.sfz", song: drums))
        // Each public library's first two programs (in path order), the first song on them.
        for library in try FileManager.default.contentsOfDirectory(atPath: standInLibraries).sorted() {
            let programs = try SFZStandIns.programs(in: standInLibraries + "/" + library).sorted()
            try SFZStandIns.writeStandIns(for: programs, library: standInLibraries + "/" + library)
            for program in programs.prefix(2) {
                cases.append(Case(name: "\(library)/\(program.dropFirst(standInLibraries.count + library.count + 2)) bach_bwv772_sankey.mid",
                                  instrument: program, song: bach))
            }
        }
        return cases
    }

    func testEveryFixtureRendersToItsRecordedSamples() throws {
        let folder = try TemporaryFolder(self)
        let libraries = folder.file("sfz-libraries")
        try FileManager.default.copyItem(atPath: SFZStandIns.libraries, toPath: libraries)
        let cases = try Self.cases(standInLibraries: libraries)
        let variants = SamplerKernelVariant.supportedVariants

        var digests: [String: String] = [:]
        var widerDigests: [(key: String, digest: String)] = []
        for entry in cases {
            let bank = try InstrumentLoader.load(path: entry.instrument, sampleRate: 48_000)
            let song = try MIDIFile.read(path: entry.song)
            for variant in variants {
                let renderer = SongRenderer(configuration: RenderConfiguration(sampleRate: 48_000, samplerKernel: variant),
                                            options: MIDIRenderOptions(), bank: bank, kitPath: entry.kit,
                                            kits: DrumKitShelf(sampleRate: 48_000), warning: { _ in })
                let samples = try renderer.render(song, from: entry.song).samples
                XCTAssertGreaterThan(samples.count, 0, entry.name)
                let key = "\(Self.tag(variant)) \(entry.name)"
                if variant == .avx512 { widerDigests.append((key, Self.digest(samples))) } else { digests[key] = Self.digest(samples) }
            }
        }
        let lines = digests.keys.sorted().map { "\(digests[$0]!) \($0)" }
        if ProcessInfo.processInfo.environment["STACCATO_RECORD_RENDER_DIGESTS"] == "1" {
            try (lines.joined(separator: "\n") + "\n").write(toFile: Self.digestsFile, atomically: true, encoding: .utf8)
            print("recorded \(lines.count) render digests in \(Self.digestsFile)")
            return
        }
        let recorded = try String(contentsOfFile: Self.digestsFile, encoding: .utf8).split(separator: "\n").map(String.init)
        var expected: [String: String] = [:]
        for line in recorded {
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            if parts.count == 2 { expected[parts[1]] = parts[0] }
        }
        for key in digests.keys.sorted() {
            XCTAssertEqual(digests[key], expected[key], "\(key): the render changed (or is new): run with STACCATO_RECORD_RENDER_DIGESTS=1 if that is meant")
        }
        for (key, digest) in widerDigests {
            XCTAssertEqual(digest, expected[key], "\(key): the AVX-512 build rendered other bits than the recorded AVX2+FMA ones")
        }
        // Each recorded case still renders (a case dropped from the list would hide its change).
        for key in expected.keys where variants.contains(where: { key.hasPrefix(Self.tag($0) + " ") }) {
            XCTAssertNotNil(digests[key], "\(key): recorded but no longer rendered")
        }
        print("fixture renders: \(digests.count + widerDigests.count) checked against \(Self.digestsFile)")
    }

    /// The name a build's digests are recorded under: the AVX-512 build's are the AVX2+FMA ones.
    static func tag(_ variant: SamplerKernelVariant) -> String { variant == .generic ? "generic" : "avx2-fma" }

    /// FNV-1a over the samples' bit patterns: equal digests are equal renders (not a secure hash; a
    /// test has no adversary).
    static func digest(_ samples: [Float]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for sample in samples {
            var bits = sample.bitPattern
            for _ in 0..<4 {
                hash = (hash ^ UInt64(bits & 0xFF)) &* 0x0000_0100_0000_01B3
                bits >>= 8
            }
        }
        return String(hash, radix: 16).leftPadded(to: 16)
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
