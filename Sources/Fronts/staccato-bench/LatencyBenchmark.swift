import AudioIO
import Engine
import Foundation
import Render

/// How small a period the device thread keeps up with, the way alsa-lib's `test/latency.c` searches
/// for the smallest latency: play each period size (16 … 1024 frames, 2 and 3 periods) through
/// `PlaybackStream` for a few seconds, with the stream's per-period timing record switched on, and
/// read from it the render-callback time (render start → end) and the wake-up jitter (intervals
/// between successive wake-ups). The smallest period that ran without an xrun is the figure.
///
/// The first periods of each run are left out of the statistics: playback starts by filling its
/// buffer without waiting, so those wake-ups are not paced by the device.
enum LatencyBenchmark {
    static let periodFrameCounts = [16, 32, 64, 128, 256, 512, 1_024]
    static let periodCounts = [2, 3]

    struct Figure {
        /// `alsa` (a PCM) or `jack` (the native client).
        var path = "alsa"
        var requestedPeriod: Int
        var requestedCount: Int
        var granted: GrantedConfiguration?
        var error: String?
        var renderNanoseconds: [UInt64] = []  // sorted
        var intervalNanoseconds: [UInt64] = []  // sorted
        var xruns = 0
        var voices = 0
        /// The fewest voices sounding at any poll after the first second: a long run must show
        /// that its load held, since held notes of a real instrument decay.
        var fewestVoices = 0
        var realtime = ""
        /// A bare real-time thread's wake-ups in the same run (`WakeupProbe`).
        var probe: WakeupProbe.Figures?

        var deadlineNanoseconds: UInt64 {
            guard let granted else { return 0 }
            return UInt64(granted.periodFrameCount) * 1_000_000_000 / UInt64(granted.sampleRate)
        }
        var headroomNanoseconds: Int64 { Int64(deadlineNanoseconds) - Int64(renderNanoseconds.sortedQuantile(0.999)) }
        /// Wake-up jitter: p99 minus p50 of the intervals between wake-ups.
        var jitterNanoseconds: UInt64 { intervalNanoseconds.sortedQuantile(0.99) - intervalNanoseconds.sortedQuantile(0.5) }
        var ran: Bool { error == nil && !renderNanoseconds.isEmpty }
    }

    /// One setting through `audio`; with `serverPeriod`, the JACK server is set to `period` first.
    static func measure(audio: AudioTarget, serverPeriod: JACKServerPeriod? = nil, period: Int, count: Int, seconds: Double, rate: Int,
                        voices: Int, bank: SampleBank?, mic: Bool) -> Figure {
        var figure = Figure(path: audio.backend.rawValue, requestedPeriod: period, requestedCount: count)
        let engine = Engine(configuration: EngineConfiguration(render: RenderConfiguration(
            sampleRate: Double(rate), maxFrameCount: 4_096, voiceCount: max(256, voices + 64))))
        if mic {
            // Every stage of the microphone chain doing work, as in a live set: a chain left at its
            // neutral settings would measure less than a person using it.
            engine.effects.bassDecibels.set(3)
            engine.effects.trebleDecibels.set(2)
            engine.effects.boostDecibels.set(6)
            engine.effects.reverbPercent.set(20)
        }
        if let bank {
            engine.install(bank)
            let held = HeldNotes(bank: bank)
            held.prepare(engine)
            // Two voices a note (the font's stereo pairs), as in the polyphony benchmark.
            held.strike(engine, 0..<(voices + 1) / 2)
        }
        let frames = Int(seconds * Double(rate))
        let configuration = StreamConfiguration(sampleRate: rate, periodFrameCount: period, periodCount: count,
                                                timingCapacity: frames / period + 64)
        do {
            try serverPeriod?.set(period)
            // Duplex: the ALSA PCM captures too; a JACK client has input ports.
            let stream = try audio.stream(configuration: configuration, renderer: engine.renderer,
                                          captureDevice: mic && audio.backend == .alsa ? audio.device : nil, capture: mic)
            // Started first: a JACK client knows its ports' latency (its buffer) once connected.
            try stream.start(frameLimit: frames)
            figure.granted = stream.granted
            let granted = stream.granted
            let probe = WakeupProbe(periodNanoseconds: granted.periodFrameCount * 1_000_000_000 / granted.sampleRate,
                                    slackNanoseconds: (granted.bufferFrameCount - granted.periodFrameCount) * 1_000_000_000 / granted.sampleRate,
                                    capacity: frames / granted.periodFrameCount + 64)
            defer { figure.probe = probe.stop() }
            figure.realtime = "\(stream.realtimeScheduling)"
            var peakVoices = 0, fewestVoices = Int.max, polls = 0
            while !stream.isDone {
                usleep(100_000)
                polls += 1
                let sounding = engine.renderer.statistics.activeVoices
                peakVoices = max(peakVoices, sounding)
                if polls > 10 { fewestVoices = min(fewestVoices, sounding) }
            }
            if case let .failed(error) = stream.join() { figure.error = error.description }
            engine.processEvents()
            figure.xruns = stream.xrunCount
            figure.voices = peakVoices
            figure.fewestVoices = fewestVoices == Int.max ? peakVoices : fewestVoices
            let timings = stream.periodTimings
            let warmUp = max(2 * stream.granted.periodCount, Int(0.1 * Double(rate)) / stream.granted.periodFrameCount)
            guard timings.count > warmUp + 2 else { return figure }
            let paced = timings[warmUp...]
            figure.renderNanoseconds = paced.map { $0.renderEnd - $0.renderStart }.sorted()
            figure.intervalNanoseconds = zip(paced.dropFirst(), paced).map { $0.wakeup - $1.wakeup }.sorted()
        } catch {
            figure.error = "\(error)"
        }
        return figure
    }

