import CStaccato
import DeviceCore
import Engine
import Glibc
import MIDI
import Render

// The C ABI (Sources/CStaccato/include/staccato.h): each function translates its arguments, calls the library, and
// turns a thrown error into -1 or NULL and the thread's last error. Nothing here prints.


private func handle<Object: AnyObject>(_ pointer: OpaquePointer?, as type: Object.Type, naming argument: String) throws -> Object {
    guard let pointer else { throw RenderFailure("\(argument): NULL") }
    return Unmanaged<Object>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
}

func retained(_ object: AnyObject) -> OpaquePointer { OpaquePointer(Unmanaged.passRetained(object).toOpaque()) }

private func release<Object: AnyObject>(_ pointer: OpaquePointer?, as type: Object.Type) {
    guard let pointer else { return }
    Unmanaged<Object>.fromOpaque(UnsafeRawPointer(pointer)).release()
}

private let versionText = CStrings([staccatoVersion])

// MARK: Library

/// `staccato_version`, as `staccato.h` describes it.
/// - Thread: any.
@_cdecl("staccato_version")
public func exported_version() -> UnsafePointer<CChar> { UnsafePointer(versionText.pointers[0]) }

/// `staccato_last_error`, as `staccato.h` describes it.
/// - Thread: any.
@_cdecl("staccato_last_error")
public func exported_last_error() -> UnsafePointer<CChar> { LastError.current }

// MARK: Instruments

/// `staccato_instrument_load`, as `staccato.h` describes it.
/// - Thread: control.
@_cdecl("staccato_instrument_load")
public func exported_instrument_load(_ path: UnsafePointer<CChar>?, _ sampleRate: Double) -> OpaquePointer? {
    LastError.catching(nil) {
        try Synth.checkSampleRate(sampleRate)
        let path = path.map { String(cString: $0) } ?? InstrumentLoader.chooseSoundFont().path
        let bank = try InstrumentLoader.load(path: path, sampleRate: sampleRate)
        return retained(InstrumentHandle(bank: bank, path: path, sampleRate: sampleRate))
    }
}

/// `staccato_instrument_free`, as `staccato.h` describes it.
/// - Thread: control.
@_cdecl("staccato_instrument_free")
public func exported_instrument_free(_ instrument: OpaquePointer?) { release(instrument, as: InstrumentHandle.self) }

/// `staccato_instrument_path`, as `staccato.h` describes it.
/// - Thread: any.
@_cdecl("staccato_instrument_path")
public func exported_instrument_path(_ instrument: OpaquePointer?) -> UnsafePointer<CChar>? {
    LastError.catching(nil) { UnsafePointer(try handle(instrument, as: InstrumentHandle.self, naming: "instrument").cPath.pointers[0]) }
}

/// `staccato_instrument_sample_rate`, as `staccato.h` describes it.
/// - Thread: any.
@_cdecl("staccato_instrument_sample_rate")
public func exported_instrument_sample_rate(_ instrument: OpaquePointer?) -> Double {
    LastError.catching(0) { try handle(instrument, as: InstrumentHandle.self, naming: "instrument").sampleRate }
}

/// `staccato_instrument_preset_count`, as `staccato.h` describes it.
/// - Thread: any.
@_cdecl("staccato_instrument_preset_count")
public func exported_instrument_preset_count(_ instrument: OpaquePointer?) -> Int32 {
    LastError.catching(-1) { Int32(try handle(instrument, as: InstrumentHandle.self, naming: "instrument").bank.presets.count) }
}

/// `staccato_instrument_preset`, as `staccato.h` describes it.
/// - Thread: any.
@_cdecl("staccato_instrument_preset")
public func exported_instrument_preset(_ instrument: OpaquePointer?, _ index: Int32, _ preset: UnsafeMutablePointer<staccato_preset>?) -> Int32 {
    LastError.catching(-1) {
        let instrument = try handle(instrument, as: InstrumentHandle.self, naming: "instrument")
        guard instrument.preset(index, into: preset) else {
            throw RenderFailure("preset \(index): out of range (\(instrument.bank.presets.count) presets)")
        }
        return 0
    }
}

// MARK: Synth

