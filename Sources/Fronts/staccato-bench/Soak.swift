import AudioIO
import DrumKitLoader
import Engine
import Foundation
import Render

/// Hours of use in minutes: the engine runs duplex on a paced device (the microphone chain live)
/// at 64-frame periods while a seeded random player throws note storms, sustain pedal, program
/// changes, drum rolls and knob turns at it. Reported: xruns, refused commands, peak voices, the
/// voices still sounding once everything was released and given time to ring out (stuck voices:
/// must be 0), and resident memory sampled every 10 s (must be flat after warm-up).
enum Soak {
    static let melodicChannels: [UInt8] = [0, 1, 2, 3, 4, 5]
    static let drumChannel: UInt8 = 9
    static let memoryInterval = 10.0
    /// Long enough for the longest release in the shipped font and the longest drum sample.
    static let ringOutLimitSeconds = 15.0

    /// libc's 48-bit generator with its own state: the same seed plays the same soak.
    struct Rand48Generator: RandomNumberGenerator {
        private var state: (UInt16, UInt16, UInt16)
        init(seed: UInt64) { state = (0x330E, UInt16(truncatingIfNeeded: seed), UInt16(truncatingIfNeeded: seed >> 16)) }
        mutating func next() -> UInt64 {
            withUnsafeMutableBytes(of: &state) { bytes in
                let words = bytes.baseAddress!.assumingMemoryBound(to: UInt16.self)
                return UInt64(UInt32(truncatingIfNeeded: jrand48(words))) << 32 | UInt64(UInt32(truncatingIfNeeded: jrand48(words)))
            }
        }
    }

    /// A note-off the player owes, due at a frame.
    struct PendingNoteOff {
        var dueFrame: FrameTime
        var channel: UInt8
        var key: UInt8
    }

    /// The random player: each wake-up it may start one of the gestures, and it keeps every note it
    /// started until its note-off is sent.
    struct Player {
        var generator: Rand48Generator
        var owed: [PendingNoteOff] = []
        var drumRollEnd: FrameTime = 0
        var nextDrumHit: FrameTime = 0
        var drumKeys: [UInt8]
        var programs: [UInt8]
        var gestures: [String: Int] = [:]

        mutating func play(_ engine: Engine, now: FrameTime, rate: Double) {
            let roll = Int.random(in: 0..<1_000, using: &generator)
            switch roll {
            case 0..<3: storm(engine, now: now, rate: rate)
            case 3..<8:
                let channel = melodicChannels.randomElement(using: &generator)!
                engine.send(midi: .controlChange(channel: channel, controller: 64, value: Bool.random(using: &generator) ? 127 : 0))
                gestures["pedal", default: 0] += 1
            case 8..<11:
                engine.send(midi: .programChange(channel: melodicChannels.randomElement(using: &generator)!,
                                           program: programs.randomElement(using: &generator)!))
                gestures["program change", default: 0] += 1
            case 11..<14 where now >= drumRollEnd:
                drumRollEnd = now + FrameTime(Double.random(in: 0.5...2, using: &generator) * rate)
                nextDrumHit = now
                gestures["drum roll", default: 0] += 1
            case 14..<22:
                let knobs = [engine.effects.bassDecibels, engine.effects.trebleDecibels, engine.effects.boostDecibels, engine.effects.reverbPercent]
                let knob = knobs.randomElement(using: &generator)!
                knob.set(Float.random(in: knob.range, using: &generator))
                gestures["knob", default: 0] += 1
            case 22..<24:
                engine.send(.reverbPreset([.smallRoom, .mediumRoom, .largeHall, .plate].randomElement(using: &generator)!))
                gestures["reverb preset", default: 0] += 1
            default: break
            }
            // A roll: 15-30 hits a second on one or two pads, accents at random.
            while !drumKeys.isEmpty, now < drumRollEnd, nextDrumHit <= now + FrameTime(rate / 50) {
                engine.send(midi: .noteOn(channel: drumChannel, key: drumKeys.randomElement(using: &generator)!,
                                    velocity: UInt8.random(in: 40...127, using: &generator)), at: nextDrumHit)
                nextDrumHit += FrameTime(rate / Double.random(in: 15...30, using: &generator))
            }
            sendDueNoteOffs(engine, before: now + FrameTime(rate / 50))
        }

        /// 10-80 notes within a tenth of a second across the melodic channels, each held 30 ms-2 s.
        mutating func storm(_ engine: Engine, now: FrameTime, rate: Double) {
            for _ in 0..<Int.random(in: 10...80, using: &generator) {
                let start = now + FrameTime(Double.random(in: 0...0.1, using: &generator) * rate)
                let channel = melodicChannels.randomElement(using: &generator)!
                let key = UInt8.random(in: 24...108, using: &generator)
                engine.send(midi: .noteOn(channel: channel, key: key, velocity: UInt8.random(in: 20...127, using: &generator)), at: start)
                owed.append(PendingNoteOff(dueFrame: start + FrameTime(Double.random(in: 0.03...2, using: &generator) * rate),
                                           channel: channel, key: key))
            }
            // Kept sorted by due frame: the loop below sends, front first, those that fall due.
            owed.sort { $0.dueFrame < $1.dueFrame }
            gestures["note storm", default: 0] += 1
        }