    /// With JACK, the server sets the buffer (its periods per buffer are its own): each setting is
    /// a period alone, `period x 0` in the figures, and `serverPeriod` sets the server to it.
    /// With JACK and `beside` (an ALSA PCM on the same server, through its jack plugin), each
    /// period is measured through both, one after the other, at the same server period.
    static func run(audio: AudioTarget, serverPeriod: JACKServerPeriod? = nil, beside: AudioTarget? = nil, seconds: Double, rate: Int, voices: Int, mic: Bool,
                    periodFrameCounts: [Int] = LatencyBenchmark.periodFrameCounts, periodCounts requestedCounts: [Int] = LatencyBenchmark.periodCounts) throws -> [String: Any] {
        defer { serverPeriod?.restore() }
        let device = audio.measuredName + (beside.map { " beside \($0.measuredName) (the ALSA jack plugin), at each server period" } ?? "")
        let periodCounts = audio.backend == .jack ? [0] : requestedCounts
        let bank = voices > 0 ? try InstrumentLoader.load(path: InstrumentLoader.defaultSoundFontPath, sampleRate: Double(rate)) : nil
        print("Latency: \(device)\(mic ? " duplex (capture from the same device; mic chain: bass +3, treble +2, boost +6 dB, reverb 20 %)" : " playback"), \(rate) Hz, \(seconds) s a setting, \(voices) held sampler voices")
        print("render = renderer.render per period; jitter = p99 - p50 of the intervals between device-thread wake-ups; times in µs")
        print("bare = a thread that only wakes once a period at the same priority, in the same run: its wake-ups later than the")
        print("buffer's slack (buffer - period), each an xrun for any program, and its latest wake-up")
        print("  path  period x n  granted           p50     p99   p99.9     max  deadline  headroom  xruns  jitter  voices (fewest-peak)  bare: late  latest")
        var figures: [Figure] = []
        for period in periodFrameCounts {
            if let beside {
                // The server at this period first (the native client's measure sets it too).
                do { try serverPeriod?.set(period) } catch { print("  \(error)"); continue }
                for count in requestedCounts {
                    let figure = measure(audio: beside, period: period, count: count, seconds: seconds, rate: rate,
                                         voices: voices, bank: bank, mic: mic)
                    figures.append(figure)
                    show(figure)
                }
            }
            for count in periodCounts {
                let figure = measure(audio: audio, serverPeriod: serverPeriod, period: period, count: count, seconds: seconds, rate: rate,
                                     voices: voices, bank: bank, mic: mic)
                figures.append(figure)
                show(figure)
            }
        }
        let clean = figures.filter { $0.ran && $0.xruns == 0 && $0.error == nil }
        var smallest: [String: Any] = [:]
        let paths: [String] = Set(figures.map { $0.path }).sorted()
        for path in paths {
            for count in (path == "jack" ? [0] : requestedCounts) {
                let key = paths.count > 1 ? "\(path)_\(count)_periods" : "\(count)_periods"
                let what = path == "jack" ? "native JACK client" : "\(count) periods"
                let candidates: [Figure] = clean.filter { $0.path == path && $0.requestedCount == count }
                if let best = candidates.min(by: { $0.granted!.periodFrameCount < $1.granted!.periodFrameCount }), let granted = best.granted {
                    let milliseconds = String(format: "%.2f", granted.milliseconds(granted.periodFrameCount))
                    print("  smallest period without an xrun, \(what): \(granted.periodFrameCount) frames (\(milliseconds) ms)")
                    smallest[key] = granted.periodFrameCount
                } else {
                    print("  smallest period without an xrun, \(what): none")
                    smallest[key] = NSNull()
                }
            }
        }
        if let best = clean.min(by: { $0.granted!.bufferFrameCount < $1.granted!.bufferFrameCount }) {
            print("  smallest buffer without an xrun: \(best.granted!.periodFrameCount) x \(best.granted!.periodCount) = \(best.granted!.bufferFrameCount) frames (\(String(format: "%.2f", best.granted!.milliseconds(best.granted!.bufferFrameCount))) ms)")
            smallest["buffer_frames"] = best.granted!.bufferFrameCount
            smallest["buffer_period_frames"] = best.granted!.periodFrameCount
            smallest["buffer_period_count"] = best.granted!.periodCount
        }
        return ["device": device, "seconds_per_setting": seconds, "sample_rate": rate, "voices": voices, "duplex": mic,
                "mic_chain": mic ? "bass +3 dB, treble +2 dB, boost +6 dB, reverb 20 %" : NSNull(),
                "jitter_definition": "p99 - p50 of intervals between device-thread wake-ups",
                "warm_up": "first max(2 x periods, 100 ms) periods left out",
                "settings": figures.map(json), "smallest_without_xrun": smallest]
    }