/// `staccato_synth_new`, as `staccato.h` describes it.
/// - Thread: control.
@_cdecl("staccato_synth_new")
public func exported_synth_new(_ sampleRate: Double, _ maxBlockFrames: Int32) -> OpaquePointer? {
    LastError.catching(nil) {
        let synth = try Synth(sampleRate: sampleRate, maxBlockFrameCount: Int(maxBlockFrames))
        let handle = SynthHandle(synth: synth)
        synth.warning = { [unowned handle] line in handle.log?(line) }
        return retained(handle)
    }
}

/// `staccato_synth_free`, as `staccato.h` describes it.
/// - Thread: control.
@_cdecl("staccato_synth_free")
public func exported_synth_free(_ synth: OpaquePointer?) { release(synth, as: SynthHandle.self) }

/// `staccato_synth_load`, as `staccato.h` describes it.
/// - Thread: control.
@_cdecl("staccato_synth_load")
public func exported_synth_load(_ synth: OpaquePointer?, _ path: UnsafePointer<CChar>?) -> Int32 {
    LastError.catching(-1) {
        let synth = try handle(synth, as: SynthHandle.self, naming: "synth")
        try synth.synth.load(path: try string(path, naming: "path"))
        synth.names = CStrings(synth.synth.instrument?.bank.presetNames ?? [])
        return 0
    }
}

/// `staccato_synth_use`, as `staccato.h` describes it.
/// - Thread: control.
@_cdecl("staccato_synth_use")
public func exported_synth_use(_ synth: OpaquePointer?, _ instrument: OpaquePointer?) -> Int32 {
    LastError.catching(-1) {
        let synth = try handle(synth, as: SynthHandle.self, naming: "synth")
        let instrument = try handle(instrument, as: InstrumentHandle.self, naming: "instrument")
        guard instrument.sampleRate == synth.synth.sampleRate else {
            throw RenderFailure("\(instrument.path): loaded at \(instrument.sampleRate) Hz, and the synth renders at \(synth.synth.sampleRate) Hz")
        }
        synth.synth.use(instrument.bank, from: instrument.path)
        synth.names = instrument.names
        return 0
    }
}

/// `staccato_synth_midi`, as `staccato.h` describes it.
/// - Thread: control.
@_cdecl("staccato_synth_midi")
public func exported_synth_midi(_ synth: OpaquePointer?, _ frameOffset: UInt32, _ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    LastError.catching(-1) {
        let synth = try handle(synth, as: SynthHandle.self, naming: "synth")
        guard let bytes, count > 0 else { throw RenderFailure("MIDI bytes: none given") }
        try synth.synth.midi(UnsafeBufferPointer(start: bytes, count: count), frameOffset: Int(frameOffset))
        return 0
    }
}

/// `staccato_synth_render`, as `staccato.h` describes it.
/// - Thread: audio.
@_cdecl("staccato_synth_render")
@_noAllocation @_noLocks
public func exported_synth_render(_ synth: OpaquePointer?, _ left: UnsafeMutablePointer<Float>?, _ right: UnsafeMutablePointer<Float>?,
                                  _ frameCount: UInt32) {
    guard let synth, let left, let right else { return }
    Unmanaged<SynthHandle>.fromOpaque(UnsafeRawPointer(synth))._withUnsafeGuaranteedRef { handle in
        handle.cycle._withUnsafeGuaranteedRef { $0.render(left: left, right: right, frameCount: Int(frameCount)) }
    }
}

/// `staccato_synth_set_volume`, as `staccato.h` describes it.
/// - Thread: control.
@_cdecl("staccato_synth_set_volume")
public func exported_synth_set_volume(_ synth: OpaquePointer?, _ volume: Float) {
    LastError.catching(()) { try handle(synth, as: SynthHandle.self, naming: "synth").synth.volume = volume }
}

/// `staccato_synth_volume`, as `staccato.h` describes it.
/// - Thread: control.
@_cdecl("staccato_synth_volume")
public func exported_synth_volume(_ synth: OpaquePointer?) -> Float {
    LastError.catching(0) { try handle(synth, as: SynthHandle.self, naming: "synth").synth.volume }
}

/// `staccato_synth_active_voices`, as `staccato.h` describes it.
/// - Thread: any.
@_cdecl("staccato_synth_active_voices")
public func exported_synth_active_voices(_ synth: OpaquePointer?) -> Int32 {
    LastError.catching(-1) { Int32(try handle(synth, as: SynthHandle.self, naming: "synth").synth.activeVoiceCount) }
}

