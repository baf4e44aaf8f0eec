/// What a terminal answered to `Terminal.askKittyKeyboard`, picked out of the input it arrived
/// in. Keys typed while the command loaded arrive in the same input, before, between or after the
/// replies, and are kept as typed. Pure: the tests feed it bytes.
struct TerminalReplies {
    /// The kitty keyboard flags the terminal reported (`CSI ? flags u`), or nil if it reported none.
    private(set) var kittyFlags: Int?
    /// Whether the primary device attributes (`CSI ? … c`) came: the terminal has answered everything.
    private(set) var hasDeviceAttributes = false
    /// The input with the replies taken out.
    private(set) var typed: [UInt8] = []

    init(_ input: [UInt8]) {
        var index = 0
        while index < input.count {
            if let reply = Self.reply(in: input, at: index) {
                switch reply.final {
                case UInt8(ascii: "u"): kittyFlags = reply.number
                default: hasDeviceAttributes = true
                }
                index = reply.end
            } else {
                typed.append(input[index])
                index += 1
            }
        }
    }

    static func containsDeviceAttributes(_ input: [UInt8]) -> Bool { TerminalReplies(input).hasDeviceAttributes }

    /// A reply starting at `start`: `ESC [ ?`, digits and semicolons, then `u` or `c`.
    private static func reply(in input: [UInt8], at start: Int) -> (final: UInt8, number: Int, end: Int)? {
        let introducer: [UInt8] = [0x1B, UInt8(ascii: "["), UInt8(ascii: "?")]
        guard input.count - start > introducer.count, Array(input[start ..< start + introducer.count]) == introducer else { return nil }
        var index = start + introducer.count
        var number = 0, isFirstNumber = true
        while index < input.count {
            let byte = input[index]
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if isFirstNumber { number = min(number * 10 + Int(byte - UInt8(ascii: "0")), 1 << 20) }
            case UInt8(ascii: ";"):
                isFirstNumber = false
            case UInt8(ascii: "u"), UInt8(ascii: "c"):
                return (byte, number, index + 1)
            default:
                return nil
            }
            index += 1
        }
        return nil
    }
}
