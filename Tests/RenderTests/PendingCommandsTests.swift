@testable import Render
import XCTest

/// The renderer's pending store on its own: whatever order commands go in, they come out by frame,
/// those for the same frame in the order they went in; late ones are due when they arrive; a full
/// store takes nothing more.
final class PendingCommandsTests: XCTestCase {
    /// A command whose tone slot numbers it, so the order out can be read back.
    func command(_ number: Int, at frameTime: FrameTime) -> RenderCommand {
        RenderCommand(at: frameTime, .toneOn(slot: UInt8(truncatingIfNeeded: number), frequency: Float(number), amplitude: 0))
    }

    func number(of command: RenderCommand) -> Int {
        guard case let .toneOn(_, frequency, _) = command.action else { return -1 }
        return Int(frequency)
    }

    func drain(_ store: inout PendingCommands) -> [RenderCommand] {
        var out: [RenderCommand] = []
        while let first = store.first {
            out.append(first)
            store.removeFirst()
        }
        return out
    }

    func testThousandsInAnyOrderComeOutByFrameThenInTheOrderSent() {
        var generator = SystemRandomNumberGenerator()
        var store = PendingCommands(capacity: 4_096)
        defer { store.deallocate { _ in } }
        // Few distinct frames, so that most commands share theirs with many others.
        let frames = (0..<4_096).map { _ in FrameTime.random(in: 1_000...1_063, using: &generator) }
        for (number, frame) in frames.enumerated() { XCTAssertTrue(store.insert(command(number, at: frame), dueNoEarlierThan: 0)) }
        XCTAssertTrue(store.isFull)
        let out = drain(&store)
        let expected = frames.indices.sorted { frames[$0] != frames[$1] ? frames[$0] < frames[$1] : $0 < $1 }
        XCTAssertEqual(out.map(number(of:)), expected)
        XCTAssertEqual(out.map(\.frameTime), expected.map { frames[$0] })
    }

    func testALateCommandIsDueWhenItArrivesAfterThoseBeforeIt() {
        var store = PendingCommands(capacity: 8)
        defer { store.deallocate { _ in } }
        XCTAssertTrue(store.insert(command(0, at: 500), dueNoEarlierThan: 500))
        XCTAssertTrue(store.insert(command(1, at: 0), dueNoEarlierThan: 500))
        XCTAssertTrue(store.insert(command(2, at: 499), dueNoEarlierThan: 500))
        XCTAssertTrue(store.insert(command(3, at: 501), dueNoEarlierThan: 500))
        XCTAssertTrue(store.insert(command(4, at: 200), dueNoEarlierThan: 400))
        let out = drain(&store)
        XCTAssertEqual(out.map(number(of:)), [4, 0, 1, 2, 3])
        XCTAssertEqual(out.map(\.frameTime), [400, 500, 500, 500, 501])
    }

    func testAFullStoreTakesNothingAndGivesBackWhatItHolds() {
        var store = PendingCommands(capacity: 3)
        for number in 0..<3 { XCTAssertTrue(store.insert(command(number, at: FrameTime(10 - number)), dueNoEarlierThan: 0)) }
        XCTAssertFalse(store.insert(command(9, at: 0), dueNoEarlierThan: 0))
        XCTAssertEqual(store.count, 3)
        XCTAssertEqual(store.first.map(number(of:)), 2)
        var discarded: [Int] = []
        store.deallocate { discarded.append(self.number(of: $0)) }
        XCTAssertEqual(discarded.sorted(), [0, 1, 2])
    }
}
