import AudioFile
import AudioIO
import CommandLineSpec
import DSP
import FeedbackSuppression
import DrumKitLoader
import Engine
import Live
import Foundation
import Glibc
import Lockfree
import MIDI
import Render
import VoiceProcessing

extension Commands {
    static let mic = Subcommand(
        program: program, name: "mic",
        summary: "Live microphone to speaker with bass, treble, boost, reverb and volume, updated in real time; voice processing, a backing track, and every session recorded.",
        description: "Prints the granted configuration, what each step of the chain costs in latency and the measured mic-to-speaker latency, shows a level meter, and takes commands on standard input, one per line: bass DB, treble DB, boost DB, reverb %, preset small|medium|hall|plate, volume 0-1, denoise on|off|DB, dehum on|off, agc on|off|DBFS, mute, unmute, quit. Ctrl-C stops cleanly. Each session is recorded to a new FLAC in the sessions folder ('staccato sessions' lists them) unless --record names a file or --no-record is given. Voice processing (--denoise, --dehum, --agc, --echo-cancel; libspeexdsp) adds 10 ms to the microphone's path, once for any of them; without them the chain adds none. With --in-file the same chain runs offline on a file, faster than real time.",
        options: [
            OptionSpec(name: "in", valueName: "DEV", help: "ALSA capture PCM (the microphone); see 'staccato devices'", default: .described("needed with --audio alsa")),
            OptionSpec(name: "out", valueName: "DEV", help: "ALSA playback PCM", default: DeviceOptions.defaultDevice),
        ] + AudioTargetOptions.specs(clientName: DeviceOptions.jackClientName) + [AudioTargetOptions.connectInput()] + DeviceOptions.streamSpecs() + [
            OptionSpec(name: "bass", valueName: "DB", help: "bass, a low shelf at 150 Hz, in dB", default: .number(0), range: MicKnob.bass.range),
            OptionSpec(name: "treble", valueName: "DB", help: "treble, a high shelf at 6 kHz, in dB", default: .number(0), range: MicKnob.treble.range),
            OptionSpec(name: "boost", valueName: "DB", help: "microphone gain after the EQ, in dB", default: .number(0), range: MicKnob.boost.range),
            OptionSpec(name: "reverb", valueName: "%", help: "reverb wet/dry mix, in %", default: .number(0), range: MicKnob.reverb.range),
            OptionSpec(name: "preset", valueName: "NAME", help: "reverb room: small, medium, hall or plate", default: .value("medium")),
            OptionSpec(name: "volume", valueName: "V", help: "master volume (starting quiet is a safety feature)", default: .number(0.3), range: 0...1),
            OptionSpec(name: "denoise", valueName: "DB", help: "noise suppression on the microphone, in dB (alone: \(Double(VoiceProcessor.defaultNoiseSuppressionDecibels).plainText)); voice processing: +10 ms",
                       range: MicChain.range(VoiceProcessor.noiseSuppressionRange), bareValue: Double(VoiceProcessor.defaultNoiseSuppressionDecibels).plainText),
            OptionSpec(name: "dehum", help: "mains hum removal: finds 50 or 60 Hz hum and cancels it with its harmonics (on with --denoise too); voice processing: +10 ms"),
            OptionSpec(name: "agc", valueName: "DBFS", help: "automatic gain control: brings speech to this level (alone: \(Double(VoiceProcessor.defaultGainTargetDecibels).plainText)); voice processing: +10 ms",
                       range: MicChain.range(VoiceProcessor.gainTargetRange), bareValue: Double(VoiceProcessor.defaultGainTargetDecibels).plainText),
            OptionSpec(name: "echo-cancel", help: "removes from the microphone what Staccato itself plays (the song of --play); voice processing: +10 ms"),
            OptionSpec(name: "echo-tail", valueName: "MS", help: "with --echo-cancel: how long an echo the canceller models, in ms (a third of the room's reverberation time covers most of it; longer converges more slowly)",
                       default: .number(VoiceProcessor.echoTailSeconds * 1_000),
                       range: (VoiceProcessor.echoTailRange.lowerBound * 1_000)...(VoiceProcessor.echoTailRange.upperBound * 1_000)),
            OptionSpec(name: "play", valueName: "SONG.mid", help: "a song to play with the microphone (a backing track); the session ends with it"),
            OptionSpec(name: "soundfont", valueName: "FONT.sf2", help: "with --play: the SoundFont that plays it", default: .shippedSoundFont),
        ] + DeviceOptions.songSpecs + [DeviceOptions.liveThreads] + [
            OptionSpec(name: "record", valueName: "FILE", help: "record the output to FILE: \(AudioFileFormat.extensionList)",
                       default: .described("a new FLAC in $XDG_MUSIC_DIR/Staccato, else ~/Music/Staccato")),
            OptionSpec(name: "no-record", help: "record nothing"),
            OptionSpec(name: "mic-stem", valueName: "FILE", help: "record the processed microphone alone, before the song joins it: \(AudioFileFormat.extensionList)"),
            OptionSpec(name: "in-file", valueName: "MIC.wav", help: "offline: run the chain on this file as the microphone, faster than real time, with the song of --play from its first frame"),
            OptionSpec(name: "out-file", valueName: "OUT.wav", help: "offline: where the output goes (as long as --in-file)"),
            OptionSpec(name: "seconds", valueName: "S", help: "stop after S seconds",
                       default: .described("run until quit or Ctrl-C", value: { (86_400 * 365).description }), range: 0.01...(86_400 * 365)),
        ],
        exclusiveGroups: [["record", "no-record"], ["in", "in-file"]],
        playsLive: true
    ) { options in
        if options.values["in-file"] != nil || options.values["out-file"] != nil { return try runMicOffline(options) }
        return try runMicLive(options)
    }

