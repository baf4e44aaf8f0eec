import AudioFile
import Foundation
import Render

/// Builds a playable `SampleBank` from a folder of recordings (WAV, FLAC, Ogg), one note per
/// file, for instruments that come without a SoundFont.
///
/// File names are enough (`C4.wav`, `F#2.flac`, `piano_60.ogg`); an optional `samples.json` in the
/// folder adds what a name can't say:
/// ```json
/// {"name": "Grand", "release": 0.3,
///  "samples": [{"file": "C4.wav", "root": "C4", "lowKey": 0, "highKey": 62,
///               "lowVelocity": 1, "highVelocity": 127, "tune": -3, "gain": -1.5,
///               "loopStart": 1000, "loopEnd": 5000}]}
/// ```
/// Every field is optional except each entry's `file` (a path relative to the folder). Keys
/// (`root`, `lowKey`, `highKey`) are MIDI numbers or note names; `tune` is cents, `gain` dB,
/// `release` seconds (for every sample); `loopStart`/`loopEnd` come as a pair, in frames at the
/// file's own rate, `loopEnd` one past the loop's last frame. Unknown fields are errors: a
/// misspelt `hiKey` silently ignored would be a wrong instrument.
///
/// - Thread: control. Not real-time safe: reads files, allocates, and resamples.
public enum SampleSetLoader {
    /// Volume-envelope attack, in seconds: just long enough that a sample starting off zero does
    /// not click, short enough to keep the recorded attack.
    public static let attack = 0.002
    /// Volume-envelope release, in seconds, when the manifest gives none.
    public static let defaultRelease = 0.25

    /// Loads every audio file in `directory` (WAV, FLAC, Ogg; any rate, mono or stereo), resampled
    /// once to `sampleRate`, the engine's rate, so playing a note never has to convert rates too.
    ///
    /// - Root keys come from `samples.json` when it lists the file, otherwise from the file name
    ///   (`NoteName.midiKey(fromFileName:)`). Files the manifest does not list are still loaded.
    /// - Key ranges: each key plays the sample with the nearest root. Ranges run from midway to the
    ///   previous root to midway to the next; a key exactly midway goes to the lower sample; the
    ///   lowest sample reaches down to key 0 and the highest up to 127. Samples sharing a root (for
    ///   example velocity layers) share its range. A manifest `lowKey`/`highKey` replaces the
    ///   computed bound it names.
    /// - Stereo files are mixed to mono, (left + right) / 2: a centred sound keeps its level under
    ///   any pan law the renderer uses, and a note needs one voice, not two. Wide stereo recordings
    ///   lose their width (and antiphase content cancels); use a SoundFont for those.
    /// - Each region: velocity 0…127 unless the manifest narrows it; volume envelope attack
    ///   `attack`, sustain 1, release from the manifest (`defaultRelease` otherwise); no loop
    ///   unless the manifest gives loop points, which then loop continuously (their frame numbers
    ///   are scaled to the new rate and rounded to the nearest frame).
    /// - The bank has one preset, bank 0 program 0, named by the manifest's `name` or after the
    ///   folder. The bank's own `name` is `directory`.
    ///
    /// - Throws: `SampleSetError` naming the folder when it is missing or holds no audio files, a
    ///   file whose root key can't be found or that can't be decoded, or the manifest and its
    ///   field for a manifest mistake (unknown field, bad value, a file that isn't there).
    /// - Precondition: `sampleRate` is finite and positive.
    /// - Thread: control. Not real-time safe.
    public static func load(directory: String, sampleRate: Double) throws(SampleSetError) -> SampleBank {
        precondition(sampleRate > 0 && sampleRate.isFinite, "sample rate must be positive")
        let manifestPath = join(directory, SampleSetManifest.fileName)
        let manifest = try SampleSetManifest.load(path: manifestPath)
        let plans = try plan(directory: directory, manifest: manifest, manifestPath: manifestPath)
        let computedRanges = nearestRootRanges(plans.map(\.root))

        // Each file once, however many plans name it, decoded on every core.
        var files: [String] = []
        var seen = Set<String>()
        for plan in plans where seen.insert(plan.path).inserted { files.append(plan.path) }
        let decoded = try SampleDecoding.decode(files, sampleRate: sampleRate, stereo: .mixedToMono)
        var pool = SamplePoolBuilder()
        var placed: [String: SamplePoolBuilder.Placed] = [:]
        for (file, channels) in zip(files, decoded) { placed[file] = pool.append(channels[0]) }
        var regions: [SamplerRegion] = []
        for (plan, computedRange) in zip(plans, computedRanges) {
            regions.append(try region(for: plan, sample: placed[plan.path]!, keys: computedRange, sampleRate: sampleRate,
                                      release: manifest?.release ?? defaultRelease, manifestPath: manifestPath))
        }

        let presetName = self.presetName(manifest: manifest, directory: directory)
        return SampleBank(name: directory, samples: pool.frames, regions: regions,
                          presets: [SampleBank.Preset(bank: 0, program: 0, firstRegion: 0, regionCount: regions.count)],
                          presetNames: [presetName])
    }

