import DeviceCore
import DrumKitLoader
import MIDIVocabulary
import Render
import SampleStreaming

/// A synthesizer for an application that owns the audio thread: it loads instruments and takes
/// MIDI on its control thread, and renders when the host's audio callback asks, through `cycle`
/// (`PlanarRenderCycle.render(left:right:frameCount:)`: real-time code lives in the real-time
/// modules). What the C ABI's `staccato_synth` and the Python package's `Synth` are.
///
/// Guarantees:
/// - Rendering never allocates, locks or waits; it overwrites every frame it is given.
/// - A MIDI message sent with a frame offset takes effect at that frame of the next block
///   rendered (a stamped command, as every live input is): exactly, when the host's blocks are
///   multiples of the 64-frame quantum (`RenderQuantum`); otherwise one that falls in the part of
///   a quantum the previous call rendered takes effect at the next quantum's first frame.
/// - Loading reads and decodes on the calling thread while the old instrument plays on; the new one
///   is swapped in with a pointer (`Engine.install`), without a gap, and notes already sounding
///   ring out on the one they started with. A failed load changes nothing.
/// - Nothing is printed: failures are thrown, warnings go to `warning`.
///
/// - Thread: control. Every member but the readers marked any, one control thread at a time;
///   `cycle`'s render is the audio thread's.
public final class Synth {
    /// The range of sample rates a synth, a song render and the CLI's `--rate` take.
    public static let sampleRateRange: ClosedRange<Double> = 8_000...384_000
    /// The range of the largest block a host asks `render` for at once (longer asks are split).
    public static let blockFrameRange: ClosedRange<Int> = 1...65_536

    /// Refuses a rate outside `sampleRateRange`, in one line: what every front that takes a rate
    /// from a caller checks (a synth, a song render, an instrument load).
    /// - Throws: `RenderFailure`.
    /// - Thread: any.
    public static func checkSampleRate(_ sampleRate: Double) throws(RenderFailure) {
        guard sampleRateRange.contains(sampleRate) else {
            throw RenderFailure("sample rate \(sampleRate): must be from \(Int(sampleRateRange.lowerBound)) to \(Int(sampleRateRange.upperBound)) Hz")
        }
    }

    /// - Thread: control.
    public let engine: Engine
    /// The audio thread's half: the host's callback calls its `render(left:right:frameCount:)`.
    public let cycle: PlanarRenderCycle
    /// The instrument playing (nil: none loaded yet, every note silent) and where it was read from.
    /// - Thread: control.
    public private(set) var instrument: (bank: SampleBank, path: String)?
    /// Where load warnings go, a line each (a sample left out, what plays channel 10 instead).
    /// - Thread: control.
    public var warning: (String) -> Void
    private let kits: DrumKitShelf
    /// The playing instrument's samples still decoding in the background (`open`), if any.
    private var decoding: BackgroundDecoding?

    /// A synth at `sampleRate` for host calls of up to `maxBlockFrameCount` frames, with the
    /// engine's defaults otherwise (effects on, the song gain, 256 voices).
    /// - Throws: `RenderFailure` for a rate or block size out of range.
    /// - Thread: control. Not real-time safe: allocates.
    public init(sampleRate: Double, maxBlockFrameCount: Int, configuration: RenderConfiguration = RenderConfiguration(),
                warning: @escaping (String) -> Void = { _ in }) throws(RenderFailure) {
        try Self.checkSampleRate(sampleRate)
        guard Self.blockFrameRange.contains(maxBlockFrameCount) else {
            throw RenderFailure("block of \(maxBlockFrameCount) frames: must be from 1 to \(Self.blockFrameRange.upperBound)")
        }
        var render = configuration
        render.sampleRate = sampleRate
        render.channelCount = 2
        // The renderer's block need not be the host's: `PlanarRenderCycle` splits longer calls.
        render.maxFrameCount = min(maxBlockFrameCount, RenderConfiguration().maxFrameCount)
        engine = Engine(configuration: EngineConfiguration(render: render))
        cycle = PlanarRenderCycle(core: StreamCore(renderer: engine.renderer, inputChannelCount: 0))
        kits = DrumKitShelf(sampleRate: sampleRate)
        self.warning = warning
    }

    deinit { stopBackgroundWork() }

    /// Stops the playing instrument's background decoding and waits for its threads to end: what a
    /// plug-in does before the host may unload its code. The instrument plays on with what it holds.
    /// - Thread: control.
    public func stopBackgroundWork() {
        decoding?.cancel()
        decoding?.wait()
    }

    /// Frames per second.
    /// - Thread: control.
    public var sampleRate: Double { engine.sampleRate }

