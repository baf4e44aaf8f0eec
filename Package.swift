// swift-tools-version:6.0
import PackageDescription

// The layers of Sources/, defined here once, each a folder: a target's layer gives its path and
// its settings, and scripts/layers reads them back from `swift package dump-package` for the
// real-time gate (scripts/check-realtime-gate) and the thread-tag check (scripts/check-thread-tags).
enum Layer: String {
    /// What the audio thread runs. It imports no Foundation; the render entry points and their
    /// callees carry `@_noAllocation` and `@_noLocks`, and the gate proves the build rejects an
    /// allocation planted in each of them.
    case realtime = "Realtime"
    /// The boundary: the device backends (ALSA, JACK, null), where a device thread starts, runs the
    /// real-time layer's stream cycle between calls into C libraries the build cannot prove, and
    /// ends. Built with the real-time settings; everything else in them is control-thread code.
    case devices = "Devices"
    /// What the control thread runs: readers and loaders, the engine and its façade, live
    /// sessions, analysis. Allocates, locks and reads files freely.
    case library = "Library"
    /// The fronts: the CLI, staccato-bench, the C ABI and the LV2 plug-in's control half. They
    /// translate arguments, call the library and print.
    case fronts = "Fronts"
    /// C: the system libraries' module maps and the few C shims Swift cannot express.
    case system = "System"

    var folder: String { "Sources/\(rawValue)" }

    /// What the layer's Swift is compiled with.
    var swiftSettings: [SwiftSetting] {
        switch self {
        case .realtime, .devices: realtimeSettings
        case .library, .fronts, .system: []
        }
    }
}

/// Optimised in debug builds too: the render path (below), and control-thread code whose loops run
/// over whole files or songs (decoding, resampling, spectra), which an unoptimised test would wait
/// minutes for.
let optimisedInDebug: [SwiftSetting] = [.unsafeFlags(["-O"], .when(configuration: .debug))]

let realtimeSettings: [SwiftSetting] = [
    // Dynamic exclusivity checks are not allocations, but they are code with a worst case we do not
    // want on the audio thread; the render modules are written so static checking suffices.
    .unsafeFlags(["-enforce-exclusivity=unchecked"]),
    // The render path is optimised even in debug builds: an unoptimised voice loop is ~20x slower,
    // which would make debug-mode device tests xrun and offline test renders crawl.
] + optimisedInDebug

// The sampler's per-frame loops, compiled a second time for AVX2 with fused multiply-add (one source
// file, linked into SamplerKernelsAVX2); the renderer picks that build at start on CPUs that run
// it. Only x86-64 has it: elsewhere the second build is the generic one again.
let avx2Settings: [SwiftSetting] = {
    #if arch(x86_64)
    return [.unsafeFlags(["-Xcc", "-mavx2", "-Xcc", "-mfma"]), .define("FUSED_MULTIPLY_ADD"), .define("WIDE_VECTORS")]
    #else
    return []
    #endif
}()

// A third build for AVX-512 (foundation, vector-length, byte-word and doubleword-quadword sets): the
// same eight lanes, with thirty-two vector registers instead of sixteen, mask registers for the
// per-lane selections and the wider conversions. The same operations in the same order with the
// same fused multiply-adds, so it renders the same bits as the AVX2 build.
let avx512Settings: [SwiftSetting] = {
    #if arch(x86_64)
    return avx2Settings + [.unsafeFlags(["-Xcc", "-mavx512f", "-Xcc", "-mavx512vl", "-Xcc", "-mavx512bw", "-Xcc", "-mavx512dq"])]
    #else
    return []
    #endif
}()

/// A Swift or C module of `layer`.
func module(_ name: String, _ layer: Layer, dependencies: [Target.Dependency] = [], exclude: [String] = [],
            swiftSettings: [SwiftSetting] = []) -> Target {
    .target(name: name, dependencies: dependencies, path: "\(layer.folder)/\(name)", exclude: exclude,
            swiftSettings: layer.swiftSettings + swiftSettings)
}

/// A system library (its module map in Sources/System).
func systemLibrary(_ name: String, pkgConfig: String, apt: String) -> Target {
    .systemLibrary(name: name, path: "\(Layer.system.folder)/\(name)", pkgConfig: pkgConfig, providers: [.apt([apt])])
}

/// An executable of the fronts.
func front(_ name: String, dependencies: [Target.Dependency]) -> Target {
    .executableTarget(name: name, dependencies: dependencies, path: "\(Layer.fronts.folder)/\(name)")
}

