import CJack
import DeviceCore
import Glibc
import Synchronization

/// A connection to a JACK server: a client of it, before and while it plays. Opened first, so that
/// what the server runs at (its rate and buffer size) sets up the engine; the stream then registers
/// its ports on it (`PlaybackStream(jack:...)`).
///
/// A thin typed wrapper: one funnel per JACK call, errors as one line naming the server or the
/// client. Works the same with PipeWire's JACK library (`pw-jack staccato ...`).
///
/// - Thread: control. For every member; JACK's callbacks run on threads of the server's library.
public final class JACKClient: @unchecked Sendable {
    /// Which ports a connection request means.
    public enum Connection: Sendable, Equatable {
        /// The first physical ports of the right direction (playback for outputs, capture for inputs).
        case automatic
        /// None: the user or a patchbay connects them.
        case none
        /// These ports, in channel order (full names, `client:port`).
        case ports([String])

        /// Reads `auto`, `none` or a comma-separated list of port names.
        /// - Thread: any.
        public init(parsing text: String) {
            switch text {
            case "auto": self = .automatic
            case "none": self = .none
            default: self = .ports(text.split(separator: ",").map { String($0) })
            }
        }
    }

    /// The server this client is of: `JACK_DEFAULT_SERVER`, or `default`.
    /// - Thread: control.
    public let serverName: String
    /// The client's name on the server, as granted.
    /// - Thread: control.
    public let name: String
    let handle: OpaquePointer

    private var isClosed = false

    /// The JACK client type strings (`JACK_DEFAULT_AUDIO_TYPE`, `JACK_DEFAULT_MIDI_TYPE`).
    static let audioType = "32 bit float mono audio"
    static let midiType = "8 bit raw midi"

    /// Opens client `name` on the running server, exactly that name, without starting a server.
    /// - Throws: `DeviceError`, one line: no server running, the name taken, the server refusing.
    /// - Thread: control.
    public init(name: String) throws(DeviceError) {
        let server = getenv("JACK_DEFAULT_SERVER").map { String(cString: $0) }
        serverName = server ?? "default"
        // jack2 names a client's socket as it names the server's: a client named after its server
        // unlinks the server's socket, and no client can reach that server again until it restarts.
        guard name != serverName else {
            throw DeviceError(device: name, subject: "JACK client '\(name)'", message: "has the name of the server it would join, which cuts that server off from every client (a jack2 flaw); choose another with --jack-name NAME")
        }
        staccato_jack_silence_messages()
        var status = jack_status_t(rawValue: 0)
        let options = jack_options_t(rawValue: JackNoStartServer.rawValue | JackUseExactName.rawValue)
        guard let client = staccato_jack_client_open(name, options, &status, nil) else {
            throw Self.openFailure(status: status, name: name, server: serverName, nameIsTaken: Self.hasClient(named: name))
        }
        handle = client
        self.name = String(cString: jack_get_client_name(client))
        sampleRate = Int(jack_get_sample_rate(client))
        initialBufferFrameCount = Int(jack_get_buffer_size(client))
    }

    deinit { close() }

    /// Whether the server runs a client named `name`: jack2 refuses a taken exact name as a server
    /// error, not as `JackNameNotUnique`, so a second client (any free name) asks the server.
    static func hasClient(named name: String) -> Bool {
        var status = jack_status_t(rawValue: 0)
        guard let probe = staccato_jack_client_open("staccato_probe", JackNoStartServer, &status, nil) else { return false }
        defer { jack_client_close(probe) }
        guard let uuid = jack_get_uuid_for_client_name(probe, name) else { return false }
        jack_free(uuid)
        return true
    }

    /// The one line for a client that could not open.
    static func openFailure(status: jack_status_t, name: String, server: String, nameIsTaken: Bool) -> DeviceError {
        let bits = status.rawValue
        let subject = "JACK client '\(name)'"
        if bits & JackNameNotUnique.rawValue != 0 || nameIsTaken {
            return DeviceError(device: name, subject: subject, message: "the name is taken on JACK server '\(server)' (another client has it); choose another with --jack-name NAME")
        }
        if bits & (JackServerFailed.rawValue | JackServerError.rawValue) != 0 {
            return DeviceError(device: name, subject: "JACK server '\(server)'", message: "no JACK server running; start one, or use --audio alsa")
        }
        if bits & JackVersionError.rawValue != 0 {
            return DeviceError(device: name, subject: subject, message: "the server speaks another protocol version than this libjack")
        }
        return DeviceError(device: name, subject: subject, message: "JACK server '\(server)' refused the client (status 0x\(String(bits, radix: 16)))")
    }

    /// The server's sample rate (it does not change while a client is open).
    /// - Thread: control.
    public let sampleRate: Int
    /// The server's buffer size when the client opened: the frames of one process cycle then.
    /// - Thread: control.
    public let initialBufferFrameCount: Int
    /// The server's buffer size now (the size at close, once closed).
    /// - Thread: control.
    public var bufferFrameCount: Int { isClosed ? initialBufferFrameCount : Int(jack_get_buffer_size(handle)) }
    /// Whether the server runs its process thread with real-time scheduling.
    /// - Thread: control.
    public var isRealtime: Bool { !isClosed && jack_is_realtime(handle) != 0 }

