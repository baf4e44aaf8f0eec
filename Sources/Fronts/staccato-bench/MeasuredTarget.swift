import AudioIO

extension AudioTarget {
    /// How latency and round trip name what they measure, in their tables and as the reports'
    /// `device`: the ALSA PCM itself, or the server a native JACK client runs on.
    var measuredName: String {
        switch backend {
        case .alsa: device
        case .jack: "JACK native client on server '\(jackServer?.name ?? "default")'"
        case .null: "the null device"
        }
    }
}
