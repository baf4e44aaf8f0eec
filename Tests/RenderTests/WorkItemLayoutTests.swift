@testable import Render
import XCTest

/// How a segment's voices are split into work items (`VoiceWorkItems.voiceRange(ofItem:)`) and in
/// which order the threads claim them (`ItemClaims`): every voice in exactly one item, in whole
/// groups, in runs of two large items and a small one; each thread claims its own large items,
/// then its own small ones, then steals another's small ones before its large ones.
final class WorkItemLayoutTests: XCTestCase {
    final class Items {
        let voice = VoicePool.allocateVoices(1)
        let channels = UnsafeMutablePointer<ChannelState>.allocate(capacity: 1)
        let work = UnsafeMutablePointer<VoiceWorkItems>.allocate(capacity: 1)

        init(voiceCapacity: Int) {
            work.initialize(to: VoiceWorkItems(voiceCapacity: voiceCapacity, firstVoice: voice,
                                               context: VoiceRenderContext(channels: channels, sampleRate: 48_000, sendsEnabled: true,
                                                                           interpolation: .cubic, kernel: .generic)))
        }

        deinit {
            work.pointee.deallocate()
            work.deallocate()
            UnsafeMutableRawPointer(voice).deallocate()
            channels.deallocate()
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
    func testEachThreadClaimsItsLargeItemsThenItsSmallOnesThenStealsSmallOnesFirst() {
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

        // Thread 1 takes its whole share: the large items in order, then the small ones.
        var byThread1: [Int] = []
        for _ in shares[1] { byThread1.append(claims.claim(as: 1, in: items.work)!) }
        XCTAssertEqual(byThread1, [7, 9, 10, 12, 13, 8, 11, 14])
        // Thread 0 takes two of its own: the first large ones.
        XCTAssertEqual(claims.claim(as: 0, in: items.work), 0)
        XCTAssertEqual(claims.claim(as: 0, in: items.work), 1)
        // Thread 1, out of items, steals from thread 2's share (the next thread's first), small
        // items from the end first.
        let stolen = (0..<3).map { _ in claims.claim(as: 1, in: items.work)! }
        XCTAssertEqual(stolen, [20, 17, 22])
        XCTAssertEqual(stolen.map(isSmall), [true, true, false])
        // Everything is claimed exactly once, and then nothing more.
        var claimed = Set(byThread1 + [0, 1] + stolen)
        for thread in [2, 0, 2, 1, 0] {
            while let item = claims.claim(as: thread, in: items.work) {
                XCTAssertTrue(claimed.insert(item).inserted, "item \(item) claimed twice")
            }
        }
        XCTAssertEqual(claimed, Set(0..<itemCount))
        for thread in 0..<3 { XCTAssertNil(claims.claim(as: thread, in: items.work)) }

        // The next segment starts afresh, with a claim word of a new generation.
        claims.publish(items.work)
        XCTAssertEqual(claims.claim(as: 2, in: items.work), 15)
    }
}
