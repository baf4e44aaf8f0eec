import Synchronization
@testable import Render
import XCTest

/// How a segment's voices are split into work items (`VoiceWorkItems.voiceRange(ofItem:)`) and in
/// which order the threads claim them (`ItemClaims`): every voice in exactly one item, in whole
/// groups, in runs of two large items and a small one; each thread claims its own large items,
/// then steals another's large ones from the end, and only once no large item is left anywhere
/// takes its own small ones, then another's from the end.
final class WorkItemLayoutTests: XCTestCase {
    final class Items {
        let voice = VoicePool.allocateVoices(1)
        let channels = UnsafeMutablePointer<ChannelState>.allocate(capacity: 1)
        let starved: UnsafeMutablePointer<Atomic<Int>> = {
            let counter = UnsafeMutablePointer<Atomic<Int>>.allocate(capacity: 1)
            counter.initialize(to: Atomic(0))
            return counter
        }()
        let work = UnsafeMutablePointer<VoiceWorkItems>.allocate(capacity: 1)

        init(voiceCapacity: Int) {
            work.initialize(to: VoiceWorkItems(voiceCapacity: voiceCapacity, firstVoice: voice,
                                               context: VoiceRenderContext(channels: channels, sampleRate: 48_000, sendsEnabled: true,
                                                                           interpolation: .cubic, kernel: .generic, starvedVoices: starved,
                                                              stageClock: RenderStageClock())))
        }

        deinit {
            work.pointee.deallocate()
            work.deallocate()
            UnsafeMutableRawPointer(voice).deallocate()
            channels.deallocate()
            starved.deinitialize(count: 1)
            starved.deallocate()
        }
    }

    func testItemsTileTheVoicesInWholeGroupsWithASmallItemEndingEachRun() {
        let voiceCapacity = RenderConfiguration.maximumVoiceCount + 1_000
        let items = Items(voiceCapacity: voiceCapacity)
        let lanes = Sampler.laneCount, smallest = VoiceWorkItems.minimumGroupsPerItem
        var sawSmallItems = false
        for voiceCount in 0...voiceCapacity {
            items.work.pointee.voiceCount = voiceCount
            let work = items.work.pointee
            let count = work.samplerItemCount
            XCTAssertLessThanOrEqual(count, VoiceWorkItems.maximumSamplerItemCount, "\(voiceCount) voices")
            let groups = (voiceCount + lanes - 1) / lanes
            let large = work.groupsPerLargeItem
            var next = 0
            for item in 0..<count {
                let range = work.voiceRange(ofItem: item)
                guard range.lowerBound == next, !range.isEmpty else {
                    return XCTFail("\(voiceCount) voices: item \(item) is \(range), expected to start at \(next) and hold a voice")
                }
                XCTAssertEqual(range.lowerBound % lanes, 0, "\(voiceCount) voices: item \(item) starts inside a group")
                next = range.upperBound
                let itemGroups = (range.count + lanes - 1) / lanes
                let isLast = item == count - 1
                // The last of each run is small, and claimed last, whenever large items are larger.
                let isSmall = item % VoiceWorkItems.itemsPerRun == VoiceWorkItems.itemsPerRun - 1 && large > smallest
                XCTAssertEqual(work.isClaimedLast(item), isSmall, "\(voiceCount) voices: item \(item)")
                if isSmall {
                    sawSmallItems = true
                    XCTAssertTrue(isLast ? itemGroups <= smallest : itemGroups == smallest,
                                  "\(voiceCount) voices: small item \(item) holds \(itemGroups) groups")
                } else {
                    XCTAssertTrue(isLast ? itemGroups <= large : itemGroups == large,
                                  "\(voiceCount) voices: item \(item) holds \(itemGroups) groups, not \(large)")
                }
            }
            XCTAssertEqual(next, voiceCount, "\(voiceCount) voices: the items end at \(next)")
            if groups <= smallest * VoiceWorkItems.maximumSamplerItemCount {
                // Few voices: every item is as small as an item gets, as many as that takes.
                XCTAssertEqual(large, smallest, "\(voiceCount) voices")
                XCTAssertEqual(count, (groups + smallest - 1) / smallest, "\(voiceCount) voices")
            } else {
                // Large items as small as keep the items within bounds: one group fewer and the
                // runs the items allow would not hold every group.
                XCTAssertGreaterThan(large, smallest, "\(voiceCount) voices")
                let runs = VoiceWorkItems.maximumSamplerItemCount / VoiceWorkItems.itemsPerRun
                let largePerRun = VoiceWorkItems.itemsPerRun - 1
                XCTAssertLessThan(runs * (largePerRun * (large - 1) + smallest), groups, "\(voiceCount) voices: large items of \(large) groups")
            }
        }
        XCTAssertTrue(sawSmallItems)
    }

