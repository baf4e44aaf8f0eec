import Engine
import Foundation
import MIDI
import Render
import SoundFont
import TestSupport
import XCTest

/// A render decodes only the samples its song reaches, and sounds exactly as with the whole font
/// decoded; a live player's bank plays while the rest decodes behind it.
final class SongSampleSelectionTests: XCTestCase {
    static let rate = 48_000.0
    static let fixtures = CommandRunner.repositoryRoot.appendingPathComponent("Tests/Fixtures/midi")
    static let fluidR3 = "/usr/share/sounds/sf2/FluidR3_GM.sf2"

    static func song(_ name: String) throws -> MIDIFile {
        try MIDIFile.read(path: fixtures.appendingPathComponent(name).path)
    }

    /// Every sample of a render of `song` through `bank`, and its statistics.
    static func render(_ song: MIDIFile, through bank: SampleBank) -> (samples: [Float], statistics: RenderStatistics) {
        let engine = Engine(configuration: EngineConfiguration(render: RenderConfiguration(sampleRate: rate)))
        engine.install(bank)
        var samples: [Float] = []
        let summary = engine.render(song) { samples.append(contentsOf: $0) }
        return (samples, summary.statistics)
    }

    static func notes(of song: MIDIFile, program: UInt8? = nil) -> PlayedNotes {
        MIDISequencer(song, sampleRate: rate, program: program).playedNotes(kitPlaysPercussion: false)
    }

    /// Each fixture through the shipped font (piano and xylophone) and, where installed, through
    /// FluidR3_GM: the song's own samples alone give the whole font's render, bit for bit, and no
    /// note finds a sample missing. Against FluidR3_GM (1,150 samples) a song decodes a small part.
    func testASongDecodesOnlyWhatItPlaysAndRendersTheSameBits() throws {
        var fonts = [CommandRunner.shippedSoundFont]
        if FileManager.default.fileExists(atPath: Self.fluidR3) { fonts.append(Self.fluidR3) }
        let songs = ["mozart_turkish_march.mid", "timidity_test_sample_drums.mid", "openmsx_keep_on_rolling_dense.mid"]
        for font in fonts {
            let whole = try SoundFontLoader.load(path: font, sampleRate: Self.rate)
            XCTAssertNil(whole.residency, "a whole load needs no residency flags")
            let usedSamples = try SoundFontLoader.contents(path: font).sampleCount
            for name in songs {
                let song = try Self.song(name)
                let notes = Self.notes(of: song)
                let selective = try SoundFontLoader.load(path: font, sampleRate: Self.rate, options: .init(selection: .played(notes)))
                let residency = try XCTUnwrap(selective.residency)
                XCTAssertGreaterThan(residency.residentCount, 0, "\(name) through \(font)")
                if font == Self.fluidR3 {
                    XCTAssertLessThan(residency.residentCount, usedSamples / 4, "\(name): a song plays a small part of a GM font")
                }
                let expected = Self.render(song, through: whole), got = Self.render(song, through: selective)
                XCTAssertEqual(got.statistics.sampleUnderruns, 0, "\(name) through \(font)")
                XCTAssertEqual(got.statistics.noteOns, expected.statistics.noteOns)
                XCTAssertEqual(got.samples.count, expected.samples.count, "\(name) through \(font)")
                XCTAssertTrue(got.samples.elementsEqual(expected.samples) { $0.bitPattern == $1.bitPattern },
                              "\(name) through \(font): the song's samples alone render the same bits")
            }
        }
    }

    /// Loaded for a piano song, the shipped font's xylophone was never decoded: a note on it
    /// starts nothing, is counted as an underrun, and the render is silence, not garbage.
    func testANoteOnASampleNotDecodedIsCountedAndSilent() throws {
        let piano = try Self.song("mozart_turkish_march.mid")
        let bank = try SoundFontLoader.load(path: CommandRunner.shippedSoundFont, sampleRate: Self.rate,
                                            options: .init(selection: .played(Self.notes(of: piano))))
        let xylophone = Self.render(piano, through: bank)
        XCTAssertEqual(xylophone.statistics.sampleUnderruns, 0)
        let forced = MIDISequencer(piano, sampleRate: Self.rate, program: 13)
        let engine = Engine(configuration: EngineConfiguration(render: RenderConfiguration(sampleRate: Self.rate)))
        engine.install(bank)
        var peak: Float = 0
        let summary = engine.render(piano, options: MIDIRenderOptions(program: 13)) { block in
            for sample in block { peak = max(peak, abs(sample)) }
        }
        XCTAssertFalse(forced.playedNotes(kitPlaysPercussion: false).requests.isEmpty)
        XCTAssertEqual(summary.statistics.noteOns, 599)
        // A region each, and the font's piano and xylophone are stereo: two a note.
        XCTAssertEqual(summary.statistics.sampleUnderruns, 2 * summary.statistics.noteOns, "every note's regions were left out")
        XCTAssertEqual(peak, 0, "nothing of the undecoded samples is read")
    }

