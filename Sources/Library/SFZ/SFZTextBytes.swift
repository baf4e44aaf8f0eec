import Foundation

/// `SFZText.Reader`'s reading of a line from its UTF-8 bytes: the same syntax as its `Character`
/// reading, without a `String` or a `[Character]` per piece of the line (those were most of the
/// time the fuzzer spent on an input).
///
/// Every byte the syntax looks at is ASCII, and in valid UTF-8 an ASCII byte is a whole scalar.
/// Reading bytes is reading `Character`s exactly when each ASCII scalar of the line is a
/// `Character` by itself: Swift joins a combining mark to the character before it (`/` + U+0301
/// is no `/`, `1` + U+0488 no digit) and a prepended sign to the one after it. A character of
/// other scalars alone (U+FFFD + U+0360, a flag) is no syntax either way, and characters compare
/// up to canonical equivalence, which makes no scalar outside ASCII equal to a character the
/// syntax names (U+212A KELVIN SIGN is `K`, which only a name could hold, and a name is ASCII).
/// A line where some ASCII scalar is joined is read by the `Character` reading, as before. Line
/// ends are each a character of their own (Unicode's grapheme rules break around them), so lines
/// are split on bytes alike. (Foundation trims scalars, not characters: its trimming is the same
/// on either reading.)
/// - Thread: control. Not real-time safe: allocates.
extension SFZText.Reader {
    // The bytes the syntax is written in.
    static let tab = UInt8(ascii: "\t"), space = UInt8(ascii: " "), quote = UInt8(ascii: "\"")
    static let dollar = UInt8(ascii: "$"), hash = UInt8(ascii: "#"), star = UInt8(ascii: "*"), slash = UInt8(ascii: "/")
    static let lessThan = UInt8(ascii: "<"), equals = UInt8(ascii: "="), greaterThan = UInt8(ascii: ">")
    static let includeDirective = Array("#include".utf8), defineDirective = Array("#define".utf8), label = Array("label".utf8)

