import AudioFile
import Foundation
import Synchronization
import Render
import SampleSet

/// Builds a playable `DrumKit` from a manifest and the one-shot recordings it names.
///
/// The manifest (`kit.json`):
/// ```json
/// {"name": "Standard",
///  "pads": [{"name": "kick", "file": "kick.wav", "note": 36, "alsoNotes": [35], "gain": 0, "voices": 4},
///           {"name": "hihat_closed", "file": "hihat_closed.wav", "note": 42, "gain": -2, "chokeGroup": "hihat"},
///           {"name": "hihat_open", "file": "hihat_open.wav", "note": 46, "gain": -2, "chokeGroup": "hihat"}]}
/// ```
/// - `name`: the kit's name; optional, the manifest's folder name otherwise.
/// - `pads`: at least one. Each pad's `name` (unique), `file` (relative to the manifest's folder)
///   and `note` (MIDI 0-127) are required; `alsoNotes` lists further notes the pad answers to
///   (General MIDI neighbours without a sample of their own, such as a second kick on 35); no
///   note, main or also, may belong to two pads. `gain` is dB within `gainRange` (default 0),
///   `voices` the voices that may ring at once, within `voiceCountRange` (default
///   `defaultVoiceCount`), and `chokeGroup` a name: pads giving the same name silence each other.
///
/// Unknown fields are errors at either level: a misspelt `voice` silently ignored would be a wrong
/// kit.
///
/// - Thread: control. Not real-time safe: reads files, allocates, and resamples.
public enum DrumKitLoader {
    /// Voices per pad when the manifest gives none: enough for a fast roll on one pad to ring on
    /// while the next hits start.
    public static let defaultVoiceCount = 4
    /// The voice counts a manifest may give: voice storage is allocated for every one at load.
    public static let voiceCountRange = 1...64
    /// The pad gains a manifest may give, in dB: below -60 dB a pad is inaudible, and more than
    /// +12 dB on a full-scale one-shot only clips.
    public static let gainRange = -60.0...12.0

    /// Checks a manifest's JSON (every field, as `load` does) without reading its pads' files;
    /// `path` names it in messages. Returns the pads' count.
    /// - Throws: `DrumKitError`, as `load` does for the manifest itself.
    /// - Thread: control.
    @discardableResult
    public static func checkManifest(_ data: Data, path: String) throws(DrumKitError) -> Int {
        try DrumKitManifest.parse(data, path: path).pads.count
    }

    /// What the kit at `path` holds, its manifest checked as `load` checks it, without reading a
    /// pad's file: for `staccato info`.
    /// - Throws: `DrumKitError`, as `load` does for the manifest itself.
    /// - Thread: control. Not real-time safe: reads the manifest.
    public static func contents(manifest path: String) throws(DrumKitError) -> DrumKitContents {
        let manifest = try DrumKitManifest.load(path: path)
        return DrumKitContents(name: manifest.name, pads: manifest.pads.map {
            DrumKitContents.Pad(name: $0.name, file: $0.file, path: $0.path, notes: $0.notes, gainDecibels: $0.gainDecibels,
                                voiceCount: $0.voiceCount, chokeGroup: $0.chokeGroup)
        })
    }

    /// Loads the manifest at `path` and every pad's file (WAV, FLAC, Ogg; any rate, mono or
    /// stereo), each decoded once and converted to stereo at `sampleRate`, the engine's rate, so a
    /// hit never converts anything.
    ///
    /// - The pool holds each distinct file once (pads naming the same file share its frames),
    ///   in manifest order, each followed by `DrumKit.guardFrameCount` silent frames.
    /// - Mono files play on both channels; stereo files keep their image. Each channel is
    ///   resampled with `Resampler` when the file's rate differs from `sampleRate`.
    /// - Gains become linear (10^(dB/20)); choke group names become 1, 2, … in the order they
    ///   first appear, 0 for a pad without one.
    ///
    /// Everything is checked before the kit is built, so a mistake anywhere means an error and no
    /// kit, never a partial one.
    ///
    /// - Throws: `DrumKitError` naming the manifest, with the field and, for a pad's file, the
    ///   file: a manifest that can't be read or isn't JSON, an unknown, missing, duplicated or
    ///   out-of-range field, no pads; a file that is missing or can't be decoded, has more than two
    ///   channels, no frames, or a sample value that isn't finite. A `sampleRate` that isn't
    ///   finite and positive is reported too.
    /// - Thread: control. Not real-time safe.
    public static func load(manifest path: String, sampleRate: Double) throws(DrumKitError) -> DrumKit {
        guard sampleRate.isFinite, sampleRate > 0 else {
            throw DrumKitError(path: path, reason: "cannot load at \(hertz(sampleRate)): the sample rate must be finite and positive")
        }
        let manifest = try DrumKitManifest.load(path: path)
        // A missing file is reported before seconds of decoding the ones before it.
        for pad in manifest.pads {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: pad.path, isDirectory: &isDirectory) else {
                throw fileError(pad, path, "no such file")
            }
            guard !isDirectory.boolValue else { throw fileError(pad, path, "is a folder, not an audio file") }
        }