let package = Package(
    name: "Staccato",
    products: [
        .library(name: "Staccato", targets: ["Engine", "Live", "AudioIO", "DeviceCore", "AudioFile", "MIDI", "MIDIVocabulary", "SoundFont", "SampleSet", "SFZ", "DrumKitLoader", "ProcessLimits", "Render", "SamplerKernels", "SamplerKernelsAVX2", "SamplerKernelsAVX512", "CPUFeatures", "DSP", "VoiceProcessing", "FeedbackSuppression", "Lockfree", "SampleStreaming"]),
        .executable(name: "staccato", targets: ["staccato"]),
        .executable(name: "staccato-bench", targets: ["staccato-bench"]),
    ],
    targets: [
        // System: C.
        systemLibrary("CALSA", pkgConfig: "alsa", apt: "libasound2-dev"),
        systemLibrary("CSndFile", pkgConfig: "sndfile", apt: "libsndfile1-dev"),
        systemLibrary("CJack", pkgConfig: "jack", apt: "libjack-jackd2-dev"),
        systemLibrary("CSpeexDSP", pkgConfig: "speexdsp", apt: "libspeexdsp-dev"),
        systemLibrary("CLV2", pkgConfig: "lv2", apt: "lv2-dev"),
        // Which vector instructions the CPU runs (the sampler kernels' choice at start).
        module("CPUFeatures", .system),
        // Names threads (pthread_setname_np, which Swift's Glibc module leaves out): the voice workers.
        module("CThreadName", .system),
        // Maps a real-time thread's stack before its first deadline (the renderer's first block, a
        // voice worker's start).
        module("CStackPrefault", .system),

        // Realtime: what the audio thread runs.
        module("Lockfree", .realtime),
        module("DSP", .realtime),
        module("SamplerKernels", .realtime, dependencies: ["DSP"]),
        module("SamplerKernelsAVX2", .realtime, dependencies: ["DSP"], swiftSettings: avx2Settings),
        module("SamplerKernelsAVX512", .realtime, dependencies: ["DSP"], swiftSettings: avx512Settings),
        // What MIDI says (messages, controller numbers, note names), one vocabulary for the readers
        // that make messages and the renderer that acts on them; both re-export it.
        module("MIDIVocabulary", .realtime),
        // The microphone's voice processing (noise suppression, automatic gain, echo cancellation)
        // through libspeexdsp, its states allocated at build.
        module("VoiceProcessing", .realtime, dependencies: ["CSpeexDSP", "DSP"]),
        // The microphone's feedback suppressor: detection, tracking, the notch bank, the last-resort duck.
        module("FeedbackSuppression", .realtime, dependencies: ["DSP"]),
        module("Render", .realtime, dependencies: ["Lockfree", "DSP", "CPUFeatures", "CThreadName", "CStackPrefault", "SamplerKernels",
                                                   "SamplerKernelsAVX2", "SamplerKernelsAVX512", "MIDIVocabulary", "VoiceProcessing", "FeedbackSuppression"]),
        // The device layer's real-time half: the stream core every backend calls once a period, the
        // drift corrector, and the JACK process cycle.
        module("DeviceCore", .realtime, dependencies: ["CJack", "Render", "MIDIVocabulary"]),
        // The LV2 plug-in's audio-thread half: run() and work_response.
        module("LV2Cycle", .realtime, dependencies: ["CLV2", "DeviceCore", "Render", "DSP", "Lockfree", "MIDIVocabulary"]),

        // Devices: the backends (ALSA, JACK, null) and the control API over them.
        module("AudioIO", .devices, dependencies: ["CALSA", "CJack", "DeviceCore", "Render", "MIDIVocabulary", "FileChecks"]),

        // Library: the control thread's.
        // Checks what a path names before a loader opens it (a FIFO would block the open).
        module("FileChecks", .library),
        // How much more memory the process can be given, asked before a loader allocates a
        // font's sample memory (Swift traps on a failed allocation).
        module("ProcessLimits", .library),
        // Sound files through libsndfile. Converting a decoded SF3's frames to words is a loop over
        // every sample of the font: a General MIDI SF3 would take 20 s to load in a debug test.
        module("AudioFile", .library, dependencies: ["CSndFile", "FileChecks"], swiftSettings: optimisedInDebug),
        module("MIDI", .library, dependencies: ["MIDIVocabulary", "FileChecks"]),
        // Spectrograms and level measures for comparing renders (staccato-bench compare, the
        // FluidSynth reference tests).
        module("AudioAnalysis", .library, dependencies: ["DSP"], swiftSettings: optimisedInDebug),
        // Writes a bank's samples in the background while it plays (heads, bodies, a cache of
        // them): what the SoundFont and SFZ loaders hand their decoders to.
        module("SampleStreaming", .library, dependencies: ["Render"]),
        module("SoundFont", .library, dependencies: ["Render", "DSP", "FileChecks", "AudioFile", "SampleStreaming", "ProcessLimits"]),
        module("ManifestSupport", .library, dependencies: ["FileChecks"]),
        // Sample sets and SFZ. Resampling at load is heavy arithmetic.
        module("SampleSet", .library, dependencies: ["Render", "DSP", "MIDIVocabulary", "AudioFile", "ManifestSupport", "FileChecks", "SampleStreaming"],
               swiftSettings: optimisedInDebug),
        // The SFZ loader: its text reader (includes, defines, loose syntax), the opcode tables, the
        // plan that turns regions into a bank, and the index a streamed load starts from.
        module("SFZ", .library, dependencies: ["SampleSet", "Render", "DSP", "MIDIVocabulary", "AudioFile", "FileChecks", "SampleStreaming", "ProcessLimits"],
               swiftSettings: optimisedInDebug),
        module("DrumKitLoader", .library, dependencies: ["Render", "AudioFile", "SampleSet", "ManifestSupport"]),
        module("Engine", .library, dependencies: ["Render", "DeviceCore", "Lockfree", "FileChecks", "AudioFile", "MIDI", "SoundFont", "SampleSet",
                                                  "DrumKitLoader", "SampleStreaming", "SFZ"]),
        // One live session (a control loop over a started stream: signal fade, input end, a song's
        // lookahead and end, the outcome) for every live command and for library users.
        module("Live", .library, dependencies: ["Engine", "AudioIO", "Render", "MIDI"]),

        // Fronts.
        // The C ABI: its header (CStaccato/include/staccato.h) and its Swift definitions. libstaccato.so
        // is linked from their objects and their dependencies' by scripts/build-library, with the Swift
        // runtime inside it: SwiftPM's own link of a dynamic library leaves the runtime outside. Its
        // render export is an audio-thread entry point, built and proved as the real-time layer is.
        module("CStaccato", .fronts),
        module("StaccatoC", .fronts, dependencies: ["CStaccato", "Engine", "DeviceCore", "Render", "MIDI"], swiftSettings: realtimeSettings),
        // The LV2 plug-in's control half (instantiate, the worker's loads, state); staccato.lv2/staccato.so
        // is linked from its objects and LV2Cycle's by scripts/build-lv2, exporting lv2_descriptor alone.
        module("StaccatoLV2", .fronts, dependencies: ["CLV2", "LV2Cycle", "Engine", "DeviceCore", "Render", "FileChecks"]),
        // The command line both executables speak: option specs, the parser and its typed accessors,
        // the usage lines, help tables and markdown generated from the specs, and the options that
        // choose an audio target.
        module("CommandLineSpec", .fronts, dependencies: ["AudioIO"]),
        front("staccato", dependencies: ["CommandLineSpec", "Engine", "Live", "AudioIO", "AudioFile", "DSP", "Render", "Lockfree", "MIDI", "DrumKitLoader", "SampleSet",
                                         "VoiceProcessing", "FeedbackSuppression", "SFZ"]),
        front("staccato-bench", dependencies: ["CommandLineSpec", "Lockfree", "Engine", "Render", "DrumKitLoader", "AudioFile", "MIDI", "CJack", "AudioIO", "AudioAnalysis",
                                               "DSP", "SampleSet", "FeedbackSuppression", "SFZ"]),
        // The fuzz targets: libFuzzer entry points when built by scripts/fuzz (-sanitize=fuzzer,address
        // -DFUZZING), a regression runner over the corpora otherwise.
        .executableTarget(name: "staccato-fuzz", dependencies: ["AudioFile", "MIDI", "SoundFont", "DrumKitLoader", "SampleSet", "SFZ"], path: "fuzz/Sources"),

        // Tests: a target per module with logic, each named after it, and one per front.
        .target(name: "CAllocationCounter", path: "Tests/CAllocationCounter"),
        // What several test targets share: signals and their analysis, command runners, the
        // virtual devices, in-memory banks, the public SFZ libraries with stand-in samples.
        .target(name: "TestSupport", dependencies: ["DSP", "AudioAnalysis", "AudioFile", "Render", "SFZ", "MIDI", "MIDIVocabulary"], path: "Tests/TestSupport"),
        .testTarget(name: "LockfreeTests", dependencies: ["Lockfree"]),
        .testTarget(name: "DSPTests", dependencies: ["DSP", "SamplerKernels", "SamplerKernelsAVX2", "SamplerKernelsAVX512", "CPUFeatures", "AudioAnalysis", "TestSupport"]),
        .testTarget(name: "FeedbackSuppressionTests", dependencies: ["FeedbackSuppression", "DSP", "AudioAnalysis", "TestSupport"]),
        .testTarget(name: "VoiceProcessingTests", dependencies: ["VoiceProcessing", "Engine", "Render", "DSP", "AudioFile", "MIDI", "SoundFont", "SampleSet", "AudioAnalysis", "TestSupport"]),
        .testTarget(name: "MIDIVocabularyTests", dependencies: ["MIDIVocabulary"]),
        // The renderer, driven through the engine's API.
        .testTarget(name: "RenderTests", dependencies: ["Render", "Lockfree", "Engine", "AudioFile", "MIDI", "MIDIVocabulary", "SoundFont", "DrumKitLoader", "SampleSet",
                                                       "SampleStreaming", "CAllocationCounter", "CThreadName", "TestSupport", "AudioAnalysis", "DSP"]),
        .testTarget(name: "DeviceCoreTests", dependencies: ["DeviceCore", "AudioIO", "Engine", "Render"]),
        .testTarget(name: "AudioIOTests", dependencies: ["AudioIO", "DeviceCore", "Engine", "Render", "TestSupport"]),
        .testTarget(name: "AudioAnalysisTests", dependencies: ["AudioAnalysis", "DSP"]),
        .testTarget(name: "MIDITests", dependencies: ["MIDI", "TestSupport"]),
        .testTarget(name: "SoundFontTests", dependencies: ["SoundFont", "Render", "Engine", "AudioFile", "MIDI", "SampleStreaming", "TestSupport"],
                    exclude: ["Scripts"]),  // the script behind ShippedFontTests' expected numbers
        .testTarget(name: "FileChecksTests", dependencies: ["FileChecks"]),
        .testTarget(name: "ProcessLimitsTests", dependencies: ["ProcessLimits"]),
        .testTarget(name: "AudioFileTests", dependencies: ["AudioFile", "TestSupport"]),
        .testTarget(name: "ManifestSupportTests", dependencies: ["ManifestSupport", "TestSupport"]),
        .testTarget(name: "SampleStreamingTests", dependencies: ["SampleStreaming", "Render", "TestSupport"]),
        .testTarget(name: "SampleSetTests", dependencies: ["SampleSet", "Render", "AudioFile", "TestSupport"]),
        .testTarget(name: "SFZTests", dependencies: ["SFZ", "SampleSet", "Render", "Engine", "AudioFile", "MIDI", "MIDIVocabulary", "DrumKitLoader", "TestSupport"]),
        .testTarget(name: "DrumKitLoaderTests", dependencies: ["DrumKitLoader", "Render", "AudioFile", "SampleSet", "TestSupport"]),
        .testTarget(name: "EngineTests", dependencies: ["Engine", "Render", "DeviceCore", "MIDI", "SoundFont", "SFZ", "AudioFile", "AudioAnalysis", "DrumKitLoader",
                                                       "CAllocationCounter", "TestSupport"]),
        .testTarget(name: "LiveTests", dependencies: ["Live", "Engine", "AudioIO", "Render", "MIDI", "SoundFont", "TestSupport"]),
        // The fronts: the CLI's code, the CLI run as a process on the virtual devices, the bench.
        .testTarget(name: "TerminalFrontEndTests", dependencies: ["staccato", "CommandLineSpec", "TestSupport"]),
        .testTarget(name: "StaccatoCommandTests", dependencies: ["AudioAnalysis", "AudioFile", "AudioIO", "CJack", "DSP", "Engine", "Render", "MIDI", "SoundFont",
                                                                "TestSupport"]),
        .testTarget(name: "BenchTests", dependencies: ["AudioAnalysis", "FeedbackSuppression", "AudioFile", "DSP", "TestSupport"]),
    ]
)
