import CLV2
import DeviceCore
import DSP
import Lockfree
import MIDIVocabulary
import Render
import Synchronization

/// The plug-in's audio-thread half: the host's `run()`, `work_response()` and `connect_port()`.
///
/// Guarantees:
/// - `run` never allocates, locks, logs or waits (the build proves the first two; the LV2 host
///   test counts heap calls); loading is the worker's (`work:schedule`).
/// - Every MIDI event takes effect at its frame in the block, whatever the host's block sizes:
///   at once when the host promises blocks on the renderer's 64-frame grid (`latencyFrameCount`
///   0), otherwise `RenderQuantum.frameCount - 1` frames later, a latency the plug-in reports on
///   its latency port so that hosts compensate it.
/// - Until an instrument is in, the output is silence; while another loads, the old one plays.
///
/// - Thread: audio. For `run`, `workResponse` and `connect`, which the host calls one at a time;
///   the rest is as marked.
public final class PluginRunCycle: @unchecked Sendable {
    private let render: Unmanaged<PlanarRenderCycle>
    private let core: Unmanaged<StreamCore>
    private let volume: Unmanaged<ParameterCell>
    private let uris: PluginURIDs
    private let schedule: UnsafePointer<LV2_Worker_Schedule>
    private let sampleRate: Int
    public let latencyFrameCount: Int

    private var controlPort: UnsafeRawPointer?
    private var notifyPort: UnsafeMutableRawPointer?
    private var leftPort: UnsafeMutablePointer<Float>?
    private var rightPort: UnsafeMutablePointer<Float>?
    private var gainPort: UnsafePointer<Float>?
    private var latencyPort: UnsafeMutablePointer<Float>?
    private var polyphonyPort: UnsafePointer<Float>?

    private var appliedGain = Float.nan
    private var appliedPolyphony = -1
    private let voiceCount: Int
    private var defaultRequested = false
    private var framesSinceTidy = 0
    /// A message to the worker, built here: the kind, then the text.
    private let outgoing: UnsafeMutableRawPointer
    /// What the worker answered last of each kind, for the notify port: the text, its length, and
    /// whether it is still to be sent.
    private let loadedText: UnsafeMutablePointer<UInt8>
    private var loadedCount = 0, loadedPending = false
    private let errorText: UnsafeMutablePointer<UInt8>
    private var errorCount = 0, errorPending = false

    /// Set once any instrument has been asked for (a `patch:Set`, restored state), so that the
    /// first `run` asks for the default font only when nothing else is coming.
    public let instrumentRequested = Atomic<Bool>(false)

    /// The control half that owns this cycle (the plug-in instance, retained), for the host's
    /// control-thread calls, which get the same handle.
    /// - Thread: control.
    public var owner: UnsafeMutableRawPointer?

    /// The polyphony port's range: from 8 voices (below that, a note of several voices takes over
    /// its own first ones, which have not sounded yet) to the synth's whole pool.
    /// - Thread: any.
    public var polyphonyRange: ClosedRange<Int> { minimumPolyphony...voiceCount }
    private let minimumPolyphony = 8

    /// The gain port's range in decibels; its lowest value is silence.
    public static let gainRange: ClosedRange<Float> = -60...0

    /// - Parameters:
    ///   - render: the synth's render cycle; `volume`, its output level (0...1).
    ///   - schedule: the host's `work:schedule`, which `run` posts loads and tidying to.
    ///   - blocksOnGrid: the host promises every block is a whole number of 64-frame quanta
    ///     (`bufsz:fixedBlockLength` or `powerOf2BlockLength` with blocks of at least 64 frames).
    /// - Thread: control. Not real-time safe: allocates.
    public init(render: PlanarRenderCycle, volume: ParameterCell, uris: PluginURIDs, schedule: UnsafePointer<LV2_Worker_Schedule>,
                sampleRate: Double, blocksOnGrid: Bool) {
        self.render = Unmanaged.passRetained(render)
        core = Unmanaged.passUnretained(render.core)
        self.volume = Unmanaged.passRetained(volume)
        self.uris = uris
        self.schedule = schedule
        self.sampleRate = Int(sampleRate)
        voiceCount = render.core.renderer.configuration.voiceCount
        latencyFrameCount = blocksOnGrid ? 0 : RenderQuantum.frameCount - 1
        let textCapacity = WorkMessage.maxTextByteCount
        outgoing = .allocate(byteCount: 4 + textCapacity, alignment: 8)
        outgoing.initializeMemory(as: UInt8.self, repeating: 0, count: 4 + textCapacity)
        loadedText = .allocate(capacity: textCapacity)
        loadedText.initialize(repeating: 0, count: textCapacity)
        errorText = .allocate(capacity: textCapacity)
        errorText.initialize(repeating: 0, count: textCapacity)
    }

