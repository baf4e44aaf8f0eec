import AudioAnalysis
import AudioFile
import Engine
import Foundation
import MIDI
import Render

/// How close Staccato plays a song to FluidSynth, channel by channel: each song rendered whole and
/// with one channel's notes at a time, by both engines, 48 kHz, FluidSynth's reverb and chorus off
/// (Staccato's render has no sends). Per render: the level (RMS dBFS) in each engine and the log-mel
/// spectrogram correlation between them after aligning their envelopes.
enum CompareBenchmark {
    static let sampleRate = 48_000
    /// A render quieter than this, and `silentMarginDecibels` quieter than the other engine's, is
    /// called silent: a channel silent in one engine only is flagged. The margin keeps a part that
    /// both engines play near the line (-71 against -70 dBFS) from being flagged.
    static let silentDecibels = -70.0
    static let silentMarginDecibels = 20.0

    /// One render pair's figures.
    struct Measure {
        var staccatoDecibels: Double
        var fluidSynthDecibels: Double
        var logMelCorrelation: Double?
        /// Samples FluidSynth's render was found to start later than Staccato's.
        var lagFrames: Int

        var lagSeconds: Double { Double(lagFrames) / Double(CompareBenchmark.sampleRate) }

        var levelDifference: Double { staccatoDecibels - fluidSynthDecibels }
        /// The engine whose render is silent when the other's is not.
        var silentIn: String? {
            let margin = CompareBenchmark.silentMarginDecibels
            if staccatoDecibels < CompareBenchmark.silentDecibels, levelDifference < -margin { return "staccato" }
            if fluidSynthDecibels < CompareBenchmark.silentDecibels, levelDifference > margin { return "fluidsynth" }
            return nil
        }

        var json: [String: Any] {
            ["staccato_dbfs": staccatoDecibels, "fluidsynth_dbfs": fluidSynthDecibels, "level_difference_db": levelDifference,
             "log_mel_correlation": logMelCorrelation ?? NSNull(), "lag_seconds": lagSeconds, "silent_in": silentIn ?? NSNull()]
        }
    }

    static func run(songs: [String], fonts: [String]) throws -> [String: Any] {
        guard let fluidVersion = FluidSynth.version else {
            throw FluidSynthFailure(description: "compare needs fluidsynth on PATH (apt install fluidsynth, or scripts/install-deps --reference)")
        }
        // Every song is read before the first render: a bad file is one line now, not after minutes.
        let parsed = try songs.map { path in (path: path, song: try MIDIFile.read(path: path)) }
        let folder = try ScratchFolder.make("compare")
        defer { try? FileManager.default.removeItem(at: folder) }
        let settings = LogMelSpectrogram.Settings()
        print("Compare: Staccato against FluidSynth \(fluidVersion) (-R 0 -C 0 -g \(FluidSynth.comparisonGain)), \(sampleRate) Hz,")
        print("  whole mix and each channel solo; log-mel r: \(settings.bandCount) mel bands \(Int(settings.lowHertz)) Hz-\(Int(settings.highHertz / 1000)) kHz,"
              + " \(settings.fftSize)-point FFT, hop \(settings.hop), floor \(Int(settings.floorBelowPeakDecibels)) dB below peak,"
              + " each channel aligned by the whole mix's lag;")
        print("  Δ rel: channel level difference less the whole mix's; silent: below \(Int(silentDecibels)) dBFS RMS in one engine"
              + " only, and \(Int(silentMarginDecibels)) dB below the other")

        var results: [[String: Any]] = []
        for font in fonts {
            let bank = try InstrumentLoader.load(path: font, sampleRate: Double(sampleRate))
            for (path, song) in parsed {
                results.append(try compare(song, path: path, font: font, bank: bank, folder: folder))
            }
        }
        return ["sample_rate": sampleRate, "fluidsynth_version": fluidVersion,
                "fluidsynth_command": FluidSynth.renderArguments(font: "FONT", song: "SONG", output: "OUT.wav", gain: FluidSynth.comparisonGain).joined(separator: " "),
                "silent_below_dbfs": silentDecibels, "silent_margin_db": silentMarginDecibels,
                "analysis": ["fft_size": settings.fftSize, "hop": settings.hop, "mel_bands": settings.bandCount,
                             "low_hz": settings.lowHertz, "high_hz": settings.highHertz, "floor_below_peak_db": settings.floorBelowPeakDecibels,
                             "alignment": "RMS envelopes of \(RenderComparison.alignmentFrameLength)-sample frames, cross-correlated within ±\(RenderComparison.maximumLagSeconds) s"],
                "results": results]
    }

