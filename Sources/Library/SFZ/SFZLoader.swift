import AudioFile
import Dispatch
import FileChecks
import Foundation
import MIDIVocabulary
import Render
import SampleSet
import SampleStreaming
import Synchronization

/// Builds a playable `SampleBank` from an SFZ instrument: a text file (`SFZText`) naming WAV,
/// FLAC or Ogg samples with opcodes. The text and the files' headers are read first
/// (`SFZIndex`); then every sample, or a song's, is decoded and resampled to the engine's rate on
/// every core before the bank exists (`load`), or the first notes' heads are, the rest behind the
/// voices (`open`).
///
/// What plays, opcode by opcode (the rest is listed in `warnings`, never fatal):
/// - mapping: `sample` (with `default_path`; `\` or `/`, matched case-insensitively), `key`,
///   `lokey`, `hikey`, `pitch_keycenter` (numbers or names, `c4` = 60), `lovel`, `hivel`;
/// - playback: `offset`, `end`, `loop_mode` (`no_loop`, `one_shot`, `loop_continuous`,
///   `loop_sustain`), `loop_start`, `loop_end` (else the whole sample);
/// - pitch and level: `transpose`, `tune`, `pitch_keytrack`, `volume`, `amplitude`, `pan`;
/// - envelope and filter: `ampeg_delay|attack|hold|decay|sustain|release`, `fil_type=lpf_2p`,
///   `cutoff`, `resonance`;
/// - `group`, `off_by` (a region's start cuts off the voices whose `off_by` is its group, as SF2's
///   exclusive class does within one class), `off_mode` (`fast`, or `normal`: through the release);
/// - velocity and controllers, as modulators beside SF2's defaults: `amp_veltrack`, `pitch_veltrack`,
///   `fil_veltrack`, `fil_keytrack` (`fil_keycenter`), `volume_onccN`, `pan_onccN`, `tune_onccN`,
///   `pitch_onccN`, `cutoff_onccN`;
/// - SFZ 2's flex envelopes and LFOs (`egN_*`, `lfoN_*`, `SFZFlex`), onto pitch, volume,
///   amplitude, pan, width, position, cutoff, resonance and the equalizer; the equalizer
///   (`eqN_*`, `SFZEqualizer`); the second filter (`fil2_*`, `cutoff2`, `SFZSecondFilter`);
/// - choice: round robin (`seq_length`, `seq_position`, counted per key and channel), random sets
///   (`lorand`, `hirand`, from a fixed seed, so a render is the same every time), keyswitches
///   (`sw_lokey`, `sw_hikey`, `sw_last`, `sw_default`; without a default a channel starts on the
///   lowest switch, so a song that never presses one still sounds) and release triggers
///   (`trigger=release`, at the note-on's velocity, after the pedal when one holds the note,
///   quieter by `rt_decay` per second held), `trigger=first` and `legato` (no other key of the
///   channel down, or one), `lochan`/`hichan`.
///
/// Read as sfizz reads it: a region that cannot play (no `sample=`, a missing file, a value out of
/// range) is dropped and named in a warning while the rest plays; a numeric value followed by
/// other text takes its leading number, said in a warning (two opcodes written with no space
/// between them are both read); `default_path` applies to the regions after it.
///
/// Where a library relies on what is not played yet, the loader picks what plays and says so:
/// regions that need a controller away from its initial value (`loccN`/`hiccN`) are left out,
/// `trigger=release_key` plays as `release`. A stereo sample plays as two voices, its left
/// channel panned left and its right channel right, as SF2's stereo pairs do.
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
    /// - Parameters:
    ///   - progress: told the share of the samples decoded, 0…1, as they are.
    ///   - notes: what a song plays (`PlayedNotes`): only the samples its notes reach, by key
    ///     and velocity, are decoded, and the song renders as through the whole instrument. Nil:
    ///     every sample.
    /// - Throws: `SampleSetError` naming the file and line for a bad value or a sample that is not
    ///   there, and the file when it holds no region that plays.
    /// - Thread: control.
    public static func load(path: String, sampleRate: Double, progress: (@Sendable (Double) -> Void)? = nil,
                            notes: PlayedNotes? = nil) throws(SampleSetError) -> SampleBank {
        let index = try SFZIndex(path: path, sampleRate: sampleRate)
        guard let notes else {
            return try index.makeBank(decoding: Array(index.samples.indices), decodeNow: true, residency: false, progress: progress).bank
        }
        return try index.makeBank(decoding: index.samplesReached(by: notes), decodeNow: true, residency: true, progress: progress).bank
    }

    /// Opens the SFZ instrument at `path` for playing at once, as `SoundFontLoader.open` opens a
    /// font: its text and its files' headers read, the heads (`SampleStreaming.headSeconds`) of
    /// the samples `first` reaches decoded on every core, and the rest written behind the voices
    /// (`BackgroundDecoding`): the samples `rest` reaches (every sample when nil), within
    /// `sampleCacheBytes` when given. A library larger than memory plays from its heads and the
    /// bodies its notes ask for.
    /// - Thread: control. Not real-time safe: reads files, allocates, starts a thread.
    public static func open(path: String, sampleRate: Double, first: PlayedNotes, rest: PlayedNotes? = nil,
                            sampleCacheBytes: Int? = nil, backgroundDelay: Duration? = nil,
                            progress: (@Sendable (Double) -> Void)? = nil,
                            warning: (@Sendable (String) -> Void)? = nil) throws(SampleSetError) -> (bank: SampleBank, decoding: BackgroundDecoding) {
        let index = try SFZIndex(path: path, sampleRate: sampleRate)
        let urgent = index.samplesReached(by: first)
        let order = SampleStreaming.decodingOrder(urgent: urgent, then: rest.map { index.samplesReached(by: $0) } ?? Array(index.samples.indices))
        let headFrames = SampleStreaming.headFrames(rate: sampleRate)
        if let refusal = SampleStreaming.refusal(headBytes: order.reduce(0) { $0 + min(index.frameCounts[$1], headFrames) } * 4, cacheBytes: sampleCacheBytes) {
            throw SampleSetError(path: path, reason: refusal)
        }
        let made = try index.makeBank(decoding: order, decodeNow: false, residency: true, budgetBytes: sampleCacheBytes, progress: nil)
        let decoder = made.decoder
        // The urgent heads now, on every core.
        made.bank.loadWarnings += decoder.decodeInParallel(urgent, headFrames: headFrames, progress: progress).map { "\($0); its regions stay silent" }
        let decoding = BackgroundDecoding(decoder: decoder, samples: order, holding: made.bank, budgetBytes: sampleCacheBytes,
                                          delay: backgroundDelay, warning: warning)
        return (made.bank, decoding)
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
            SFZContents.Region(sample: planned.samplePath, keys: planned.template.lowKey...planned.template.highKey,
                               velocities: planned.template.lowVelocity...planned.template.highVelocity, rootKey: planned.rootKey, line: planned.line)
        }, keyswitches: plan.keyswitches, controllerLabels: plan.controllerLabels, keyLabels: plan.keyLabels, warnings: plan.warnings)
    }
}

/// What an SFZ instrument holds (`SFZLoader.contents(path:)`).
/// - Thread: any. A plain value.
public struct SFZContents: Sendable {
    /// One region as it plays.
    public struct Region: Sendable {
        public let sample: String
        public let keys: ClosedRange<UInt8>
        public let velocities: ClosedRange<UInt8>
        public let rootKey: Double
        /// The line of its `<region>` header.
        public let line: Int
    }
    public let name: String
    public let regions: [Region]
    /// The keys that switch articulations (`sw_lokey`…`sw_hikey`), when there are any.
    public let keyswitches: ClosedRange<UInt8>?
    /// `label_ccN` and `label_keyN`, by number.
    public let controllerLabels: [Int: String]
    public let keyLabels: [Int: String]
    /// What the loader says of the file: opcodes it does not play, what it chose instead.
    public let warnings: [String]
}
