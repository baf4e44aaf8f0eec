import Engine
@testable import Render
import XCTest

/// Polyphonic key pressure beside the channel's own pressure, which it never touches.
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
}