    /// `open` returns a bank with the first notes' samples decoded and the rest coming: waited
    /// for, the bank holds every sample and renders as a whole load does.
    func testABankOpenedForItsFirstNotesFillsInTheBackground() throws {
        let song = try Self.song("mozart_turkish_march.mid")
        let first = PlayedNotes.startingPresets(kitPlaysPercussion: false, channels: 0..<1)
        let opened = try SoundFontLoader.open(path: CommandRunner.shippedSoundFont, sampleRate: Self.rate, first: first)
        let residency = try XCTUnwrap(opened.bank.residency)
        let piano = try SoundFontLoader.load(path: CommandRunner.shippedSoundFont, sampleRate: Self.rate,
                                             options: .init(selection: .played(first)))
        XCTAssertGreaterThanOrEqual(residency.residentCount, piano.residency!.residentCount, "the piano is in before open returns")
        opened.decoding.wait()
        XCTAssertEqual(opened.decoding.remainingCount, 0)
        XCTAssertEqual(opened.decoding.failedCount, 0)
        for region in opened.bank.regions { XCTAssertTrue(residency.isResident(Int(region.sampleIndex)), "every region's sample is in") }
        let whole = try SoundFontLoader.load(path: CommandRunner.shippedSoundFont, sampleRate: Self.rate)
        let expected = Self.render(song, through: whole).samples, got = Self.render(song, through: opened.bank).samples
        XCTAssertTrue(got.elementsEqual(expected) { $0.bitPattern == $1.bitPattern })
    }

    /// Under a sample cache the heads stay and the bodies come and go: a cache the heads alone
    /// exceed is refused in one line; within one, the bank keeps its bytes under the budget, the
    /// bodies nobody plays are dropped, and a note on a dropped one starts from its head and
    /// gets the rest back.
    func testASampleCacheKeepsTheHeadsAndBoundsTheBodies() throws {
        let font = CommandRunner.shippedSoundFont
        let piano = PlayedNotes.startingPresets(kitPlaysPercussion: true, channels: 0..<1)
        XCTAssertThrowsError(try SoundFontLoader.open(path: font, sampleRate: Self.rate, first: piano,
                                                      options: .init(sampleCacheBytes: 1 << 20))) { error in
            XCTAssertTrue("\(error)".hasPrefix("soundfont 'FluidR3_GM_piano_xylo.sf2': a sample cache of 1 MB cannot hold the samples' heads ("),
                          "\(error)")
        }
        let budget = 4 << 20
        let opened = try SoundFontLoader.open(path: font, sampleRate: Self.rate, first: piano, options: .init(sampleCacheBytes: budget))
        defer { opened.decoding.cancel(); opened.decoding.wait() }
        let residency = try XCTUnwrap(opened.bank.residency)
        let engine = Engine(configuration: EngineConfiguration(render: RenderConfiguration(sampleRate: Self.rate)))
        engine.install(opened.bank)
        var block = [Float](repeating: 0, count: 2 * 512)
        func render(_ frames: Int) {
            for _ in 0..<(frames / 512) { block.withUnsafeMutableBufferPointer { engine.renderer.render(into: $0.baseAddress!, frameCount: 512) } }
        }
        /// Waits (10 s at most) for `condition`, rendering a little between looks.
        func eventually(_ condition: () -> Bool) -> Bool {
            for _ in 0..<1_000 where !condition() { render(512); usleep(10_000) }
            return condition()
        }
        // Every sample's head comes in, and bodies while they fit.
        let samples = Set(opened.bank.regions.map { Int($0.sampleIndex) })
        XCTAssertTrue(eventually { samples.allSatisfy { residency.frontier($0) > 0 } }, "every head is in")
        XCTAssertTrue(eventually { opened.decoding.residentBytes <= budget })
        // Notes across the keyboard, one at a time, each held until its body is in: the bodies
        // before them are dropped to make room, never the one playing.
        var played: [Int] = []
        for key in stride(from: 21, through: 108, by: 6) {
            engine.send(midi: .noteOn(channel: 0, key: UInt8(key), velocity: 100))
            render(512)
            let sample = try XCTUnwrap(samples.max { residency.lastUse($0) < residency.lastUse($1) }, "a sample was started")
            XCTAssertTrue(eventually { residency.isResident(sample) }, "key \(key): the played sample's body comes in")
            played.append(sample)
            engine.send(midi: .noteOff(channel: 0, key: UInt8(key), velocity: 0))
            render(48_000)
        }
        XCTAssertTrue(eventually { opened.decoding.residentBytes <= budget }, "back within the budget: \(opened.decoding.residentBytes)")
        XCTAssertGreaterThan(opened.decoding.droppedBodyCount, 0, "bodies were dropped to make room")
        // The first key's body was dropped by now (the least recently played): played again it
        // starts from its head and its body comes back.
        let first = played[0]
        XCTAssertFalse(residency.isResident(first), "the least recently played body was dropped")
        engine.send(midi: .noteOn(channel: 0, key: 21, velocity: 100))
        render(512)
        XCTAssertTrue(eventually { residency.isResident(first) }, "its body came back")
        XCTAssertEqual(opened.decoding.failedCount, 0)
    }

