/// An SFZ file read into its regions, each with every opcode it inherits: the text layer of the
/// SFZ loader (`SFZLoader`), which touches no sample.
///
/// The syntax, as sfizz and the SFZ format reference describe it:
/// - headers `<control>`, `<global>`, `<master>`, `<group>`, `<region>`, `<curve>` (and `<effect>`,
///   `<midi>`, `<sample>`, read and set aside); a region takes the opcodes of the `<global>`,
///   `<master>` and `<group>` above it, its own winning;
/// - opcodes `name=value`; a value runs to the end of the line, the next header, or the next
///   `name=` after a space, so a sample path may hold spaces (`sample=Piano C4.wav`);
/// - comments `// …` to the end of the line and `/* … */`;
/// - `#define $NAME value` (one word), replaced wherever `$NAME` appears after it, and
///   `#include "file"`, read through `include` (a file's text, or nil when it can't be read);
///   both may stand anywhere on a line, the line read on after them.
/// - Thread: control. Not real-time safe: allocates.
struct SFZText {
    /// An opcode's value and where it was written, for messages.
    struct Value: Equatable {
        var text: String
        var file: String
        var line: Int
    }

    /// One `<region>`: its own opcodes over those it inherits.
    struct Region {
        var opcodes: [String: Value]
        var file: String
        var line: Int
        /// The `default_path` of the last `<control>` before it (a General MIDI bank gives each
        /// instrument's folder before its regions), with `/` between folders.
        var defaultPath = ""
    }

    /// A header this reader does not play from, or a line it could not read: said once, in one
    /// warning line, never fatal.
    struct Problem: Equatable {
        var file: String
        var line: Int
        var reason: String
    }

    private(set) var regions: [Region] = []
    /// `<control>`'s opcodes (`default_path`, `set_ccN`, `label_ccN`, `label_keyN`, ...), the
    /// last given winning.
    private(set) var control: [String: Value] = [:]
    /// `<curve>` headers' opcodes, in order.
    private(set) var curves: [[String: Value]] = []
    private(set) var problems: [Problem] = []

    /// The levels a region inherits from, outermost first.
    private enum Level: Int { case global = 0, master, group }

    /// How deep `#include`s may nest: a file that includes itself is refused there.
    static let includeDepthLimit = 16

    /// Reads `text` (the file at `path`). `include` reads an `#include`d path (already resolved
    /// against the main file's folder) and returns its text, or nil when there is none.
    init(text: String, path: String, include: @escaping (String) -> String? = { _ in nil }) {
        var reader = Reader(include: include)
        reader.read(text, file: path, depth: 0)
        reader.closeHeader()
        regions = reader.regions
        control = reader.control
        curves = reader.curves
        problems = reader.problems
    }

    /// The reading state: the header being filled and what each level holds. Lines are read from
    /// their UTF-8 bytes (`SFZTextBytes.swift`); the `Character` reading below takes a line where
    /// an ASCII scalar is joined into a larger character (`1` and a combining mark), where Swift's
    /// grapheme rules decide what the line says.
    struct Reader {
        let include: (String) -> String?
        var regions: [Region] = []
        var control: [String: Value] = [:]
        var curves: [[String: Value]] = []
        var problems: [Problem] = []
        var levels: [[String: Value]] = [[:], [:], [:]] {
            didSet { inherited = nil }
        }
        /// `levels` merged (`inheritedOpcodes()`), until a level changes.
        var inherited: [String: Value]? = nil
        var defines: [(name: String, value: String)] = []
        /// The header the opcodes now read belong to, and its own opcodes so far.
        var header = "global"
        var headerFile = ""
        var headerLine = 0
        var opcodes: [String: Value] = [:]
        /// `<control>`'s `default_path` as the regions after it take it (with `/` between
        /// folders): worked out once per `<control>`, not once per region.
        var defaultPath = ""

        /// Files the reader is inside, for a nesting that comes back to one.
        var openFiles: [String] = []

        mutating func read(_ text: String, file: String, depth: Int) {
            openFiles.append(file)
            defer { openFiles.removeLast() }
            // Scanned as UTF-8 bytes: splitting and scanning `Character`s, and a `String` per
            // piece of a line, cost the fuzzer most of its time.
            let bytes = Array(text.utf8)
            var lineNumber = 0
            var inBlockComment = false
            var lineStart = 0
            while true {
                // Any line end: LF, CRLF (one Character in Swift, which a split on "\n" never
                // finds: a Windows file read as one line), CR alone, and the rest of Unicode's.
                let line = Self.line(in: bytes, from: lineStart)
                lineNumber += 1
                readTextLine(bytes[lineStart..<line.end], isASCII: line.isASCII, inBlockComment: &inBlockComment,
                             file: file, line: lineNumber, depth: depth)
                guard let next = line.next else { break }
                lineStart = next
            }
        }

