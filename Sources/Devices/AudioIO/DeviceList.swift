import CALSA
import Glibc

/// One PCM that alsa-lib's name hints advertise (`snd_device_name_hint`).
public struct DeviceDescription: Sendable, Equatable {
    public var name: String
    /// The hint's description, first line only.
    public var summary: String
    public var canPlay: Bool
    public var canCapture: Bool
}

/// What the system offers: sound cards and PCM names.
/// - Thread: control. Not real-time safe: allocates.
public enum DeviceList {
    /// Number of sound cards the kernel knows (`snd_card_next`); 0 on a machine without /dev/snd.
    /// - Thread: control.
    public static func soundCardCount() -> Int {
        LibraryDiagnostics.quietOnce()
        var card: Int32 = -1
        var count = 0
        while snd_card_next(&card) == 0, card >= 0 { count += 1 }
        return count
    }

    /// Every PCM the configuration advertises, hardware or software.
    /// - Thread: control.
    public static func pcms() -> [DeviceDescription] {
        LibraryDiagnostics.quietOnce()
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        guard snd_device_name_hint(-1, "pcm", &hints) == 0, let hints else { return [] }
        defer { snd_device_name_free_hint(hints) }
        var devices: [DeviceDescription] = []
        var cursor = hints
        while let hint = cursor.pointee {
            defer { cursor += 1 }
            guard let name = hintField(hint, "NAME") else { continue }
            let description = hintField(hint, "DESC") ?? ""
            let direction = hintField(hint, "IOID")
            devices.append(DeviceDescription(
                name: name,
                summary: String(description.split(separator: "\n").first ?? ""),
                canPlay: direction == nil || direction == "Output",
                canCapture: direction == nil || direction == "Input"))
        }
        return devices
    }

    /// Opens `name` for playback (and, with `capture`, for capture) and closes it again: whether
    /// it exists and is free, before a long run that needs it.
    /// - Throws: `DeviceError`, the same one line a stream's opening would give.
    /// - Thread: control.
    public static func requireOpenable(_ name: String, capture: Bool = false) throws(DeviceError) {
        _ = try PCM.open(name, direction: .playback)
        if capture { _ = try PCM.open(name, direction: .capture) }
    }

    private static func hintField(_ hint: UnsafeMutableRawPointer, _ field: String) -> String? {
        guard let value = snd_device_name_get_hint(hint, field) else { return nil }
        defer { free(value) }
        return String(cString: value)
    }
}
