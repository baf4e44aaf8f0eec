import Dispatch
@testable import Render
import Synchronization
import XCTest

/// The item mixes of a segment are summed in a tree whose shape follows from the item count alone
/// (`VoiceWorkItems.fold(after:)`): whichever order the items finish in (whichever threads render
/// them), item 0 ends up holding the same bits, the tree's sum, with the sends any item used.
final class MixSummationTreeTests: XCTestCase {
    /// Items whose mixes are filled by hand: up to 48 groups every item holds
    /// `minimumGroupsPerItem` groups, so 16 voices an item.
    final class Items {
        let voice = VoicePool.allocateVoices(1)
        let channels = UnsafeMutablePointer<ChannelState>.allocate(capacity: 1)
        let starved: UnsafeMutablePointer<Atomic<Int>> = {
            let counter = UnsafeMutablePointer<Atomic<Int>>.allocate(capacity: 1)
            counter.initialize(to: Atomic(0))
            return counter
        }()
        var work: VoiceWorkItems

        init(itemCount: Int, quantumCount: Int) {
            work = VoiceWorkItems(voiceCapacity: 16 * VoiceWorkItems.maximumSamplerItemCount, firstVoice: voice,
                                  context: VoiceRenderContext(channels: channels, sampleRate: 48_000, sendsEnabled: true,
                                                              interpolation: .cubic, kernel: .generic, starvedVoices: starved,
                                                              stageClock: RenderStageClock()))
            work.voiceCount = 16 * itemCount
            work.frameCount = RenderQuantum.frameCount
            work.quantumCount = quantumCount
        }

        deinit {
            work.deallocate()
            UnsafeMutableRawPointer(voice).deallocate()
            channels.deallocate()
            starved.deinitialize(count: 1)
            starved.deallocate()
        }
    }

    /// What item `item`'s mix holds for `quantum` before folding, from `seed`: a silent mix now and
    /// then, and the send buses in every combination.
    static func fill(_ items: Items, seed: UInt64) {
        var state = seed
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        for item in 0..<items.work.itemCount {
            for quantum in 0..<items.work.quantumCount {
                let mix = items.work.mix(item, quantum: quantum)
                let kind = next() % 5
                mix.sends.pointee = kind == 4 ? VoiceItemMix.silent : UInt8(kind)
                for bus in [mix.left, mix.right, mix.reverb, mix.chorus] {
                    for frame in 0..<RenderQuantum.frameCount { bus[frame] = Float(Int(next() % 20_001) - 10_000) / 7_919 }
                }
            }
        }
    }

    /// A quantum of one bus.
    static func frames(_ bus: UnsafeMutablePointer<Float>) -> [Float] {
        Array(UnsafeBufferPointer(start: bus, count: RenderQuantum.frameCount))
    }

    /// The tree's sum by recursion, straight from its definition: the leaves `range` hold, the
    /// left half's sum plus the right half's (a half that is silent adds nothing, a send bus only
    /// the halves that used it), as (sends, left, right, reverb, chorus).
    static func reference(_ items: Items, range: Range<Int>, quantum: Int) -> (UInt8, [[Float]]) {
        if range.count == 1 {
            let mix = items.work.mix(range.lowerBound, quantum: quantum)
            let buses = [mix.left, mix.right, mix.reverb, mix.chorus].map(frames)
            return (mix.sends.pointee, buses)
        }
        var half = 1
        while half * 2 < range.count { half *= 2 }
        let left = reference(items, range: range.lowerBound..<(range.lowerBound + half), quantum: quantum)
        let right = reference(items, range: (range.lowerBound + half)..<range.upperBound, quantum: quantum)
        if right.0 == VoiceItemMix.silent { return left }
        if left.0 == VoiceItemMix.silent { return right }
        var buses = left.1
        for bus in 0..<4 {
            let flag: UInt8 = bus == 2 ? VoiceItemMix.reverbSent : bus == 3 ? VoiceItemMix.chorusSent : 0
            guard flag == 0 || right.0 & flag != 0 else { continue }
            for frame in 0..<RenderQuantum.frameCount {
                buses[bus][frame] = flag != 0 && left.0 & flag == 0 ? right.1[bus][frame] : buses[bus][frame] + right.1[bus][frame]
            }
        }
        return (left.0 | right.0, buses)
    }

