/// `a`, `a or b`, `a, b or c`: alternatives as a sentence names them.
package func alternativesText(_ alternatives: [String]) -> String {
    alternatives.count < 2 ? alternatives.joined() : alternatives.dropLast().joined(separator: ", ") + " or " + alternatives.last!
}

extension Double {
    /// 48000.0 prints as 48000, 0.5 as 0.5.
    package var plainText: String { rounded() == self && abs(self) < 1e15 ? String(Int(self)) : String(self) }
}