    /// `mic --in-file`: the chain on a file, offline.
    static func runMicOffline(_ options: ParsedOptions) throws -> Int32 {
        guard options.values["in-file"] != nil, options.values["out-file"] != nil else {
            throw UsageError(description: "--in-file and --out-file go together: the microphone file and where the output goes")
        }
        if options.values["record"] != nil { throw UsageError(description: "--record is for live sessions; offline, --out-file is the output") }
        let inputPath = try options.string("in-file")
        let outputPath = try options.soundFilePath("out-file")
        let stemPath = try options.values["mic-stem"].map { _ in try options.soundFilePath("mic-stem") }
        let chain = try MicChain(options)
        let started = Date()
        let microphone = try AudioFileReader.read(inputPath)
        guard microphone.frameCount > 0 else { throw CommandFailure("\(inputPath): no frames to process") }
        let rate = microphone.sampleRate
        // Offline, the "stream" is the file's rate and a quantum at a time.
        let setup = try chain.engine(for: StreamConfiguration(sampleRate: rate, periodFrameCount: RenderQuantum.frameCount),
                                     recordsOutput: false, recordsMicrophone: stemPath != nil)
        print("microphone: \(inputPath) (\(microphone.channelCount) channel\(microphone.channelCount == 1 ? "" : "s"), \(rate) Hz, \(String(format: "%.2f", Double(microphone.frameCount) / Double(rate))) s)")
        print(chain.description(sampleRate: Double(rate)))
        let processingStarted = Date()
        try setup.engine.processOffline(microphone, song: setup.song.map { MIDISequencer($0, sampleRate: Double(rate)) },
                                        to: outputPath, microphoneTo: stemPath)
        let seconds = Date().timeIntervalSince(processingStarted)
        let audioSeconds = Double(microphone.frameCount) / Double(rate)
        print("processed to \(outputPath)" + (stemPath.map { ", the microphone alone to \($0)" } ?? "")
              + ": \(String(format: "%.2f", audioSeconds)) s in \(String(format: "%.2f", seconds)) s (\(String(format: "%.1f", audioSeconds / max(seconds, 1e-9)))x real time; "
              + "\(String(format: "%.2f", Date().timeIntervalSince(started))) s with loading)")
        let status = setup.engine.renderer.voiceProcessing
        for line in [chain.echoLine(status, tail: setup.engine.renderer.learntEchoTail()), chain.humLine(status)].compactMap({ $0 }) { print(line) }
        let feedback = reportFeedback(setup.engine, already: FeedbackStatus())
        if feedback.notchedFrequencies > 0 || feedback.ducks > 0 {
            print("feedback: \(feedback.notchedFrequencies) frequenc\(feedback.notchedFrequencies == 1 ? "y" : "ies") notched, \(feedback.ducks) duck\(feedback.ducks == 1 ? "" : "s")"
                  + (feedback.notches.isEmpty ? "" : "; notches in place at the end: " + notchList(feedback.notches)))
        }
        return 0
    }