        /// Reads `line`, whose `#include`s may stand after other text (`<master> loprog=0
        /// #include "Piano.sfz"`, as General MIDI banks write them): the text before, then the
        /// included file, then what follows its name.
        mutating func readDirectives(in line: Substring, file: String, line lineNumber: Int, depth: Int) {
            let include = line.firstRange(of: "#include"), definition = line.firstRange(of: "#define")
            if let definition, include.map({ definition.lowerBound < $0.lowerBound }) ?? true {
                // `#define $NAME value` anywhere on a line (`<region> #define $KEY 21 lokey=$KEY`):
                // the value is one word, and the line goes on after it.
                readLine(substitute(String(line[..<definition.lowerBound])), file: file, line: lineNumber)
                var rest = line[definition.upperBound...]
                var words: [Substring] = []
                for _ in 0..<2 {
                    rest = rest.drop { $0 == " " || $0 == "\t" }
                    let end = rest.firstIndex { $0 == " " || $0 == "\t" } ?? rest.endIndex
                    if end > rest.startIndex { words.append(rest[..<end]) }
                    rest = rest[end...]
                }
                define(words, file: file, line: lineNumber)
                readDirectives(in: rest, file: file, line: lineNumber, depth: depth)
                return
            }
            guard let directive = include else {
                readLine(substitute(String(line)), file: file, line: lineNumber)
                return
            }
            readLine(substitute(String(line[..<directive.lowerBound])), file: file, line: lineNumber)
            // The name: quoted, or up to the next blank.
            var rest = line[directive.upperBound...].drop { $0 == " " || $0 == "\t" }
            let name: Substring
            if rest.first == "\"", let close = rest.dropFirst().firstIndex(of: "\"") {
                name = rest[rest.index(after: rest.startIndex)..<close]
                rest = rest[rest.index(after: close)...]
            } else {
                let end = rest.firstIndex { $0 == " " || $0 == "\t" } ?? rest.endIndex
                name = rest[..<end]
                rest = rest[end...]
            }
            includeFile(name, file: file, line: lineNumber, depth: depth)
            readDirectives(in: rest, file: file, line: lineNumber, depth: depth)
        }

        /// `line` without its comments; `inBlockComment` carries a `/* … */` across lines. (Scanned
        /// by hand: Foundation's string search traps on some bytes a damaged file holds.)
        func stripComments(_ line: String, inBlockComment: inout Bool) -> String {
            let characters = Array(line)
            var kept: [Character] = []
            var index = 0
            while index < characters.count {
                let next: Character? = index + 1 < characters.count ? characters[index + 1] : nil
                if inBlockComment {
                    if characters[index] == "*" && next == "/" {
                        inBlockComment = false
                        index += 2
                    } else {
                        index += 1
                    }
                    continue
                }
                if characters[index] == "/" && next == "/" { break }
                if characters[index] == "/" && next == "*" {
                    inBlockComment = true
                    index += 2
                    continue
                }
                kept.append(characters[index])
                index += 1
            }
            return String(kept)
        }

        mutating func define(_ words: [Substring], file: String, line: Int) {
            let parts = words.map(String.init)
            guard parts.count == 2, parts[0].hasPrefix("$"), parts[0].count > 1, parts[0].dropFirst().allSatisfy(Self.isNameCharacter) else {
                problems.append(Problem(file: file, line: line, reason: "#define needs $NAME (letters, digits, _) and a value"))
                return
            }
            let value = parts[1]
            defines.removeAll { $0.name == parts[0] }
            defines.append((parts[0], value))
            // The longest names first, so $NOTE is not replaced inside $NOTES.
            defines.sort { $0.name.count > $1.name.count }
        }

        /// `line` with every `$NAME` defined so far replaced by its value.
        func substitute(_ line: String) -> String {
            guard line.contains("$"), !defines.isEmpty else { return line }
            let characters = Array(line)
            var result: [Character] = []
            var index = 0
            scanning: while index < characters.count {
                if characters[index] == "$" {
                    for (name, value) in defines {
                        let pattern = Array(name)
                        if index + pattern.count <= characters.count, Array(characters[index..<(index + pattern.count)]) == pattern {
                            result.append(contentsOf: value)
                            index += pattern.count
                            continue scanning
                        }
                    }
                }
                result.append(characters[index])
                index += 1
            }
            return String(result)
        }