    /// Item 0's mix after folding every item in `order`, as the reference gives it (the send buses
    /// only when used).
    static func root(_ items: Items, quantum: Int) -> (UInt8, [[Float]]) {
        let mix = items.work.mix(0, quantum: quantum)
        let sends = mix.sends.pointee
        var buses = [frames(mix.left), frames(mix.right)]
        buses.append(sends & VoiceItemMix.reverbSent != 0 ? frames(mix.reverb) : [])
        buses.append(sends & VoiceItemMix.chorusSent != 0 ? frames(mix.chorus) : [])
        return (sends, buses)
    }

    /// What item 0 must hold for each quantum once every item is folded: the reference sum, with
    /// the send buses no item used left out.
    static func expectedRoots(_ items: Items) -> [(UInt8, [[Float]])] {
        (0..<items.work.quantumCount).map { quantum in
            var sum = reference(items, range: 0..<items.work.itemCount, quantum: quantum)
            if sum.0 & VoiceItemMix.reverbSent == 0 { sum.1[2] = [] }
            if sum.0 & VoiceItemMix.chorusSent == 0 { sum.1[3] = [] }
            return sum
        }
    }

    /// Item 0's mix for each quantum is `expected`: the same sends, the same bits.
    static func assertRoots(_ items: Items, equal expected: [(UInt8, [[Float]])], _ context: String,
                            file: StaticString = #filePath, line: UInt = #line) {
        for quantum in 0..<items.work.quantumCount {
            let root = root(items, quantum: quantum)
            XCTAssertEqual(root.0, expected[quantum].0, "\(context): the sends any item used", file: file, line: line)
            XCTAssertEqual(root.1.map { $0.map(\.bitPattern) }, expected[quantum].1.map { $0.map(\.bitPattern) },
                           "\(context), quantum \(quantum): the tree's sum, bit for bit", file: file, line: line)
        }
    }

    func testAnyOrderOfFinishingGivesTheTreesSumBitForBit() {
        var generator = SystemRandomNumberGenerator()
        for itemCount in 1...VoiceWorkItems.maximumSamplerItemCount {
            for seed in 1...6 {
                let quantumCount = seed % 3 == 0 ? 3 : 1
                var expected: [(UInt8, [[Float]])] = []
                for attempt in 0..<4 {
                    let items = Items(itemCount: itemCount, quantumCount: quantumCount)
                    XCTAssertEqual(items.work.itemCount, itemCount)
                    Self.fill(items, seed: UInt64(itemCount * 100 + seed))
                    if attempt == 0 { expected = Self.expectedRoots(items) }
                    // In item order, backwards, and shuffled twice.
                    var order = Array(0..<itemCount)
                    if attempt == 1 { order.reverse() }
                    if attempt >= 2 { order.shuffle(using: &generator) }
                    for item in order { items.work.fold(after: item) }
                    Self.assertRoots(items, equal: expected, "\(itemCount) items, order \(order)")
                }
            }
        }
    }

    /// One set of items, segment after segment of another item count, each folded by three threads
    /// taking items as they come: a pair's counter is never reset, and its two increments a
    /// segment still tell which half came second.
    func testSegmentAfterSegmentOnThreeThreadsEveryPairIsAddedOnce() {
        /// The segment's items and the next one to take, for the threads (each folds items no
        /// other takes).
        final class Segment: @unchecked Sendable {
            let work: VoiceWorkItems
            let next = Atomic<Int>(0)
            init(_ work: VoiceWorkItems) { self.work = work }
        }
        var generator = SystemRandomNumberGenerator()
        let items = Items(itemCount: 1, quantumCount: 1)
        for segment in 0..<200 {
            let itemCount = Int.random(in: 1...VoiceWorkItems.maximumSamplerItemCount, using: &generator)
            items.work.voiceCount = 16 * itemCount
            items.work.quantumCount = segment % 4 == 0 ? 2 : 1
            Self.fill(items, seed: UInt64(segment + 1))
            let expected = Self.expectedRoots(items)
            let shared = Segment(items.work)
            DispatchQueue.concurrentPerform(iterations: 3) { _ in
                while true {
                    let item = shared.next.wrappingAdd(1, ordering: .relaxed).oldValue
                    guard item < itemCount else { break }
                    shared.work.fold(after: item)
                }
            }
            Self.assertRoots(items, equal: expected, "segment \(segment), \(itemCount) items")
        }
    }
}
