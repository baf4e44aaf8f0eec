import AudioFile
import Engine
import Foundation
import Glibc
import MIDI
import Render
import SampleSet
import SFZ

/// A sample library larger than a player may hold, made on the spot (never committed): an SFZ
/// instrument of 88 keys × 4 velocity layers, one 16-bit mono WAV file each, sized to the
/// gigabytes of decoded (float) audio asked for, written to the temporary folder on disk. Then:
/// - how long `staccato play` takes to be ready on it, and its peak memory, under the default
///   sample cache (the command's own "playing" line, timed from launch; `wait4`'s peak RSS);
/// - a dense passage rendered through the library loaded for the song (`staccato render`, its
///   wall time and peak RSS) and, in this process, through the whole library decoded into
///   memory: the two renders compared sample for sample.
enum LibraryBenchmark {
    static let keys = 21...108
    static let layers = 4
    static let rate = 48_000

    /// Writes the library into `folder`: returns the SFZ's path and the decoded bytes.
    static func make(in folder: String, gigabytes: Double) throws -> (path: String, decodedBytes: Int) {
        let fileCount = keys.count * layers
        let framesPerFile = Int(gigabytes * Double(1 << 30) / 4 / Double(fileCount))
        var text = "// made by staccato-bench library: \(fileCount) files of \(framesPerFile) frames\n"
        // One period of a sine per key and layer, repeated: cheap to write, each file distinct.
        var buffer = [Float](repeating: 0, count: 65_536)
        for key in keys {
            for layer in 0..<layers {
                let name = "k\(key)v\(layer).wav"
                let frequency = 440 * pow(2, Double(key - 69) / 12)
                let writer = try AudioFileWriter(path: folder + "/" + name, sampleRate: rate, channelCount: 1, format: .wav16)
                var written = 0
                while written < framesPerFile {
                    let count = min(buffer.count, framesPerFile - written)
                    for index in 0..<count {
                        let phase = Double(written + index) * frequency / Double(rate)
                        buffer[index] = Float(0.2 + 0.2 * Double(layer)) * Float(sin(2 * Double.pi * (phase - phase.rounded(.down))))
                    }
                    try writer.write(Array(buffer[..<count]))
                    written += count
                }
                try writer.close()
                text += "<region> sample=\(name) key=\(key) lovel=\(layer * 32 + 1) hivel=\(min(127, layer * 32 + 32))\n"
            }
        }
        let path = folder + "/library.sfz"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return (path, fileCount * framesPerFile * 4)
    }

    /// A dense passage: chords of 8 across the keyboard and every layer, a new one each 0.25 s
    /// for 10 s, each note held 2 s.
    static func passage() -> MIDIFile {
        var events: [TrackEvent] = []
        for chord in 0..<40 {
            let tick = chord * 120
            for voice in 0..<8 {
                let key = UInt8(keys.lowerBound + (chord * 7 + voice * 11) % keys.count)
                let velocity = UInt8(1 + (chord + voice) * 37 % 127)
                events.append(TrackEvent(tick: tick, kind: .channel(.noteOn(channel: 0, key: key, velocity: velocity))))
                events.append(TrackEvent(tick: tick + 960, kind: .channel(.noteOff(channel: 0, key: key, velocity: 0))))
            }
        }
        events.sort { $0.tick < $1.tick }
        events.append(TrackEvent(tick: 40 * 120 + 960, kind: .endOfTrack))
        return MIDIFile(format: 0, division: .ticksPerQuarter(480), tracks: [events])
    }

