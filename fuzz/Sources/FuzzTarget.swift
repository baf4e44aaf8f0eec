import AudioFile
import DrumKitLoader
import Foundation
import MIDI
import SampleSet
import SFZ
import SoundFont

/// What one fuzz input is fed to. Every target must turn any bytes into a value or a thrown,
/// one-line error: a trap, a hang or an out-of-bounds access is a finding.
enum FuzzTarget: String, CaseIterable {
    /// `SoundFontLoader.load(bytes:)`: RIFF, the hydra, generators, sample decoding.
    case sf2
    /// `MIDIFile.parse`: Standard MIDI Files, RIFF-wrapped ones, running status, meta events.
    case smf
    /// `MIDIStreamParser`: live MIDI bytes, ending with all-notes-off, which must leave no note held.
    case stream = "midi-stream"
    /// The drum kit manifest (JSON), through `DrumKitLoader.checkManifest` (every check `load`
    /// makes of the manifest, without its pads' files).
    case kit
    /// SFZ text through `SFZLoader.check`: headers, comments, `#define`, every opcode's value, the
    /// choices the loader makes (no file is opened).
    case sfz
    /// A sample file's loop (`SamplerChunk.find`): a WAV's chunks, a FLAC's metadata blocks and
    /// the RIFF chunks inside them.
    case sampleLoop = "sample-loop"

    /// - Thread: the fuzzer's (one).
    func run(_ bytes: UnsafeBufferPointer<UInt8>) {
        switch self {
        case .sf2:
            _ = try? SoundFontLoader.load(bytes: Array(bytes), name: "fuzz.sf2", sampleRate: 48_000)
        case .smf:
            if let file = try? MIDIFile.parse(Array(bytes), name: "fuzz.mid") {
                _ = file.timedMessages()  // the tempo map and the merge run on whatever parsed
            }
        case .stream:
            var parser = MIDIStreamParser()
            var held = Set<UInt16>()
            let ending: [UInt8] = (0..<16).flatMap { [UInt8(0xB0 | $0), 123, 0] }
            parser.feed(Array(bytes) + ending) { message in
                switch message {
                case let .noteOn(channel, key, _): held.insert(UInt16(channel) << 8 | UInt16(key))
                case let .noteOff(channel, key, _): held.remove(UInt16(channel) << 8 | UInt16(key))
                case let .controlChange(channel, controller, _) where controller == 123 || controller == 120:
                    held = held.filter { $0 >> 8 != UInt16(channel) }
                default: break
                }
            }
            precondition(held.isEmpty, "a note stayed held after all-notes-off on every channel")
        case .kit:
            _ = try? DrumKitLoader.checkManifest(Data(buffer: bytes), path: "fuzz/kit.json")
        case .sfz:
            _ = try? SFZLoader.check(text: String(decoding: bytes, as: UTF8.self), path: "fuzz.sfz")
        case .sampleLoop:
            _ = SamplerChunk.find(inFile: UnsafeRawBufferPointer(bytes))
        }
    }

    /// The target named by STACCATO_FUZZ_TARGET (libFuzzer runs give it that way).
    static let fromEnvironment: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["STACCATO_FUZZ_TARGET"] ?? ""
        guard let target = FuzzTarget(rawValue: name) else {
            FileHandle.standardError.write("staccato-fuzz: set STACCATO_FUZZ_TARGET to one of \(allCases.map(\.rawValue).joined(separator: ", "))\n".data(using: .utf8)!)
            exit(2)
        }
        return target
    }()
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzTarget.fromEnvironment.run(UnsafeBufferPointer(start: data, count: size))
    return 0
}

#if FUZZING
/// libFuzzer's driver (in the fuzzer runtime -sanitize=fuzzer links).
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(_ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                     _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32

/// SwiftPM links an executable's entry point under this name; in a fuzz build it hands over to
/// libFuzzer's driver instead of the regression runner.
@_cdecl("staccato_fuzz_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments) { data, size in fuzzOneInput(data, size) }
}
#endif