    /// The line of `bytes` that starts at `start`: where it ends (at its line end, or the text's),
    /// where the next line starts (nil after the last), and whether it is all ASCII.
    ///
    /// The line ends are the characters Swift's `Character.isNewline` is true of: LF, VT, FF, CR
    /// (CR LF being one), NEL (U+0085), and U+2028 and U+2029.
    static func line(in bytes: [UInt8], from start: Int) -> (end: Int, next: Int?, isASCII: Bool) {
        var index = start
        var isASCII = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x80 {
                if byte >= 0x0A && byte <= 0x0D {
                    let crlf = byte == 0x0D && index + 1 < bytes.count && bytes[index + 1] == 0x0A
                    return (index, index + (crlf ? 2 : 1), isASCII)
                }
            } else {
                if byte == 0xC2, index + 1 < bytes.count, bytes[index + 1] == 0x85 { return (index, index + 2, isASCII) }
                if byte == 0xE2, index + 2 < bytes.count, bytes[index + 1] == 0x80, bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9 {
                    return (index, index + 3, isASCII)
                }
                isASCII = false
            }
            index += 1
        }
        return (bytes.count, nil, isASCII)
    }

    /// Whether each ASCII scalar of `bytes` (UTF-8 with no line end) is a `Character` by itself,
    /// so that reading its bytes is reading its characters.
    static func asciiStandsAlone(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard bytes.contains(where: { $0 >= 0x80 }) else { return true }
        return !String(decoding: bytes, as: UTF8.self).contains { character in
            character.utf8.count > 1 && character.utf8.contains { $0 < 0x80 }
        }
    }

    static func isBlank(_ byte: UInt8) -> Bool { byte == space || byte == tab }

    /// Where `byte` first stands in `bytes`. (With `memchr`: the fuzzer's build instruments every
    /// comparison a Swift loop makes, and most lines are searched for bytes they do not hold.)
    static func firstIndex(of byte: UInt8, in bytes: ArraySlice<UInt8>) -> Int? {
        bytes.withUnsafeBufferPointer { buffer in
            guard let start = buffer.baseAddress, let found = memchr(start, Int32(byte), buffer.count) else { return nil }
            return bytes.startIndex + UnsafeRawPointer(start).distance(to: UnsafeRawPointer(found))
        }
    }

    /// `isNameCharacter` for a byte: an ASCII letter, digit or `_`.
    static func isNameByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
    }

    /// `bytes` as text with the blanks (`CharacterSet.whitespaces`) at both ends trimmed, as
    /// `trimmingCharacters(in: .whitespaces)` trims them.
    static func trimmed(_ bytes: ArraySlice<UInt8>) -> String {
        var start = bytes.startIndex, end = bytes.endIndex
        while start < end, isBlank(bytes[start]) { start += 1 }
        while end > start, isBlank(bytes[end - 1]) { end -= 1 }
        // Foundation's whitespace holds spaces beyond ASCII too (U+00A0, U+2000…U+200B, U+3000):
        // an end that is not ASCII is left to it.
        if start < end, bytes[start] >= 0x80 || bytes[end - 1] >= 0x80 {
            return String(decoding: bytes[start..<end], as: UTF8.self).trimmingCharacters(in: .whitespaces)
        }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// Where `pattern` (ASCII) first stands in `line`.
    static func firstRange(of pattern: [UInt8], in line: ArraySlice<UInt8>) -> Range<Int>? {
        guard line.count >= pattern.count else { return nil }
        var start = line.startIndex
        while start <= line.endIndex - pattern.count {
            if line[start] == pattern[0], line[start..<(start + pattern.count)].elementsEqual(pattern) { return start..<(start + pattern.count) }
            start += 1
        }
        return nil
    }

    /// Whether `pattern` stands in `text`.
    static func holds(_ pattern: [UInt8], in text: String.UTF8View) -> Bool {
        var start = text.startIndex
        while let end = text.index(start, offsetBy: pattern.count, limitedBy: text.endIndex) {
            if text[start..<end].elementsEqual(pattern) { return true }
            start = text.index(after: start)
        }
        return false
    }

    /// Reads one line of the text: its comments taken out, its directives, headers and opcodes.
    mutating func readTextLine(_ raw: ArraySlice<UInt8>, isASCII: Bool, inBlockComment: inout Bool,
                               file: String, line lineNumber: Int, depth: Int) {
        guard isASCII || Self.asciiStandsAlone(raw) else {
            let line = Substring(stripComments(String(decoding: raw, as: UTF8.self), inBlockComment: &inBlockComment))
            readDirectives(in: line, file: file, line: lineNumber, depth: depth)
            return
        }
        let stripped = stripComments(bytes: raw, inBlockComment: &inBlockComment)
        // A comment taken out of the middle joins what stood around it into one text, read
        // again for characters.
        if stripped.joined, !isASCII, !Self.asciiStandsAlone(stripped.line) {
            readDirectives(in: Substring(String(decoding: stripped.line, as: UTF8.self)), file: file, line: lineNumber, depth: depth)
            return
        }
        readDirectives(bytes: stripped.line, file: file, line: lineNumber, depth: depth)
    }

    /// `stripComments(_:inBlockComment:)` for bytes: `line` without its comments, and whether
    /// text from both sides of a comment was joined (else the result is a piece of `line`).
    func stripComments(bytes line: ArraySlice<UInt8>, inBlockComment: inout Bool) -> (line: ArraySlice<UInt8>, joined: Bool) {
        var index = line.startIndex
        if !inBlockComment {
            // Most lines hold no comment, or end with one: a piece of the line, not a copy.
            while true {
                guard let slash = Self.firstIndex(of: Self.slash, in: line[index...]) else { return (line, false) }
                index = slash
                if index + 1 < line.endIndex {
                    let next = line[index + 1]
                    if next == Self.slash { return (line[..<index], false) }
                    if next == Self.star { break }
                }
                index += 1
            }
        }
        var kept: [UInt8] = Array(line[..<index])
        while index < line.endIndex {
            let next: UInt8? = index + 1 < line.endIndex ? line[index + 1] : nil
            if inBlockComment {
                if line[index] == Self.star && next == Self.slash {
                    inBlockComment = false
                    index += 2
                } else {
                    index += 1
                }
                continue
            }
            if line[index] == Self.slash && next == Self.slash { break }
            if line[index] == Self.slash && next == Self.star {
                inBlockComment = true
                index += 2
                continue
            }
            kept.append(line[index])
            index += 1
        }
        return (kept[...], true)
    }

    /// `readDirectives(in:file:line:depth:)` for bytes.
    mutating func readDirectives(bytes line: ArraySlice<UInt8>, file: String, line lineNumber: Int, depth: Int) {
        let hasDirective = Self.firstIndex(of: Self.hash, in: line) != nil
        let include = hasDirective ? Self.firstRange(of: Self.includeDirective, in: line) : nil
        let definition = hasDirective ? Self.firstRange(of: Self.defineDirective, in: line) : nil
        if let definition, include.map({ definition.lowerBound < $0.lowerBound }) ?? true {
            // `#define $NAME value` anywhere on a line: the value is one word, and the line goes
            // on after it.
            readSubstitutedLine(line[..<definition.lowerBound], file: file, line: lineNumber)
            var rest = line[definition.upperBound...]
            var words: [Substring] = []
            for _ in 0..<2 {
                rest = rest.drop(while: Self.isBlank)
                let end = rest.firstIndex(where: Self.isBlank) ?? rest.endIndex
                if end > rest.startIndex { words.append(Substring(String(decoding: rest[..<end], as: UTF8.self))) }
                rest = rest[end...]
            }
            define(words, file: file, line: lineNumber)
            readDirectives(bytes: rest, file: file, line: lineNumber, depth: depth)
            return
        }
        guard let directive = include else {
            readSubstitutedLine(line, file: file, line: lineNumber)
            return
        }
        readSubstitutedLine(line[..<directive.lowerBound], file: file, line: lineNumber)
        // The name: quoted, or up to the next blank.
        var rest = line[directive.upperBound...].drop(while: Self.isBlank)
        let name: ArraySlice<UInt8>
        if rest.first == Self.quote, let close = rest.dropFirst().firstIndex(of: Self.quote) {
            name = rest[(rest.startIndex + 1)..<close]
            rest = rest[(close + 1)...]
        } else {
            let end = rest.firstIndex(where: Self.isBlank) ?? rest.endIndex
            name = rest[..<end]
            rest = rest[end...]
        }
        includeFile(bytes: name, file: file, line: lineNumber, depth: depth)
        readDirectives(bytes: rest, file: file, line: lineNumber, depth: depth)
    }

    /// `includeFile(_:file:line:depth:)` for bytes.
    mutating func includeFile(bytes rest: ArraySlice<UInt8>, file: String, line: Int, depth: Int) {
        // Foundation trims scalars, not characters, so the ASCII blanks and quotes trim alike
        // whatever a `$NAME` put in.
        var name = substitute(bytes: rest).line
        while let first = name.first, Self.isBlank(first) || first == Self.quote { name = name.dropFirst() }
        while let last = name.last, Self.isBlank(last) || last == Self.quote { name = name.dropLast() }
        includeFile(named: String(decoding: name, as: UTF8.self), file: file, line: line, depth: depth)
    }

    /// Reads `line`'s headers and opcodes once its `$NAME`s are replaced.
    mutating func readSubstitutedLine(_ line: ArraySlice<UInt8>, file: String, line lineNumber: Int) {
        guard !line.isEmpty else { return }
        let substituted = substitute(bytes: line)
        // A value put in may join the character beside it (a combining mark after a digit).
        if substituted.changed, !Self.asciiStandsAlone(substituted.line) {
            readLine(String(decoding: substituted.line, as: UTF8.self), file: file, line: lineNumber)
            return
        }
        readLine(bytes: substituted.line, file: file, line: lineNumber)
    }

    /// `substitute(_:)` for bytes, and whether any `$NAME` was replaced.
    func substitute(bytes line: ArraySlice<UInt8>) -> (line: ArraySlice<UInt8>, changed: Bool) {
        guard !defines.isEmpty, Self.firstIndex(of: Self.dollar, in: line) != nil else { return (line, false) }
        var result: [UInt8] = []
        result.reserveCapacity(line.count)
        var changed = false
        var index = line.startIndex
        scanning: while index < line.endIndex {
            if line[index] == Self.dollar {
                // A name is `$` and ASCII letters, digits and `_`: as many bytes as characters.
                for (name, value) in defines {
                    let pattern = name.utf8
                    if line.endIndex - index >= pattern.count, line[index..<(index + pattern.count)].elementsEqual(pattern) {
                        result.append(contentsOf: value.utf8)
                        index += pattern.count
                        changed = true
                        continue scanning
                    }
                }
            }
            result.append(line[index])
            index += 1
        }
        return changed ? (result[...], true) : (line, false)
    }

    /// `readLine(_:file:line:)` for bytes: a line's headers and opcodes, in order.
    mutating func readLine(bytes line: ArraySlice<UInt8>, file: String, line lineNumber: Int) {
        var index = line.startIndex
        while index < line.endIndex {
            let byte = line[index]
            if Self.isBlank(byte) {
                index += 1
                continue
            }
            if byte == Self.lessThan {
                guard let close = Self.firstIndex(of: Self.greaterThan, in: line[index...]) else {
                    problems.append(SFZText.Problem(file: file, line: lineNumber, reason: "a header with no closing '>'"))
                    return
                }
                openHeader(Self.trimmed(line[(index + 1)..<close]), file: file, line: lineNumber)
                index = close + 1
                continue
            }
            // An opcode: a name up to '=', then the value.
            guard let equals = Self.firstIndex(of: Self.equals, in: line[index...]) else {
                problems.append(SFZText.Problem(file: file, line: lineNumber, reason: "\"\(Self.trimmed(line[index...]))\" is not an opcode (name=value)"))
                return
            }
            let nameBytes = line[index..<equals]
            var name = String(decoding: nameBytes, as: UTF8.self)
            guard !nameBytes.isEmpty, nameBytes.allSatisfy(Self.isNameByte) else {
                problems.append(SFZText.Problem(file: file, line: lineNumber, reason: "\"\(name)\" is not an opcode name"))
                return
            }
            if nameBytes.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) {
                // `Sample=`, `ampeg_Sustain=`: what the author meant is plain.
                problems.append(SFZText.Problem(file: file, line: lineNumber, reason: "\(name)= read as \(name.lowercased())= (opcode names are lowercase)"))
                name = name.lowercased()
            }
            let valueEnd = Self.valueEnd(bytes: line, from: equals + 1)
            let value = Self.trimmed(line[(equals + 1)..<valueEnd])
            if let repaired = Self.leadingNumber(ofBytes: value, for: name) {
                set(name, SFZText.Value(text: repaired.number, file: file, line: lineNumber))
                if repaired.rest.utf8.contains(Self.equals) {
                    // Two opcodes with no space between them (`hikey=72offset=320`): both read.
                    problems.append(SFZText.Problem(file: file, line: lineNumber, reason: "\(name)=\(value): read as \(name)=\(repaired.number) \(repaired.rest) (no space between two opcodes)"))
                    readLine(bytes: ArraySlice(repaired.rest.utf8), file: file, line: lineNumber)
                } else {
                    problems.append(SFZText.Problem(file: file, line: lineNumber, reason: "\(name)=\(value): read as \(repaired.number) (the rest is not a number)"))
                }
            } else {
                set(name, SFZText.Value(text: value, file: file, line: lineNumber))
            }
            index = valueEnd
        }
    }

    /// Gives the header being read opcode `name`.
    mutating func set(_ name: String, _ value: SFZText.Value) {
        // Room for a region's usual opcodes at once, not grown a few at a time.
        if opcodes.isEmpty { opcodes.reserveCapacity(8) }
        opcodes[name] = value
    }

    /// `leadingNumber(of:for:)` for a value whose ASCII scalars are each a character (a piece of
    /// a line read as bytes), scanned as bytes.
    static func leadingNumber(ofBytes value: String, for name: String) -> (number: String, rest: String)? {
        // The same tests as `leadingNumber(of:for:)`, the one most values pass first. (A name is
        // ASCII: `label` found among its bytes is found among its characters, without
        // Foundation's `contains`, which goes through NSString.)
        guard Double(value) == nil, !textValued.contains(name), !holds(label, in: name.utf8) else { return nil }
        let bytes = Array(value.utf8)
        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        var index = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") { index += 1 }
        let digitsStart = index
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let number = String(decoding: bytes[..<index], as: UTF8.self)
        guard index > digitsStart, Double(number) != nil, index < bytes.count else { return nil }
        return (number, String(decoding: bytes[index...], as: UTF8.self))
    }

    /// `valueEnd(_:from:)` for bytes: where a value that starts at `start` ends, at the line's
    /// end, a header's '<', or the blank before the next `name=`.
    static func valueEnd(bytes line: ArraySlice<UInt8>, from start: Int) -> Int {
        var index = start
        while index < line.endIndex {
            if line[index] == lessThan { return index }
            if isBlank(line[index]) {
                var next = index
                while next < line.endIndex, isBlank(line[next]) { next += 1 }
                var nameEnd = next
                while nameEnd < line.endIndex, isNameByte(line[nameEnd]) { nameEnd += 1 }
                if nameEnd > next, nameEnd < line.endIndex, line[nameEnd] == equals { return index }
                if next < line.endIndex, line[next] == lessThan { return index }
                index = next
                continue
            }
            index += 1
        }
        return line.endIndex
    }
}