    deinit {
        render.release()
        volume.release()
        outgoing.deallocate()
        loadedText.deallocate()
        errorText.deallocate()
    }

    /// The host's `connect_port`.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    public func connect(port: UInt32, to data: UnsafeMutableRawPointer?) {
        switch port {
        case PluginPort.control: controlPort = data.map { UnsafeRawPointer($0) }
        case PluginPort.notify: notifyPort = data
        case PluginPort.left: leftPort = data?.assumingMemoryBound(to: Float.self)
        case PluginPort.right: rightPort = data?.assumingMemoryBound(to: Float.self)
        case PluginPort.gain: gainPort = data.map { UnsafePointer($0.assumingMemoryBound(to: Float.self)) }
        case PluginPort.latency: latencyPort = data?.assumingMemoryBound(to: Float.self)
        case PluginPort.polyphony: polyphonyPort = data.map { UnsafePointer($0.assumingMemoryBound(to: Float.self)) }
        default: break
        }
    }

    /// The host's `run`: takes the block's MIDI and messages, renders `frameCount` frames, and
    /// writes the notify port.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    public func run(frameCount: Int) {
        guard let leftPort, let rightPort else { return }
        latencyPort?.pointee = Float(latencyFrameCount)
        if let gainPort, gainPort.pointee != appliedGain {
            let gain = gainPort.pointee
            appliedGain = gain
            let level = gain <= Self.gainRange.lowerBound ? 0 : decibelsToAmplitude(min(gain, Self.gainRange.upperBound))
            volume._withUnsafeGuaranteedRef { $0.set(level) }
        }
        var notify: AtomSequenceWriter? = nil
        if let notifyPort { notify = AtomSequenceWriter(into: notifyPort, sequenceType: uris.atomSequence) }
        if loadedPending, notify != nil {
            loadedPending = !notify!.appendPatchSet(frame: 0, property: uris.instrument, valueType: uris.atomPath,
                                                    text: UnsafeBufferPointer(start: loadedText, count: loadedCount), uris: uris)
        }
        if errorPending, notify != nil {
            errorPending = !notify!.appendPatchSet(frame: 0, property: uris.error, valueType: uris.atomString,
                                                   text: UnsafeBufferPointer(start: errorText, count: errorCount), uris: uris)
        }
        if let controlPort {
            let midiEvent = uris.midiEvent, object = uris.atomObject, blank = uris.atomBlank
            var events = AtomSequenceEvents(of: controlPort)
            while let (frame, atom) = events.next() {
                if atom.type == midiEvent {
                    if let message = MIDIMessage.decoding(atom.bytes) {
                        let offset = Int(clamping: max(0, frame)) + latencyFrameCount
                        core._withUnsafeGuaranteedRef { $0.receive(message, atFrameOffset: offset) }
                    }
                } else if atom.type == object || atom.type == blank {
                    take(message: atom)
                }
            }
        }
        // After the block's messages: a patch:Set in the first block is no reason to load the default.
        if let polyphonyPort, polyphonyPort.pointee.isFinite {
            let voices = Int(min(max(Float(minimumPolyphony), polyphonyPort.pointee), Float(voiceCount)) + 0.5)
            if voices != appliedPolyphony {
                appliedPolyphony = voices
                core._withUnsafeGuaranteedRef { $0.setVoiceLimit(voices) }
            }
        }
        if !defaultRequested {
            defaultRequested = true
            if !instrumentRequested.load(ordering: .acquiring) { post(WorkMessage.loadDefault, text: nil) }
        }
        render._withUnsafeGuaranteedRef { $0.render(left: leftPort, right: rightPort, frameCount: frameCount) }
        // Old instruments are freed by the worker: asked about once a second.
        framesSinceTidy += frameCount
        if framesSinceTidy >= sampleRate {
            framesSinceTidy = 0
            post(WorkMessage.tidy, text: nil)
        }
    }

    /// A `patch:Set` of the instrument schedules its load; a `patch:Get` asks the worker to report
    /// the playing instrument (answered on the notify port a block or two later).
    @_noAllocation @_noLocks
    private func take(message atom: Atom) {
        guard let object = AtomObject(atom) else { return }
        if object.objectType == uris.patchSet {
            guard let property = object.value(of: uris.patchProperty), property.type == uris.atomURID, property.size >= 4,
                  property.body.loadUnaligned(as: UInt32.self) == uris.instrument,
                  let value = object.value(of: uris.patchValue) else { return }
            let isPath = value.type == uris.atomPath, isString = value.type == uris.atomString
            guard isPath || isString else {
                refuse("instrument: the value of a patch:Set must be an atom:Path")
                return
            }
            guard value.text.count <= WorkMessage.maxTextByteCount else {
                refuse("instrument: the path is longer than 4096 bytes")
                return
            }
            instrumentRequested.store(true, ordering: .releasing)
            post(WorkMessage.load, text: value.text)
        } else if object.objectType == uris.patchGet {
            post(WorkMessage.report, text: nil)
        }
    }

    /// Sends the worker a message of `kind` carrying `text`.
    @_noAllocation @_noLocks
    private func post(_ kind: UInt32, text: UnsafeBufferPointer<UInt8>?) {
        outgoing.storeBytes(of: kind, as: UInt32.self)
        var count = 0
        if let text, let base = text.baseAddress {
            count = min(text.count, WorkMessage.maxTextByteCount)
            (outgoing + 4).copyMemory(from: base, byteCount: count)
        }
        let schedule = self.schedule, message = outgoing, byteCount = UInt32(4 + count)
        let status = _unsafePerformance { schedule.pointee.schedule_work(schedule.pointee.handle, byteCount, message) }
        if status != LV2_WORKER_SUCCESS && kind == WorkMessage.load {
            refuse("instrument: the host's worker queue is full; the load was not started")
        }
    }

    /// Reports `line` on the notify port as the error property.
    @_noAllocation @_noLocks
    private func refuse(_ line: StaticString) {
        errorCount = min(line.utf8CodeUnitCount, WorkMessage.maxTextByteCount)
        UnsafeMutableRawPointer(errorText).copyMemory(from: line.utf8Start, byteCount: errorCount)
        errorPending = true
    }

    /// The host's `work_response`: the worker's answer, to be sent on the notify port by the
    /// next `run`.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    public func workResponse(_ data: UnsafeRawPointer, byteCount: Int) {
        guard byteCount >= 4 else { return }
        let kind = data.loadUnaligned(as: UInt32.self)
        let count = min(byteCount - 4, WorkMessage.maxTextByteCount)
        let text = (data + 4).assumingMemoryBound(to: UInt8.self)
        if kind == WorkMessage.loaded {
            UnsafeMutableRawPointer(loadedText).copyMemory(from: text, byteCount: count)
            loadedCount = count
            loadedPending = true
        } else if kind == WorkMessage.failed {
            UnsafeMutableRawPointer(errorText).copyMemory(from: text, byteCount: count)
            errorCount = count
            errorPending = true
        }
    }
}

