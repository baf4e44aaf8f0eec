/// Options whose one value is a comma-separated list (`--threads 1,2`, `--engines cubic,linear`):
/// a set of settings to measure or run side by side, named in one word.
extension ParsedOptions {
    /// `--threads 1,2`: whole numbers, each within the spec's range, in ascending order; the
    /// spec's default (`OptionDefault.numbers`) when not given.
    package func integerList(_ name: String) throws -> [Int] {
        let (text, _) = try text(name)
        return try items(text).map { try wholeNumber($0, of: name) }.sorted()
    }

    /// `--period 64,128`: some of `allowed`, in `allowed`'s order; all of them when not given.
    package func integerList(_ name: String, from allowed: [Int]) throws -> [Int] {
        guard let text = givenValue(name) else { return allowed }
        let chosen = try items(text).map { word in
            guard let value = Int(word), allowed.contains(value) else {
                throw UsageError(description: "--\(name) expects values from \(allowed.map(String.init).joined(separator: ",")), got '\(word)'")
            }
            return value
        }
        return allowed.filter(chosen.contains)
    }

    /// `--engines cubic,linear`: cases of `Choice` by their raw values; every case when not given.
    package func choiceSet<Choice: RawRepresentable & CaseIterable>(_ name: String, of _: Choice.Type) throws -> Set<Choice>
    where Choice.RawValue == String {
        guard let text = givenValue(name) else { return Set(Choice.allCases) }
        return Set(try items(text).map { word in
            guard let choice = Choice(rawValue: String(word)) else {
                throw UsageError(description: "--\(name) expects values from \(Choice.allCases.map(\.rawValue).joined(separator: ",")), got '\(word)'")
            }
            return choice
        })
    }

    /// The list's items: an empty one (`64,,128`) is a mistake its accessor names.
    private func items(_ text: String) -> [Substring] {
        text.split(separator: ",", omittingEmptySubsequences: false)
    }
}
