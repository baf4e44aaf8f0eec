import CJack
import DeviceCore
import Glibc
import Render
import Synchronization

/// The JACK backend: a native JACK client whose process callback runs the stream core directly
/// (`JACKCycle`): audio output ports `out_1`, `out_2`, input ports `in_1`, `in_2` when it captures,
/// and a MIDI input port `midi_in` whose events play at their frames.
///
/// Server conventions: the server's rate and buffer size are the stream's (the engine is made at
/// the server's rate; a buffer-size change mid-run is followed, since the cycle renders any frame
/// count); xruns come from the server's xrun callback; the server going away (`jack_on_info_shutdown`)
/// or ceasing to call the client for the stall timeout ends the stream with one line naming the
/// server; the latency is what the server computes for the connected ports
/// (`jack_port_get_latency_range`).
///
/// - Thread: control. For every member; the callbacks run on the server library's threads.
final class JACKDevice: DeviceBackend, @unchecked Sendable {
    /// The ports to connect, by direction.
    struct Connections: Sendable, Equatable {
        var outputs = JACKClient.Connection.automatic
        var inputs = JACKClient.Connection.automatic
        /// JACK MIDI output ports to connect to `midi_in` (with `.automatic`, the physical ones).
        var midi = JACKClient.Connection.automatic
    }

    let client: JACKClient
    let core: StreamCore
    let cycle: JACKCycle
    let stallTimeoutMilliseconds: Int32
    /// Our ports' full names and the ports they were connected to at start.
    private(set) var connections: [(ours: String, theirs: String)] = []
    /// The audio ports ours were connected to at start: playback targets, capture sources.
    private var outputTargets: [String] = []
    private var inputSources: [String] = []
    private let outputPorts: [OpaquePointer]
    private let inputPorts: [OpaquePointer]
    private let midiPort: OpaquePointer?
    private let requested: Connections
    private let watch: JACKServerWatch
    private var started = false
    private var joined = false
    private var startTime = 0.0
    private var endTime: Double?
    private var scheduling = RealtimeScheduling.notRequested
    private var playbackLatency = 0...0
    private var captureLatency = 0...0

    /// Registers the ports on `client` and the callbacks; nothing runs until `start`.
    /// - Parameters:
    ///   - inputChannelCount: capture ports to register (`in_1` ...), 0 for none.
    ///   - midiInput: register `midi_in`.
    /// - Throws: `DeviceError` when the renderer is not at the server's rate, or a port cannot be made.
    /// - Thread: control. Not real-time safe: allocates.
    init(client: JACKClient, configuration: StreamConfiguration, renderer: Renderer, inputChannelCount: Int,
         midiInput: Bool, connections: Connections) throws(DeviceError) {
        guard Double(client.sampleRate) == renderer.configuration.sampleRate else {
            throw DeviceError(device: client.name, subject: "JACK server '\(client.serverName)'",
                              message: "runs at \(client.sampleRate) Hz, the engine at \(Int(renderer.configuration.sampleRate)) Hz (make the engine at the server's rate)")
        }
        self.client = client
        requested = connections
        var outputs: [OpaquePointer] = []
        for channel in 1...renderer.configuration.channelCount { outputs.append(try client.registerPort("out_\(channel)", isInput: false)) }
        var inputs: [OpaquePointer] = []
        if inputChannelCount > 0 {
            for channel in 1...inputChannelCount { inputs.append(try client.registerPort("in_\(channel)", isInput: true)) }
        }
        outputPorts = outputs
        inputPorts = inputs
        midiPort = midiInput ? try client.registerPort("midi_in", midi: true, isInput: true) : nil
        core = StreamCore(renderer: renderer, inputChannelCount: inputChannelCount, timingCapacity: configuration.timingCapacity,
                          captureRecordingFrameCount: configuration.captureRecordingFrameCount)
        cycle = JACKCycle(core: core, outputPorts: outputs, inputPorts: inputs, midiPort: midiPort)
        watch = JACKServerWatch(core: core)
        let bufferMilliseconds = Double(client.bufferFrameCount) * 1_000 / Double(client.sampleRate)
        stallTimeoutMilliseconds = Int32(max(80, 8 * bufferMilliseconds))
        installCallbacks()
    }

    deinit {
        core.requestStop()
        join()
    }

