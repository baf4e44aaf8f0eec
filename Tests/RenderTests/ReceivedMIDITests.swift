import Engine
import Render
import TestSupport
import XCTest

/// `Renderer.receive`: MIDI that arrives on the audio thread itself (a JACK MIDI port's events),
/// at a frame offset into the block about to render.
final class ReceivedMIDITests: XCTestCase {
    static func engine(_ configure: (Engine) -> Void = { _ in }) -> Engine {
        let engine = Engine()
        _ = engine.install(SyntheticBank.sine())
        configure(engine)
        return engine
    }

    /// Renders 2048 frames in 64-frame blocks, handing `receive` its messages before block `start`.
    static func render(_ engine: Engine, receiving messages: [(block: Int, message: MIDIMessage, offset: Int)]) -> [Float] {
        var output = [Float](repeating: 0, count: 2_048 * 2)
        output.withUnsafeMutableBufferPointer { buffer in
            for start in stride(from: 0, to: 2_048, by: 64) {
                for received in messages where received.block == start {
                    XCTAssertTrue(engine.renderer.receive(received.message, atFrameOffset: received.offset))
                }
                engine.renderer.render(into: buffer.baseAddress! + start * 2, frameCount: 64)
            }
        }
        return output
    }

    func testAReceivedNoteSoundsAtItsOffsetExactlyAsAStampedOne() {
        let stamped = Self.engine {
            $0.send(.midi(.noteOn(channel: 0, key: 69, velocity: 100)), at: 640 + 37)
            $0.send(.midi(.noteOff(channel: 0, key: 69, velocity: 0)), at: 1_280 + 5)
        }.renderOffline(frameCount: 2_048)
        let received = Self.render(Self.engine(), receiving: [(640, .noteOn(channel: 0, key: 69, velocity: 100), 37),
                                                              (1_280, .noteOff(channel: 0, key: 69, velocity: 0), 5)])
        XCTAssertGreaterThan(stamped.map(abs).max() ?? 0, 0.01, "the note sounds")
        XCTAssertTrue(stamped[..<((640 + 37) * 2)].allSatisfy { $0 == 0 }, "and not before its frame")
        XCTAssertEqual(received, stamped)
    }

    func testAnOffsetPastTheBlockTakesEffectLaterInOrder() {
        // An offset beyond this block (a JACK cycle longer than the renderer's block) is a later
        // frame, not a lost one.
        let stamped = Self.engine { $0.send(.midi(.noteOn(channel: 0, key: 60, velocity: 90)), at: 256 + 200) }.renderOffline(frameCount: 2_048)
        let received = Self.render(Self.engine(), receiving: [(256, .noteOn(channel: 0, key: 60, velocity: 90), 200)])
        XCTAssertEqual(received, stamped)
    }
}