/// `staccato_synth_frames_rendered`, as `staccato.h` describes it.
/// - Thread: any.
@_cdecl("staccato_synth_frames_rendered")
public func exported_synth_frames_rendered(_ synth: OpaquePointer?) -> UInt64 {
    LastError.catching(0) { UInt64(try handle(synth, as: SynthHandle.self, naming: "synth").synth.renderedFrameCount) }
}

/// `staccato_synth_preset_count`, as `staccato.h` describes it.
/// - Thread: control.
@_cdecl("staccato_synth_preset_count")
public func exported_synth_preset_count(_ synth: OpaquePointer?) -> Int32 {
    LastError.catching(-1) { Int32(try handle(synth, as: SynthHandle.self, naming: "synth").synth.instrument?.bank.presets.count ?? 0) }
}

/// `staccato_synth_preset`, as `staccato.h` describes it.
/// - Thread: control.
@_cdecl("staccato_synth_preset")
public func exported_synth_preset(_ synth: OpaquePointer?, _ index: Int32, _ preset: UnsafeMutablePointer<staccato_preset>?) -> Int32 {
    LastError.catching(-1) {
        let synth = try handle(synth, as: SynthHandle.self, naming: "synth")
        guard let bank = synth.synth.instrument?.bank, presetEntry(bank: bank, names: synth.names, index: index, into: preset) else {
            throw RenderFailure("preset \(index): out of range (\(synth.synth.instrument?.bank.presets.count ?? 0) presets)")
        }
        return 0
    }
}

/// `staccato_synth_set_log_callback`, as `staccato.h` describes it.
/// - Thread: control.
@_cdecl("staccato_synth_set_log_callback")
public func exported_synth_set_log_callback(_ synth: OpaquePointer?, _ callback: staccato_log_callback?, _ userData: UnsafeMutableRawPointer?) {
    LastError.catching(()) {
        try handle(synth, as: SynthHandle.self, naming: "synth").log = callback.map { LogTarget(callback: $0, userData: userData) }
    }
}

// MARK: Songs

/// `staccato_render_options_init`, as `staccato.h` describes it.
/// - Thread: any.
@_cdecl("staccato_render_options_init")
public func exported_render_options_init(_ options: UnsafeMutablePointer<staccato_render_options>?) {
    let defaults = RenderConfiguration()
    options?.pointee = staccato_render_options(sample_rate: defaults.sampleRate, threads: 0, effects: 1, program: -1,
                                               gain_db: defaults.songGainDecibels, voices: Int32(defaults.voiceCount),
                                               linear_interpolation: defaults.cubicInterpolation ? 0 : 1, log: nil, log_user_data: nil)
}

/// The song renderer `options` describe, over `instrument`; `batch` renders each song on one thread.
private func songRenderer(_ options: UnsafePointer<staccato_render_options>?, instrument: InstrumentHandle,
                          batch: Bool) throws -> SongRenderer {
    var settings = staccato_render_options()
    exported_render_options_init(&settings)
    if let options { settings = options.pointee }
    try Synth.checkSampleRate(settings.sample_rate)
    guard settings.sample_rate == instrument.sampleRate else {
        throw RenderFailure("\(instrument.path): loaded at \(instrument.sampleRate) Hz, and the render asks for \(settings.sample_rate) Hz")
    }
    guard (1...Int32(RenderConfiguration.maximumVoiceCount)).contains(settings.voices) else {
        throw RenderFailure("voices \(settings.voices): must be from 1 to \(RenderConfiguration.maximumVoiceCount)")
    }
    guard (-1...127).contains(settings.program) else { throw RenderFailure("program \(settings.program): must be -1 (the file's) or 0 to 127") }
    guard settings.threads >= 0 else { throw RenderFailure("threads \(settings.threads): must be 0 (every core) or more") }
    guard RenderConfiguration.songGainRange.contains(settings.gain_db) else {
        throw RenderFailure("gain \(settings.gain_db) dB: must be from \(RenderConfiguration.songGainRange.lowerBound) to \(RenderConfiguration.songGainRange.upperBound)")
    }
    var configuration = RenderConfiguration(sampleRate: settings.sample_rate, voiceCount: Int(settings.voices),
                                            cubicInterpolation: settings.linear_interpolation == 0, effects: settings.effects != 0,
                                            songGainDecibels: settings.gain_db)
    configuration.threadCount = batch ? 1 : settings.threads == 0 ? RenderConfiguration.everyCoreThreadCount : Int(settings.threads)
    let log = settings.log.map { LogTarget(callback: $0, userData: settings.log_user_data) }
    return SongRenderer(configuration: configuration, options: MIDIRenderOptions(program: settings.program < 0 ? nil : UInt8(settings.program)),
                        bank: instrument.bank, kitPath: nil, kits: instrument.kits, namesSongInWarnings: batch,
                        warning: { line in log?(line) })
}