    /// The whole song and each channel with notes, in both engines.
    static func compare(_ song: MIDIFile, path: String, font: String, bank: SampleBank, folder: URL) throws -> [String: Any] {
        let songName = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        let fontName = URL(fileURLWithPath: font).lastPathComponent
        print("\n\(songName) with \(fontName)")
        // Recognised SysEx (resets, rhythm parts, Master Volume) is written into the solo files;
        // the rest is kept by neither the reader nor the writer.
        let sysExCount = song.tracks.reduce(0) { $0 + $1.filter { $0.kind == .sysEx(nil) }.count }
        if sysExCount > 0 {
            print("  (the solo files leave out the song's \(sysExCount) SysEx messages Staccato does not recognise:"
                  + " FluidSynth hears them in the mix only)")
        }
        let mix = try measure(song, midiPath: path, font: font, bank: bank, folder: folder)
        let header = "  " + "ch".padding(toLength: 4, withPad: " ", startingAt: 0) + "program".padding(toLength: 28, withPad: " ", startingAt: 0)
            + "  Staccato  FluidSyn    Δ dB  Δ rel  log-mel r  lag ms  silent"
        print(header)
        print("  " + "mix".padding(toLength: 32, withPad: " ", startingAt: 0) + row(mix, relative: nil))

        let programs = programsPlayed(song)
        var channels: [[String: Any]] = []
        for channel in song.channelsWithNotes {
            let soloPath = folder.appendingPathComponent("solo-\(channel + 1).mid").path
            try Data(song.keepingNotes(ofChannel: channel).standardMIDIFileBytes()).write(to: URL(fileURLWithPath: soloPath))
            // Both engines play the file as written, so they are handed the same bytes. A channel
            // plays on the song's timeline: its renders are aligned as the whole mix's were.
            let solo = try measure(MIDIFile.read(path: soloPath), midiPath: soloPath, font: font, bank: bank, folder: folder,
                                   lagFrames: mix.lagFrames)
            let relative = solo.levelDifference - mix.levelDifference
            let played = programs[channel] ?? []
            let name = channel == GeneralMIDI.percussionChannel ? "drums"
                : played.map { GeneralMIDI.programName($0) }.first.map { played.count > 1 ? "\($0) (+\(played.count - 1))" : $0 } ?? "?"
            print("  " + "\(channel + 1)".padding(toLength: 4, withPad: " ", startingAt: 0)
                  + String(name.prefix(28)).padding(toLength: 28, withPad: " ", startingAt: 0) + row(solo, relative: relative))
            var entry = solo.json
            entry["channel"] = Int(channel) + 1
            entry["programs"] = played.map { ["program": Int($0), "name": GeneralMIDI.programName($0)] }
            entry["percussion"] = channel == GeneralMIDI.percussionChannel
            entry["relative_level_difference_db"] = relative
            channels.append(entry)
        }
        return ["song": songName, "soundfont": fontName, "sysex_left_out_of_solo_files": sysExCount, "mix": mix.json, "channels": channels]
    }

    static func row(_ measure: Measure, relative: Double?) -> String {
        func decibels(_ value: Double) -> String { String(format: "%8.1f", value) }
        return "  " + decibels(measure.staccatoDecibels) + "  " + decibels(measure.fluidSynthDecibels)
            + "  " + String(format: "%+6.1f", measure.levelDifference)
            + "  " + (relative.map { String(format: "%+5.1f", $0) } ?? "     ")
            + "  " + (measure.logMelCorrelation.map { String(format: "%9.3f", $0) } ?? "        -")
            + "  " + String(format: "%6.0f", measure.lagSeconds * 1000)
            + "  " + (measure.silentIn.map { "in \($0)" } ?? "")
    }

    /// Renders `song` (read from `midiPath`) in both engines and measures the pair, aligned by
    /// `lagFrames` when given, else by their envelopes.
    static func measure(_ song: MIDIFile, midiPath: String, font: String, bank: SampleBank, folder: URL,
                        lagFrames: Int? = nil) throws -> Measure {
        // As `staccato render --no-effects` does (FluidSynth runs with -R 0 -C 0): a fresh engine per
        // file, the default gain, voices and interpolation.
        let engine = Engine(configuration: EngineConfiguration(render: RenderConfiguration(sampleRate: Double(sampleRate), effects: false)))
        engine.install(bank)
        var ours: [Float] = []
        engine.render(song) { ours.append(contentsOf: $0) }
        let channelCount = engine.configuration.render.channelCount
        let theirs = try FluidSynth.renderAudio(font: font, song: midiPath, to: folder.appendingPathComponent("fluidsynth.wav").path)
        guard theirs.sampleRate == sampleRate else {
            throw FluidSynthFailure(description: "fluidsynth rendered \(midiPath) at \(theirs.sampleRate) Hz, not \(sampleRate)")
        }
        let comparison = RenderComparison.compare(RenderComparison.mono(ours, channelCount: channelCount),
                                                  RenderComparison.mono(theirs.samples, channelCount: theirs.channelCount),
                                                  sampleRate: Double(sampleRate), lagFrames: lagFrames)
        return Measure(staccatoDecibels: RenderComparison.rmsDecibels(ours), fluidSynthDecibels: RenderComparison.rmsDecibels(theirs.samples),
                       logMelCorrelation: comparison.logMelCorrelation, lagFrames: comparison.lagFrames)
    }

    /// Per channel, the programs in force at its note-ons, in the order they first play.
    static func programsPlayed(_ song: MIDIFile) -> [UInt8: [UInt8]] {
        var current = [UInt8](repeating: 0, count: 16)
        var played: [UInt8: [UInt8]] = [:]
        for timed in song.timedMessages() {
            switch timed.message {
            case let .programChange(channel, program):
                current[Int(channel)] = program
            case let .noteOn(channel, _, _):
                if !(played[channel] ?? []).contains(current[Int(channel)]) { played[channel, default: []].append(current[Int(channel)]) }
            default:
                break
            }
        }
        return played
    }
}