    /// What a sample folder holds, as `load` plays it, without decoding a file: each note's file,
    /// root and ranges, for `staccato info`.
    /// - Throws: `SampleSetError`, as `load` does for everything it checks before decoding.
    /// - Thread: control. Not real-time safe: reads the manifest and lists the folder.
    public static func contents(directory: String) throws(SampleSetError) -> SampleSetContents {
        let manifestPath = join(directory, SampleSetManifest.fileName)
        let manifest = try SampleSetManifest.load(path: manifestPath)
        let plans = try plan(directory: directory, manifest: manifest, manifestPath: manifestPath)
        let notes = zip(plans, nearestRootRanges(plans.map(\.root))).map { plan, computed in
            SampleSetContents.Note(path: plan.path, root: plan.root, keys: keyRange(plan, computed: computed),
                                   velocities: (plan.entry?.lowVelocity ?? 0)...(plan.entry?.highVelocity ?? 127))
        }
        return SampleSetContents(name: presetName(manifest: manifest, directory: directory),
                                 manifest: manifest == nil ? nil : manifestPath, notes: notes)
    }

    /// The one preset's name: the manifest's, else the folder's.
    private static func presetName(manifest: SampleSetManifest?, directory: String) -> String {
        manifest?.name ?? URL(fileURLWithPath: directory).standardizedFileURL.lastPathComponent
    }

    /// The keys a plan's region answers to: the computed range, each bound the manifest gives
    /// replacing the computed one (possibly empty, which `region(for:)` reports).
    private static func keyRange(_ plan: Plan, computed: ClosedRange<UInt8>) -> (low: UInt8, high: UInt8) {
        (plan.entry?.lowKey ?? computed.lowerBound, plan.entry?.highKey ?? computed.upperBound)
    }

    /// One region to build: a file, its root key and, when the manifest lists it, its entry.
    private struct Plan {
        var path: String
        var root: UInt8
        var entry: SampleSetManifest.Entry?
    }

    /// Every region to build, ordered by root key (then velocity, then file), with every root
    /// resolved: the manifest's entries first, then the folder's other audio files by name. All
    /// checks that need no decoding happen here, so a naming mistake is reported before seconds
    /// of decoding.
    private static func plan(directory: String, manifest: SampleSetManifest?, manifestPath: String) throws(SampleSetError) -> [Plan] {
        var plans: [Plan] = []
        for entry in manifest?.samples ?? [] {
            let path = join(directory, entry.file)
            guard isFile(path) else {
                throw SampleSetError(path: manifestPath, reason: "\(entry.field("file")): no file \"\(entry.file)\" in \(directory)")
            }
            guard let root = entry.root ?? NoteName.midiKey(fromFileName: entry.file) else {
                throw SampleSetError(path: path, reason: "no root key in the file name (such as C4, F#2 or piano_60) and no \(entry.field("root")) in \(SampleSetManifest.fileName)")
            }
            plans.append(Plan(path: path, root: root, entry: entry))
        }

        let listed = Set(manifest?.samples.map(\.file) ?? [])
        for name in try audioFileNames(in: directory) where !listed.contains(name) {
            let path = join(directory, name)
            guard let root = NoteName.midiKey(fromFileName: name) else {
                throw SampleSetError(path: path, reason: "no root key in the file name (name it like C4.wav, F#2.flac or piano_60.ogg, or give its root in \(SampleSetManifest.fileName))")
            }
            plans.append(Plan(path: path, root: root))
        }
        guard !plans.isEmpty else {
            throw SampleSetError(path: directory, reason: "no audio files (.wav, .flac, .ogg)")
        }
        return plans.sorted {
            ($0.root, $0.entry?.lowVelocity ?? 0, $0.path) < ($1.root, $1.entry?.lowVelocity ?? 0, $1.path)
        }
    }

