import DSP
import Lockfree
import Render

/// The control-thread face of the engine: it owns the sending half of the command ring and the
/// receiving half of the event ring, and builds the `Renderer` that one audio thread runs.
///
/// - Thread: control. For every member unless its comment says otherwise. One control thread at a
///   time: the rings have a single producer and a single consumer.
public final class Engine {
    /// - Thread: control.
    public let configuration: EngineConfiguration
    /// The audio-thread half. Hand it to exactly one device stream or offline render.
    /// - Thread: control.
    public let renderer: Renderer
    /// The effects graph's knobs: bass, treble, boost, reverb mix and master volume.
    /// - Thread: control.
    public let effects: EffectsControls
    /// Master volume, 0...1, applied smoothly on the audio thread.
    /// - Thread: control.
    public var masterVolume: ParameterCell { effects.volume }
    /// The recording tap on the final output, when `configuration.recordingBufferSeconds` > 0.
    /// - Thread: control.
    public let outputTap: OutputTap?
    /// The tap on the processed microphone alone (stereo), before it joins the instruments, when
    /// `configuration.microphoneRecordingBufferSeconds` > 0.
    /// - Thread: control.
    public let microphoneTap: OutputTap?

    private var commands: SPSCRing<RenderCommand>.Producer
    private var events: SPSCRing<RenderEvent>.Consumer
    private var pendingReleases = PendingReleases()
    /// Commands refused because the ring was full: each one is a note or change that did not happen.
    /// Releases are never refused (see `send`), so a refusal never leaves a note sounding.
    /// - Thread: control.
    public private(set) var refusedCommandCount = 0
    /// Releases that found the ring full and were queued for retry instead (see `send`).
    /// - Thread: control.
    public private(set) var deferredReleaseCount = 0
    /// Releases still waiting for room in the ring; `processEvents()` retries them.
    /// - Thread: control.
    public var pendingReleaseCount: Int { pendingReleases.count }
    /// The latest frame any accepted command was stamped with: a command stamped with this frame
    /// takes effect after every command sent before it.
    /// - Thread: control.
    public private(set) var latestCommandFrameTime: FrameTime = 0
    /// Xruns the audio thread reported, as drained by `processEvents()`.
    /// - Thread: control.
    public private(set) var xrunCount = 0

    /// Not real-time safe: allocates the rings and the renderer.
    /// - Thread: control.
    public init(configuration: EngineConfiguration = EngineConfiguration()) {
        self.configuration = configuration
        effects = EffectsControls(initialVolume: configuration.initialMasterVolume)
        outputTap = configuration.recordingBufferSeconds > 0
            ? OutputTap(channelCount: configuration.render.channelCount,
                        capacityFrameCount: Int(configuration.recordingBufferSeconds * configuration.render.sampleRate))
            : nil
        microphoneTap = configuration.microphoneRecordingBufferSeconds > 0
            ? OutputTap(channelCount: 2,
                        capacityFrameCount: Int(configuration.microphoneRecordingBufferSeconds * configuration.render.sampleRate))
            : nil
        let commandRing = SPSCRing<RenderCommand>.make(capacity: configuration.commandCapacity)
        let eventRing = SPSCRing<RenderEvent>.make(capacity: configuration.eventCapacity)
        commands = commandRing.producer
        events = eventRing.consumer
        renderer = Renderer(configuration: configuration.render, commands: commandRing.consumer,
                            events: eventRing.producer, effects: effects, outputTap: outputTap,
                            microphoneTap: microphoneTap)
    }

    deinit { processEvents() }

    /// Frames per second the engine renders at.
    /// - Thread: control.
    public var sampleRate: Double { configuration.render.sampleRate }

    /// The frame the audio thread will render next, as last published (the engine's "now").
    /// - Thread: control.
    public var renderedFrameTime: FrameTime { renderer.renderedFrameTime }

    /// Queues `action` to take effect at `frameTime` (pass `renderedFrameTime` or 0 for "as soon as
    /// possible"). Never waits.
    ///
    /// Commands take effect in the order of their frames, whatever order they are sent in; those
    /// for the same frame in the order sent. A command for a frame already rendered takes effect
    /// as soon as the audio thread reads it, after those sent before it, and is never held behind
    /// one sent earlier for a later frame. A bank or kit install that has to wait for a free slot
    /// holds every command due after it until it is done, so a note sent after an install plays
    /// on the new instrument.
    ///
    /// The audio thread moves commands out of the ring into a store of its own, as large as the
    /// ring, where they wait for their frames. While that store is full (as many commands as the
    /// ring holds, all for later frames), the ring is not read: commands sent then wait in the
    /// ring, behind one another, until a stored command's frame comes, and once the ring too is
    /// full, sends find it full.
    ///
    /// When the command ring is full, a release (note-off, pedal up, all notes off, tone off, mute)
    /// is kept and retried in order by later sends and `processEvents()`, and returns `true`: it
    /// will happen, late. Anything else returns `false` and counts the refusal. While releases
    /// wait, newer commands queue behind them or are refused, so none overtakes them (a note-on
    /// must not be silenced by an older note-off arriving after it).
    /// - Thread: control.
    @discardableResult
    public func send(_ action: RenderCommand.Action, at frameTime: FrameTime = 0) -> Bool {
        let command = RenderCommand(at: frameTime, action)
        retryPendingReleases()
        if pendingReleases.isEmpty, commands.tryPush(command) {
            latestCommandFrameTime = max(latestCommandFrameTime, frameTime)
            return true
        }
        if action.endsSound {
            pendingReleases.append(command)
            deferredReleaseCount += 1
            latestCommandFrameTime = max(latestCommandFrameTime, frameTime)
            return true
        }
        refusedCommandCount += 1
        return false
    }

    private func retryPendingReleases() {
        if !pendingReleases.isEmpty { pendingReleases.retry { commands.tryPush($0) } }
    }

    /// Room left in the command ring.
    /// - Thread: control.
    public func freeCommandSlots() -> Int { commands.freeCount() }

    /// Retries releases waiting for ring space, then drains the event ring: releases retired objects
    /// (freeing them here, off the audio thread), counts xruns, and passes every event to
    /// `handler`. Returns how many events there were.
    /// - Thread: control.
    @discardableResult
    public func processEvents(_ handler: (RenderEvent) -> Void = { _ in }) -> Int {
        retryPendingReleases()
        var count = 0
        while let event = events.tryPop() {
            count += 1
            handler(event)
            switch event {
            case .xrun: xrunCount += 1
            case let .retired(object): object.release()
            }
        }
        return count
    }
}