    private func installCallbacks() {
        let cycleContext = Unmanaged.passUnretained(cycle).toOpaque()
        jack_set_process_callback(client.handle, { frameCount, context in
            Unmanaged<JACKCycle>.fromOpaque(context!)._withUnsafeGuaranteedRef { $0.process(frameCount: frameCount) }
        }, cycleContext)
        let watchContext = Unmanaged.passUnretained(watch).toOpaque()
        jack_set_xrun_callback(client.handle, { context in
            Unmanaged<JACKServerWatch>.fromOpaque(context!)._withUnsafeGuaranteedRef { $0.serverReportedXrun() }
            return 0
        }, watchContext)
        jack_on_info_shutdown(client.handle, { _, reason, context in
            Unmanaged<JACKServerWatch>.fromOpaque(context!)._withUnsafeGuaranteedRef { $0.serverShutDown(reason: reason) }
        }, watchContext)
    }

    var device: String { client.name }
    var captureDevice: String? { inputPorts.isEmpty ? nil : client.name }
    /// The inputs and outputs run in one process callback: one clock, started together.
    var isLinked: Bool { !inputPorts.isEmpty }
    var sharesClock: Bool { true }
    var recordedOutput: [Float] { [] }

    /// The server's latency for our ports and what they were connected to, once started.
    var details: [String] {
        let connected = connections.map { "\($0.ours) <-> \($0.theirs)" }
        return ["JACK client '\(client.name)' on server '\(client.serverName)': \(latencyDescription)",
                connected.isEmpty ? "ports not connected (--connect none, or no physical ports): connect them with jack_connect or a patchbay"
                    : "connected " + connected.joined(separator: ", ")]
    }

    var granted: GrantedConfiguration {
        let period = cycle.cycleFrameCount > 0 ? cycle.cycleFrameCount : client.initialBufferFrameCount
        // The frames between a render and the speaker: the playback latency of the ports ours
        // feed (what a device's buffer is to ALSA); a period when nothing is connected.
        return GrantedConfiguration(format: .float32, sampleRate: client.sampleRate, channelCount: outputPorts.count,
                                    periodFrameCount: period, bufferFrameCount: max(period, playbackLatency.upperBound),
                                    requestedPeriodFrameCount: period)
    }

    /// The capture side as granted: the input ports' channel count, their capture latency.
    var grantedCapture: GrantedConfiguration? {
        guard !inputPorts.isEmpty else { return nil }
        var capture = granted
        capture.channelCount = inputPorts.count
        capture.bufferFrameCount = max(capture.periodFrameCount, captureLatency.upperBound)
        return capture
    }

    /// The server's latency for our ports, as it computed it at start: the playback latency of the
    /// outputs, the capture latency of the inputs (nil without inputs).
    var latencyDescription: String {
        func range(_ frames: ClosedRange<Int>) -> String {
            let text = frames.lowerBound == frames.upperBound ? "\(frames.upperBound)" : "\(frames.lowerBound)-\(frames.upperBound)"
            return text + " frames (\(String(format2: Double(frames.upperBound) * 1_000 / Double(client.sampleRate))) ms)"
        }
        return "playback latency \(range(playbackLatency))" + (inputPorts.isEmpty ? "" : ", capture latency \(range(captureLatency))")
    }

    func start() throws(DeviceError) {
        precondition(!started, "a stream starts once")
        started = true
        startTime = MonotonicClock.seconds()
        try client.activate()
        do {
            try connectPorts()
        } catch {
            client.deactivate()
            endTime = MonotonicClock.seconds()
            core.requestStop()
            throw error
        }
        // Read from the ports ours were connected to: the server updates our own ports' latency
        // only a while after the connections, and a read straight after them can still see none.
        playbackLatency = widest(outputTargets.compactMap { client.latency(ofPortNamed: $0, playback: true) })
        captureLatency = widest(inputSources.compactMap { client.latency(ofPortNamed: $0, playback: false) })
        cycle.setDrainFrameCount(playbackLatency.upperBound + client.bufferFrameCount)
        if !inputPorts.isEmpty {
            // One clock, no buffering of ours: what a captured frame waits is the server's.
            core.publishLatency(captureLatency.upperBound + playbackLatency.upperBound)
            core.publishStreamOffset(0)
        }
        scheduling = client.processThreadScheduling
    }

    /// The widest of the latency ranges (the latest frames set the stream's latency); none is 0.
    private func widest(_ ranges: [ClosedRange<Int>]) -> ClosedRange<Int> {
        ranges.max { $0.upperBound < $1.upperBound } ?? 0...0
    }

