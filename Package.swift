// swift-tools-version:6.0
import PackageDescription

// The real-time boundary is a module boundary: `Lockfree`, `DSP`, `MIDIVocabulary` and `Render` import
// no Foundation and hold everything the audio thread runs. `Engine`, `AudioFile` and `AudioIO` are control-thread code.
let realtimeSettings: [SwiftSetting] = [
    // Dynamic exclusivity checks are not allocations, but they are code with a worst case we do not
    // want on the audio thread; the render modules are written so static checking suffices.
    .unsafeFlags(["-enforce-exclusivity=unchecked"]),
    // The render path is optimised even in debug builds: an unoptimised voice loop is ~20x slower,
    // which would make debug-mode device tests xrun and offline test renders crawl.
    .unsafeFlags(["-O"], .when(configuration: .debug)),
]

// The sampler's per-frame loops, compiled a second time for AVX2 with fused multiply-add (one source
// file, linked into Sources/SamplerKernelsAVX2); the renderer picks that build at start on CPUs that
// run it. Only x86-64 has it: elsewhere the second build is the generic one again.
let avx2Settings: [SwiftSetting] = {
    #if arch(x86_64)
    return realtimeSettings + [.unsafeFlags(["-Xcc", "-mavx2", "-Xcc", "-mfma"]), .define("FUSED_MULTIPLY_ADD"), .define("WIDE_VECTORS")]
    #else
    return realtimeSettings
    #endif
}()