    /// `mic` on a device: the live session.
    static func runMicLive(_ options: ParsedOptions) throws -> Int32 {
        let (audio, configuration) = try DeviceOptions.audioTarget(options, alsaDevice: try options.string("out"))
        let input = options.values["in"]
        if audio.backend == .alsa, input == nil { throw UsageError(description: "--audio alsa needs --in DEV, the microphone's capture PCM") }
        if audio.backend != .alsa, input != nil { throw UsageError(description: "--in names an ALSA capture PCM: it needs --audio alsa (JACK's inputs are connected with --connect-input)") }
        let seconds = try options.double("seconds")
        let chain = try MicChain(options)
        var recordPath = try options.values["record"].map { _ in try options.soundFilePath("record") }
        if recordPath == nil, !options.has("no-record") { recordPath = try SessionRecordings.newPath(in: SessionRecordings.folder()) }
        let stemPath = try options.values["mic-stem"].map { _ in try options.soundFilePath("mic-stem") }

        let setup = try chain.engine(for: configuration, recordsOutput: recordPath != nil, recordsMicrophone: stemPath != nil)
        let engine = setup.engine
        // The devices first: a microphone or speaker that cannot be had leaves no empty session behind.
        let stream = try audio.stream(configuration: configuration, renderer: engine.renderer, captureDevice: input, capture: true)
        let recorder = try recordPath.map { try Recorder(path: $0, tap: engine.outputTap!, sampleRate: configuration.sampleRate) }
        let stemRecorder = try stemPath.map { try Recorder(path: $0, tap: engine.microphoneTap!, sampleRate: configuration.sampleRate) }
        if let recorder { print("recording the session to \(recorder.path)") }
        if let stemRecorder { print("recording the microphone alone to \(stemRecorder.path)") }
        switch stream.backend {
        case .alsa:
            print("microphone '\(input ?? "")': \(stream.grantedCapture!)")
            print("speaker '\(audio.device)': \(stream.granted)")
            print("capture and playback " + (stream.isLinked ? "linked" : stream.sharesClock ? "on one device (one clock), not linked"
                    : "on two devices: drift is absorbed by resampling the microphone a few ppm"))
        case .jack:
            print("microphone and speaker: JACK client '\(stream.device)', ports in_1, in_2 -> out_1, out_2: \(stream.granted)")
        case .null:
            print("microphone and speaker: the null device (silence in, nothing out): \(stream.granted)")
        }
        print(chain.description(sampleRate: Double(configuration.sampleRate)))

        let session = LiveSession(engine: engine, stream: stream)
        let sequencer = setup.song.map { session.sequencer(for: $0) }
        if let sequencer, let song = options.values["play"] {
            print("playing \(song): \(formatTime(Double(sequencer.endFrame) / engine.sampleRate)), \(sequencer.messageCount) messages; the song starts at frame \(sequencer.startFrame)")
            session.cue(sequencer)
            LiveReport.extra["songStartFrame"] = sequencer.startFrame
        }
        recorder?.start()
        stemRecorder?.start()
        try stream.start(frameLimit: Int((seconds * Double(configuration.sampleRate)).rounded()))
        for line in stream.details { print(line) }
        print(DeviceOptions.schedulingLine(stream))

        var lineBuffer: [UInt8] = []
        var inputOpen = true
        var reportedLatency = false
        var feedbackReported = FeedbackStatus()
        var lastMeter = 0.0
        let wake = { (session: LiveSession) in
            // A failed write (a full disk) ends the recording: stop, finalise and say so, rather
            // than play on while every frame is dropped as if the disk were only slow.
            if recorder?.hasFailed == true || stemRecorder?.hasFailed == true { session.stop() }
            if inputOpen {
                if let bytes = Terminal.pendingBytes() {
                    lineBuffer += bytes
                    while let newline = lineBuffer.firstIndex(of: 10) {
                        let line = String(decoding: lineBuffer[..<newline], as: UTF8.self)
                        lineBuffer.removeSubrange(...newline)
                        if MicKnob.apply(line, to: engine) == .quit { session.stop() }
                    }
                } else {
                    inputOpen = false  // end of standard input: keep running, stop reading
                }
            }
            if !reportedLatency, let latency = stream.latencyFrameCount, let offset = stream.streamOffsetFrameCount {
                let granted = stream.granted
                let processing = chain.latencyFrameCount(sampleRate: Double(granted.sampleRate))
                let total = latency + processing
                StatusLine.standard.print("latency: mic to speaker \(String(format: "%.2f", granted.milliseconds(total))) ms (\(total) frames: \(offset) buffered by staccato + \(latency - offset) in the devices"
                                          + (processing > 0 ? " + \(processing) of voice processing)" : ")"))
                reportedLatency = true
            }
            feedbackReported = reportFeedback(engine, already: feedbackReported)
            let now = MonotonicClock.seconds()
            if now - lastMeter > 0.1 {
                lastMeter = now
                let peaks = engine.renderer.takePeaks()
                StatusLine.standard.update(MicKnob.meter("in", peaks.input) + "  " + MicKnob.meter("out", peaks.output))
            }
        }
        // With a song, the session ends with it: when its voices have ended, since the microphone
        // keeps the output from ever falling silent.
        let outcome = sequencer.map { session.play($0, ending: .voices, alongside: wake) } ?? session.run(wake)
        StatusLine.standard.clear()
        var recordingErrors: [Error] = []
        for recording in [recorder, stemRecorder].compactMap({ $0 }) {
            do { try recording.finish() } catch { recordingErrors.append(error) }
        }
        print("played \(stream.framesWritten) frames (\(String(format: "%.3f", Double(stream.framesWritten) / Double(configuration.sampleRate))) s) in \(String(format: "%.3f", stream.elapsedSeconds)) s; xruns: \(stream.xrunCount)" + (!stream.sharesClock ? String(format: "; drift absorbed by resampling the microphone at %+.1f ppm", stream.resamplingPartsPerMillion) : ""))
        for recording in [recorder, stemRecorder].compactMap({ $0 }) {
            print("recorded \(recording.writtenFrameCount) frames to \(recording.path); frames dropped: \(recording.droppedFrameCount)")
        }
        let voice = engine.renderer.voiceProcessing
        for line in [chain.echoLine(voice, tail: engine.renderer.learntEchoTail()), chain.humLine(voice)].compactMap({ $0 }) { print(line) }
        for error in recordingErrors { printError("staccato: \(error)") }
        let exitCode: Int32
        switch outcome {
        case .finished, .stopped(signal: nil): exitCode = recordingErrors.isEmpty ? 0 : 1
        case .stopped(signal: _?): exitCode = outcome.exitCode
        case let .failed(error):
            printError("staccato: \(error)")
            exitCode = 1
        }
        LiveReport.extra["inputResamplingPPM"] = stream.resamplingPartsPerMillion
        LiveReport.extra["latencyFrames"] = stream.latencyFrameCount ?? NSNull()
        LiveReport.extra["bufferedFrames"] = stream.streamOffsetFrameCount ?? NSNull()
        let feedback = engine.renderer.feedback
        LiveReport.extra["feedbackNotched"] = feedback.notchedFrequencies
        LiveReport.extra["feedbackDucks"] = feedback.ducks
        LiveReport.extra["feedbackNotches"] = feedback.notches.map { ["hertz": Double($0.hertz), "depthDecibels": Double($0.depthDecibels)] }
        LiveReport.extra["voiceProcessingFrames"] = chain.latencyFrameCount(sampleRate: Double(configuration.sampleRate))
        LiveReport.extra["humHertz"] = voice.humHertz.map { Double($0) } ?? NSNull()
        LiveReport.extra["echoReturnLossEnhancementDecibels"] = voice.echoReturnLossEnhancementDecibels.map { Double($0) } ?? NSNull()
        if let recorder {
            LiveReport.extra["recordingPath"] = recorder.path
            LiveReport.extra["recordedFrames"] = recorder.writtenFrameCount
            LiveReport.extra["recordingFramesDropped"] = recorder.droppedFrameCount
        }
        if let stemRecorder {
            LiveReport.extra["microphoneRecordedFrames"] = stemRecorder.writtenFrameCount
            LiveReport.extra["microphoneFramesDropped"] = stemRecorder.droppedFrameCount
        }
        LiveReport.write(session, outcome: outcome, exitCode: exitCode)
        return exitCode
    }

