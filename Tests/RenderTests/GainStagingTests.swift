import Engine
import Foundation
import MIDI
import Render
import SoundFont
import XCTest

/// The default song gain keeps a dense General MIDI mix through Debian's fonts clear of the output
/// limiter, where unity gain drives it into the limiter: the ten-channel openmsx fixture's first
/// 40 s, through each of FluidR3_GM and TimGM6mb that is installed (`scripts/install-deps
/// --reference` installs them where it can).
final class GainStagingTests: XCTestCase {
    static let fonts = ["/usr/share/sounds/sf2/FluidR3_GM.sf2", "/usr/share/sounds/sf2/TimGM6mb.sf2"]
    static let song = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Fixtures/midi/openmsx_keep_on_rolling_dense.mid").standardizedFileURL.path

    /// Frames the limiter turned down over the song's first `seconds`, at `gain` dB.
    func limitedFrames(font bank: SampleBank, gain: Float, seconds: Double = 40) throws -> Int {
        let engine = Engine(configuration: EngineConfiguration(render: RenderConfiguration(sampleRate: 48_000, songGainDecibels: gain)))
        XCTAssertTrue(engine.install(bank))
        let sequencer = MIDISequencer(try MIDIFile.read(path: Self.song), sampleRate: 48_000)
        let block = 4_096
        var rendered = 0
        while rendered < Int(seconds * 48_000) {
            sequencer.send(dueBefore: FrameTime(rendered + block), to: engine)
            _ = engine.renderOffline(frameCount: block, blockFrameCount: 64)
            rendered += block
        }
        return engine.renderer.statistics.limitedFrames
    }

    func testTheDefaultGainKeepsADenseMixClearOfTheLimiter() throws {
        let installed = Self.fonts.filter { FileManager.default.fileExists(atPath: $0) }
        guard !installed.isEmpty else { throw XCTSkip("neither FluidR3_GM nor TimGM6mb is installed (scripts/install-deps --reference)") }
        for path in installed {
            let bank = try SoundFontLoader.load(path: path, sampleRate: 48_000)
            XCTAssertEqual(try limitedFrames(font: bank, gain: RenderConfiguration.defaultSongGainDecibels), 0, path)
            XCTAssertGreaterThan(try limitedFrames(font: bank, gain: 0), 0, "\(path): at unity gain the limiter engages")
        }
    }
}