        mutating func includeFile(_ rest: Substring, file: String, line: Int, depth: Int) {
            includeFile(named: substitute(String(rest)).trimmingCharacters(in: [" ", "\t", "\""]), file: file, line: line, depth: depth)
        }

        /// Reads the file `#include` names, `$NAME`s replaced and quotes trimmed.
        mutating func includeFile(named name: String, file: String, line: Int, depth: Int) {
            guard !name.isEmpty else {
                problems.append(Problem(file: file, line: line, reason: "#include names no file"))
                return
            }
            guard depth < SFZText.includeDepthLimit, !openFiles.contains(name) else {
                problems.append(Problem(file: file, line: line, reason: "#include \"\(name)\" nests too deep (a file that includes itself?)"))
                return
            }
            guard let text = include(name) else {
                problems.append(Problem(file: file, line: line, reason: "#include \"\(name)\": no such file"))
                return
            }
            read(text, file: name, depth: depth + 1)
        }

        /// Reads a line's headers and opcodes, in order.
        mutating func readLine(_ line: String, file: String, line lineNumber: Int) {
            let characters = Array(line)
            var index = 0
            while index < characters.count {
                let character = characters[index]
                if character == " " || character == "\t" {
                    index += 1
                    continue
                }
                if character == "<" {
                    guard let close = characters[index...].firstIndex(of: ">") else {
                        problems.append(Problem(file: file, line: lineNumber, reason: "a header with no closing '>'"))
                        return
                    }
                    openHeader(String(characters[(index + 1)..<close]).trimmingCharacters(in: .whitespaces), file: file, line: lineNumber)
                    index = close + 1
                    continue
                }
                // An opcode: a name up to '=', then the value.
                guard let equals = characters[index...].firstIndex(of: "=") else {
                    problems.append(Problem(file: file, line: lineNumber, reason: "\"\(String(characters[index...]).trimmingCharacters(in: .whitespaces))\" is not an opcode (name=value)"))
                    return
                }
                var name = String(characters[index..<equals])
                guard !name.isEmpty, name.allSatisfy(Self.isNameCharacter) else {
                    problems.append(Problem(file: file, line: lineNumber, reason: "\"\(name)\" is not an opcode name"))
                    return
                }
                if name.contains(where: \.isUppercase) {
                    // `Sample=`, `ampeg_Sustain=`: what the author meant is plain.
                    problems.append(Problem(file: file, line: lineNumber, reason: "\(name)= read as \(name.lowercased())= (opcode names are lowercase)"))
                    name = name.lowercased()
                }
                let valueEnd = Self.valueEnd(characters, from: equals + 1)
                let value = String(characters[(equals + 1)..<valueEnd]).trimmingCharacters(in: .whitespaces)
                if let repaired = Self.leadingNumber(of: value, for: name) {
                    opcodes[name] = Value(text: repaired.number, file: file, line: lineNumber)
                    if repaired.rest.contains("=") {
                        // Two opcodes with no space between them (`hikey=72offset=320`): both read.
                        problems.append(Problem(file: file, line: lineNumber, reason: "\(name)=\(value): read as \(name)=\(repaired.number) \(repaired.rest) (no space between two opcodes)"))
                        readLine(repaired.rest, file: file, line: lineNumber)
                    } else {
                        problems.append(Problem(file: file, line: lineNumber, reason: "\(name)=\(value): read as \(repaired.number) (the rest is not a number)"))
                    }
                } else {
                    opcodes[name] = Value(text: value, file: file, line: lineNumber)
                }
                index = valueEnd
            }
        }

        /// Opcodes whose values are words or paths, not numbers (with every `*label*`).
        static let textValued: Set<String> = [
            "sample", "default_path", "loop_mode", "loopmode", "loop_type", "trigger", "fil_type", "filtype", "fil2_type",
            "off_mode", "xf_keycurve", "xf_velcurve", "xf_cccurve", "pitch_keycenter", "direction", "type", "image", "md5",
            "sw_vel", "vendor_specific", "note_name",
        ]