    /// The folder's audio files, sorted. Hidden files are skipped: macOS leaves `._C4.wav`
    /// resource forks beside copied samples, and they are not audio.
    private static func audioFileNames(in directory: String) throws(SampleSetError) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw SampleSetError(path: directory, reason: "no such folder")
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw SampleSetError(path: directory, reason: "cannot list the folder: \(error.localizedDescription)")
        }
        // AudioFileFormat knows the extensions AudioFile handles (.wav, .flac, .ogg, .oga).
        return names.filter { !$0.hasPrefix(".") && AudioFileFormat(path: $0) != nil && isFile(join(directory, $0)) }.sorted()
    }

    /// The region for one plan: computed key range unless the manifest overrides a bound, the
    /// manifest's velocity, tuning, gain and loop, and the fixed envelope.
    private static func region(for plan: Plan, sample: SamplePoolBuilder.Placed, keys computed: ClosedRange<UInt8>, sampleRate: Double,
                               release: Double, manifestPath: String) throws(SampleSetError) -> SamplerRegion {
        let entry = plan.entry
        var region = SamplerRegion()
        (region.lowKey, region.highKey) = keyRange(plan, computed: computed)
        if let entry, region.lowKey > region.highKey {
            // Only one bound came from the manifest (both would have been checked while decoding it).
            let field = entry.lowKey != nil ? "lowKey" : "highKey"
            throw SampleSetError(path: manifestPath, reason: "\(entry.field(field)): key range \(region.lowKey)...\(region.highKey) is empty; the other bound comes from the neighbouring samples' roots, so give both")
        }
        region.lowVelocity = entry?.lowVelocity ?? 0
        region.highVelocity = entry?.highVelocity ?? 127

        region.start = sample.start
        region.end = sample.start + sample.frameCount
        region.loopStart = region.start
        region.loopEnd = region.end
        if let entry, let loop = entry.loop {
            guard loop.upperBound <= sample.sourceFrameCount else {
                throw SampleSetError(path: manifestPath, reason: "\(entry.field("loopEnd")): \(loop.upperBound) is past the end of \(entry.file) (\(sample.sourceFrameCount) frames)")
            }
            let ratio = sampleRate / sample.sourceRate
            let end = min(sample.frameCount, Int((Double(loop.upperBound) * ratio).rounded()))
            let start = min(end - 1, Int((Double(loop.lowerBound) * ratio).rounded()))
            region.loopStart = sample.start + start
            region.loopEnd = sample.start + end
            region.loopMode = .continuous
        }
        region.sampleRate = sampleRate

        region.rootKey = Double(plan.root)
        region.tuneCents = entry?.tune ?? 0
        // SF2 centibels of attenuation: 10 per decibel of gain, opposite sign.
        region.attenuationCentibels = Float(-10 * (entry?.gain ?? 0))

        region.volumeEnvelope.attack = attack
        region.volumeEnvelope.sustainLevel = 1
        region.volumeEnvelope.release = release
        return region
    }

    /// For each root, the keys nearer to it than to any other distinct root, a key exactly midway
    /// going to the lower root; the lowest root reaches down to 0 and the highest up to 127.
    /// Returned in the order of `roots`; equal roots get equal ranges.
    static func nearestRootRanges(_ roots: [UInt8]) -> [ClosedRange<UInt8>] {
        let distinct = Set(roots).sorted()
        return roots.map { root in
            let position = distinct.firstIndex(of: root)!
            // Midway between neighbours a and b (a < b) is (a + b) / 2; rounding down gives a key
            // at exactly midway to a, so b's range starts one above it.
            let low = position == 0 ? 0 : (Int(distinct[position - 1]) + Int(root)) / 2 + 1
            let high = position == distinct.count - 1 ? 127 : (Int(root) + Int(distinct[position + 1])) / 2
            return UInt8(low)...UInt8(high)
        }
    }

    private static func isFile(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
    }

    private static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }
}

/// What a sample folder holds (`SampleSetLoader.contents(directory:)`).
/// - Thread: any. A plain value.
public struct SampleSetContents: Sendable {
    /// One file as a note: what it plays and where.
    public struct Note: Sendable {
        public let path: String
        public let root: UInt8
        /// Lowest and highest key; low above high when a manifest's one bound empties the range
        /// (which `load` refuses).
        public let keys: (low: UInt8, high: UInt8)
        public let velocities: ClosedRange<UInt8>
    }

    /// The preset's name: the manifest's `name`, else the folder's.
    public let name: String
    /// `samples.json`'s path, when the folder has one.
    public let manifest: String?
    /// By root key, as the loader orders them.
    public let notes: [Note]
}
