import AudioIO
import DSP
import Engine
import Live
import Foundation
import Glibc
import Lockfree
import Render

extension Commands {
    static let mic = Subcommand(
        name: "mic",
        summary: "Live microphone to speaker with bass, treble, boost, reverb and volume, updated in real time.",
        description: "Prints the granted configuration and the measured mic-to-speaker latency, shows a level meter, and takes commands on standard input, one per line: bass DB, treble DB, boost DB, reverb %, preset small|medium|hall|plate, volume 0-1, mute, unmute, quit. Ctrl-C stops cleanly.",
        options: [
            OptionSpec(name: "in", valueName: "DEV", help: "ALSA capture PCM (the microphone); see 'staccato devices'", default: .described("needed with --audio alsa")),
            OptionSpec(name: "out", valueName: "DEV", help: "ALSA playback PCM", default: DeviceOptions.defaultDevice),
        ] + AudioTarget.specs + [AudioTarget.connectInput] + DeviceOptions.streamSpecs() + [
            OptionSpec(name: "bass", valueName: "DB", help: "bass, a low shelf at 150 Hz, in dB", default: .number(0), range: MicKnob.bass.range),
            OptionSpec(name: "treble", valueName: "DB", help: "treble, a high shelf at 6 kHz, in dB", default: .number(0), range: MicKnob.treble.range),
            OptionSpec(name: "boost", valueName: "DB", help: "microphone gain after the EQ, in dB", default: .number(0), range: MicKnob.boost.range),
            OptionSpec(name: "reverb", valueName: "%", help: "reverb wet/dry mix, in %", default: .number(0), range: MicKnob.reverb.range),
            OptionSpec(name: "preset", valueName: "NAME", help: "reverb room: small, medium, hall or plate", default: .value("medium")),
            OptionSpec(name: "volume", valueName: "V", help: "master volume (starting quiet is a safety feature)", default: .number(0.3), range: 0...1),
            OptionSpec(name: "record", valueName: "FILE", help: "record the output to FILE: .wav, .flac or .ogg"),
            OptionSpec(name: "seconds", valueName: "S", help: "stop after S seconds",
                       default: .described("run until quit or Ctrl-C", value: { (86_400 * 365).description }), range: 0.01...(86_400 * 365)),
        ],
        playsLive: true
    ) { options in
        let audio = try AudioTarget(options, alsaDevice: try options.string("out"))
        let input = options.values["in"]
        if audio.backend == .alsa, input == nil { throw UsageError(description: "--audio alsa needs --in DEV, the microphone's capture PCM") }
        if audio.backend != .alsa, input != nil { throw UsageError(description: "--in names an ALSA capture PCM: it needs --audio alsa (JACK's inputs are connected with --connect-input)") }
        let configuration = audio.configuration
        let seconds = try options.double("seconds")
        let volume = try options.double("volume")
        let knobs = try MicKnob.allCases.map { knob in
            (knob, try options.double(knob.rawValue))
        }
        let presetName = try options.string("preset")
        guard let preset = MicKnob.preset(named: presetName) else {
            throw UsageError(description: "--preset must be small, medium, hall or plate, got '\(presetName)'")
        }
        let recordPath = try options.values["record"].map { _ in try options.soundFilePath("record") }

        var engineConfiguration = EngineConfiguration(
            render: RenderConfiguration(sampleRate: Double(configuration.sampleRate), channelCount: configuration.channelCount,
                                        maxFrameCount: max(4_096, configuration.periodFrameCount + 1)),
            initialMasterVolume: Float(volume))
        if recordPath != nil { engineConfiguration.recordingBufferSeconds = 2 }
        let engine = Engine(configuration: engineConfiguration)
        for (knob, value) in knobs { knob.cell(of: engine.effects).set(Float(value)) }
        engine.send(.reverbPreset(preset))

        let recorder = try recordPath.map { try Recorder(path: $0, tap: engine.outputTap!, sampleRate: configuration.sampleRate) }
        let stream = try audio.stream(renderer: engine.renderer, captureDevice: input, capture: true)
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
        print("chain: bass \(knobs[0].1.plainText) dB, treble \(knobs[1].1.plainText) dB, boost \(knobs[2].1.plainText) dB, reverb \(knobs[3].1.plainText) % (\(preset.name)), volume \(volume.plainText), limiter -1 dBFS, howl guard on")
        if let recorder { print("recording to \(recorder.path)") }

        recorder?.start()
        try stream.start(frameLimit: Int((seconds * Double(configuration.sampleRate)).rounded()))
        for line in stream.details { print(line) }
        print("audio thread: \(stream.realtimeScheduling)")

        var lineBuffer: [UInt8] = []
        var inputOpen = true
        var reportedLatency = false
        var howlsReported = 0
        var lastMeter = 0.0
        let session = LiveSession(engine: engine, stream: stream)
        let outcome = session.run { session in
            // A failed write (a full disk) ends the recording: stop, finalise and say so, rather
            // than play on while every frame is dropped as if the disk were only slow.
            if recorder?.hasFailed == true { session.stop() }
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
                StatusLine.standard.print("latency: mic to speaker \(String(format: "%.2f", granted.milliseconds(latency))) ms (\(latency) frames: \(offset) buffered by staccato + \(latency - offset) in the devices)")
                reportedLatency = true
            }
            if engine.renderer.howlCount > howlsReported {
                howlsReported = engine.renderer.howlCount
                let hertz = Int(engine.renderer.lastHowlHertz.rounded())
                let what = hertz >= 20 ? "feedback howl near \(hertz) Hz" : "feedback (a sub-sonic rumble pinned at full level)"
                printError("staccato mic: \(what): output ducked by 24 dB for 2 s (lower --boost or --volume, or move the microphone away from the speaker)")
            }
            let now = MonotonicClock.seconds()
            if now - lastMeter > 0.1 {
                lastMeter = now
                let peaks = engine.renderer.takePeaks()
                StatusLine.standard.update(MicKnob.meter("in", peaks.input) + "  " + MicKnob.meter("out", peaks.output))
            }
        }
        StatusLine.standard.clear()
        var recordingError: Error?
        do { try recorder?.finish() } catch { recordingError = error }
        print("played \(stream.framesWritten) frames (\(String(format: "%.3f", Double(stream.framesWritten) / Double(configuration.sampleRate))) s) in \(String(format: "%.3f", stream.elapsedSeconds)) s; xruns: \(stream.xrunCount)" + (!stream.sharesClock ? String(format: "; drift absorbed by resampling the microphone at %+.1f ppm", stream.resamplingPartsPerMillion) : ""))
        if let recorder {
            print("recorded \(recorder.writtenFrameCount) frames to \(recorder.path); frames dropped: \(recorder.droppedFrameCount)")
        }
        if let recordingError { printError("staccato: \(recordingError)") }
        let exitCode: Int32
        switch outcome {
        case .finished, .stopped(signal: nil): exitCode = recordingError == nil ? 0 : 1
        case .stopped(signal: _?): exitCode = outcome.exitCode
        case let .failed(error):
            printError("staccato: \(error)")
            exitCode = 1
        }
        LiveReport.extra["inputResamplingPPM"] = stream.resamplingPartsPerMillion
        LiveReport.extra["latencyFrames"] = stream.latencyFrameCount ?? NSNull()
        LiveReport.extra["bufferedFrames"] = stream.streamOffsetFrameCount ?? NSNull()
        if let recorder {
            LiveReport.extra["recordedFrames"] = recorder.writtenFrameCount
            LiveReport.extra["recordingFramesDropped"] = recorder.droppedFrameCount
        }
        LiveReport.write(session, outcome: outcome, exitCode: exitCode)
        return exitCode
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
        default:
            guard let knob = MicKnob(rawValue: verb) else {
                return reject("unknown command (bass, treble, boost, reverb, preset, volume, mute, unmute, quit)")
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