        /// A numeric opcode's value that starts with a number and goes on with something else
        /// (`72offset=320`, `-6dB`): the number, as sfizz reads it, and the rest; nil for a value
        /// that is a number, or does not start with one, or an opcode that takes words.
        static func leadingNumber(of value: String, for name: String) -> (number: String, rest: String)? {
            guard !textValued.contains(name), !name.contains("label"), Double(value) == nil else { return nil }
            let characters = Array(value)
            var index = 0
            if index < characters.count, characters[index] == "-" || characters[index] == "+" { index += 1 }
            let digitsStart = index
            while index < characters.count, characters[index].isASCII, characters[index].isNumber { index += 1 }
            if index < characters.count, characters[index] == "." {
                index += 1
                while index < characters.count, characters[index].isASCII, characters[index].isNumber { index += 1 }
            }
            let number = String(characters[..<index])
            guard index > digitsStart, Double(number) != nil, index < characters.count else { return nil }
            return (number, String(characters[index...]))
        }

        static func isNameCharacter(_ character: Character) -> Bool {
            character.isASCII && (character.isLetter || character.isNumber || character == "_")
        }

        /// Where a value that starts at `start` ends: at the line's end, a header's '<', or the
        /// space before the next `name=`.
        static func valueEnd(_ characters: [Character], from start: Int) -> Int {
            var index = start
            while index < characters.count {
                if characters[index] == "<" { return index }
                if characters[index] == " " || characters[index] == "\t" {
                    var next = index
                    while next < characters.count, characters[next] == " " || characters[next] == "\t" { next += 1 }
                    var nameEnd = next
                    while nameEnd < characters.count, isNameCharacter(characters[nameEnd]) { nameEnd += 1 }
                    if nameEnd > next, nameEnd < characters.count, characters[nameEnd] == "=" { return index }
                    if next < characters.count, characters[next] == "<" { return index }
                    index = next
                    continue
                }
                index += 1
            }
            return characters.count
        }

        /// `opcodes` over `above`, a deeper level's over what it inherits.
        static func merged(_ opcodes: [String: Value], over above: [String: Value]) -> [String: Value] {
            // Nothing on one side: the other's dictionary, shared, not copied.
            if opcodes.isEmpty { return above }
            if above.isEmpty { return opcodes }
            var merged = above
            // One copy of `above` with room for both, not a copy and then a larger one.
            merged.reserveCapacity(above.count + opcodes.count)
            // `key` sets the key range and the root at once: written deeper, it overrides the
            // range and root inherited from above, as reading the opcodes in order does.
            if opcodes["key"] != nil { for name in ["lokey", "hikey", "pitch_keycenter"] { merged[name] = nil } }
            merged.merge(opcodes) { $1 }
            return merged
        }

        /// What a region now inherits: the levels merged, outermost first. Worked out once for
        /// all the regions of a group, not once per region.
        mutating func inheritedOpcodes() -> [String: Value] {
            if let inherited { return inherited }
            let merged = levels.reduce([:]) { above, level in Self.merged(level, over: above) }
            inherited = merged
            return merged
        }

        /// Ends the header being read: its opcodes go where it says.
        mutating func closeHeader() {
            switch header {
            case "region":
                let above = inheritedOpcodes()
                regions.append(Region(opcodes: Self.merged(opcodes, over: above), file: headerFile, line: headerLine, defaultPath: defaultPath))
            case "global": levels[Level.global.rawValue].merge(opcodes) { $1 }
            case "master": levels[Level.master.rawValue].merge(opcodes) { $1 }
            case "group": levels[Level.group.rawValue].merge(opcodes) { $1 }
            case "control":
                control.merge(opcodes) { $1 }
                defaultPath = String((control["default_path"]?.text ?? "").map { $0 == "\\" ? "/" : $0 })
            case "curve": curves.append(opcodes)
            default: break
            }
            opcodes = [:]
        }

        mutating func openHeader(_ name: String, file: String, line: Int) {
            closeHeader()
            header = name
            headerFile = file
            headerLine = line
            switch name {
            case "global": levels = [[:], [:], [:]]
            case "master": levels[Level.master.rawValue] = [:]; levels[Level.group.rawValue] = [:]
            case "group": levels[Level.group.rawValue] = [:]
            case "region", "control", "curve": break
            case "effect", "midi", "sample":
                problems.append(Problem(file: file, line: line, reason: "<\(name)> is not played (its opcodes are set aside)"))
            default:
                problems.append(Problem(file: file, line: line, reason: "<\(name)> is no SFZ header (its opcodes are set aside)"))
            }
        }
    }
}