    /// 2,000 voices (250 groups) make 23 items: 15 groups a large one, 2 a small one (items 2, 5,
    /// ... 20). Three threads claim in turn, as if each were a thread of its own.
    func testEveryLargeItemIsClaimedBeforeAnySmallOneOwnLargeFirstThenStolenFromTheEnd() {
        let items = Items(voiceCapacity: 2_000)
        items.work.pointee.voiceCount = 2_000
        XCTAssertEqual(items.work.pointee.samplerItemCount, 23)
        var claims = ItemClaims(threadCount: 3)
        defer { claims.deallocate() }
        claims.publish(items.work)
        let itemCount = items.work.pointee.itemCount
        let shares = (0..<3).map { claims.share(of: $0, itemCount: itemCount) }
        XCTAssertEqual(shares, [0..<7, 7..<15, 15..<23])
        func isSmall(_ item: Int) -> Bool { items.work.pointee.isClaimedLast(item) }
        func claimed(by thread: Int, _ count: Int) -> [Int] {
            (0..<count).map { _ in claims.claim(as: thread, in: items.work) ?? -1 }
        }

        // Thread 1 takes its large items in order, then, out of them, steals thread 2's last
        // large item (the next thread's first) rather than take its own small ones (8, 11, 14).
        let byThread1 = claimed(by: 1, 6)
        XCTAssertEqual(byThread1, [7, 9, 10, 12, 13, 22])
        XCTAssertEqual(claimed(by: 0, 2), [0, 1])
        // It goes on down thread 2's large items, which thread 2 takes from the start.
        let stolen = claimed(by: 1, 3)
        XCTAssertEqual(stolen, [21, 19, 18])
        // Thread 2 meets it in the middle, then steals thread 0's last large item before taking
        // a small one of its own.
        let byThread2 = claimed(by: 2, 3)
        XCTAssertEqual(byThread2, [15, 16, 6])
        XCTAssertEqual((byThread1 + stolen + byThread2).map(isSmall), Array(repeating: false, count: 12))
        // With no large item left anywhere, thread 0 takes its first small one; thread 1 its own
        // small ones, then thread 2's from the end, then thread 0's.
        let byThread0 = claimed(by: 0, 3)
        XCTAssertEqual(byThread0, [3, 4, 2])
        let smallOnes = claimed(by: 1, 6)
        XCTAssertEqual(smallOnes, [8, 11, 14, 20, 17, 5])
        XCTAssertEqual(smallOnes.map(isSmall), Array(repeating: true, count: 6))
        // Every item is claimed exactly once (23 claims, 23 different items), and then nothing more.
        let all = byThread1 + [0, 1] + stolen + byThread2 + byThread0 + smallOnes
        XCTAssertEqual(Set(all), Set(0..<itemCount))
        for thread in 0..<3 { XCTAssertNil(claims.claim(as: thread, in: items.work)) }

        // The next segment starts afresh, with a claim word of a new generation.
        claims.publish(items.work)
        XCTAssertEqual(claims.claim(as: 2, in: items.work), 15)
    }

    /// 200 voices (25 groups) make 13 items of 2 groups, all alike: none is claimed last, so the
    /// claim word counts every item as large, and a thread takes its own share from the start and
    /// steals from the end of another's, in the first pass.
    func testItemsAllAlikeAreClaimedOwnFromTheStartAndStolenFromTheEnd() {
        let items = Items(voiceCapacity: 200)
        items.work.pointee.voiceCount = 200
        XCTAssertEqual(items.work.pointee.samplerItemCount, 13)
        XCTAssertFalse((0..<13).contains { items.work.pointee.isClaimedLast($0) })
        var claims = ItemClaims(threadCount: 2)
        defer { claims.deallocate() }
        claims.publish(items.work)
        XCTAssertEqual([0, 1].map { claims.share(of: $0, itemCount: 13) }, [0..<6, 6..<13])
        let word = claims.word(of: 1).pointee.load(ordering: .relaxed)
        XCTAssertEqual(Int((word >> ItemClaims.countShift) & 0xFF), 7)
        XCTAssertEqual(Int((word >> ItemClaims.largeCountShift) & 0xFF), 7)
        XCTAssertEqual((0..<9).map { _ in claims.claim(as: 1, in: items.work) ?? -1 }, [6, 7, 8, 9, 10, 11, 12, 5, 4])
        XCTAssertEqual((0..<5).map { _ in claims.claim(as: 0, in: items.work) ?? -1 }, [0, 1, 2, 3, -1])
    }
}