    static func microseconds(_ nanoseconds: some BinaryInteger) -> Double { Double(nanoseconds) / 1_000 }

    static func show(_ figure: Figure) {
        let count = figure.requestedCount == 0 ? "jack" : "x \(figure.requestedCount)"
        let name = figure.path.padding(toLength: 5, withPad: " ", startingAt: 0) + " " + "\(figure.requestedPeriod) \(count)".padding(toLength: 11, withPad: " ", startingAt: 0)
        guard let granted = figure.granted, figure.ran else {
            return print("  \(name) \(figure.error ?? "no periods timed")")
        }
        let grant = "\(granted.periodFrameCount)x\(granted.periodCount) \(granted.format)".padding(toLength: 16, withPad: " ", startingAt: 0)
        let times = [0.5, 0.99, 0.999].map { figure.renderNanoseconds.sortedQuantile($0) } + [figure.renderNanoseconds.last!]
        let columns = times.map { String(format: "%7.1f", microseconds($0)) }.joined(separator: " ")
        print("  \(name) \(grant) \(columns) \(String(format: "%9.0f %9.0f", microseconds(figure.deadlineNanoseconds), microseconds(figure.headroomNanoseconds)))"
              + " \(String(format: "%6d %7.0f %7d-%d", figure.xruns, microseconds(figure.jitterNanoseconds), figure.fewestVoices, figure.voices))"
              + (figure.probe.map { String(format: "  %10d %7.0f", $0.lateBeyondSlack, microseconds($0.maxNanoseconds)) } ?? "")
              + (figure.error.map { "  (\($0))" } ?? ""))
    }

    static func json(_ figure: Figure) -> [String: Any] {
        var object: [String: Any] = ["path": figure.path, "period_frames": figure.requestedPeriod, "period_count": figure.requestedCount]
        if let error = figure.error { object["error"] = error }
        guard let granted = figure.granted, figure.ran else { return object }
        let render = figure.renderNanoseconds, intervals = figure.intervalNanoseconds
        object["granted"] = ["period_frames": granted.periodFrameCount, "buffer_frames": granted.bufferFrameCount,
                             "format": "\(granted.format)", "sample_rate": granted.sampleRate, "channels": granted.channelCount]
        object["render_us"] = ["p50": microseconds(render.sortedQuantile(0.5)), "p99": microseconds(render.sortedQuantile(0.99)),
                               "p99_9": microseconds(render.sortedQuantile(0.999)), "max": microseconds(render.last!)]
        object["deadline_us"] = microseconds(figure.deadlineNanoseconds)
        object["headroom_us"] = microseconds(figure.headroomNanoseconds)
        object["xruns"] = figure.xruns
        object["wakeup_interval_us"] = ["p50": microseconds(intervals.sortedQuantile(0.5)), "p99": microseconds(intervals.sortedQuantile(0.99)),
                                        "max": microseconds(intervals.last ?? 0)]
        object["wakeup_jitter_us"] = microseconds(figure.jitterNanoseconds)
        object["periods_timed"] = render.count
        object["peak_voices"] = figure.voices
        object["fewest_voices_after_1_s"] = figure.fewestVoices
        object["render_histogram"] = RenderTimeHistogram(sortedNanoseconds: render).json
        object["scheduling"] = figure.realtime
        if let probe = figure.probe { object["bare_thread_wakeups"] = probe.json }
        return object
    }
}
