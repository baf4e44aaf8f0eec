import CALSA
import Glibc
import MIDIVocabulary

/// Live MIDI from the ALSA sequencer: a client with one writable port, subscribed to a source
/// (`--connect CLIENT:PORT`) or to every hardware input. Events arrive as raw MIDI bytes (through
/// the sequencer's MIDI-event encoder), so they go through the same `MIDIStreamParser` as every
/// other source; when a source unsubscribes or its client exits, `readAvailable` appends All
/// Notes Off for every channel, so nothing it was holding stays stuck.
///
/// - Thread: control. For every member.
public final class SequencerInput {
    /// "client:port" of our port, for other programs to connect to.
    /// - Thread: control.
    public let address: String
    private let handle: OpaquePointer
    private let decoder: OpaquePointer

    /// - Throws: `DeviceError`; where the sequencer is missing (no /dev/snd/seq) the message says
    ///   how to get it.
    /// - Thread: control.
    public init(clientName: String, connectTo source: String?) throws(DeviceError) {
        LibraryDiagnostics.quietOnce()
        var sequencer: OpaquePointer?
        let opened = snd_seq_open(&sequencer, "default", Int32(SND_SEQ_OPEN_INPUT), Int32(SND_SEQ_NONBLOCK))
        guard opened >= 0, let sequencer else {
            throw DeviceError(device: "ALSA sequencer", message: "cannot open /dev/snd/seq (\(String(cString: strerror(-opened)))): load the kernel module with 'modprobe snd-seq', or play a raw MIDI device or file with --midi-in",
                              code: ALSAError(returned: opened))
        }
        snd_seq_set_client_name(sequencer, clientName)
        let capabilities = UInt32(SND_SEQ_PORT_CAP_WRITE | SND_SEQ_PORT_CAP_SUBS_WRITE)
        let port = snd_seq_create_simple_port(sequencer, clientName, capabilities,
                                              UInt32(SND_SEQ_PORT_TYPE_MIDI_GENERIC | SND_SEQ_PORT_TYPE_APPLICATION))
        var decoder: OpaquePointer?
        guard port >= 0, snd_midi_event_new(256, &decoder) >= 0, let decoder else {
            snd_seq_close(sequencer)
            throw DeviceError(device: "ALSA sequencer", message: "cannot create a port: \(ALSAError(returned: port))")
        }
        snd_midi_event_no_status(decoder, 1)  // whole messages, no running status: simpler to parse
        handle = sequencer
        self.decoder = decoder
        address = "\(snd_seq_client_id(sequencer)):\(port)"
        if let source {
            var target = snd_seq_addr_t()
            guard snd_seq_parse_address(sequencer, &target, source) >= 0,
                  snd_seq_connect_from(sequencer, port, Int32(target.client), Int32(target.port)) >= 0 else {
                snd_midi_event_free(decoder)
                snd_seq_close(sequencer)
                throw DeviceError(device: source, message: "no such sequencer source to connect to ('aconnect -i' lists them)")
            }
        } else {
            connectEveryHardwareInput(port: port)
        }
    }

    deinit {
        snd_midi_event_free(decoder)
        snd_seq_close(handle)
    }

    /// Subscribes `port` to every readable hardware port (a USB keyboard appears as one).
    private func connectEveryHardwareInput(port: Int32) {
        var client: OpaquePointer?, portInfo: OpaquePointer?
        guard snd_seq_client_info_malloc(&client) >= 0, snd_seq_port_info_malloc(&portInfo) >= 0 else { return }
        defer { snd_seq_client_info_free(client); snd_seq_port_info_free(portInfo) }
        snd_seq_client_info_set_client(client, -1)
        while snd_seq_query_next_client(handle, client) >= 0 {
            snd_seq_port_info_set_client(portInfo, snd_seq_client_info_get_client(client))
            snd_seq_port_info_set_port(portInfo, -1)
            while snd_seq_query_next_port(handle, portInfo) >= 0 {
                let wanted = UInt32(SND_SEQ_PORT_CAP_READ | SND_SEQ_PORT_CAP_SUBS_READ)
                guard snd_seq_port_info_get_capability(portInfo) & wanted == wanted,
                      snd_seq_port_info_get_type(portInfo) & UInt32(SND_SEQ_PORT_TYPE_HARDWARE) != 0 else { continue }
                snd_seq_connect_from(handle, port, snd_seq_port_info_get_client(portInfo), snd_seq_port_info_get_port(portInfo))
            }
        }
    }

    /// The MIDI bytes of every event waiting now (never blocks). A source leaving adds All Notes
    /// Off and a sustain release on all 16 channels.
    /// - Thread: control.
    public func readAvailable() -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            var event: UnsafeMutablePointer<snd_seq_event_t>?
            let result = snd_seq_event_input(handle, &event)
            if result == -EINTR { continue }
            guard result >= 0, let event else { return bytes }
            let type = Int32(event.pointee.type)
            if type == Int32(SND_SEQ_EVENT_PORT_UNSUBSCRIBED.rawValue) || type == Int32(SND_SEQ_EVENT_CLIENT_EXIT.rawValue)
                || type == Int32(SND_SEQ_EVENT_PORT_EXIT.rawValue) {
                for channel in 0..<UInt8(MIDILimits.channelCount) {
                    bytes += [0xB0 | channel, MIDIController.sustainPedal.rawValue, 0, 0xB0 | channel, MIDIController.allNotesOff.rawValue, 0]
                }
                continue
            }
            let count = snd_midi_event_decode(decoder, &buffer, buffer.count, event)
            if count > 0 { bytes += buffer[..<Int(count)] }
        }
    }
}
