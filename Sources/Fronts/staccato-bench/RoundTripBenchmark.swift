import AudioIO
import DrumKitLoader
import Engine
import Foundation
import Render

/// The round trip through a virtual cable, measured rather than computed.
///
/// A duplex `PlaybackStream` on one loopback device plays drum hits at irregular times (broadband
/// transients, so the cross-correlation has one sharp peak rather than a tone's comb). What was
/// played is what the renderer wrote, recorded by the engine's `OutputTap`; what came back is the
/// stream's capture recording (`StreamConfiguration.captureRecordingFrameCount`). In the device
/// thread's loop, captured frame i is read while output frame i is rendered, so if played frame p
/// comes back as captured frame p + L, L frames is the round trip as the application sees it:
/// from rendering a frame to reading it back. L is the peak of the cross-correlation of the two
/// left channels over lags 0…8,192, refined to a fraction of a frame by a parabola through the
/// peak and its neighbours; it is found per half-second window (the cable now and then repeats or
/// skips a 64-frame block) and the median window is reported, with the spread.
///
/// Beside it, two buffer latencies. The textbook one, playback buffer (periods × period) plus one
/// capture period, is the worst case from a sound reaching the input to leaving the output with a
/// full playback buffer. What Staccato's duplex loop keeps in the same terms as L is less: it
/// pre-fills buffer − period of silence and each wake-up reads one captured period and writes one
/// rendered period at the same moment, so a rendered frame sits behind buffer − 2 periods of queue,
/// plays, and is read back one capture period later: buffer − period in all. The rest of L is
/// the sound server's (for JACK's loopback, its cycle of 64 frames).
///
/// The microphone also reaches the output (that is the renderer's duplex path), so the cable feeds
/// back; boost at −24 dB keeps each echo 24 dB below the one before, and the echo of a hit comes
/// exactly one round trip later, so it reinforces the same correlation peak instead of making a
/// new one.
enum RoundTripBenchmark {
    static let periodFrameCounts = [64, 128, 256]
    static let periodCounts = [2, 3]
    static let maximumLag = 8_192
    static let windowFrames = 24_000

    /// The server's loopback ports: the virtual cable a native JACK client's round trip goes
    /// through (`scripts/test-audio`).
    static let loopback = AudioTarget.Connections(outputs: .ports(["loopback:playback_1", "loopback:playback_2"]),
                                                  inputs: .ports(["loopback:capture_1", "loopback:capture_2"]))

    struct Window { var lag: Double; var correlation: Double }