    /// The notches as a sound engineer reads them off a feedback eliminator, lowest first:
    /// "142 Hz -9 dB, 1709 Hz -3 dB".
    static func notchList(_ notches: [FeedbackNotch]) -> String {
        notches.sorted { $0.hertz < $1.hertz }
            .map { "\(Int($0.hertz.rounded())) Hz \(Int($0.depthDecibels.rounded())) dB" }
            .joined(separator: ", ")
    }

    /// Says what the feedback suppressor did since `already`: each new frequency notched, each
    /// last-resort duck, a line each. Returns what it has said so far.
    @discardableResult
    static func reportFeedback(_ engine: Engine, already: FeedbackStatus) -> FeedbackStatus {
        let now = engine.renderer.feedback
        if now.notchedFrequencies > already.notchedFrequencies {
            printError("staccato mic: feedback near \(Int(now.lastNotchedHertz.rounded())) Hz: notched there (a tenth of an octave; \(now.activeNotches) notch\(now.activeNotches == 1 ? "" : "es") in place)")
        }
        if now.ducks > already.ducks {
            let duck = "\(Int(-FeedbackSuppressor.duckDecibels)) dB for \(FeedbackSuppressor.duckHoldSeconds.plainText) s"
            printError("staccato mic: feedback the notches could not hold: output ducked by \(duck) (lower --boost or --volume, or move the microphone away from the speaker)")
        }
        return now
    }
}