    /// Asks the server to run at `frameCount` frames a cycle (every client follows).
    /// - Throws: `DeviceError` when the server refuses the size.
    /// - Thread: control.
    public func setBufferFrameCount(_ frameCount: Int) throws(DeviceError) {
        let result = jack_set_buffer_size(handle, jack_nframes_t(frameCount))
        guard result == 0 else {
            throw DeviceError(device: name, subject: "JACK server '\(serverName)'", message: "refused a buffer size of \(frameCount) frames (\(result))")
        }
    }

    /// Registers a port of ours.
    /// - Thread: control.
    func registerPort(_ shortName: String, midi: Bool = false, isInput: Bool) throws(DeviceError) -> OpaquePointer {
        let flags = UInt(isInput ? JackPortIsInput.rawValue : JackPortIsOutput.rawValue)
        guard let port = jack_port_register(handle, shortName, midi ? Self.midiType : Self.audioType, flags, 0) else {
            throw DeviceError(device: name, subject: "JACK client '\(name)'", message: "cannot register port '\(shortName)'")
        }
        return port
    }

    /// The full names of the ports that match: physical ones, of audio or MIDI, that take
    /// (playback) or give (capture) frames.
    /// - Thread: control.
    public func physicalPorts(midi: Bool, playback: Bool) -> [String] {
        let flags = UInt((playback ? JackPortIsInput.rawValue : JackPortIsOutput.rawValue) | JackPortIsPhysical.rawValue)
        return ports(type: midi ? Self.midiType : Self.audioType, flags: flags)
    }

    /// Every port on the server, of either type, with its direction.
    /// - Thread: control.
    public func allPorts() -> [(name: String, isMIDI: Bool, isInput: Bool)] {
        var result: [(String, Bool, Bool)] = []
        for midi in [false, true] {
            for input in [false, true] {
                let flags = UInt(input ? JackPortIsInput.rawValue : JackPortIsOutput.rawValue)
                for port in ports(type: midi ? Self.midiType : Self.audioType, flags: flags) { result.append((port, midi, input)) }
            }
        }
        return result.sorted { $0.0 < $1.0 }
    }

    private func ports(type: String, flags: UInt) -> [String] {
        guard let list = jack_get_ports(handle, nil, type, flags) else { return [] }
        defer { jack_free(UnsafeMutableRawPointer(mutating: list)) }
        var names: [String] = []
        var index = 0
        while let entry = list[index] {
            names.append(String(cString: entry))
            index += 1
        }
        return names
    }

    /// The full name (`client:port`) of a port of ours.
    func fullName(of port: OpaquePointer) -> String { String(cString: jack_port_name(port)) }

    /// Connects `source` to `destination` (an output port to an input port); already connected
    /// is fine.
    /// - Thread: control.
    func connect(_ source: String, to destination: String) throws(DeviceError) {
        let result = jack_connect(handle, source, destination)
        guard result == 0 || result == EEXIST else {
            var missing: String?
            for port in [source, destination] where jack_port_by_name(handle, port) == nil { missing = missing ?? port }
            let why = missing.map { "there is no port '\($0)' ('staccato devices' lists JACK's ports)" } ?? "the server refused (\(result))"
            throw DeviceError(device: name, subject: "JACK client '\(name)'", message: "cannot connect '\(source)' to '\(destination)': \(why)")
        }
    }

    /// The latency range of the port named `name` (any client's) as the server has it: for a port
    /// that takes audio, how long until what it takes plays; for one that gives audio, how long
    /// ago what it gives was captured. Nil when there is no such port.
    /// - Thread: control.
    func latency(ofPortNamed name: String, playback: Bool) -> ClosedRange<Int>? {
        guard let port = jack_port_by_name(handle, name) else { return nil }
        var range = jack_latency_range_t()
        jack_port_get_latency_range(port, playback ? JackPlaybackLatency : JackCaptureLatency, &range)
        return Int(range.min)...Int(max(range.min, range.max))
    }

    /// The process thread's scheduling, once the client is active.
    /// - Thread: control.
    var processThreadScheduling: RealtimeScheduling {
        guard isRealtime else { return .serverNotRealtime }
        var policy: Int32 = 0
        var parameters = sched_param()
        guard pthread_getschedparam(jack_client_thread_id(handle), &policy, &parameters) == 0 else {
            return .fifo(priority: jack_client_real_time_priority(handle))
        }
        return policy == SCHED_FIFO || policy == SCHED_RR ? .fifo(priority: parameters.sched_priority) : .serverNotRealtime
    }

    /// Activates the client: the server starts calling its process callback.
    func activate() throws(DeviceError) {
        let result = jack_activate(handle)
        guard result == 0 else {
            throw DeviceError(device: name, subject: "JACK client '\(name)'", message: "the server would not activate it (\(result))")
        }
    }

    /// Stops the callbacks: once it returns, the process callback is not running and will not run.
    func deactivate() { _ = jack_deactivate(handle) }

    /// Leaves the server (deactivating first). Later calls do nothing.
    /// - Thread: control.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        _ = jack_client_close(handle)
    }
}