    /// The round trip at every setting through `device` (an ALSA loopback PCM); with `jack`, also
    /// through a native JACK client on the loopback ports of the same server, at each period
    /// `serverPeriod` sets the server to, beside the ALSA plugin at that period, in the same run.
    static func run(device: String, jack: AudioTarget?, serverPeriod: JACKServerPeriod?, seconds: Double) throws -> [String: Any] {
        defer { serverPeriod?.restore() }
        let alsa = AudioTarget.alsa(device: device)
        let rate = 48_000
        print("Round trip: \(device)\(jack.map { " and the \($0.measuredName) (loopback ports)" } ?? ""), duplex, \(rate) Hz, \(seconds) s a setting; drum hits played and found in the capture by cross-correlation")
        print("measured = render -> read-back, median of half-second windows; queue = buffer - period (what the duplex loop keeps);")
        print("textbook = buffer + period (playback buffer + capture period); frames unless ms")
        print("  path    period x n  granted   measured     ms   (windows: min..max)     queue  rest  textbook      ms  xruns")
        var settings: [[String: Any]] = []
        for period in periodFrameCounts {
            if let serverPeriod {
                do { try serverPeriod.set(period) } catch { print("  \(error)"); continue }
            }
            for count in periodCounts {
                settings.append(measureSetting(path: "alsa", seconds: seconds, rate: rate, period: period, count: count) { renderer in
                    try alsa.stream(configuration: StreamConfiguration(
                        sampleRate: rate, periodFrameCount: period, periodCount: count, captureRecordingFrameCount: Int(seconds * Double(rate))),
                        renderer: renderer, captureDevice: device)
                })
            }
            if let jack {
                settings.append(measureSetting(path: "jack", seconds: seconds, rate: rate, period: period, count: 0) { renderer in
                    try jack.stream(configuration: StreamConfiguration(sampleRate: rate, periodFrameCount: period, captureRecordingFrameCount: Int(seconds * Double(rate))),
                                    renderer: renderer, capture: true)
                })
            }
        }
        var report: [String: Any] = ["device": device, "seconds_per_setting": seconds, "sample_rate": rate,
                "round_trip_definition": "captured frame index minus rendered frame index of the same sound (render to read-back)",
                "buffer_latency_definition": "textbook: playback buffer (periods x period) + one capture period",
                "duplex_queue_definition": "buffer - period: the pre-fill the duplex loop keeps ahead of each rendered frame, in the same terms as the round trip; the rest is the sound server's",
                "method": "cross-correlation of left channels per 0.5 s window, parabolic peak interpolation, median of windows with correlation > 0.5",
                "settings": settings]
        if jack != nil {
            report["jack_native"] = "path jack: a native JACK client, outputs to loopback:playback_1/2, inputs from loopback:capture_1/2, at the server's period; period_count 0"
            print("  native JACK client beside the ALSA jack plugin (same server, same period):")
            for period in periodFrameCounts {
                func lag(_ path: String, _ count: Int) -> Double? {
                    settings.first { $0["path"] as? String == path && $0["period_frames"] as? Int == period && $0["period_count"] as? Int == count }?["round_trip_frames"] as? Double
                }
                guard let native = lag("jack", 0) else { continue }
                let plugin = periodCounts.compactMap { count in lag("alsa", count).map { (count, $0) } }
                let text = plugin.map { String(format: "plugin x %d %.1f (native saves %.1f)", $0.0, $0.1, $0.1 - native) }.joined(separator: ", ")
                print(String(format: "    period %4d: native %.1f frames; ", period, native) + text)
            }
        }
        return report
    }

    /// One setting: the drum hits through the stream `makeStream` opens, the lag found.
    static func measureSetting(path: String, seconds: Double, rate: Int, period: Int, count: Int,
                               makeStream: (Renderer) throws -> PlaybackStream) -> [String: Any] {
        var setting: [String: Any] = ["path": path, "period_frames": period, "period_count": count]
        let name = "\(path.padding(toLength: 7, withPad: " ", startingAt: 0)) " + (count == 0 ? "\(period) server" : "\(period) x \(count)").padding(toLength: 11, withPad: " ", startingAt: 0)
        do {
            let manifest = InstrumentLoader.shippedFile("samples/drums/kit.json")
            let kit = try DrumKitLoader.load(manifest: manifest, sampleRate: Double(rate))
            let pads: [UInt8] = (0..<128).compactMap { kit.padForNote[$0] >= 0 ? UInt8($0) : nil }
            let engine = Engine(configuration: EngineConfiguration(
                render: RenderConfiguration(sampleRate: Double(rate), maxFrameCount: 4_096, outputLimiter: false, feedbackSuppression: false),
                recordingBufferSeconds: seconds + 1))
            engine.install(kit)
            engine.effects.boostDecibels.set(-24)
            let frames = Int(seconds * Double(rate))
            var generator = SystemRandomNumberGenerator()
            var at = 4_800
            var next = 0
            while at < frames - 4_800 {
                engine.send(midi: .noteOn(channel: 9, key: pads[next % pads.count], velocity: 110), at: FrameTime(at))
                next += 1
                at += Int.random(in: 1_500...6_000, using: &generator)
            }
            let stream = try makeStream(engine.renderer)
            try stream.start(frameLimit: frames)
            let outcome = stream.join()
            engine.processEvents()
            if case let .failed(error) = outcome { throw error }
            let played = engine.outputTap!.readAll(channelCount: stream.granted.channelCount)
            let captured = leftChannel(stream.capturedFrames, channelCount: stream.grantedCapture!.channelCount)
            let windows = findLags(played: played, captured: captured)
            let granted = stream.granted
            let buffer = granted.bufferFrameCount + granted.periodFrameCount
            // A JACK client buffers nothing of its own: a frame rendered in a cycle leaves in it.
            let queue = path == "jack" ? 0 : granted.bufferFrameCount - granted.periodFrameCount
            setting["granted"] = ["period_frames": granted.periodFrameCount, "buffer_frames": granted.bufferFrameCount]
            setting["buffer_latency_frames"] = buffer
            setting["buffer_latency_ms"] = granted.milliseconds(buffer)
            setting["duplex_queue_frames"] = queue
            setting["xruns"] = stream.xrunCount
            setting["windows"] = windows.map { ["lag_frames": $0.lag, "correlation": $0.correlation] }
            guard !windows.isEmpty else {
                setting["error"] = "no window correlated (is the device a loopback?)"
                print("  \(name) no window correlated above 0.5 (is it a loopback?)")
                return setting
            }
            let lags = windows.map(\.lag)
            let measured = lags.median
            setting["round_trip_frames"] = measured
            setting["round_trip_ms"] = measured * 1_000 / Double(rate)
            setting["round_trip_frames_min"] = lags.min()!
            setting["round_trip_frames_max"] = lags.max()!
            print("  \(name) \("\(granted.periodFrameCount)x\(granted.periodCount)".padding(toLength: 9, withPad: " ", startingAt: 0))"
                  + String(format: " %8.2f %6.3f   (%d: %.1f..%.1f)", measured, measured * 1_000 / Double(rate), windows.count, lags.min()!, lags.max()!)
                  + String(format: "  %8d %5.1f  %8d  %6.3f  %5d", queue, measured - Double(queue), buffer, granted.milliseconds(buffer), stream.xrunCount))
        } catch {
            setting["error"] = "\(error)"
            print("  \(name) \(error)")
        }
        return setting
    }