/// What `staccato mic` runs, as its options say, live or offline alike: the knobs, the reverb
/// room, voice processing, and a song to play with the microphone.
struct MicChain {
    let knobs: [(MicKnob, Double)]
    let preset: ReverbPreset
    let volume: Double
    /// dB of noise suppression, when asked for.
    let noiseSuppression: Float?
    /// Mains hum removal: `--dehum`, and with `--denoise`, whose suppressor leaves hum standing.
    let removesHum: Bool
    /// The automatic gain's target in dBFS, when asked for.
    let gainTarget: Float?
    let cancelsEcho: Bool
    /// The echo canceller's tail, in seconds.
    let echoTailSeconds: Double
    /// The song of `--play`, read (its font is loaded when the rate is known).
    let song: MIDIFile?
    let fontPath: String?
    let options: ParsedOptions

    static func range(_ range: ClosedRange<Float>) -> ClosedRange<Double> { Double(range.lowerBound)...Double(range.upperBound) }

    init(_ options: ParsedOptions) throws {
        self.options = options
        knobs = try MicKnob.allCases.map { knob in (knob, try options.double(knob.rawValue)) }
        volume = try options.double("volume")
        let presetName = try options.string("preset")
        guard let preset = MicKnob.preset(named: presetName) else {
            throw UsageError(description: "--preset must be small, medium, hall or plate, got '\(presetName)'")
        }
        self.preset = preset
        noiseSuppression = try options.values["denoise"].map { _ in Float(try options.double("denoise")) }
        removesHum = options.has("dehum") || noiseSuppression != nil
        gainTarget = try options.values["agc"].map { _ in Float(try options.double("agc")) }
        cancelsEcho = options.has("echo-cancel")
        if cancelsEcho, options.values["play"] == nil {
            throw UsageError(description: "--echo-cancel removes what Staccato plays from the microphone: it needs --play SONG.mid")
        }
        if options.values["echo-tail"] != nil, !cancelsEcho {
            throw UsageError(description: "--echo-tail sets the echo canceller's length: it needs --echo-cancel")
        }
        echoTailSeconds = try options.double("echo-tail") / 1_000
        song = try options.values["play"].map { try SongSetup.readSong(path: $0) }
        fontPath = song == nil ? nil : try options.soundFontPath()
    }

