import AudioFile
import Engine
import Foundation
import TestSupport
import XCTest

/// The CLI contract: help everywhere, one-line usage errors with exit code 2, the device list,
/// and the demo's fallback to a file.
final class CommandLineTests: XCTestCase {
    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: CommandRunner.staccatoExecutable.path) else {
            XCTFail("build the staccato executable first (swift build)")
            throw XCTSkip("no staccato executable")
        }
    }

    func testEverySubcommandHasHelp() throws {
        let top = try CommandRunner.staccato(["--help"])
        XCTAssertEqual(top.exitCode, 0)
        for command in ["devices", "tone", "mic", "render", "drums", "demo"] {
            XCTAssertTrue(top.standardOutput.contains(command))
            let help = try CommandRunner.staccato([command, "--help"])
            XCTAssertEqual(help.exitCode, 0, command)
            XCTAssertTrue(help.standardOutput.hasPrefix("usage: staccato \(command)"), help.standardOutput)
        }
    }

    func testVersionIsTheLibrarysVersion() throws {
        let version = try CommandRunner.staccato(["--version"])
        XCTAssertEqual(version.exitCode, 0)
        XCTAssertEqual(version.standardOutput, "staccato \(staccatoVersion)\n")
        XCTAssertNotNil(staccatoVersion.wholeMatch(of: /[0-9]+\.[0-9]+\.[0-9]+/), "MAJOR.MINOR.PATCH")
    }

    func testBadFlagsAndValuesAreOneLineUsageErrors() throws {
        let cases: [([String], String)] = [
            (["tone", "--device", "x", "--frequency", "abc", "--seconds", "1"], "--frequency expects a number, got 'abc'"),
            (["tone", "--device", "x", "--frequency", "440"], "--seconds is required"),
            (["tone", "--device", "x", "--frequency", "30000", "--seconds", "1"], "--frequency must be within 1...24000"),
            (["tone", "--device", "x", "--frequency", "440", "--seconds", "1", "--period", "7"], "--period must be within 16...8192"),
            (["tone", "--device", "x", "--frequency", "440", "--seconds", "1", "--volume", "2"], "--volume must be within 0...1"),
            (["tone", "--device", "x", "--frequency", "440", "--seconds", "1", "--bogus"], "unknown option '--bogus'"),
            (["tone", "--device"], "--device needs a value"),
            (["tone", "stray"], "unexpected argument 'stray'"),
            (["frobnicate"], "unknown command 'frobnicate'"),
            (["mic", "--out", "x"], "--audio alsa needs --in DEV"),
            (["mic", "--in", "x", "--bass", "13"], "--bass must be within -12...12, got 13"),
            (["mic", "--in", "x", "--boost", "-30"], "--boost must be within -24...24, got -30"),
            (["mic", "--in", "x", "--reverb", "150"], "--reverb must be within 0...100, got 150"),
            (["mic", "--in", "x", "--preset", "cathedral"], "--preset must be small, medium, hall or plate, got 'cathedral'"),
            (["mic", "--in", "x", "--rate", "0"], "--rate must be within 8000...384000, got 0"),
            (["mic", "--in", "x", "--volume", "1.5"], "--volume must be within 0...1, got 1.5"),
            // An option never takes the next option as its value; an unknown short option is named.
            (["render", "x.mid", "--soundfont", "--out", "y.wav"], "--soundfont needs a value (FONT.sf2)"),
            (["render", "x.mid", "-o", "y.wav"], "unknown option '-o'"),
            (["render", "x.mid", "--out", "-o"], "--out needs a value (FILE)"),
            (["mic", "--in", "x", "--record", "--seconds", "1"], "--record needs a value (FILE)"),
            (["play", "--midi-in", "--midi"], "--midi-in needs a value (PATH)"),
            (["tone", "--device", "--frequency", "440", "--seconds", "1"], "--device needs a value (NAME)"),
            // A negative number and a lone - (standard input) are values.
            (["mic", "--in", "x", "--bass", "-13"], "--bass must be within -12...12, got -13"),
            (["play", "--midi-in", "-", "--midi"], "--midi-in and --midi exclude each other"),
            (["render", "x.mid", "--soundfont", "a.sf2", "--samples", "dir", "--out", "y.wav"], "--soundfont and --samples exclude each other"),
            ([], "usage: staccato"),
        ]
        for (arguments, expected) in cases {
            let result = try CommandRunner.staccato(arguments)
            XCTAssertEqual(result.exitCode, 2, "\(arguments)")
            XCTAssertTrue(result.standardError.contains(expected), "\(arguments): \(result.standardError)")
            if !arguments.isEmpty { XCTAssertEqual(result.errorLines.count, 1, "\(arguments): \(result.standardError)") }
        }
    }

    /// Every command's usage line and options table come from the same specs: each option in the
    /// one is in the other, a default shown in the usage line (`[--rate 48000]`) is the table's, a
    /// bare option is required in both, and the top-level help gives each command one whole sentence.
    func testUsageLinesAndOptionsTablesAgree() throws {
        let top = try CommandRunner.staccato(["--help"])
        let commandLines = top.standardOutput.components(separatedBy: "commands:\n")[1]
            .components(separatedBy: "\n\n")[0].split(separator: "\n").map(String.init)
        XCTAssertEqual(commandLines.count, 9, top.standardOutput)
        for line in commandLines {
            XCTAssertTrue(line.hasSuffix("."), "the top-level help cuts a summary mid-sentence: '\(line)'")
        }
        let commands = commandLines.map { String($0.split(separator: " ")[0]) }
        for command in commands {
            let help = try CommandRunner.staccato([command, "--help"]).standardOutput
            let lines = help.split(separator: "\n").map(String.init)
            let usage = try XCTUnwrap(lines.first?.components(separatedBy: "usage: staccato \(command)").last)
            XCTAssertFalse(help.contains("default: required"), help)

            // The table: "  --rate HZ   sample rate (8000...384000; default: 48000)".
            var table: [String: (valueName: String?, text: String)] = [:]
            for row in lines where row.hasPrefix("  --") && !row.hasPrefix("  --help") {
                let words = row.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
                let valueName = words.count > 1 && row.contains("\(words[0]) \(words[1])  ") ? words[1] : nil
                table[String(words[0].dropFirst(2))] = (valueName, row)
            }

            // The usage line: bare options are required, bracketed ones (alone or in a group)
            // optional, and of a parenthesized group (`(--out FILE | --out-dir DIR)`) one is
            // required while each alone is not.
            var inUsage: Set<String> = []
            func check(_ word: String, value: String?, required: Bool) {
                let name = String(word.dropFirst(2))
                inUsage.insert(name)
                guard let row = table[name] else { return XCTFail("staccato \(command): \(word) is in the usage line, not in the table:\n\(help)") }
                XCTAssertEqual(row.text.contains("required)"), required, "staccato \(command) --\(name): usage '\(usage)', table '\(row.text)'")
                XCTAssertEqual(value == nil, row.valueName == nil, "staccato \(command) --\(name): a flag in one, a value in the other")
                if let value, value != row.valueName {
                    XCTAssertTrue(row.text.contains("default: \(value))"), "staccato \(command) --\(name): usage shows \(value), table '\(row.text)'")
                }
            }
            var rest = Substring(usage)
            while let open = rest.firstIndex(where: { $0 == "[" || $0 == "(" }) {
                let close = rest[open...].firstIndex(of: rest[open] == "[" ? "]" : ")")!
                let alternatives = rest[rest.index(after: open)..<close].components(separatedBy: " | ")
                if rest[open] == "(" { XCTAssertGreaterThan(alternatives.count, 1, "staccato \(command): a required group of one: '\(usage)'") }
                for alternative in alternatives {
                    let words = alternative.split(separator: " ").map(String.init)
                    // A value that may be left out is bracketed in turn (`[--denoise [DB]]`): this
                    // scan stops at its closing bracket, which the table's value name keeps.
                    let value = words.count > 1 ? words[1] + (words[1].hasPrefix("[") ? "]" : "") : nil
                    if words[0].hasPrefix("--") { check(words[0], value: value, required: false) }
                }
                let bare = rest[..<open].split(separator: " ").map(String.init)
                for (index, word) in bare.enumerated() where word.hasPrefix("--") {
                    check(word, value: index + 1 < bare.count && !bare[index + 1].hasPrefix("--") ? bare[index + 1] : nil, required: true)
                }
                rest = rest[rest.index(after: close)...]
            }
            let bare = rest.split(separator: " ").map(String.init)
            for (index, word) in bare.enumerated() where word.hasPrefix("--") {
                check(word, value: index + 1 < bare.count && !bare[index + 1].hasPrefix("--") ? bare[index + 1] : nil, required: true)
            }
            XCTAssertEqual(inUsage, Set(table.keys), "staccato \(command): the usage line and the table list different options:\n\(help)")
        }
    }

    /// `staccato help --markdown` is the CLI reference for the README: every command, with the
    /// usage line its --help prints.
    func testTheMarkdownReferenceHasEveryCommandWithItsUsageLine() throws {
        let reference = try CommandRunner.staccato(["help", "--markdown"])
        XCTAssertEqual(reference.exitCode, 0, reference.standardError)
        for command in ["devices", "tone", "play", "mic", "render", "drums", "demo"] {
            let usage = try CommandRunner.staccato([command, "--help"]).standardOutput.split(separator: "\n")[0]
            XCTAssertTrue(reference.standardOutput.contains("### `staccato \(command)`"), reference.standardOutput)
            XCTAssertTrue(reference.standardOutput.contains("```\n\(usage.dropFirst("usage: ".count))\n```"), "\(command): \(usage)")
        }
        XCTAssertTrue(reference.standardOutput.contains("| `--rate HZ` | `48000` | 8000...384000 | sample rate |"), reference.standardOutput)
    }

    /// The README's command list and docs/CLI.md are what the CLI itself generates: a changed
    /// option that was not carried into them (scripts/cli-reference) fails here.
    func testTheREADMEAndTheCLIReferenceAreCurrent() throws {
        let root = CommandRunner.repositoryRoot
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let synopsis = try CommandRunner.staccato(["help", "--synopsis"])
        XCTAssertEqual(synopsis.exitCode, 0, synopsis.standardError)
        XCTAssertTrue(readme.contains("<!-- cli-synopsis: begin -->\n```sh\n\(synopsis.standardOutput)```\n<!-- cli-synopsis: end -->"),
                      "README.md's command list is stale: run scripts/cli-reference")
        let reference = try String(contentsOf: root.appendingPathComponent("docs/CLI.md"), encoding: .utf8)
        let markdown = try CommandRunner.staccato(["help", "--markdown"])
        XCTAssertTrue(reference.hasSuffix(markdown.standardOutput), "docs/CLI.md is stale: run scripts/cli-reference")
        for line in synopsis.standardOutput.split(separator: "\n") where line.hasPrefix("staccato ") {
            let command = String(line.split(separator: " ")[1])
            let help = try CommandRunner.staccato([command, "--help"]).standardOutput
            XCTAssertEqual(help.split(separator: "\n").first.map(String.init), "usage: \(line)")
        }
    }

    /// staccato-bench takes no short option as a value either: a mistyped flag is refused before
    /// anything runs.
    func testBenchRefusesAShortOptionAsAValue() throws {
        let bench = CommandRunner.staccatoExecutable.deletingLastPathComponent().appendingPathComponent("staccato-bench")
        let result = try CommandRunner.start(bench, ["chart", "no_such_report.json", "--svg", "-o"]).wait()
        XCTAssertEqual(result.exitCode, 2, result.standardError)
        XCTAssertEqual(result.errorLines, ["staccato-bench: --svg needs a value (OUT.svg) (see 'staccato-bench chart --help')"])
    }

    func testDevicesSaysThereIsNoSoundCardAndListsTheTestDevices() throws {
        try TestDevices.require()
        let result = try CommandRunner.staccato(["devices"])
        XCTAssertEqual(result.exitCode, 0)
        XCTAssertTrue(result.standardOutput.contains("No sound card found"), result.standardOutput)
        XCTAssertTrue(result.standardOutput.contains("staccato_record"), result.standardOutput)
        XCTAssertTrue(result.standardError.isEmpty, "library noise leaked: \(result.standardError)")
    }

    /// Without --device, a default PCM that cannot play makes the demo render to a file. The test
    /// makes sure of that even on a machine with a sound card: its ALSA configuration points
    /// `default` at a PCM that does not exist.
    func testDemoRendersToAFileWhenTheDefaultDeviceCannotPlay() throws {
        let path = TestDevices.temporaryFile("demo.wav")
        let configuration = TestDevices.temporaryFile("no-default.conf")
        defer { unlink(path); unlink(configuration) }
        try "pcm.!default \"staccato_no_such_pcm\"\n".write(toFile: configuration, atomically: true, encoding: .utf8)
        let result = try CommandRunner.staccato(["demo", "--out", path], environment: ["ALSA_CONFIG_PATH": "/usr/share/alsa/alsa.conf:\(configuration)"],
                                                timeout: 30)
        XCTAssertEqual(result.exitCode, 0, result.standardError)
        XCTAssertTrue(result.standardOutput.contains("No playback device"), result.standardOutput)
        let decoded = try AudioFileReader.read(path)
        XCTAssertTrue(result.standardOutput.contains("599 notes"), result.standardOutput)
        XCTAssertEqual(Double(decoded.frameCount) / Double(decoded.sampleRate), 45.6, accuracy: 1)
        XCTAssertGreaterThan(SignalAnalysis.rms(decoded.samples[...]), 0.01)
    }

    /// `--report` to a folder that does not exist is one line naming the path, before anything plays.
    func testAReportThatCannotBeWrittenIsOneLineBeforeAnythingPlays() throws {
        let result = try CommandRunner.staccato(["tone", "--device", "no_such_pcm", "--frequency", "440", "--seconds", "1",
                                                 "--report", "/nonexistent/folder/report.json"], timeout: 10)
        XCTAssertEqual(result.exitCode, 1, result.standardOutput + result.standardError)
        XCTAssertEqual(result.errorLines, ["staccato: /nonexistent/folder/report.json: cannot write the report there"])
        XCTAssertFalse(result.standardOutput.contains("playing"), result.standardOutput)
    }

    /// A device the user named must play: only the default may fall back to a file.
    func testDemoOnANamedDeviceThatDoesNotExistIsAnError() throws {
        let path = TestDevices.temporaryFile("demo-nosuch.wav")
        defer { unlink(path) }
        let result = try CommandRunner.staccato(["demo", "--device", "no_such_pcm", "--out", path], timeout: 30)
        XCTAssertEqual(result.exitCode, 1, result.standardOutput + result.standardError)
        XCTAssertEqual(result.errorLines.count, 1, result.standardError)
        XCTAssertTrue(result.standardError.contains("'no_such_pcm'"), result.standardError)
        XCTAssertFalse(result.standardOutput.contains("rendering"), result.standardOutput)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
    }

    /// An output format the demo cannot write is refused before anything loads, plays or renders.
    func testDemoRefusesAnUnknownOutputFormatFirst() throws {
        let result = try CommandRunner.staccato(["demo", "--device", "no_such_pcm", "--out", "demo.aiff"], timeout: 30)
        XCTAssertEqual(result.exitCode, 2, result.standardOutput + result.standardError)
        XCTAssertEqual(result.errorLines, ["staccato demo: --out must end in .wav, .flac, .ogg or .mp3, got 'demo.aiff' (see 'staccato demo --help')"])
        XCTAssertEqual(result.standardOutput, "")
    }

    /// A command that plays opens its device before it loads anything: a device that does not
    /// exist is said at once, even before a large font, with the ways to play without one.
    func testPlayOnAMissingDeviceSaysSoBeforeLoadingAndHowToDoWithoutOne() throws {
        let song = CommandRunner.repositoryRoot.appendingPathComponent("Tests/Fixtures/midi/mozart_turkish_march.mid").path
        let result = try CommandRunner.staccato(["play", song, "--device", "staccato_no_such_pcm"])
        XCTAssertEqual(result.exitCode, 1, result.standardError)
        XCTAssertEqual(result.errorLines.count, 1, result.standardError)
        let line = try XCTUnwrap(result.errorLines.first)
        XCTAssertTrue(line.hasPrefix("staccato: device 'staccato_no_such_pcm': not found"), line)
        XCTAssertTrue(line.contains("--audio null") && line.contains("'staccato render \(song) --out FILE.wav'"), line)
    }

    /// `play` with no song, no MIDI input and no keys for the keyboard (standard input
    /// /dev/null) has nothing to play: one line and exit 1, not silence and exit 0.
    func testPlayWithNothingToPlayIsOneLine() throws {
        let result = try CommandRunner.staccato(["play", "--audio", "null", "--seconds", "1"])
        XCTAssertEqual(result.exitCode, 1, result.standardOutput)
        XCTAssertEqual(result.errorLines, ["staccato: nothing to play: no MIDI file, no --midi-in or --midi, and no keys for the keyboard (standard input is neither a terminal nor a pipe)"])
    }

    /// The shipped fonts' presets are those soundfonts/README.md lists.
    func testInfoDescribesTheShippedFonts() throws {
        let piano = try CommandRunner.staccato(["info", CommandRunner.shippedSoundFont])
        XCTAssertEqual(piano.exitCode, 0, piano.standardError)
        for line in ["SF2, version 2.01", "name: Fluid R3 GM", "instruments: 2", "samples: 61 (0 Ogg Vorbis compressed)",
                     "presets: 2", "  0:0 Yamaha Grand Piano", "  0:13 Xylophone"] {
            XCTAssertTrue(piano.standardOutput.contains(line + "\n"), "\(line) in \(piano.standardOutput)")
        }
        let small = CommandRunner.repositoryRoot.appendingPathComponent("soundfonts/sf_GMbank_piano_xylo_drums.sf2").path
        let result = try CommandRunner.staccato(["info", small, "--json"])
        XCTAssertEqual(result.exitCode, 0, result.standardError)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        XCTAssertEqual(object["format"] as? String, "SF2")
        let presets = try XCTUnwrap(object["presets"] as? [[String: Any]])
        XCTAssertEqual(presets.map { "\($0["bank"] as? Int ?? -1):\($0["program"] as? Int ?? -1)" }, ["0:0", "0:13", "128:0"])
        // 16-bit samples are held at their width: decoded, the font costs its sample data (widened
        // to Floats it cost twice the data). Told from the headers, without decoding anything.
        XCTAssertEqual(object["decoded_bits"] as? Int, 16)
        let loaded = object["decoded_bytes"] as? Int ?? 0, data = object["sample_data_bytes"] as? Int ?? 0
        XCTAssertGreaterThan(loaded, data / 2)
        XCTAssertLessThan(loaded, data + data / 4, "about the sample data, not twice it")

        let missing = try CommandRunner.staccato(["info", "/no/such/font.sf2"])
        XCTAssertEqual(missing.exitCode, 1)
        XCTAssertEqual(missing.standardError, "staccato: /no/such/font.sf2: cannot open: No such file or directory\n")
    }

    func testRenderPlaysAMIDIFileThroughTheShippedFont() throws {
        let out = TestDevices.temporaryFile("mozart.wav")
        defer { unlink(out) }
        let song = CommandRunner.repositoryRoot.appendingPathComponent("Tests/Fixtures/midi/mozart_turkish_march.mid").path
        let result = try CommandRunner.staccato(["render", song, "--out", out], timeout: 120)
        XCTAssertEqual(result.exitCode, 0, result.standardError)
        XCTAssertTrue(result.standardOutput.contains("notes 599"), result.standardOutput)
        // CommandRunner pins STACCATO_SOUNDFONT to the shipped font; render says so.
        XCTAssertTrue(result.standardOutput.hasPrefix("soundfont: \(CommandRunner.shippedSoundFont) ($STACCATO_SOUNDFONT; --soundfont to choose)\n"),
                      result.standardOutput)
        let audio = try AudioFileReader.read(out)
        XCTAssertEqual(Double(audio.frameCount) / 48_000, 45.6, accuracy: 1)
        XCTAssertGreaterThan(SignalAnalysis.rms(audio.samples[...]), 0.01)
    }

    /// `--gain` scales the song by exactly what it says, `--no-effects` renders dry (no reverb
    /// tail), and the limiter's line says whether it engaged and what gain would keep clear of it.
    func testRenderGainEffectsAndTheLimiterLine() throws {
        let song = CommandRunner.repositoryRoot.appendingPathComponent("Tests/Fixtures/midi/converse_what_a_friend_piano_pedal.mid").path
        func render(_ options: [String]) throws -> (output: String, audio: DecodedAudio) {
            let out = TestDevices.temporaryFile("gain.wav")
            defer { unlink(out) }
            let result = try CommandRunner.staccato(["render", song, "--out", out] + options, timeout: 120)
            XCTAssertEqual(result.exitCode, 0, result.standardError)
            return (result.standardOutput, try AudioFileReader.read(out))
        }
        let standard = try render([])
        XCTAssertTrue(standard.output.contains("\nlimiter: never engaged\n"), standard.output)
        let dry = try render(["--no-effects"]), dryLouder = try render(["--no-effects", "--gain", "-4"])
        // Over the same frames (a louder render may ring on a little longer before its tail ends).
        let common = 20 * 48_000 * 2
        let ratio = SignalAnalysis.rms(dryLouder.audio.samples[..<common]) / SignalAnalysis.rms(dry.audio.samples[..<common])
        XCTAssertEqual(20 * log10(Double(ratio)), 10, accuracy: 0.01, "-4 dB is 10 dB above the default -14")
        let reverb = zip(standard.audio.samples[..<common], dry.audio.samples[..<common]).map { $0 - $1 }
        XCTAssertGreaterThan(SignalAnalysis.rms(reverb[...]), SignalAnalysis.rms(dry.audio.samples[..<common]) * 0.05,
                             "with effects, the reverb (CC91 40 by default) adds to the dry render")
        let hot = try render(["--gain", "20"])
        XCTAssertTrue(hot.output.contains("\nlimiter: turned "), hot.output)
        XCTAssertTrue(hot.output.contains("would keep the song clear of it)"), hot.output)
        XCTAssertLessThanOrEqual(SignalAnalysis.largestAbs(hot.audio.samples[...]), Float(pow(10, -1.0 / 20)) * 1.000_01)
    }

    /// Broken fonts: truncated at every top-level chunk boundary and with flipped bytes, each run
    /// through the CLI is a one-line error naming the file, and exit code 1 — or, for a flip that
    /// only touches sample data, a normal render. Never a crash.
    func testCorruptedSoundFontsAreOneLineErrorsWithExitCodeOne() throws {
        let font = CommandRunner.repositoryRoot.appendingPathComponent("soundfonts/sf_GMbank_piano_xylo_drums.sf2")
        let bytes = try [UInt8](Data(contentsOf: font))
        let song = CommandRunner.repositoryRoot.appendingPathComponent("Tests/Fixtures/midi/mozart_turkish_march.mid").path
        let broken = TestDevices.temporaryFile("broken.sf2")
        let out = TestDevices.temporaryFile("broken.wav")
        defer { unlink(broken); unlink(out) }

        // Chunk boundaries: RIFF header, each LIST and each sub-chunk start.
        var boundaries: [Int] = [0, 4, 8, 12]
        var offset = 12
        while offset + 8 <= bytes.count {
            let size = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16 | Int(bytes[offset + 7]) << 24
            boundaries.append(offset)
            if String(decoding: bytes[offset ..< offset + 4], as: UTF8.self) == "LIST" {
                var inner = offset + 12
                boundaries.append(inner)
                while inner + 8 <= min(bytes.count, offset + 8 + size) {
                    let innerSize = Int(bytes[inner + 4]) | Int(bytes[inner + 5]) << 8 | Int(bytes[inner + 6]) << 16 | Int(bytes[inner + 7]) << 24
                    boundaries.append(inner)
                    inner += 8 + innerSize + (innerSize & 1)
                }
            }
            offset += 8 + size + (size & 1)
        }
        var generator = SystemRandomNumberGenerator()
        var cases: [[UInt8]] = boundaries.flatMap { [Array(bytes.prefix($0)), Array(bytes.prefix($0 + 3))] }
        for _ in 0..<10 {
            var flipped = bytes
            // Flip bytes in the last 10 % (pdta, the preset data), where a flip must be caught.
            let position = Int.random(in: bytes.count * 9 / 10 ..< bytes.count, using: &generator)
            flipped[position] ^= 0xff
            cases.append(flipped)
        }
        var errors = 0
        for corrupted in cases {
            try Data(corrupted).write(to: URL(fileURLWithPath: broken))
            let result = try CommandRunner.staccato(["render", song, "--soundfont", broken, "--out", out], timeout: 60)
            XCTAssertFalse(result.timedOut)
            XCTAssertTrue(result.exitCode == 0 || result.exitCode == 1, "exit \(result.exitCode): \(result.standardError)")
            if result.exitCode == 1 {
                errors += 1
                XCTAssertEqual(result.errorLines.count, 1, result.standardError)
                XCTAssertTrue(result.standardError.contains("broken.sf2"), result.standardError)
            }
        }
        XCTAssertGreaterThanOrEqual(errors, boundaries.count, "every truncation must be refused")
        print("corrupted fonts through the CLI: \(cases.count) cases, \(errors) refused with exit code 1, the rest rendered")
    }
}
