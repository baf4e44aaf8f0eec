import CLV2
import Foundation

/// The features a host passed (`instantiate`, `save`, `restore`), by URI.
struct HostFeatures {
    private var data: [String: UnsafeMutableRawPointer?] = [:]

    /// Reads the NULL-terminated list `features`.
    init(_ features: UnsafePointer<UnsafePointer<LV2_Feature>?>?) {
        guard var next = features else { return }
        while let feature = next.pointee {
            if let uri = feature.pointee.URI { data[String(cString: uri)] = feature.pointee.data }
            next += 1
        }
    }

    /// Whether the host passed the feature `uri` (some carry no data).
    func has(_ uri: String) -> Bool { data[uri] != nil }

    /// The feature's data as a `T`, when the host passed it with data.
    func pointer<T>(_ uri: String, as type: T.Type) -> UnsafeMutablePointer<T>? {
        guard let entry = data[uri], let entry else { return nil }
        return entry.assumingMemoryBound(to: T.self)
    }

    static let map = "http://lv2plug.in/ns/ext/urid#map"
    static let schedule = "http://lv2plug.in/ns/ext/worker#schedule"
    static let log = "http://lv2plug.in/ns/ext/log#log"
    static let options = "http://lv2plug.in/ns/ext/options#options"
    static let fixedBlockLength = "http://lv2plug.in/ns/ext/buf-size#fixedBlockLength"
    static let powerOf2BlockLength = "http://lv2plug.in/ns/ext/buf-size#powerOf2BlockLength"
    static let mapPath = "http://lv2plug.in/ns/ext/state#mapPath"
    static let freePath = "http://lv2plug.in/ns/ext/state#freePath"
}

/// The host's `opts:options` the plug-in reads: its block lengths (`bufsz:`), in frames.
struct BlockLengths {
    var minimum: Int?
    var maximum: Int?
    var nominal: Int?

    init(options: UnsafeMutablePointer<LV2_Options_Option>?, map: (String) -> UInt32) {
        guard var option = options else { return }
        let atomInt = map("http://lv2plug.in/ns/ext/atom#Int")
        let keys = (minimum: map("http://lv2plug.in/ns/ext/buf-size#minBlockLength"),
                    maximum: map("http://lv2plug.in/ns/ext/buf-size#maxBlockLength"),
                    nominal: map("http://lv2plug.in/ns/ext/buf-size#nominalBlockLength"))
        while option.pointee.key != 0 || option.pointee.value != nil {
            if option.pointee.type == atomInt, option.pointee.size == 4, let value = option.pointee.value {
                let frames = Int(value.load(as: Int32.self))
                switch option.pointee.key {
                case keys.minimum: minimum = frames
                case keys.maximum: maximum = frames
                case keys.nominal: nominal = frames
                default: break
                }
            }
            option += 1
        }
    }
}

/// Where the plug-in's lines go: the host's `log:log` when it gave one, else standard error.
struct PluginLog: @unchecked Sendable {
    private let log: UnsafeMutablePointer<LV2_Log_Log>?
    private let errorType: UInt32
    private let warningType: UInt32

    init(log: UnsafeMutablePointer<LV2_Log_Log>?, map: (String) -> UInt32) {
        self.log = log
        errorType = map("http://lv2plug.in/ns/ext/log#Error")
        warningType = map("http://lv2plug.in/ns/ext/log#Warning")
    }

    func error(_ line: String) { write(line, type: errorType) }
    func warning(_ line: String) { write(line, type: warningType) }

    private func write(_ line: String, type: UInt32) {
        let text = "staccato.lv2: " + line
        if let log {
            _ = staccato_lv2_log_line(log, type, text)
        } else {
            FileHandle.standardError.write(Data((text + "\n").utf8))
        }
    }
}