    /// True when the chain has the voice-processing stage.
    var processesVoice: Bool { noiseSuppression != nil || removesHum || gainTarget != nil || cancelsEcho }

    /// The session summary's line on the echo cancelled, when it runs: the ERLE, and what the
    /// filter learnt of the room's echo (`tail`, read once the stream has stopped).
    func echoLine(_ status: VoiceProcessingStatus, tail: (decaySeconds: Double, filterSeconds: Double, endDecibels: Float)?) -> String? {
        guard cancelsEcho else { return nil }
        var line = status.echoReturnLossEnhancementDecibels.map { "echo: \(Int($0)) dB cancelled (ERLE, where the track played alone)" }
            ?? "echo: too little of the track played alone to measure what was cancelled"
        if let tail {
            let floor = Int(-VoiceProcessor.learntTailFloorDecibels)
            let filter = Int((tail.filterSeconds * 1_000).rounded())
            // Within the filter's last tenth, the echo is cut off by the filter's end, not over.
            if tail.decaySeconds < 0.9 * tail.filterSeconds {
                line += "; the room's echo falls \(floor) dB in \(Int((tail.decaySeconds * 1_000).rounded())) ms of the \(filter) ms modelled"
            } else {
                let longer = min(VoiceProcessor.echoTailRange.upperBound * 1_000, Double(filter) * 2)
                line += "; the room's echo outlasts the \(filter) ms modelled, \(Int(-tail.endDecibels)) dB down in its last tenth (--echo-tail \(Int(longer)) would model more; a longer filter converges more slowly)"
            }
        }
        return line
    }

    /// The session summary's line on the hum removal found, when it runs.
    func humLine(_ status: VoiceProcessingStatus) -> String? {
        guard removesHum else { return nil }
        guard let hertz = status.humHertz else { return "hum: none found at 50 or 60 Hz" }
        return "hum: \(String(format: "%.2f", hertz)) Hz and its harmonics cancelled (\(String(format: "%.1f", status.humDecibels)) dBFS of hum at the end)"
    }

    /// The frames voice processing adds at `sampleRate` (0 without it).
    func latencyFrameCount(sampleRate: Double) -> Int {
        processesVoice ? VoiceProcessor.latencyFrameCount(sampleRate: sampleRate) : 0
    }

