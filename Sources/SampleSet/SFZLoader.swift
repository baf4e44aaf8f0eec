import AudioFile
import Dispatch
import FileChecks
import Foundation
import MIDIVocabulary
import Render

/// Builds a playable `SampleBank` from an SFZ instrument: a text file (`SFZText`) naming WAV,
/// FLAC or Ogg samples with opcodes. Everything is decoded and resampled to the engine's rate
/// before the bank exists; the samples decode on every core.
///
/// What plays, opcode by opcode (the rest is listed in `warnings`, never fatal):
/// - mapping: `sample` (with `default_path`; `\` or `/`, matched case-insensitively), `key`,
///   `lokey`, `hikey`, `pitch_keycenter` (numbers or names, `c4` = 60), `lovel`, `hivel`;
/// - playback: `offset`, `end`, `loop_mode` (`no_loop`, `one_shot`, `loop_continuous`,
///   `loop_sustain`), `loop_start`, `loop_end` (else the whole sample);
/// - pitch and level: `transpose`, `tune`, `pitch_keytrack`, `volume`, `amplitude`, `pan`;
/// - envelope and filter: `ampeg_delay|attack|hold|decay|sustain|release`, `fil_type=lpf_2p`,
///   `cutoff`, `resonance`;
/// - `group` with `off_by` equal to it (a group that chokes itself, as SF2's exclusive class).
///
/// Where a library relies on what is not played yet, the loader picks what plays and says so:
/// only the first of a round-robin set (`seq_position`, `lorand`), only the default articulation
/// of keyswitched regions (`sw_last`), regions with `trigger=release` left out, regions that need
/// a controller away from its initial value (`loccN`/`hiccN`) left out. A stereo sample plays as
/// two voices, its left channel panned left and its right channel right, as SF2's stereo pairs do.
///
/// - Thread: control. Not real-time safe: reads files, allocates, decodes.
public enum SFZLoader {
    /// Whether the file at `path` is SFZ text, read from its contents rather than its name: no
    /// RIFF (SF2, WAV) or other binary start, and an SFZ header or directive in its first 64 KB.
    /// - Thread: control.
    public static func isSFZ(path: String) -> Bool {
        // Only a regular file is opened: opening a FIFO would wait for a writer.
        guard FileKind(path: path) == .regular, let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 65_536), !head.isEmpty else { return false }
        if head.starts(with: Array("RIFF".utf8)) || head.contains(0) { return false }
        let text = SFZPlan.text(of: head)
        return ["<region>", "<group>", "<global>", "<control>", "<master>", "#include"].contains { text.contains($0) }
    }

    /// Loads the SFZ instrument at `path`, its samples resampled once to `sampleRate`.
    /// - Parameter progress: told the share of the samples decoded, 0…1, as they are.
    /// - Throws: `SampleSetError` naming the file and line for a bad value or a sample that is not
    ///   there, the sample for one that can't be decoded, and the file when it holds no region
    ///   that plays.
    /// - Thread: control.
    public static func load(path: String, sampleRate: Double, progress: (@Sendable (Double) -> Void)? = nil) throws(SampleSetError) -> SampleBank {
        precondition(sampleRate > 0 && sampleRate.isFinite, "sample rate must be positive")
        let plan = try SFZPlan(path: path)
        let files = Array(Set(plan.regions.map(\.samplePath))).sorted()
        let decoded = try decode(files, sampleRate: sampleRate, progress: progress)

        var pool = [Float](repeating: 0, count: SampleBank.guardFrameCount)
        var placed: [String: [PooledChannel]] = [:]
        for (file, channels) in zip(files, decoded) {
            placed[file] = channels.map { channel in
                let start = pool.count
                pool += channel.frames
                pool += repeatElement(0, count: SampleBank.guardFrameCount)
                return PooledChannel(start: start, frameCount: channel.frames.count, sourceFrameCount: channel.sourceFrameCount,
                                     sourceRate: channel.sourceRate)
            }
        }
        var regions: [SamplerRegion] = []
        for planned in plan.regions {
            let channels = placed[planned.samplePath] ?? []
            for (index, channel) in channels.enumerated() {
                let side: Float = channels.count == 1 ? 0 : (index == 0 ? -1 : 1)
                regions.append(try planned.region(in: channel, side: side, sampleRate: sampleRate))
            }
        }
        let bank = SampleBank(name: path, samples: pool, regions: regions,
                              presets: [SampleBank.Preset(bank: 0, program: 0, firstRegion: 0, regionCount: regions.count)],
                              presetNames: [plan.name])
        bank.loadWarnings = plan.warnings
        return bank
    }

    /// Reads SFZ `text` as `load` reads a file named `path`, every value checked, without opening
    /// a file (no sample, no `#include`): the warnings `load` would give, or its error.
    /// - Thread: control.
    public static func check(text: String, path: String) throws(SampleSetError) -> [String] {
        try SFZPlan(text: text, path: path, folder: "", findsFiles: false).warnings
    }

    /// What an SFZ instrument holds, as `load` plays it, without decoding a sample: for
    /// `staccato info`.
    /// - Throws: `SampleSetError`, as `load` does for everything it checks before decoding.
    /// - Thread: control.
    public static func contents(path: String) throws(SampleSetError) -> SFZContents {
        let plan = try SFZPlan(path: path)
        return SFZContents(name: plan.name, regions: plan.regions.map { planned in
            SFZContents.Region(sample: planned.samplePath, keys: planned.lowKey...planned.highKey,
                               velocities: planned.lowVelocity...planned.highVelocity, rootKey: planned.rootKey, line: planned.line)
        }, keyswitches: plan.keyswitches, controllerLabels: plan.controllerLabels, keyLabels: plan.keyLabels, warnings: plan.warnings)
    }

    /// One channel of a decoded sample, at the engine's rate.
    struct DecodedChannel {
        var frames: [Float]
        var sourceFrameCount: Int
        var sourceRate: Double
    }

    /// A channel's place in the bank's pool.
    struct PooledChannel {
        var start: Int
        var frameCount: Int
        var sourceFrameCount: Int
        var sourceRate: Double
    }

    /// Decodes and resamples `files` on every core, in order; a failure names its file.
    static func decode(_ files: [String], sampleRate: Double,
                       progress: (@Sendable (Double) -> Void)?) throws(SampleSetError) -> [[DecodedChannel]] {
        final class Results: @unchecked Sendable {
            var channels: [[DecodedChannel]]
            var errors: [SampleSetError?]
            var done = 0
            let lock = NSLock()
            init(count: Int) {
                channels = Array(repeating: [], count: count)
                errors = Array(repeating: nil, count: count)
            }
        }
        let results = Results(count: files.count)
        DispatchQueue.concurrentPerform(iterations: files.count) { index in
            var outcome: [DecodedChannel] = []
            var failure: SampleSetError? = nil
            do throws(AudioFileError) {
                let audio = try AudioFileReader.read(files[index])
                if audio.channelCount < 1 || audio.channelCount > 2 {
                    failure = SampleSetError(path: files[index], reason: "\(audio.channelCount) channels; expected mono or stereo")
                } else if audio.frameCount == 0 {
                    failure = SampleSetError(path: files[index], reason: "no audio frames")
                } else {
                    let converter = Resampler.Converter(from: Double(audio.sampleRate), to: sampleRate)
                    for channel in 0..<audio.channelCount {
                        let frames = (0..<audio.frameCount).map { audio.samples[$0 * audio.channelCount + channel] }
                        outcome.append(DecodedChannel(frames: converter.convert(frames), sourceFrameCount: audio.frameCount,
                                                      sourceRate: Double(audio.sampleRate)))
                    }
                }
            } catch {
                failure = SampleSetError(path: error.path, reason: error.reason)
            }
            results.lock.lock()
            results.channels[index] = outcome
            results.errors[index] = failure
            results.done += 1
            let share = Double(results.done) / Double(max(1, files.count))
            results.lock.unlock()
            progress?(share)
        }
        if let failure = results.errors.compactMap({ $0 }).first { throw failure }
        return results.channels
    }
}

/// What an SFZ instrument holds (`SFZLoader.contents(path:)`).
/// - Thread: any. A plain value.
public struct SFZContents: Sendable {
    /// One region as it plays.
    public struct Region: Sendable {
        /// - Thread: any.
        public let sample: String
        /// - Thread: any.
        public let keys: ClosedRange<UInt8>
        /// - Thread: any.
        public let velocities: ClosedRange<UInt8>
        /// - Thread: any.
        public let rootKey: Double
        /// The line of its `<region>` header.
        /// - Thread: any.
        public let line: Int
    }
    /// - Thread: any.
    public let name: String
    /// - Thread: any.
    public let regions: [Region]
    /// The keys that switch articulations (`sw_lokey`…`sw_hikey`), when there are any.
    /// - Thread: any.
    public let keyswitches: ClosedRange<UInt8>?
    /// `label_ccN` and `label_keyN`, by number.
    /// - Thread: any.
    public let controllerLabels: [Int: String]
    /// - Thread: any.
    public let keyLabels: [Int: String]
    /// What the loader says of the file: opcodes it does not play, what it chose instead.
    /// - Thread: any.
    public let warnings: [String]
}