    private func connectPorts() throws(DeviceError) {
        let outputNames = outputPorts.map { client.fullName(of: $0) }
        let inputNames = inputPorts.map { client.fullName(of: $0) }
        for (ours, theirs) in zip(outputNames, targets(requested.outputs, count: outputNames.count, midi: false, playback: true)) {
            try client.connect(ours, to: theirs)
            connections.append((ours, theirs))
            outputTargets.append(theirs)
        }
        for (ours, theirs) in zip(inputNames, targets(requested.inputs, count: inputNames.count, midi: false, playback: false)) {
            try client.connect(theirs, to: ours)
            connections.append((ours, theirs))
            inputSources.append(theirs)
        }
        if let midiPort {
            let ours = client.fullName(of: midiPort)
            let sources: [String] = switch requested.midi {
            case .automatic: client.physicalPorts(midi: true, playback: false)
            case .none: []
            case let .ports(names): names
            }
            for theirs in sources {
                try client.connect(theirs, to: ours)
                connections.append((ours, theirs))
            }
        }
    }

    /// The ports our `count` ports connect to, in channel order.
    private func targets(_ connection: JACKClient.Connection, count: Int, midi: Bool, playback: Bool) -> [String] {
        switch connection {
        case .automatic: Array(client.physicalPorts(midi: midi, playback: playback).prefix(count))
        case .none: []
        case let .ports(names): Array(names.prefix(count))
        }
    }

    var realtimeScheduling: RealtimeScheduling { scheduling }

    /// True once no cycle has come for the stall timeout (the server stopped, or hangs).
    private var isStalled: Bool {
        guard started, !joined else { return false }
        let last = cycle.lastCycleNanoseconds
        let since = last == 0 ? MonotonicClock.seconds() - startTime : Double(MonotonicClock.nanoseconds() &- last) / 1e9
        return since * 1_000 > Double(stallTimeoutMilliseconds)
    }

    var isDone: Bool {
        guard started else { return false }
        return endTime != nil || cycle.isFinished || watch.isServerGone || isStalled
    }

    var endSeconds: Double? {
        if let endTime { return endTime }
        return isDone ? MonotonicClock.seconds() : nil
    }

    /// What ended the stream, if it failed; fixed at `join`.
    private var endedWith: DeviceError?

    var failure: DeviceError? {
        if joined { return endedWith }
        return currentFailure
    }

    private var currentFailure: DeviceError? {
        let server = "JACK server '\(client.serverName)'"
        if watch.isServerGone {
            let reason = watch.shutdownReason
            return DeviceError(device: client.name, subject: server, message: "shut down" + (reason.isEmpty ? "" : " (\(reason))"))
        }
        if !cycle.isFinished, isStalled {
            return DeviceError(device: client.name, subject: server, message: "stopped calling client '\(client.name)' for \(stallTimeoutMilliseconds) ms (server stalled, or died)")
        }
        return nil
    }

    func join() {
        guard started, !joined else { return }
        while !isDone { usleep(1_000) }
        endedWith = currentFailure
        endTime = endTime ?? MonotonicClock.seconds()
        joined = true
        // After the server has gone, the client is a husk: closing it frees it without a server.
        if endedWith == nil { client.deactivate() }
        client.close()
        core.closeRecords()
    }
}

/// What the server tells the client outside the process callback, on its library's threads: an
/// xrun, its shutdown. Only atomics and one fixed buffer are touched there.
/// - Thread: any.
final class JACKServerWatch: @unchecked Sendable {
    private let core: StreamCore
    private let gone = Atomic<Bool>(false)
    private let reasonCapacity = 256
    private let reason: UnsafeMutablePointer<CChar>

    init(core: StreamCore) {
        self.core = core
        reason = .allocate(capacity: reasonCapacity)
        reason.initialize(repeating: 0, count: reasonCapacity)
    }

    deinit { reason.deallocate() }

    /// The xrun callback.
    func serverReportedXrun() { core.countXrunFromServer() }

    /// The shutdown callback: keep the server's reason, then say so.
    func serverShutDown(reason text: UnsafePointer<CChar>?) {
        if let text { strncpy(reason, text, reasonCapacity - 1) }
        gone.store(true, ordering: .releasing)
    }

    var isServerGone: Bool { gone.load(ordering: .acquiring) }
    var shutdownReason: String { isServerGone ? String(cString: reason) : "" }
}