    /// The chain line: every step, and what the voice processing costs in latency.
    func description(sampleRate: Double) -> String {
        var steps = ["bass \(knobs[0].1.plainText) dB", "treble \(knobs[1].1.plainText) dB", "boost \(knobs[2].1.plainText) dB",
                     "reverb \(knobs[3].1.plainText) % (\(preset.name))", "volume \(volume.plainText)", "feedback suppressor on", "limiter -1 dBFS"]
        if processesVoice {
            let frames = latencyFrameCount(sampleRate: sampleRate)
            let parts = [cancelsEcho ? "echo cancellation (\((echoTailSeconds * 1_000).plainText) ms tail)" : nil, removesHum ? "dehum" : nil,
                         noiseSuppression.map { "denoise \(Double($0).plainText) dB" },
                         gainTarget.map { "agc \(Double($0).plainText) dBFS" }].compactMap { $0 }
            steps.insert("voice processing: " + parts.joined(separator: ", ")
                         + " (+\(String(format: "%.1f", Double(frames) / sampleRate * 1_000)) ms, \(frames) frames)", at: 0)
        }
        return "chain: " + steps.joined(separator: ", ")
    }

    /// An engine for `stream` set up as the options say, with the song's font and kit installed.
    func engine(for stream: StreamConfiguration, recordsOutput: Bool, recordsMicrophone: Bool) throws -> (engine: Engine, song: MIDIFile?) {
        let rate = Double(stream.sampleRate)
        var render = RenderConfiguration()
        if song != nil { try DeviceOptions.readSongOptions(options, into: &render) }
        try DeviceOptions.readThreads(options, into: &render)
        render.voiceProcessing = processesVoice
        render.echoCancellation = cancelsEcho
        render.echoTailSeconds = echoTailSeconds
        var bank: SampleBank? = nil, kit: DrumKit? = nil
        if let song, let fontPath {
            // Only the samples the song plays are decoded: a General MIDI font's seconds of
            // decoding are not spent on instruments the backing track never uses.
            let sequencer = MIDISequencer(song, sampleRate: rate)
            bank = try loadInstrument(path: fontPath, sampleRate: rate, notes: sequencer.playedNotes(kitPlaysPercussion: false))
            kit = try SongSetup.drumKit(for: sequencer, bank: bank!, kitPath: nil, sampleRate: rate)
        }
        let engine = Engine(for: stream, render: render, initialMasterVolume: Float(volume), recordingBufferSeconds: recordsOutput ? 2 : 0,
                            microphoneRecordingBufferSeconds: recordsMicrophone ? 2 : 0)
        for (knob, value) in knobs { knob.cell(of: engine.effects).set(Float(value)) }
        engine.send(.reverbPreset(preset))
        if let noiseSuppression { engine.effects.noiseSuppressionDecibels.set(noiseSuppression) }
        engine.effects.humRemoval.set(removesHum ? 1 : 0)
        if let gainTarget {
            engine.effects.gainTargetDecibels.set(gainTarget)
            engine.effects.automaticGain.set(1)
        }
        if let bank { engine.install(bank) }
        if let kit { engine.install(kit) }
        return (engine, song)
    }
}

/// The live knobs of `staccato mic`, as flags and as typed commands.
enum MicKnob: String, CaseIterable {
    case bass, treble, boost, reverb

    var range: ClosedRange<Double> {
        let range = switch self {
        case .bass: EffectsControls.bassRange
        case .treble: EffectsControls.trebleRange
        case .boost: EffectsControls.boostRange
        case .reverb: EffectsControls.reverbRange
        }
        return Double(range.lowerBound)...Double(range.upperBound)
    }

    func cell(of controls: EffectsControls) -> ParameterCell {
        switch self {
        case .bass: controls.bassDecibels
        case .treble: controls.trebleDecibels
        case .boost: controls.boostDecibels
        case .reverb: controls.reverbPercent
        }
    }

    static func preset(named name: String) -> ReverbPreset? {
        switch name.lowercased() {
        case "small", "smallroom", "small-room": .smallRoom
        case "medium", "room", "mediumroom", "medium-room": .mediumRoom
        case "hall", "large", "largehall", "large-hall": .largeHall
        case "plate": .plate
        default: nil
        }
    }

    enum Outcome { case applied, rejected, quit }

