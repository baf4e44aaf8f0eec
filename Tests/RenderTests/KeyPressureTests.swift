import Engine
@testable import Render
import TestSupport
import XCTest

/// Polyphonic key pressure as the channel keeps it: per key, beside the channel's own pressure,
/// which it never touches. (What a voice's modulators make of it: SoundFontTests' ModulatorTests.)
final class KeyPressureTests: XCTestCase {
    func engine() -> Engine {
        let engine = Engine(configuration: EngineConfiguration(render: RenderConfiguration(sampleRate: SyntheticBank.rate)))
        XCTAssertTrue(engine.install(SyntheticBank.sine()))
        return engine
    }

    func testPolyPressureLeavesTheChannelPressureAlone() {
        let engine = engine()
        engine.send(midi: .channelPressure(channel: 3, pressure: 90))
        for pressure: UInt8 in [0, 127] { engine.send(midi: .polyPressure(channel: 3, key: 60, pressure: pressure)) }
        _ = engine.renderOffline(frameCount: 64)
        XCTAssertEqual(engine.renderer.sampler.channels[3].channelPressure, 90)
    }

    func testEachKeyKeepsItsOwnPressureUntilTheControllersReset() {
        let engine = engine()
        engine.send(midi: .polyPressure(channel: 3, key: 60, pressure: 100))
        engine.send(midi: .polyPressure(channel: 3, key: 127, pressure: 200))  // not 7-bit: clamped, as channel pressure is
        engine.send(midi: .polyPressure(channel: 3, key: 128, pressure: 50))  // no such key: ignored
        engine.send(midi: .polyPressure(channel: 16, key: 60, pressure: 50))  // no such channel: ignored
        _ = engine.renderOffline(frameCount: 64)
        let channels = engine.renderer.sampler.channels
        XCTAssertEqual(channels[3].keyPressures[60], 100)
        XCTAssertEqual(channels[3].keyPressures[127], 127)
        XCTAssertEqual((0..<128).filter { channels[3].keyPressures[$0] != 0 }, [60, 127])
        XCTAssertEqual((0..<16).filter { channel in channel != 3 && (0..<128).contains { channels[channel].keyPressures[$0] != 0 } }, [],
                       "no other channel's keys")

        engine.send(midi: .controlChange(channel: 3, controller: MIDIController.resetAllControllers.rawValue, value: 0))
        _ = engine.renderOffline(frameCount: 64)
        XCTAssertEqual((0..<128).filter { channels[3].keyPressures[$0] != 0 }, [], "Reset All Controllers (RP-015)")

        engine.send(midi: .polyPressure(channel: 5, key: 64, pressure: 70))
        engine.send(midi: .system(.systemReset(.generalMIDIOn)))
        _ = engine.renderOffline(frameCount: 64)
        XCTAssertEqual(channels[5].keyPressures[64], 0, "a system reset")
    }
}