    /// Loads the instrument at `path` (SF2, SF3, SFZ, or a folder of recordings) whole, then swaps it in.
    /// A bank with no drum kit plays channel 10 through the shipped kit, as a song render does.
    /// - Throws: `InstrumentLoadError` naming the file and what is wrong; the old instrument plays on.
    /// - Thread: control.
    public func load(path: String) throws(InstrumentLoadError) {
        let bank = try InstrumentLoader.load(path: path, sampleRate: sampleRate)
        for line in bank.loadWarnings { warning("\(path): \(line)") }
        use(bank, from: path)
    }

    /// The sample memory an instrument opened for live play keeps by default (`open`): every
    /// sample's first half second stays, the rest comes from the file as notes play it. What
    /// `staccato play`'s `--sample-cache` defaults to.
    public static let defaultSampleCacheBytes = 256 << 20

    /// Opens the instrument at `path` for playing at once, as the CLI's live commands do, and swaps
    /// it in: a SoundFont's or SFZ's structure is read and the starting presets' samples (program 0
    /// on every channel, and the drum kit) decoded before this returns; the rest decodes in the
    /// background while it plays, within `sampleCacheBytes` (nil: all of it, kept). A folder of
    /// recordings loads whole. A large General MIDI font is playable in about a second where a
    /// whole load takes several.
    /// - Parameter backgroundWarning: told, from the decoding thread, of a sample that fails later.
    /// - Throws: `InstrumentLoadError` naming the file and what is wrong; the old instrument plays on.
    /// - Thread: control.
    public func open(path: String, sampleCacheBytes: Int? = Synth.defaultSampleCacheBytes,
                     backgroundWarning: (@Sendable (String) -> Void)? = nil) throws(InstrumentLoadError) {
        let opening = try InstrumentLoader.open(path: path, sampleRate: sampleRate,
                                                first: PlayedNotes.startingPresets(kitPlaysPercussion: false),
                                                sampleCacheBytes: sampleCacheBytes, warning: backgroundWarning)
        for line in opening.bank.loadWarnings { warning("\(path): \(line)") }
        use(opening.bank, from: path)
        decoding = opening.decoding
    }

    /// Swaps in `bank`, already loaded at this synth's rate (one bank may serve any number of synths
    /// and renders at once).
    /// - Thread: control.
    public func use(_ bank: SampleBank, from path: String) {
        processEvents()
        // The old instrument's background decoding stops (its notes ring out on what it holds), its
        // threads ended here, so none outlives the synth.
        stopBackgroundWork()
        decoding = nil
        let now = engine.renderedFrameTime
        engine.install(bank, at: now)
        if !bank.hasDrumKit {
            let kitPath = InstrumentLoader.shippedKitPath
            do {
                engine.install(try kits.kit(at: kitPath), at: now)
                warning("\(path): \(bank.name) has no drum kit: channel 10 plays the kit \(kitPath)")
            } catch {
                warning("\(path): \(bank.name) has no drum kit, and the shipped one did not load: \(error)")
            }
        }
        instrument = (bank, path)
    }

    /// Queues one MIDI message (a channel message, or a SysEx the engine knows, F0 to F7), to take
    /// effect `frameOffset` frames into the next block `render` renders.
    /// - Throws: `RenderFailure` for bytes that are no such message, or a full command ring.
    /// - Thread: control.
    public func midi(_ bytes: UnsafeBufferPointer<UInt8>, frameOffset: Int = 0) throws(RenderFailure) {
        guard let message = MIDIMessage.decoding(bytes) else {
            let hex = bytes.prefix(8).map { String($0, radix: 16, uppercase: true) }.map { $0.count == 1 ? "0" + $0 : $0 }
            throw RenderFailure("MIDI bytes [\(hex.joined(separator: " "))\(bytes.count > 8 ? " ..." : "")]: not a channel message or a known SysEx")
        }
        try send(message, frameOffset: frameOffset)
    }

    /// Queues `message` `frameOffset` frames into the next block.
    /// - Throws: `RenderFailure` when the command ring is full (a release is kept and never refused).
    /// - Thread: control.
    public func send(_ message: MIDIMessage, frameOffset: Int = 0) throws(RenderFailure) {
        processEvents()
        guard engine.send(midi: message, at: engine.renderedFrameTime + FrameTime(max(0, frameOffset))) else {
            throw RenderFailure("MIDI message dropped: the command queue is full (render to drain it)")
        }
    }

    /// The output level, 0...1, applied smoothly (a click-free ramp).
    /// - Thread: control.
    public var volume: Float {
        get { engine.masterVolume.value }
        set { engine.masterVolume.set(newValue) }
    }

    /// Voices sounding, as of the last block rendered.
    /// - Thread: any.
    public var activeVoiceCount: Int { engine.renderer.statistics.activeVoices }

    /// Frames rendered so far.
    /// - Thread: any.
    public var renderedFrameCount: Int { Int(engine.renderedFrameTime) }

    /// Frees what the audio thread has let go (an old instrument once its last voice ends).
    /// The synth's other control calls do it too.
    /// - Thread: control.
    public func processEvents() { engine.processEvents() }
}