/// `staccato_render_file`, as `staccato.h` describes it.
/// - Thread: control.
@_cdecl("staccato_render_file")
public func exported_render_file(_ midiPath: UnsafePointer<CChar>?, _ instrumentPath: UnsafePointer<CChar>?, _ sampleRate: Double,
                                 _ outPath: UnsafePointer<CChar>?) -> Int32 {
    LastError.catching(-1) {
        let songPath = try string(midiPath, naming: "midi_path")
        let output = try string(outPath, naming: "out_path")
        try Synth.checkSampleRate(sampleRate)
        // As `staccato render --out` does it: the song first, then only the samples it plays.
        let song = try SongPreparation.readSong(path: songPath, warning: { _ in })
        let path = instrumentPath.map { String(cString: $0) } ?? InstrumentLoader.chooseSoundFont().path
        let notes = MIDISequencer(song, sampleRate: sampleRate, program: nil).playedNotes(kitPlaysPercussion: false)
        let bank = try InstrumentLoader.load(path: path, sampleRate: sampleRate, notes: notes)
        var options = staccato_render_options()
        exported_render_options_init(&options)
        options.sample_rate = sampleRate
        let renderer = try songRenderer(&options, instrument: InstrumentHandle(bank: bank, path: path, sampleRate: sampleRate), batch: false)
        if let silence = try renderer.render(song, from: songPath, to: output).silence { throw silence }
        return 0
    }
}

/// `staccato_render_song_to_file`, as `staccato.h` describes it.
/// - Thread: control.
@_cdecl("staccato_render_song_to_file")
public func exported_render_song_to_file(_ midiPath: UnsafePointer<CChar>?, _ instrument: OpaquePointer?,
                                         _ options: UnsafePointer<staccato_render_options>?, _ outPath: UnsafePointer<CChar>?) -> Int32 {
    LastError.catching(-1) {
        let instrument = try handle(instrument, as: InstrumentHandle.self, naming: "instrument")
        let songPath = try string(midiPath, naming: "midi_path")
        let output = try string(outPath, naming: "out_path")
        let renderer = try songRenderer(options, instrument: instrument, batch: false)
        let song = try SongPreparation.readSong(path: songPath, warning: renderer.warning)
        if let silence = try renderer.render(song, from: songPath, to: output).silence { throw silence }
        return 0
    }
}

/// Renders `song` into memory; a silent render is said through the options' log.
private func renderSong(_ read: (SongRenderer) throws -> (MIDIFile, String), instrument: OpaquePointer?,
                        options: UnsafePointer<staccato_render_options>?) -> OpaquePointer? {
    LastError.catching(nil) {
        let instrument = try handle(instrument, as: InstrumentHandle.self, naming: "instrument")
        let renderer = try songRenderer(options, instrument: instrument, batch: false)
        let (song, name) = try read(renderer)
        let render = try renderer.render(song, from: name)
        if let silence = render.silence { renderer.warning(silence.description) }
        return retained(AudioHandle(samples: render.samples))
    }
}

/// `staccato_render_song`, as `staccato.h` describes it.
/// - Thread: control.
@_cdecl("staccato_render_song")
public func exported_render_song(_ midiPath: UnsafePointer<CChar>?, _ instrument: OpaquePointer?,
                                 _ options: UnsafePointer<staccato_render_options>?) -> OpaquePointer? {
    renderSong({ renderer in
        let path = try string(midiPath, naming: "midi_path")
        return (try SongPreparation.readSong(path: path, warning: renderer.warning), path)
    }, instrument: instrument, options: options)
}

