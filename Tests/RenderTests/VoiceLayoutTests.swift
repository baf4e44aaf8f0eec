import Lockfree
@testable import Render
import XCTest

/// A voice's first cache line holds what the audio thread reads of every voice between segments
/// (whether it sounds, its channel and key, its bank, its pedal state); what rendering writes
/// (position, envelopes, filter, gains) starts on the next line, and the pool keeps every voice on
/// a line boundary. A worker rendering a voice then never takes that first line from the audio
/// thread's cache, and the audio thread's scans of the pool stay in its own cache.
final class VoiceLayoutTests: XCTestCase {
    func testTheControlFieldsFillTheFirstCacheLineAndVoicesStartOnALine() {
        let line = CacheLine.byteCount
        print("SamplerVoice: size \(MemoryLayout<SamplerVoice>.size), stride \(MemoryLayout<SamplerVoice>.stride), samples at \(MemoryLayout<SamplerVoice>.offset(of: \SamplerVoice.samples)!), heldReleaseFrame at \(MemoryLayout<SamplerVoice>.offset(of: \SamplerVoice.heldReleaseFrame)!)")
        XCTAssertLessThanOrEqual(MemoryLayout<SamplerVoice>.offset(of: \SamplerVoice.heldReleaseFrame)! + MemoryLayout<FrameTime>.size, line)
        XCTAssertEqual(MemoryLayout<SamplerVoice>.offset(of: \SamplerVoice.samples)!, line, "rendering's fields start on the second line")
        XCTAssertEqual(MemoryLayout<SamplerVoice>.stride % line, 0, "a whole number of lines a voice: the next voice starts on a line")
        let pool = VoicePool(capacity: 3, fadeCapacity: 2)
        defer { pool.deallocate() }
        XCTAssertEqual(Int(bitPattern: pool.voices) % line, 0)
        XCTAssertEqual(Int(bitPattern: pool.fading) % line, 0)
    }

    /// A voice's flex state keeps what every block reads on its first line and two LFOs to each of
    /// the next lines, and the pool starts every state on a line of its own, so that a voice with
    /// two LFOs and an envelope reads three lines of it a block.
    func testTheFlexStateReadsItsHeaderAndTwoLFOsFromTwoLines() {
        let line = CacheLine.byteCount
        print("FlexVoiceState: stride \(MemoryLayout<FlexVoiceState>.stride), LFOs at \(MemoryLayout<FlexVoiceState>.offset(of: \FlexVoiceState.lfos)!), envelopes at \(MemoryLayout<FlexVoiceState>.offset(of: \FlexVoiceState.envelopes)!)")
        XCTAssertEqual(MemoryLayout<FlexVoiceState>.offset(of: \FlexVoiceState.lfos)!, line, "the LFOs start on the second line")
        XCTAssertEqual(2 * MemoryLayout<FlexVoiceState.LFOState>.stride, line, "two LFOs to a line")
        XCTAssertEqual(MemoryLayout<FlexVoiceState>.offset(of: \FlexVoiceState.envelopes)! % line, 0, "the envelopes start on a line")
        XCTAssertEqual(MemoryLayout<FlexVoiceState>.stride % line, 0, "a whole number of lines a state")
        let pool = VoicePool(capacity: 3, fadeCapacity: 2)
        defer { pool.deallocate() }
        XCTAssertEqual(Int(bitPattern: pool.flexStates) % line, 0)
    }
}
