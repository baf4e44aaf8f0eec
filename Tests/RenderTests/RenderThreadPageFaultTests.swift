import Engine
import Foundation
import Render
import Synchronization
import SoundFont
import TestSupport
import XCTest

/// The audio thread never waits on the kernel, and a page fault is such a wait: a minor one maps a
/// page (microseconds, more under memory pressure), a major one reads it from disk (milliseconds).
/// Once a bank is installed and the thread has rendered a block, playing every key of every preset
/// (so every sample's first pages, and the loops the notes reach, are read) faults no page in.
/// Counted by getrusage(RUSAGE_THREAD) on the render thread itself.
final class RenderThreadPageFaultTests: XCTestCase {
    final class Outcome: @unchecked Sendable {
        var minorFaults = -1
        var majorFaults = -1
        var renderedBlocks = 0
        var noteOns = 0
    }

    /// RUSAGE_THREAD (Linux, <sys/resource.h>), which Swift's Glibc module does not export.
    static let thisThread = __rusage_who_t(1)

    func testPlayingEverySampleOfAnInstalledFontFaultsNoPageOnTheRenderThread() throws {
        var fonts = [CommandRunner.shippedSoundFont]
        // A General MIDI font, where the machine has one: 128 presets and a kit, 148 MB of samples.
        let general = "/usr/share/sounds/sf2/FluidR3_GM.sf2"
        if FileManager.default.fileExists(atPath: general) { fonts.append(general) }
        for font in fonts {
            let outcome = try playEveryKey(of: SoundFontLoader.load(path: font, sampleRate: 48_000))
            XCTAssertGreaterThan(outcome.renderedBlocks, 0, font)
            XCTAssertGreaterThanOrEqual(outcome.noteOns, 128, "every key of every preset played: \(font)")
            XCTAssertEqual(outcome.minorFaults, 0, "minor page faults on the render thread playing \(font)")
            XCTAssertEqual(outcome.majorFaults, 0, "major page faults on the render thread playing \(font)")
        }
    }

    /// A bank that streams: opened with its first notes' heads only, under a sample cache that
    /// holds a third of the font, so bodies are decoded, dropped (their pages handed back) and
    /// decoded again while every key plays. The decoding thread makes every page resident before
    /// the frontier lets a voice read it: the render thread faults none in.
    func testPlayingAFontWhoseBodiesComeAndGoFaultsNoPageOnTheRenderThread() throws {
        let piano = PlayedNotes.startingPresets(kitPlaysPercussion: true, channels: 0..<1)
        let opened = try SoundFontLoader.open(path: CommandRunner.shippedSoundFont, sampleRate: 48_000, first: piano,
                                              options: .init(sampleCacheBytes: 4 << 20))
        defer { opened.decoding.cancel(); opened.decoding.wait() }
        let outcome = try playEveryKey(of: opened.bank)
        XCTAssertGreaterThanOrEqual(outcome.noteOns, 128)
        XCTAssertGreaterThan(opened.decoding.droppedBodyCount, 0, "bodies were dropped and their pages handed back")
        XCTAssertEqual(outcome.minorFaults, 0, "minor page faults on the render thread")
        XCTAssertEqual(outcome.majorFaults, 0, "major page faults on the render thread")
    }

    /// Installs `bank`, renders one block with a note sounding (the first block takes the bank in and
    /// runs the voice code once), then counts the render thread's faults while the control thread
    /// plays every key of every preset, a few blocks each.
    private func playEveryKey(of bank: SampleBank) throws -> Outcome {
        let engine = Engine(configuration: EngineConfiguration(render: RenderConfiguration(sampleRate: 48_000, channelCount: 2,
                                                                                           maxFrameCount: 512, voiceCount: 256)))
        XCTAssertTrue(engine.install(bank))
        let first = bank.presets[0]
        XCTAssertTrue(engine.send(midi: .noteOn(channel: first.bank == 128 ? 9 : 0, key: 60, velocity: 100)))
        let renderer = engine.renderer
        let outcome = Outcome()
        let warmedUp = DispatchSemaphore(value: 0)
        let stop = Atomic(false)
        let finished = DispatchSemaphore(value: 0)
        let thread = Thread {
            let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 512 * 2)
            renderer.render(into: buffer, frameCount: 64)
            warmedUp.signal()
            var before = rusage(), after = rusage()
            getrusage(Self.thisThread, &before)
            var blocks = 0
            while !stop.load(ordering: .acquiring) {
                renderer.render(into: buffer, frameCount: 64)
                blocks += 1
                usleep(50)
            }
            getrusage(Self.thisThread, &after)
            outcome.minorFaults = after.ru_minflt - before.ru_minflt
            outcome.majorFaults = after.ru_majflt - before.ru_majflt
            outcome.renderedBlocks = blocks
            buffer.deallocate()
            finished.signal()
        }
        thread.start()
        warmedUp.wait()

        // Each preset on a channel of its own (bank 128, the kits, on channel 10), every key held
        // for 4 blocks, 8 keys at a time.
        let melodicChannels = (0..<16).filter { $0 != 9 }.map(UInt8.init)
        var nextChannel = 0
        for preset in bank.presets {
            let channel: UInt8
            if preset.bank == 128 {
                channel = 9
            } else {
                channel = melodicChannels[nextChannel % melodicChannels.count]
                nextChannel += 1
                send(engine, .controlChange(channel: channel, controller: 0, value: UInt8(min(preset.bank, 127))))
            }
            send(engine, .programChange(channel: channel, program: preset.program))
            for chord in stride(from: 0, to: 128, by: 8) {
                let start = engine.renderedFrameTime + 64
                for key in chord..<chord + 8 {
                    send(engine, .noteOn(channel: channel, key: UInt8(key), velocity: 100), at: start)
                    send(engine, .noteOff(channel: channel, key: UInt8(key), velocity: 64), at: start + 4 * 64)
                }
                while engine.renderedFrameTime < start + 4 * 64 { usleep(100) }
                engine.processEvents()
            }
        }
        stop.store(true, ordering: .releasing)
        finished.wait()
        outcome.noteOns = renderer.statistics.noteOns
        return outcome
    }

    /// Sends `message`, waiting while the command ring is full (the render thread drains it).
    private func send(_ engine: Engine, _ message: MIDIMessage, at frame: FrameTime = 0) {
        while !engine.send(midi: message, at: frame) { usleep(100) }
    }

    /// The count must see a fault on its thread, or the test above could not fail: fresh pages,
    /// touched one by one, each fault in.
    func testTheThreadCountSeesPagesFaultIn() {
        let pageCount = 64
        let size = pageCount * Int(sysconf(Int32(_SC_PAGESIZE)))
        guard let memory = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), memory != MAP_FAILED else {
            return XCTFail("mmap: \(String(cString: strerror(errno)))")
        }
        defer { munmap(memory, size) }
        var before = rusage(), after = rusage()
        getrusage(Self.thisThread, &before)
        for offset in stride(from: 0, to: size, by: size / pageCount) { memory.storeBytes(of: 1, toByteOffset: offset, as: UInt8.self) }
        getrusage(Self.thisThread, &after)
        XCTAssertGreaterThanOrEqual(after.ru_minflt - before.ru_minflt, pageCount)
    }
}