/// `staccato_render_song_bytes`, as `staccato.h` describes it.
/// - Thread: control.
@_cdecl("staccato_render_song_bytes")
public func exported_render_song_bytes(_ bytes: UnsafePointer<UInt8>?, _ count: Int, _ name: UnsafePointer<CChar>?,
                                       _ instrument: OpaquePointer?, _ options: UnsafePointer<staccato_render_options>?) -> OpaquePointer? {
    renderSong({ renderer in
        let name = name.map { String(cString: $0) } ?? "song"
        guard let bytes else { throw RenderFailure("\(name): no bytes given") }
        return (try SongPreparation.readSong(bytes: Array(UnsafeBufferPointer(start: bytes, count: count)), name: name,
                                             warning: renderer.warning), name)
    }, instrument: instrument, options: options)
}

/// `staccato_audio_frame_count`, as `staccato.h` describes it.
/// - Thread: any.
@_cdecl("staccato_audio_frame_count")
public func exported_audio_frame_count(_ audio: OpaquePointer?) -> UInt64 {
    LastError.catching(0) { UInt64(try handle(audio, as: AudioHandle.self, naming: "audio").samples.count / 2) }
}

/// `staccato_audio_samples`, as `staccato.h` describes it.
/// - Thread: any.
@_cdecl("staccato_audio_samples")
public func exported_audio_samples(_ audio: OpaquePointer?) -> UnsafePointer<Float>? {
    LastError.catching(nil) { try handle(audio, as: AudioHandle.self, naming: "audio").samples.withUnsafeBufferPointer { $0.baseAddress } }
}

/// `staccato_audio_free`, as `staccato.h` describes it.
/// - Thread: any.
@_cdecl("staccato_audio_free")
public func exported_audio_free(_ audio: OpaquePointer?) { release(audio, as: AudioHandle.self) }

/// `staccato_render_batch`, as `staccato.h` describes it.
/// - Thread: control.
@_cdecl("staccato_render_batch")
public func exported_render_batch(_ paths: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int, _ instrument: OpaquePointer?,
                                  _ options: UnsafePointer<staccato_render_options>?, _ outDirectory: UnsafePointer<CChar>?,
                                  _ format: UnsafePointer<CChar>?, _ workers: Int32, _ callback: staccato_batch_callback?,
                                  _ userData: UnsafeMutableRawPointer?) -> Int32 {
    LastError.catching(-1) {
        let instrument = try handle(instrument, as: InstrumentHandle.self, naming: "instrument")
        guard paths != nil || count == 0 else { throw RenderFailure("midi_paths: NULL") }
        let songs = try (0..<count).map { try string(paths?[$0], naming: "midi_paths[\($0)]") }
        guard workers >= 0 else { throw RenderFailure("workers \(workers): must be 0 (every core) or more") }
        let renderer = try songRenderer(options, instrument: instrument, batch: true)
        let batch: BatchRender
        if let outDirectory {
            let formatName = format.map { String(cString: $0) } ?? RenderOutputFormat.wav.rawValue
            guard let outputFormat = RenderOutputFormat(rawValue: formatName) else {
                throw RenderFailure("format \(formatName): must be one of " + RenderOutputFormat.allCases.map(\.rawValue).joined(separator: ", "))
            }
            let folder = String(cString: outDirectory)
            try BatchRender.makeFolder(folder)
            batch = BatchRender(songs: songs, folder: folder, format: outputFormat)
        } else {
            batch = BatchRender(songsIntoMemory: songs)
        }
        let report = callback.map { callback in BatchReport(callback: callback, userData: userData) }
        let outcomes = batch.run(with: renderer, threadCount: workers == 0 ? RenderConfiguration.everyCoreThreadCount : Int(workers),
                                 finished: { job, outcome in report?(job, outcome) })
        return Int32(outcomes.filter { if case .failed = $0 { true } else { false } }.count)
    }
}

/// A batch's C callback and its user data.
private struct BatchReport: @unchecked Sendable {
    let callback: staccato_batch_callback
    let userData: UnsafeMutableRawPointer?

    func callAsFunction(_ job: BatchRender.Job, _ outcome: BatchOutcome) {
        let index = job.index
        switch outcome {
        case .failed(let failure):
            "\(failure.song): \(failure.reason)".withCString { callback(userData, index, $0, nil, nil) }
        case .rendered(let render):
            if let output = render.output {
                output.withCString { callback(userData, index, nil, nil, $0) }
            } else {
                // Handed over: the callback frees it (staccato_audio_free) when it is done with it.
                callback(userData, index, nil, retained(AudioHandle(samples: render.samples)), nil)
            }
        }
    }
}
