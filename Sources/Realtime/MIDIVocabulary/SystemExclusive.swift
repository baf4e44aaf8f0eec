/// The System Exclusive messages General MIDI files and keyboards send that change how the song
/// plays, recognised from their bytes. Everything else a SysEx can say (tuning dumps, a vendor's
/// effect settings, ...) is not recognised and changes nothing.
///
/// One recogniser for every source: the file reader (`MIDIFile.parse`) and the live byte-stream
/// parser (`MIDIStreamParser`) both hand their SysEx bytes to `recognise(_:)`, so a song plays the
/// same from a file and from a cable. Device IDs are not checked: Staccato is the only device on
/// its input, so a message for any ID (0x7F, "all call", or a numbered unit) is for it.
///
/// - Thread: any. For every member: a plain, trivially copyable value.
public enum SystemExclusive: Sendable, Equatable, BitwiseCopyable {
    /// A system reset: every channel's controllers, programs and banks back to the General MIDI
    /// defaults, channel 10 the only drum channel, master volume full, every sound stopped.
    case systemReset(SystemReset)
    /// Roland GS "use for rhythm part": `channel` (0-based) becomes a drum channel playing bank 128
    /// (`isDrum`), or a melodic one.
    case rhythmPart(channel: UInt8, isDrum: Bool)
    /// Universal real-time Master Volume: 0 (silence) ... 16383 (full), a linear gain.
    case masterVolume(UInt16)

    /// Which message asked for a system reset. They all reset alike: Staccato has one mode.
    public enum SystemReset: Sendable, Equatable, BitwiseCopyable {
        /// F0 7E dd 09 01 F7.
        case generalMIDIOn
        /// F0 7E dd 09 03 F7.
        case generalMIDI2On
        /// F0 7E dd 09 02 F7: "leave General MIDI" goes back to the device's own mode, and General
        /// MIDI is Staccato's own mode, so it resets too. (FluidSynth ignores it.)
        case generalMIDIOff
        /// Roland GS Reset, F0 41 dd 42 12 40 00 7F 00 41 F7 (also its GM-mode form, value 7F).
        case gsReset
        /// Yamaha XG System On, F0 43 1n 4C 00 00 7E 00 F7 (also "reset to factory", address 7F).
        case xgSystemOn
    }

    /// The channel of a rhythm-part message; the device-wide messages address every channel, and
    /// say so with 0x7F, the SysEx "all call" ID.
    /// - Thread: any.
    public var channel: UInt8 {
        if case let .rhythmPart(channel, _) = self { channel } else { 0x7F }
    }