        mutating func sendDueNoteOffs(_ engine: Engine, before frame: FrameTime) {
            var sent = 0
            while sent < owed.count, owed[sent].dueFrame < frame {
                engine.send(midi: .noteOff(channel: owed[sent].channel, key: owed[sent].key, velocity: 64), at: owed[sent].dueFrame)
                sent += 1
            }
            owed.removeFirst(sent)
        }
    }

    /// Resident memory of this process in KiB (VmRSS).
    static func residentKilobytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return 0 }
        return Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" })[1]) ?? 0
    }

    /// Least-squares slope of `values` sampled at `times` (per unit of time).
    static func slope(_ times: [Double], _ values: [Double]) -> Double {
        let n = Double(times.count)
        guard n >= 2 else { return 0 }
        let meanTime = times.reduce(0, +) / n, meanValue = values.reduce(0, +) / n
        let covariance = zip(times, values).reduce(0) { $0 + ($1.0 - meanTime) * ($1.1 - meanValue) }
        let variance = times.reduce(0) { $0 + ($1 - meanTime) * ($1 - meanTime) }
        return variance > 0 ? covariance / variance : 0
    }

    static func run(device: String, seconds: Double, period: Int, seed: UInt64) throws -> [String: Any] {
        let rate = 48_000
        let configuration = StreamConfiguration(sampleRate: rate, periodFrameCount: period, periodCount: 3)
        let engine = Engine(configuration: EngineConfiguration(
            render: RenderConfiguration(sampleRate: Double(rate), maxFrameCount: max(4_096, period + 1), voiceCount: 256),
            initialMasterVolume: 0.5))
        let bank = try InstrumentLoader.load(path: InstrumentLoader.defaultSoundFontPath, sampleRate: Double(rate))
        let kit = try DrumKitLoader.load(manifest: InstrumentLoader.shippedFile("samples/drums/kit.json"), sampleRate: Double(rate))
        engine.install(bank)
        engine.install(kit)
        let drumKeys = (0..<128).filter { kit.padForNote[$0] >= 0 }.map(UInt8.init)
        let programs = Array(Set(bank.presets.filter { $0.bank == 0 }.map(\.program))).sorted()
        var player = Player(generator: Rand48Generator(seed: seed), drumKeys: drumKeys, programs: programs)

        let stream = try PlaybackStream(device: device, configuration: configuration, renderer: engine.renderer, captureDevice: device)
        print("soak: \(String(format: "%.0f", seconds)) s on '\(device)' duplex: \(stream.granted); seed \(seed); programs \(programs), \(drumKeys.count) drum pads")
        let granted = stream.granted
        // What the machine allows in the same run: a wake-up this late would be an xrun for anyone.
        let probe = WakeupProbe(periodNanoseconds: granted.periodFrameCount * 1_000_000_000 / granted.sampleRate,
                                slackNanoseconds: (granted.bufferFrameCount - granted.periodFrameCount) * 1_000_000_000 / granted.sampleRate,
                                capacity: Int((seconds + ringOutLimitSeconds) * Double(granted.sampleRate)) / granted.periodFrameCount + 64)
        try stream.start()
        print("audio thread: \(stream.realtimeScheduling)")

        let started = MonotonicClock.seconds()
        var memory: [(seconds: Double, kilobytes: Int)] = [(0, residentKilobytes())]
        var peakVoices = 0, peakDrumVoices = 0
        while !stream.isDone, MonotonicClock.seconds() - started < seconds {
            let now = engine.renderedFrameTime
            // Stay a little ahead of the audio thread, as a sequencer does.
            player.play(engine, now: now + FrameTime(rate / 100), rate: Double(rate))
            engine.processEvents()
            let statistics = engine.renderer.statistics
            peakVoices = max(peakVoices, statistics.activeVoices)
            peakDrumVoices = max(peakDrumVoices, statistics.activeDrumVoices)
            let elapsed = MonotonicClock.seconds() - started
            if elapsed >= Double(memory.count) * memoryInterval {
                memory.append((elapsed, residentKilobytes()))
                print("  \(Int(elapsed)) s: VmRSS \(memory.last!.kilobytes) KiB, voices \(statistics.activeVoices) + \(statistics.activeDrumVoices) drums, xruns \(stream.xrunCount), refused \(engine.refusedCommandCount)")
            }
            usleep(5_000)
        }

        // Let go of everything: owed note-offs, then all notes off and pedals up; let it ring out.
        player.sendDueNoteOffs(engine, before: .max)
        engine.releaseAllNotes(at: engine.latestCommandFrameTime)
        player.drumRollEnd = 0
        let releasedAt = MonotonicClock.seconds()
        var ringOutSeconds = 0.0
        while !stream.isDone, MonotonicClock.seconds() - releasedAt < ringOutLimitSeconds {
            engine.processEvents()
            let statistics = engine.renderer.statistics
            if statistics.activeVoices + statistics.activeDrumVoices == 0, engine.pendingReleaseCount == 0 {
                ringOutSeconds = MonotonicClock.seconds() - releasedAt
                break
            }
            usleep(10_000)
        }
        let final = engine.renderer.statistics
        let bare = probe.stop()
        stream.stop()
        let outcome = stream.join()
        engine.processEvents()
        if case let .failed(error) = outcome { throw error }

        let stuckVoices = final.activeVoices + final.activeDrumVoices
        let warmUp = memory.dropFirst()  // the first sample precedes the first storm
        let slopePerMinute = slope(warmUp.map(\.seconds), warmUp.map { Double($0.kilobytes) }) * 60
        let startKilobytes = warmUp.first?.kilobytes ?? memory[0].kilobytes
        let endKilobytes = memory.last!.kilobytes
        let summary: [(String, String, String)] = [
            ("duration", String(format: "%.1f", MonotonicClock.seconds() - started), "s"),
            ("frames played", "\(stream.framesWritten)", "frames"),
            ("xruns", "\(stream.xrunCount)", ""),
            ("bare thread late beyond the slack", "\(bare.lateBeyondSlack)", "wake-ups"),
            ("bare thread latest wake-up", "\(bare.maxNanoseconds / 1_000)", "µs"),
            ("refused commands", "\(engine.refusedCommandCount)", ""),
            ("releases deferred", "\(engine.deferredReleaseCount)", ""),
            ("peak voices", "\(peakVoices)", "voices"),
            ("peak drum voices", "\(peakDrumVoices)", "voices"),
            ("renderer peak voices", "\(final.peakVoices)", "voices"),
            ("stolen voices", "\(final.stolenVoices)", "voices"),
            ("note-ons", "\(final.noteOns)", ""),
            ("drum hits", "\(final.drumHits)", ""),
            ("stuck voices after release", "\(stuckVoices)", "voices"),
            ("silent after all notes off", stuckVoices == 0 ? String(format: "%.2f", ringOutSeconds) : "never", stuckVoices == 0 ? "s" : ""),
            ("VmRSS at start", "\(memory[0].kilobytes)", "KiB"),
            ("VmRSS after warm-up", "\(startKilobytes)", "KiB"),
            ("VmRSS at end", "\(endKilobytes)", "KiB"),
            ("VmRSS growth", "\(endKilobytes - startKilobytes)", "KiB"),
            ("VmRSS slope", String(format: "%.1f", slopePerMinute), "KiB/min"),
            ("input resampling", String(format: "%+.1f", stream.resamplingPartsPerMillion), "ppm"),
        ] + player.gestures.sorted { $0.key < $1.key }.map { ("gesture: \($0.key)", "\($0.value)", "times") }
        print("soak summary:")
        print(table(summary))
        return [
            "device": device, "seconds": seconds, "periodFrames": stream.granted.periodFrameCount, "periods": stream.granted.periodCount,
            "seed": seed, "realtime": "\(stream.realtimeScheduling)", "framesPlayed": stream.framesWritten,
            "xruns": stream.xrunCount, "bareThreadWakeups": bare.json, "refusedCommands": engine.refusedCommandCount, "deferredReleases": engine.deferredReleaseCount,
            "droppedEvents": engine.renderer.droppedEventCount,
            "peakVoices": peakVoices, "peakDrumVoices": peakDrumVoices, "rendererPeakVoices": final.peakVoices,
            "stolenVoices": final.stolenVoices, "noteOns": final.noteOns, "drumHits": final.drumHits,
            "stuckVoicesAfterRelease": stuckVoices, "ringOutSeconds": ringOutSeconds,
            "inputResamplingPPM": stream.resamplingPartsPerMillion,
            "gestures": player.gestures,
            "residentKilobytes": memory.map { ["seconds": ($0.seconds * 10).rounded() / 10, "kilobytes": $0.kilobytes] },
            "residentKilobytesAfterWarmUp": startKilobytes, "residentKilobytesAtEnd": endKilobytes,
            "residentGrowthKilobytes": endKilobytes - startKilobytes, "residentSlopeKilobytesPerMinute": (slopePerMinute * 10).rounded() / 10,
        ]
    }

    /// Rows of (what, value, unit) as aligned columns: names left, values right, units after.
    static func table(_ rows: [(name: String, value: String, unit: String)]) -> String {
        let nameWidth = rows.map(\.name.count).max() ?? 0
        let valueWidth = rows.map(\.value.count).max() ?? 0
        return rows.map { row in
            "  " + row.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0) + "  "
                + String(repeating: " ", count: valueWidth - row.value.count) + row.value
                + (row.unit.isEmpty ? "" : " " + row.unit)
        }.joined(separator: "\n")
    }
}