/// The descriptor's audio-thread functions: the plug-in's handle is its `PluginRunCycle`. Free
/// functions, since a C function pointer is formed only from one.

/// `LV2_Descriptor.connect_port`.
/// - Thread: audio.
@_noAllocation @_noLocks
public func pluginConnectPort(_ handle: LV2_Handle?, _ port: UInt32, _ data: UnsafeMutableRawPointer?) {
    guard let handle else { return }
    Unmanaged<PluginRunCycle>.fromOpaque(handle)._withUnsafeGuaranteedRef { $0.connect(port: port, to: data) }
}

/// `LV2_Descriptor.run`.
/// - Thread: audio.
@_noAllocation @_noLocks
public func pluginRun(_ handle: LV2_Handle?, _ sampleCount: UInt32) {
    guard let handle else { return }
    Unmanaged<PluginRunCycle>.fromOpaque(handle)._withUnsafeGuaranteedRef { $0.run(frameCount: Int(sampleCount)) }
}

/// `LV2_Worker_Interface.work_response`.
/// - Thread: audio.
@_noAllocation @_noLocks
public func pluginWorkResponse(_ handle: LV2_Handle?, _ size: UInt32, _ body: UnsafeRawPointer?) -> LV2_Worker_Status {
    guard let handle, let body else { return LV2_WORKER_ERR_UNKNOWN }
    Unmanaged<PluginRunCycle>.fromOpaque(handle)._withUnsafeGuaranteedRef { $0.workResponse(body, byteCount: Int(size)) }
    return LV2_WORKER_SUCCESS
}
