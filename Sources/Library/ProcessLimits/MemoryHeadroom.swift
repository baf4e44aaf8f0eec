import Glibc

/// How much more memory this process can be given: the least of what its address-space limit
/// (RLIMIT_AS) and data limit (RLIMIT_DATA) leave above what it already uses, and what the system
/// has available (MemAvailable). A loader compares what a file needs with it before allocating,
/// because Swift traps on a failed allocation: a font too large for the memory is then one line,
/// not an abort.
///
/// - Thread: control. For every member (reads /proc).
public enum MemoryHeadroom {
    /// Bytes that can still be had, or nil when no limit is known (no /proc, every limit infinite).
    /// - Thread: control.
    public static func availableBytes() -> Int? {
        let status = kilobyteFields(of: "/proc/self/status")
        var limits: [Int] = []
        if let room = roomBelow(RLIMIT_AS, using: status["VmSize"]) { limits.append(room) }
        if let room = roomBelow(RLIMIT_DATA, using: status["VmData"]) { limits.append(room) }
        if let available = kilobyteFields(of: "/proc/meminfo")["MemAvailable"] { limits.append(available) }
        return limits.min()
    }

    /// Bytes of address space the process's limits (RLIMIT_AS, RLIMIT_DATA) leave, or nil when
    /// neither is set: what an allocation whose pages are mostly never touched needs, where
    /// `availableBytes` is what the touched pages need.
    /// - Thread: control.
    public static func addressSpaceBytes() -> Int? {
        let status = kilobyteFields(of: "/proc/self/status")
        return [roomBelow(RLIMIT_AS, using: status["VmSize"]), roomBelow(RLIMIT_DATA, using: status["VmData"])].compactMap { $0 }.min()
    }

    /// `soundfont 'X': needs N MB of sample memory, only M MB can be had` and the like: bytes as
    /// whole megabytes (rounded up for what is needed, down for what can be had, so the two never
    /// read as equal when the first is refused).
    /// - Thread: any.
    public static func shortfall(needed: Int, available: Int) -> (neededMB: Int, availableMB: Int) {
        let megabyte = 1 << 20
        return ((needed + megabyte - 1) / megabyte, max(0, available) / megabyte)
    }

    /// What the soft limit `resource` leaves above `used` bytes; nil for an infinite limit (all ones,
    /// RLIM_INFINITY, which Swift cannot import) or one
    /// whose usage cannot be read.
    private static func roomBelow(_ resource: __rlimit_resource, using used: Int?) -> Int? {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(resource.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max, let used else { return nil }
        let ceiling = limit.rlim_cur > UInt(Int.max) ? Int.max : Int(limit.rlim_cur)
        return max(0, ceiling - used)
    }

    /// The `Name:   1234 kB` lines of a /proc file, in bytes, by name.
    private static func kilobyteFields(of path: String) -> [String: Int] {
        guard let file = fopen(path, "r") else { return [:] }
        defer { fclose(file) }
        var fields: [String: Int] = [:]
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, file) > 0, let line {
            let text = String(cString: line)
            guard let colon = text.firstIndex(of: ":") else { continue }
            let words = text[text.index(after: colon)...].split(whereSeparator: \.isWhitespace)
            guard words.count == 2, words[1] == "kB", let kilobytes = Int(words[0]) else { continue }
            fields[String(text[..<colon])] = kilobytes * 1_024
        }
        return fields
    }
}
