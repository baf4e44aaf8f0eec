import DSP
import Foundation
import TestSupport
import VoiceProcessing
import XCTest

/// Mains hum removal (`HumRemover`) on its own: the hum found by its fundamental, followed as it
/// wanders, cancelled with its harmonics, and what is not hum left alone.
final class HumRemovalTests: XCTestCase {
    static let rate = 48_000.0

    /// `input` through a remover in blocks of `blockFrameCount`; the output and the remover's
    /// fundamental at the end.
    static func remove(_ input: [Float], blockFrameCount: Int = 64) -> (output: [Float], fundamental: Double?, humPower: Float) {
        var remover = HumRemover(sampleRate: rate)
        defer { remover.deallocate() }
        var output = input
        output.withUnsafeMutableBufferPointer { buffer in
            for start in stride(from: 0, to: buffer.count, by: blockFrameCount) {
                remover.process(buffer.baseAddress! + start, frameCount: min(blockFrameCount, buffer.count - start))
            }
        }
        return (output, remover.fundamentalHertz, remover.humPower)
    }

    /// 50 and 60 Hz hum, each a little off its nominal and wandering, under pink noise: found,
    /// followed, and at least 25 dB down after 2 s; the noise under it untouched.
    func testHumIsFoundFollowedAndCancelled() {
        for (hertz, seed) in [(50.2, UInt64(101)), (59.7, 202)] {
            let count = Int(10 * Self.rate)
            let hum = RoomNoise.hum(count: count, hertz: hertz, levelDecibels: -35, sampleRate: Self.rate, seed: seed)
            let pink = RoomNoise.pink(count: count, levelDecibels: -55, seed: seed + 1)
            let (output, fundamental, _) = Self.remove(zip(hum, pink).map(+))
            let settled = Int(2 * Self.rate)
            let residual = (settled..<count).map { output[$0] - pink[$0] }
            let humDown = level(SignalAnalysis.rms(hum[settled...])) - level(SignalAnalysis.rms(residual[...]))
            // The fundamental's wander at the end (±0.05 Hz over 7 s): 10 s is 3/7 of a turn on.
            let actual = hertz + 0.05 * sin(2 * Double.pi * 10 / 7)
            print("hum at \(hertz) Hz: \(humDown) dB down after 2 s; fundamental found \(fundamental.map { String(format: "%.3f", $0) } ?? "none"), actual \(String(format: "%.3f", actual))")
            XCTAssertGreaterThanOrEqual(humDown, 25, "\(hertz) Hz")
            XCTAssertEqual(try XCTUnwrap(fundamental), actual, accuracy: 0.05, "\(hertz) Hz")
        }
    }

    /// A partial held 3 Hz from a harmonic, and one gliding across three harmonics, over hum: each
    /// keeps its level within 1 dB.
    func testPartialsNearTheHarmonicsAreKept() {
        let count = Int(6 * Self.rate)
        let hum = RoomNoise.hum(count: count, hertz: 50, drift: 0, levelDecibels: -40, sampleRate: Self.rate, seed: 303)
        var glidePhase = 0.0
        let held = (0..<count).map { Float(0.03 * sin(2 * Double.pi * 153 * Double($0) / Self.rate)) }
        let glide = (0..<count).map { index -> Float in
            // 140 → 260 Hz over the 6 s: past 150, 200 and 250 Hz.
            glidePhase += (140 + 20 * Double(index) / Self.rate) / Self.rate
            return Float(0.03 * sin(2 * Double.pi * glidePhase))
        }
        for (name, partial) in [("held at 153 Hz", held), ("gliding 140-260 Hz", glide)] {
            let (output, _, _) = Self.remove(zip(hum, partial).map(+))
            let settled = Int(2 * Self.rate)
            // The partial's level in the output: what is left less the hum the remover leaves.
            let humOnly = Self.remove(hum).output
            let kept = (settled..<count).map { output[$0] - humOnly[$0] }
            let change = level(SignalAnalysis.rms(kept[...])) - level(SignalAnalysis.rms(partial[settled...]))
            print("partial \(name) over 50 Hz hum: \(change) dB")
            XCTAssertEqual(change, 0, accuracy: 1, name)
        }
    }

    /// Sample by sample: the output does not depend on the block size.
    func testTheOutputDoesNotDependOnTheBlockSize() {
        let count = Int(3 * Self.rate)
        let input = zip(RoomNoise.hum(count: count, hertz: 60.3, levelDecibels: -30, sampleRate: Self.rate, seed: 404),
                        RoomNoise.pink(count: count, levelDecibels: -50, seed: 405)).map(+)
        XCTAssertEqual(Self.remove(input, blockFrameCount: 64).output, Self.remove(input, blockFrameCount: 37).output)
    }
}