    /// Applies one typed command line; a bad one gets a one-line message and changes nothing.
    @discardableResult
    static func apply(_ line: String, to engine: Engine) -> Outcome {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
        guard let verb = words.first?.lowercased() else { return .applied }
        func reject(_ why: String) -> Outcome {
            printError("staccato mic: '\(line)': \(why)")
            return .rejected
        }
        switch verb {
        case "quit", "exit", "q": return .quit
        case "mute": engine.send(.mute(true))
        case "unmute": engine.send(.mute(false))
        case "preset":
            guard words.count == 2, let preset = preset(named: words[1]) else { return reject("expects small, medium, hall or plate") }
            engine.send(.reverbPreset(preset))
        case "volume":
            guard words.count == 2, let value = Double(words[1]), value.isFinite, (0...1).contains(value) else {
                return reject("expects a volume within 0...1")
            }
            engine.effects.volume.set(Float(value))
        case "dehum":
            let render = engine.configuration.render
            guard render.voiceProcessing || render.echoCancellation else {
                return reject("voice processing is off: start mic with --dehum, --denoise, --agc or --echo-cancel (it adds 10 ms)")
            }
            switch words.count == 2 ? words[1].lowercased() : "" {
            case "on": engine.effects.humRemoval.set(1)
            case "off": engine.effects.humRemoval.set(0)
            default: return reject("expects on or off")
            }
        case "denoise", "agc":
            let render = engine.configuration.render
            guard render.voiceProcessing || render.echoCancellation else {
                return reject("voice processing is off: start mic with --denoise, --dehum, --agc or --echo-cancel (it adds 10 ms)")
            }
            let isDenoise = verb == "denoise"
            let range = isDenoise ? VoiceProcessor.noiseSuppressionRange : VoiceProcessor.gainTargetRange
            let unit = isDenoise ? "dB" : "dBFS"
            switch words.count == 2 ? words[1].lowercased() : "" {
            case "on" where isDenoise: engine.effects.noiseSuppressionDecibels.set(VoiceProcessor.defaultNoiseSuppressionDecibels)
            case "off" where isDenoise: engine.effects.noiseSuppressionDecibels.set(0)
            case "on": engine.effects.automaticGain.set(1)
            case "off": engine.effects.automaticGain.set(0)
            default:
                guard words.count == 2, let value = Float(words[1]), value.isFinite, range.contains(value) else {
                    return reject("expects on, off or a level within \(Double(range.lowerBound).plainText)...\(Double(range.upperBound).plainText) \(unit)")
                }
                if isDenoise {
                    engine.effects.noiseSuppressionDecibels.set(value)
                } else {
                    engine.effects.gainTargetDecibels.set(value)
                    engine.effects.automaticGain.set(1)
                }
            }
        default:
            guard let knob = MicKnob(rawValue: verb) else {
                return reject("unknown command (bass, treble, boost, reverb, preset, volume, denoise, dehum, agc, mute, unmute, quit)")
            }
            let unit = knob == .reverb ? "%" : "dB"
            guard words.count == 2, let value = Double(words[1].replacingOccurrences(of: "%", with: "")), value.isFinite,
                  knob.range.contains(value) else {
                return reject("expects a number within \(knob.range.lowerBound.plainText)...\(knob.range.upperBound.plainText) \(unit)")
            }
            knob.cell(of: engine.effects).set(Float(value))
        }
        return .applied
    }

    /// A 24-character peak meter in dBFS (−48…0).
    static func meter(_ label: String, _ peak: Float) -> String {
        let decibels = peak > 0 ? 20 * log10(Double(peak)) : -120
        let filled = max(0, min(24, Int(((decibels + 48) / 48 * 24).rounded())))
        let text = decibels <= -120 ? " -inf" : String(format: "%5.1f", decibels)
        return "\(label) [" + String(repeating: "#", count: filled) + String(repeating: " ", count: 24 - filled) + "] \(text) dB"
    }
}