    /// A font cut short while it plays (truncated, as a copy still being written or a full disk
    /// leaves it): the samples still to come fail, one line names the file, their notes end with
    /// their heads, counted, and the rest plays on.
    func testAFontCutShortWhilePlayingIsOneLineAndTheRestPlaysOn() throws {
        let folder = try TemporaryFolder(self)
        let copy = folder.path + "/cut-short.sf2"
        try FileManager.default.copyItem(atPath: CommandRunner.shippedSoundFont, toPath: copy)
        let warnings = LockedLines()
        let piano = PlayedNotes.startingPresets(kitPlaysPercussion: true, channels: 0..<1)
        // A pause before each background sample, so the cut comes before the first of them.
        let opened = try SoundFontLoader.open(path: copy, sampleRate: Self.rate, first: piano,
                                              options: .init(sampleCacheBytes: 8 << 20, backgroundDelay: .milliseconds(20),
                                                             warning: { warnings.append($0) }))
        defer { opened.decoding.cancel(); opened.decoding.wait() }
        XCTAssertEqual(truncate(copy, 1 << 20), 0)
        let engine = Engine(configuration: EngineConfiguration(render: RenderConfiguration(sampleRate: Self.rate)))
        engine.install(opened.bank)
        var block = [Float](repeating: 0, count: 2 * 512)
        var peak: Float = 0
        for key in stride(from: 21, through: 108, by: 4) {
            engine.send(midi: .noteOn(channel: 0, key: UInt8(key), velocity: 100))
            for _ in 0..<20 {
                block.withUnsafeMutableBufferPointer { engine.renderer.render(into: $0.baseAddress!, frameCount: 512) }
                peak = max(peak, block.map(abs).max() ?? 0)
                usleep(2_000)
            }
        }
        for _ in 0..<200 where opened.decoding.failedCount == 0 { usleep(10_000) }
        XCTAssertGreaterThan(opened.decoding.failedCount, 0, "the samples past the cut failed")
        XCTAssertGreaterThan(peak, 0.01, "the heads played")
        XCTAssertGreaterThan(engine.renderer.statistics.sampleUnderruns, 0, "notes past their heads ended, counted")
        let lines = warnings.lines
        XCTAssertEqual(lines.count, 1, "one line for the file: \(lines)")
        XCTAssertTrue(lines.first?.hasPrefix("cut-short.sf2") ?? false, "\(lines)")
        XCTAssertTrue(lines.first?.contains("has shrunk") ?? false, "\(lines)")
    }

    /// Channels are followed as the sampler follows them: a bank select waits for the next
    /// program change, a GS rhythm part makes a channel a drum channel playing kit 0, and a
    /// system reset selects program 0 of bank 0 again.
    func testTheNotesAreFiledUnderThePresetTheirChannelPlaysThen() {
        func channel(_ message: MIDIMessage, at tick: Int) -> TrackEvent { TrackEvent(tick: tick, kind: .channel(message)) }
        let song = MIDIFile(format: 0, division: .ticksPerQuarter(480), tracks: [[
            channel(.controlChange(channel: 0, controller: 0, value: 8), at: 0),
            channel(.noteOn(channel: 0, key: 60, velocity: 90), at: 0),
            channel(.programChange(channel: 0, program: 40), at: 480),
            channel(.noteOn(channel: 0, key: 62, velocity: 91), at: 480),
            TrackEvent(tick: 960, kind: .sysEx(.rhythmPart(channel: 3, isDrum: true))),
            channel(.noteOn(channel: 3, key: 36, velocity: 92), at: 960),
            TrackEvent(tick: 1_440, kind: .sysEx(.systemReset(.gsReset))),
            channel(.noteOn(channel: 0, key: 64, velocity: 93), at: 1_440),
            TrackEvent(tick: 1_920, kind: .endOfTrack),
        ]])
        let notes = Self.notes(of: song)
        let filed = notes.firstFrames.keys.sorted { $0.velocity < $1.velocity }
            .map { "\($0.request.bank):\($0.request.program)\($0.request.percussion ? " drums" : "") key \($0.key)" }
        XCTAssertEqual(filed, ["0:0 key 60", "8:40 key 62", "128:0 drums key 36", "0:0 key 64"])
        XCTAssertEqual(notes.requests.map(\.channels), [[0], [0], [3]])
    }
}

/// Lines a warning callback collects from the decoding thread.
final class LockedLines: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    func append(_ line: String) { lock.withLock { stored.append(line) } }
    var lines: [String] { lock.withLock { stored } }
}