    static func run(gigabytes: Double) throws -> [String: Any] {
        let folder = NSTemporaryDirectory() + "staccato-bench-library-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let madeAt = Date()
        let (path, decodedBytes) = try make(in: folder, gigabytes: gigabytes)
        let staccato = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("staccato").path
        print("Library: \(keys.count * layers) mono 16-bit WAV files, \(String(format: "%.2f", Double(decodedBytes) / Double(1 << 30))) GB decoded, "
              + "written in \(String(format: "%.1f", Date().timeIntervalSince(madeAt))) s to \(folder); CPU \(FontsBenchmark.cpuModel)")

        // Ready to play: the time from launch to `play`'s "playing MIDI" line (it comes once the
        // instrument can sound), live input from an empty file; peak RSS from wait4.
        let empty = folder + "/empty.mid"
        _ = FileManager.default.createFile(atPath: empty, contents: Data())
        let ready = timedLine("playing MIDI from", [staccato, "play", "--midi-in", empty, "--audio", "null", "--soundfont", path, "--seconds", "1"])
        print("  play, ready: \(ready.seconds.map { String(format: "%.3f s", $0) } ?? "-") after launch, peak RSS "
              + "\(String(format: "%.1f", Double(ready.peakBytes) / Double(1 << 20))) MB, exit \(ready.status)"
              + (ready.status == 0 ? "" : ": \(ready.output)"))

        // A live ramp: long notes, a new one every 20 ms on a key and layer of its own, all held,
        // into `play --audio null --period 64` (paced by its own clock) through a FIFO.
        let ramp = try liveRamp(staccato: staccato, library: path, folder: folder)
        print("  live ramp at 64-frame periods: \(ramp.notes) notes in \(String(format: "%.1f", ramp.seconds)) s, peak voices \(ramp.peakVoices), "
              + "sample underruns \(ramp.underruns), xruns \(ramp.xruns), peak RSS \(String(format: "%.1f", Double(ramp.peakBytes) / Double(1 << 20))) MB")

        // The passage: the command line's render (the song's samples alone), then the whole library here.
        let song = passage()
        let songPath = folder + "/passage.mid", rendered = folder + "/passage.wav"
        try Data(song.standardMIDIFileBytes()).write(to: URL(fileURLWithPath: songPath))
        let render = FontsBenchmark.run([staccato, "render", songPath, "--soundfont", path, "--out", rendered, "--threads", "1"], folder: folder)
        let cli = try AudioFileReader.read(rendered)
        print("  render of the passage (the song's samples): \(String(format: "%.2f", render?.seconds ?? 0)) s, peak RSS "
              + "\(String(format: "%.1f", Double(render?.peakBytes ?? 0) / Double(1 << 20))) MB, exit \(render?.status ?? -1)")
        let wholeStarted = Date()
        let whole = try SFZLoader.load(path: path, sampleRate: Double(rate))
        let loadSeconds = Date().timeIntervalSince(wholeStarted)
        let engine = Engine(configuration: EngineConfiguration(render: RenderConfiguration(sampleRate: Double(rate))))
        engine.install(whole)
        var samples: [Float] = []
        _ = engine.render(song) { samples.append(contentsOf: $0) }
        let identical = samples.count == cli.samples.count && zip(samples, cli.samples).allSatisfy { $0.bitPattern == $1.bitPattern }
        print("  the same passage through the whole library decoded here (\(String(format: "%.1f", loadSeconds)) s to load): "
              + (identical ? "identical, \(samples.count / 2) frames" : "DIFFERENT (\(samples.count) against \(cli.samples.count) samples)"))
        return ["cpu_model": FontsBenchmark.cpuModel, "files": keys.count * layers, "decoded_bytes": decodedBytes,
                "play_ready_seconds": ready.seconds ?? NSNull(), "play_peak_rss_mb": Double(ready.peakBytes) / Double(1 << 20),
                "render_seconds": render?.seconds ?? NSNull(), "render_peak_rss_mb": Double(render?.peakBytes ?? 0) / Double(1 << 20),
                "whole_load_seconds": loadSeconds, "render_identical_to_whole_load": identical,
                "live_ramp": ["notes": ramp.notes, "seconds": ramp.seconds, "peak_voices": ramp.peakVoices, "sample_underruns": ramp.underruns,
                              "xruns": ramp.xruns, "peak_rss_mb": Double(ramp.peakBytes) / Double(1 << 20), "period_frames": 64]]
    }

    /// The live ramp (see `run`): what `play`'s report says of it, and its peak RSS.
    static func liveRamp(staccato: String, library: String, folder: String) throws
        -> (notes: Int, seconds: Double, peakVoices: Int, underruns: Int, xruns: Int, peakBytes: Int) {
        let fifo = folder + "/ramp.fifo", report = folder + "/ramp.json"
        guard mkfifo(fifo, 0o600) == 0 else { throw CocoaError(.fileWriteUnknown) }
        let noteCount = 240
        let started = Date()
        let writer = Thread {
            // Opening for writing waits for the player to open its end.
            guard let handle = FileHandle(forWritingAtPath: fifo) else { return }
            usleep(500_000)
            for note in 0..<noteCount {
                let key = UInt8(keys.lowerBound + note * 13 % keys.count), velocity = UInt8(1 + note * 37 % 127)
                handle.write(Data([0x90, key, velocity]))
                usleep(20_000)
            }
            usleep(1_000_000)
            try? handle.close()
        }
        writer.start()
        let outcome = timedLine("playing MIDI", [staccato, "play", "--midi-in", fifo, "--audio", "null", "--period", "64", "--soundfont", library,
                                                 "--report", report, "--seconds", "30"])
        let seconds = Date().timeIntervalSince(started)
        let json = (try? JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report)))) as? [String: Any] ?? [:]
        let statistics = json["statistics"] as? [String: Any] ?? [:]
        return (statistics["noteOns"] as? Int ?? -1, seconds, statistics["peakVoices"] as? Int ?? -1,
                statistics["sampleUnderruns"] as? Int ?? -1, json["xruns"] as? Int ?? -1, outcome.peakBytes)
    }

    /// Runs `arguments` with standard output on a pipe, read as it comes: the seconds from launch
    /// to the first line holding `marker`, and the child's status and peak RSS (`wait4`).
    static func timedLine(_ marker: String, _ arguments: [String]) -> (seconds: Double?, status: Int32, peakBytes: Int, output: String) {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { return (nil, -1, 0, "") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], STDOUT_FILENO)
        posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], STDERR_FILENO)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let launched = DispatchTime.now().uptimeNanoseconds
        guard posix_spawnp(&pid, arguments[0], &actions, nil, argv, environ) == 0 else { return (nil, -1, 0, "") }
        close(pipeEnds[1])
        var seen: Double?
        var text = ""
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(pipeEnds[0], $0.baseAddress, $0.count) }
            if count <= 0 { break }
            text += String(decoding: buffer[..<count], as: UTF8.self)
            if seen == nil, text.contains(marker) { seen = Double(DispatchTime.now().uptimeNanoseconds - launched) / 1e9 }
        }
        close(pipeEnds[0])
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        return (seen, (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f), usage.ru_maxrss * 1_024, text)
    }
}