        // Each distinct file once, on every core; a failure is the first in manifest order.
        var firstPadOfFile: [String: Int] = [:]
        for (index, pad) in manifest.pads.enumerated() where firstPadOfFile[pad.path] == nil { firstPadOfFile[pad.path] = index }
        let distinct = firstPadOfFile.values.sorted().map { manifest.pads[$0] }
        let decoded = Mutex([Result<[Float], DrumKitError>?](repeating: nil, count: distinct.count))
        DispatchQueue.concurrentPerform(iterations: distinct.count) { index in
            let result = Result { () throws(DrumKitError) -> [Float] in try decodeStereo(distinct[index], manifestPath: path, sampleRate: sampleRate) }
            decoded.withLock { $0[index] = result }
        }
        var pool: [Float] = []
        var framesOfFile: [String: Range<Int>] = [:]
        for (pad, result) in zip(distinct, decoded.withLock { $0 }) {
            let stereo = try result!.get()
            framesOfFile[pad.path] = pool.count / 2 ..< pool.count / 2 + stereo.count / 2
            pool += stereo
            pool += repeatElement(0, count: 2 * DrumKit.guardFrameCount)
        }
        var pads: [DrumKit.Pad] = []
        for pad in manifest.pads {
            let frames = framesOfFile[pad.path]!
            pads.append(DrumKit.Pad(start: frames.lowerBound, frameCount: frames.count,
                                    gain: Float(pow(10, pad.gainDecibels / 20)),
                                    voiceCount: pad.voiceCount, chokeGroup: pad.chokeGroup))
        }
        return DrumKit(name: manifest.name, samples: pool, pads: pads,
                       noteSets: manifest.pads.map(\.notes), padNames: manifest.pads.map(\.name))
    }

    /// `pad`'s file decoded, checked and converted: stereo interleaved frames at `sampleRate`, at
    /// least one of them, every value finite.
    private static func decodeStereo(_ pad: DrumKitManifest.Pad, manifestPath: String,
                                     sampleRate: Double) throws(DrumKitError) -> [Float] {
        let audio: DecodedAudio
        do {
            audio = try AudioFileReader.read(pad.path)
        } catch {
            throw fileError(pad, manifestPath, error.reason)
        }
        guard audio.channelCount == 1 || audio.channelCount == 2 else {
            throw fileError(pad, manifestPath, "\(audio.channelCount) channels; a pad must be mono or stereo")
        }
        guard audio.frameCount > 0 else { throw fileError(pad, manifestPath, "no audio frames") }
        // The renderer trusts the pool: a NaN or infinity would reach the output, and through the
        // resampler's kernel it would smear over its neighbours first.
        if let bad = audio.samples.firstIndex(where: { !$0.isFinite }) {
            throw fileError(pad, manifestPath, "sample value \(audio.samples[bad]) at frame \(bad / audio.channelCount); sample values must be finite")
        }

        let channels = (0..<audio.channelCount).map {
            Resampler.resample(audio.channel($0), from: Double(audio.sampleRate), to: sampleRate)
        }
        // A mono file's one channel is both.
        let left = channels[0], right = channels[channels.count - 1]
        guard !left.isEmpty else {
            throw fileError(pad, manifestPath, "\(audio.frameCount) frame\(audio.frameCount == 1 ? "" : "s") at \(audio.sampleRate) Hz is less than one frame at \(hertz(sampleRate))")
        }
        var stereo = [Float](repeating: 0, count: 2 * left.count)
        for frame in left.indices {
            stereo[2 * frame] = left[frame]
            stereo[2 * frame + 1] = right[frame]
        }
        // Finite input can still overflow the kernel's sums when it is near Float's limit.
        guard stereo.allSatisfy(\.isFinite) else {
            throw fileError(pad, manifestPath, "sample values too large to resample from \(audio.sampleRate) Hz")
        }
        return stereo
    }

    /// An error with `pad`'s file: the manifest, the field and the file as the manifest names it.
    private static func fileError(_ pad: DrumKitManifest.Pad, _ manifestPath: String, _ problem: String) -> DrumKitError {
        DrumKitError(path: manifestPath, reason: "\(pad.field("file")): \(pad.file): \(problem)")
    }

    /// `48000 Hz` rather than `48000.0 Hz`, in messages.
    private static func hertz(_ rate: Double) -> String {
        "\(Int(exactly: rate).map(String.init) ?? "\(rate)") Hz"
    }
}

/// What a drum kit holds (`DrumKitLoader.contents(manifest:)`).
/// - Thread: any. A plain value.
public struct DrumKitContents: Sendable {
    /// One pad, every default filled in.
    public struct Pad: Sendable {
        public let name: String
        /// As the manifest gives it.
        public let file: String
        /// `file` resolved against the manifest's folder.
        public let path: String
        /// Its own note first, then its `alsoNotes`.
        public let notes: [UInt8]
        public let gainDecibels: Double
        public let voiceCount: Int
        /// 0 for none, else the group's number in the order the names first appear.
        public let chokeGroup: UInt16
    }

    public let name: String
    /// In manifest order.
    public let pads: [Pad]
}