let package = Package(
    name: "Staccato",
    products: [
        .library(name: "Staccato", targets: ["Engine", "Live", "AudioIO", "DeviceCore", "AudioFile", "MIDI", "MIDIVocabulary", "SoundFont", "SampleSet", "DrumKitLoader", "Render", "SamplerKernels", "SamplerKernelsAVX2", "CPUFeatures", "DSP", "VoiceProcessing", "Lockfree", "SampleStreaming"]),
        .executable(name: "staccato", targets: ["staccato"]),
        .executable(name: "staccato-bench", targets: ["staccato-bench"]),
    ],
    targets: [
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        .systemLibrary(name: "CSndFile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(name: "CJack", pkgConfig: "jack", providers: [.apt(["libjack-jackd2-dev"])]),
        .systemLibrary(name: "CSpeexDSP", pkgConfig: "speexdsp", providers: [.apt(["libspeexdsp-dev"])]),
        .systemLibrary(name: "CLV2", pkgConfig: "lv2", providers: [.apt(["lv2-dev"])]),

        .target(name: "Lockfree", swiftSettings: realtimeSettings),
        .target(name: "DSP", swiftSettings: realtimeSettings),
        .target(name: "CPUFeatures"),
        .target(name: "SamplerKernels", dependencies: ["DSP"], swiftSettings: realtimeSettings),
        .target(name: "SamplerKernelsAVX2", dependencies: ["DSP"], swiftSettings: avx2Settings),
        // What MIDI says (messages, controller numbers, note names), one vocabulary for the readers
        // that make messages and the renderer that acts on them; both re-export it.
        .target(name: "MIDIVocabulary", swiftSettings: realtimeSettings),
        // The microphone's voice processing (noise suppression, automatic gain, echo cancellation)
        // through libspeexdsp: real-time code, its states allocated at build.
        .target(name: "VoiceProcessing", dependencies: ["CSpeexDSP", "DSP"], swiftSettings: realtimeSettings),
        // Names threads (pthread_setname_np, which Swift's Glibc module leaves out): the voice workers.
        .target(name: "CThreadName"),
        // Maps a real-time thread's stack before its first deadline (the renderer's first block, a
        // voice worker's start).
        .target(name: "CStackPrefault"),
        .target(name: "Render", dependencies: ["Lockfree", "DSP", "CPUFeatures", "CThreadName", "CStackPrefault", "SamplerKernels", "SamplerKernelsAVX2", "MIDIVocabulary", "VoiceProcessing"],
                swiftSettings: realtimeSettings),
        // Checks what a path names before a loader opens it (a FIFO would block the open).
        .target(name: "FileChecks"),
        // Converting a decoded SF3's frames to words is a loop over every sample of the font:
        // optimised in debug builds too, or a General MIDI SF3 takes 20 s to load in a debug test.
        .target(name: "AudioFile", dependencies: ["CSndFile", "FileChecks"],
                swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]),
        .target(name: "MIDI", dependencies: ["MIDIVocabulary", "FileChecks"]),
        // Spectrograms and level measures for comparing renders (staccato-bench compare, the
        // FluidSynth reference tests); optimised in debug builds too, or a test's FFTs of whole
        // songs take minutes.
        .target(name: "AudioAnalysis", dependencies: ["DSP"], swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]),
        // AudioFile decodes SF3's Ogg Vorbis samples at load (libsndfile): control-thread code,
        // like the rest of the loader.
        // Writes a bank's samples in the background while it plays (heads, bodies, a cache of
        // them): what the SoundFont and SFZ loaders hand their decoders to.
        .target(name: "SampleStreaming", dependencies: ["Render"]),
        .target(name: "SoundFont", dependencies: ["Render", "DSP", "FileChecks", "AudioFile", "SampleStreaming"]),
        .target(name: "ManifestSupport", dependencies: ["FileChecks"]),
        // Resampling at load is heavy arithmetic: optimised in debug builds too, or loading a kit
        // in a debug test takes seconds.
        .target(name: "SampleSet", dependencies: ["Render", "DSP", "MIDIVocabulary", "AudioFile", "ManifestSupport", "FileChecks", "SampleStreaming"],
                swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]),
        .target(name: "DrumKitLoader", dependencies: ["Render", "AudioFile", "SampleSet", "ManifestSupport"]),
        .target(name: "Engine", dependencies: ["Render", "DeviceCore", "Lockfree", "FileChecks", "AudioFile", "MIDI", "SoundFont", "SampleSet", "DrumKitLoader", "SampleStreaming"]),
        // The device layer's real-time half: the stream core every backend calls once a period, the
        // drift corrector, and the JACK process cycle. Real-time code like Render, and proved so.
        .target(name: "DeviceCore", dependencies: ["CJack", "Render", "MIDIVocabulary"], swiftSettings: realtimeSettings),
        // The backends (ALSA, JACK, null) and the control API over them.
        .target(name: "AudioIO", dependencies: ["CALSA", "CJack", "DeviceCore", "Render", "MIDIVocabulary", "FileChecks"], swiftSettings: realtimeSettings),
        // One live session (a control loop over a started stream: signal fade, input end, a song's
        // lookahead and end, the outcome) for every live command and for library users.
        .target(name: "Live", dependencies: ["Engine", "AudioIO", "Render", "MIDI"]),
        // The C ABI: its header (CStaccato/include/staccato.h) and its Swift definitions. libstaccato.so
        // is linked from their objects and their dependencies' by scripts/build-library, with the Swift
        // runtime inside it: SwiftPM's own link of a dynamic library leaves the runtime outside.
        .target(name: "CStaccato"),
        .target(name: "StaccatoC", dependencies: ["CStaccato", "Engine", "DeviceCore", "Render", "MIDI"], swiftSettings: realtimeSettings),
        // The LV2 plug-in: its audio-thread half (run, work_response: real-time code, proved so) and
        // its control half (instantiate, the worker's loads, state). staccato.lv2/staccato.so is
        // linked from their objects by scripts/build-lv2, exporting lv2_descriptor alone.
        .target(name: "LV2Cycle", dependencies: ["CLV2", "DeviceCore", "Render", "DSP", "Lockfree", "MIDIVocabulary"], swiftSettings: realtimeSettings),
        .target(name: "StaccatoLV2", dependencies: ["CLV2", "LV2Cycle", "Engine", "DeviceCore", "Render", "FileChecks"]),
        .executableTarget(name: "staccato", dependencies: ["Engine", "Live", "AudioIO", "AudioFile", "DSP", "Render", "Lockfree", "MIDI", "DrumKitLoader", "SampleSet", "VoiceProcessing"]),
        // The fuzz targets: libFuzzer entry points when built by scripts/fuzz (-sanitize=fuzzer,address
        // -DFUZZING), a regression runner over the corpora otherwise.
        .executableTarget(name: "staccato-fuzz", dependencies: ["AudioFile", "MIDI", "SoundFont", "DrumKitLoader", "SampleSet"], path: "fuzz/Sources"),
        .executableTarget(name: "staccato-bench", dependencies: ["Lockfree", "Engine", "Render", "DrumKitLoader", "AudioFile", "MIDI", "CJack", "AudioIO", "AudioAnalysis", "DSP", "SampleSet"], path: "bench/Sources"),

        .target(name: "CAllocationCounter", path: "Tests/CAllocationCounter"),
        .target(name: "TestSupport", dependencies: ["DSP", "AudioAnalysis"], path: "Tests/TestSupport"),
        .testTarget(name: "LockfreeTests", dependencies: ["Lockfree"]),
        .testTarget(name: "DSPTests", dependencies: ["DSP", "SamplerKernels", "SamplerKernelsAVX2", "CPUFeatures", "AudioAnalysis", "TestSupport"]),
        .testTarget(name: "RenderTests", dependencies: ["Render", "Lockfree", "Engine", "AudioFile", "MIDI", "SoundFont", "DrumKitLoader", "SampleSet", "SampleStreaming", "CAllocationCounter", "CThreadName", "TestSupport", "AudioAnalysis"]),
        .testTarget(name: "AudioAnalysisTests", dependencies: ["AudioAnalysis", "DSP"]),
        .testTarget(name: "MIDIVocabularyTests", dependencies: ["MIDIVocabulary"]),
        .testTarget(name: "MIDITests", dependencies: ["MIDI", "TestSupport"]),
        .testTarget(name: "SoundFontTests", dependencies: ["SoundFont", "Render", "Engine", "AudioFile", "MIDI", "SampleStreaming", "TestSupport"],
                    exclude: ["Scripts"]),  // the script behind ShippedFontTests' expected numbers
        .testTarget(name: "DrumKitLoaderTests", dependencies: ["DrumKitLoader", "Render", "AudioFile", "SampleSet", "TestSupport"]),
        .testTarget(name: "SampleSetTests", dependencies: ["SampleSet", "Render", "AudioFile", "TestSupport"]),
        .testTarget(name: "TerminalFrontEndTests", dependencies: ["staccato", "TestSupport"]),
        .testTarget(name: "DeviceCoreTests", dependencies: ["DeviceCore", "AudioIO", "Engine", "Render"]),
        .testTarget(name: "VoiceProcessingTests", dependencies: ["VoiceProcessing", "Engine", "Render", "DSP", "AudioFile", "MIDI", "SoundFont", "SampleSet", "AudioAnalysis", "TestSupport"]),
        .testTarget(name: "DeviceTests", dependencies: ["AudioAnalysis", "AudioFile", "AudioIO", "CJack", "DSP", "Engine", "Render", "MIDI", "SoundFont", "TestSupport"]),
    ]
)