    static func leftChannel(_ interleaved: [Float], channelCount: Int) -> [Float] {
        stride(from: 0, to: interleaved.count - channelCount + 1, by: channelCount).map { interleaved[$0] }
    }

    /// Per window of played audio with something in it: the lag of the correlation peak, refined by
    /// a parabola, and the normalised correlation there; windows below 0.5 are left out.
    static func findLags(played: [Float], captured: [Float]) -> [Window] {
        var windows: [Window] = []
        var start = 0
        while start + windowFrames + maximumLag + 1 <= captured.count, start + windowFrames <= played.count {
            defer { start += windowFrames }
            let energy = (start..<start + windowFrames).reduce(0.0) { $0 + Double(played[$1] * played[$1]) }
            guard energy > 1e-6 else { continue }
            var scores = [Double](repeating: 0, count: maximumLag + 1)
            played.withUnsafeBufferPointer { p in
                captured.withUnsafeBufferPointer { c in
                    for lag in 0...maximumLag {
                        var sum: Float = 0
                        for index in start..<start + windowFrames { sum += p[index] * c[index + lag] }
                        scores[lag] = Double(sum)
                    }
                }
            }
            let peak = scores.indices.max { scores[$0] < scores[$1] }!
            guard peak > 0, peak < maximumLag else { continue }
            let capturedEnergy = (start + peak..<start + peak + windowFrames).reduce(0.0) { $0 + Double(captured[$1] * captured[$1]) }
            let correlation = scores[peak] / (energy * capturedEnergy).squareRoot()
            guard correlation > 0.5 else { continue }
            let (before, at, after) = (scores[peak - 1], scores[peak], scores[peak + 1])
            let curvature = before - 2 * at + after
            let offset = curvature == 0 ? 0 : 0.5 * (before - after) / curvature
            windows.append(Window(lag: Double(peak) + offset, correlation: correlation))
        }
        return windows
    }
}

extension OutputTap {
    /// Everything the tap holds, left channel only.
    func readAll(channelCount: Int) -> [Float] {
        var all: [Float] = []
        var chunk = [Float](repeating: 0, count: 4_096 * channelCount)
        while true {
            let frames = chunk.withUnsafeMutableBufferPointer { read(into: $0) }
            if frames == 0 { break }
            all += chunk[0..<frames * channelCount]
        }
        return RoundTripBenchmark.leftChannel(all, channelCount: channelCount)
    }
}