    /// The meaning of one whole SysEx message, given the bytes between its F0 and its F7 (neither
    /// included), or nil when it is not one of the messages above, or is malformed (a wrong length,
    /// a Roland checksum that does not add up).
    /// - Thread: any. Allocation-free, so the live parser can call it from its fixed buffer.
    public static func recognise<Bytes: RandomAccessCollection>(_ bytes: Bytes) -> SystemExclusive?
    where Bytes.Element == UInt8, Bytes.Index == Int {
        // The longest message recognised has 9 bytes: anything longer is none of them.
        guard bytes.count <= 16 else { return nil }
        var copy = SIMD16<UInt8>()
        for (index, byte) in bytes.enumerated() { copy[index] = byte }
        return withUnsafeBytes(of: &copy) { raw in
            recognise(UnsafeBufferPointer(start: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), count: bytes.count))
        }
    }

    /// `recognise(_:)` of bytes in memory, without generics: what the JACK process callback calls.
    /// - Thread: any. Allocation-free.
    @_noAllocation @_noLocks
    public static func recognise(_ bytes: UnsafeBufferPointer<UInt8>) -> SystemExclusive? {
        func byte(_ index: Int) -> UInt8 { bytes[index] }
        let count = bytes.count
        guard count >= 4 else { return nil }
        switch byte(0) {
        case 0x7E where count == 4 && byte(2) == 0x09:  // universal non-real-time, General MIDI
            switch byte(3) {
            case 0x01: return .systemReset(.generalMIDIOn)
            case 0x02: return .systemReset(.generalMIDIOff)
            case 0x03: return .systemReset(.generalMIDI2On)
            default: return nil
            }
        case 0x7F where count == 6 && byte(2) == 0x04 && byte(3) == 0x01:  // universal real-time, Master Volume
            guard byte(4) < 0x80, byte(5) < 0x80 else { return nil }
            return .masterVolume(UInt16(byte(4)) | UInt16(byte(5)) << 7)
        case 0x41 where count == 9 && byte(2) == 0x42 && byte(3) == 0x12:  // Roland, GS, data set 1
            // The checksum makes the address, the data and the checksum add up to 0 modulo 128.
            var sum = 0
            for index in 4..<9 { sum += Int(byte(index)) }
            guard sum & 0x7F == 0 else { return nil }
            let address = (byte(4), byte(5), byte(6)), value = byte(7)
            if address == (0x40, 0x00, 0x7F) {
                return value == 0x00 || value == 0x7F ? .systemReset(.gsReset) : nil
            }
            guard address.0 == 0x40, address.1 & 0xF0 == 0x10, address.2 == 0x15, value <= 2 else { return nil }
            // GS numbers its parts with the drum part first: part 0 is channel 10, parts 1-9 are
            // channels 1-9, parts 10-15 are channels 11-16.
            let part = address.1 & 0x0F
            let channel = part == 0 ? GeneralMIDI.percussionChannel : part < 10 ? part - 1 : part
            // 1 and 2 are the two drum maps; Staccato plays both from bank 128.
            return .rhythmPart(channel: channel, isDrum: value != 0)
        case 0x43 where count == 7 && byte(1) & 0xF0 == 0x10 && byte(2) == 0x4C:  // Yamaha, XG, parameter change
            guard byte(3) == 0x00, byte(4) == 0x00, byte(5) == 0x7E || byte(5) == 0x7F, byte(6) == 0x00 else { return nil }
            return .systemReset(.xgSystemOn)
        default:
            return nil
        }
    }

    /// The bytes between F0 and F7 of the canonical form of this message (device ID 0x7F, "all
    /// call", for the universal messages; 0x10 for Roland and Yamaha), which `recognise(_:)` reads
    /// back as the same message: what a MIDI file writer puts in a SysEx event.
    /// - Thread: any.
    public var bodyBytes: [UInt8] {
        switch self {
        case .systemReset(.generalMIDIOn): return [0x7E, 0x7F, 0x09, 0x01]
        case .systemReset(.generalMIDIOff): return [0x7E, 0x7F, 0x09, 0x02]
        case .systemReset(.generalMIDI2On): return [0x7E, 0x7F, 0x09, 0x03]
        case .systemReset(.gsReset): return Self.roland(address: (0x40, 0x00, 0x7F), value: 0x00)
        case .systemReset(.xgSystemOn): return [0x43, 0x10, 0x4C, 0x00, 0x00, 0x7E, 0x00]
        case let .rhythmPart(channel, isDrum):
            let part = channel == GeneralMIDI.percussionChannel ? 0 : channel < 9 ? channel + 1 : channel
            return Self.roland(address: (0x40, 0x10 | part, 0x15), value: isDrum ? 1 : 0)
        case let .masterVolume(volume):
            return [0x7F, 0x7F, 0x04, 0x01, UInt8(volume & 0x7F), UInt8(volume >> 7 & 0x7F)]
        }
    }

    /// A Roland GS "data set 1" message with its checksum.
    private static func roland(address: (UInt8, UInt8, UInt8), value: UInt8) -> [UInt8] {
        let sum = Int(address.0) + Int(address.1) + Int(address.2) + Int(value)
        return [0x41, 0x10, 0x42, 0x12, address.0, address.1, address.2, value, UInt8((128 - sum & 0x7F) & 0x7F)]
    }
}
