import CommandLineSpec
import Engine
import Render
@testable import staccato
import VoiceProcessing
import XCTest

/// `staccato mic`'s voice-processing options and live commands.
final class MicCommandTests: XCTestCase {
    private func micOptions(_ arguments: [String]) throws -> ParsedOptions {
        try ParsedOptions(command: Commands.mic, arguments: arguments)
    }

    /// `--denoise` and `--agc` take a level, or stand alone for their defaults; a negative number
    /// after them is their level, another option is not.
    func testVoiceProcessingLevelsMayBeLeftOut() throws {
        let alone = try micOptions(["--denoise", "--agc", "--seconds", "1"])
        XCTAssertEqual(try alone.double("denoise"), -25)
        XCTAssertEqual(try alone.double("agc"), -18)
        XCTAssertEqual(try alone.double("seconds"), 1)
        let given = try micOptions(["--denoise", "-30", "--agc=-20"])
        XCTAssertEqual(try given.double("denoise"), -30)
        XCTAssertEqual(try given.double("agc"), -20)
        XCTAssertEqual(try micOptions(["--agc"]).double("agc"), -18, "alone at the end")
        XCTAssertThrowsError(try micOptions(["--denoise", "5"]).double("denoise")) { error in
            XCTAssertEqual((error as? UsageError)?.description, "--denoise must be within -60...0, got 5")
        }
        XCTAssertTrue(Commands.mic.usageLine.contains("[--denoise [DB]] [--dehum] [--agc [DBFS]] [--echo-cancel]"), Commands.mic.usageLine)
    }

    func testTheChainLineSaysWhatVoiceProcessingCosts() throws {
        let chain = try MicChain(try micOptions(["--denoise", "--agc", "-20"]))
        XCTAssertEqual(chain.latencyFrameCount(sampleRate: 48_000), 480)
        XCTAssertTrue(chain.description(sampleRate: 48_000).hasPrefix("chain: voice processing: dehum, denoise -25 dB, agc -20 dBFS (+10.0 ms, 480 frames), bass 0 dB"),
                      "--denoise brings hum removal with it: \(chain.description(sampleRate: 48_000))")
        let dehum = try MicChain(try micOptions(["--dehum"]))
        XCTAssertTrue(dehum.removesHum)
        XCTAssertTrue(dehum.description(sampleRate: 48_000).hasPrefix("chain: voice processing: dehum (+10.0 ms, 480 frames)"),
                      dehum.description(sampleRate: 48_000))
        XCTAssertEqual(dehum.humLine(VoiceProcessingStatus(humHertz: 50.04, humDecibels: -41.26)),
                       "hum: 50.04 Hz and its harmonics cancelled (-41.3 dBFS of hum at the end)")
        XCTAssertEqual(dehum.humLine(VoiceProcessingStatus()), "hum: none found at 50 or 60 Hz")
        XCTAssertNil(dehum.echoLine(VoiceProcessingStatus(echoReturnLossEnhancementDecibels: 30), tail: nil), "no echo cancellation, no line")

        let echo = try MicChain(try micOptions(["--echo-cancel", "--play", "Tests/Fixtures/midi/mozart_turkish_march.mid", "--echo-tail", "150"]))
        XCTAssertEqual(echo.echoTailSeconds, 0.15)
        XCTAssertTrue(echo.description(sampleRate: 48_000).hasPrefix("chain: voice processing: echo cancellation (150 ms tail) (+10.0 ms"),
                      echo.description(sampleRate: 48_000))
        XCTAssertEqual(echo.echoLine(VoiceProcessingStatus(echoReturnLossEnhancementDecibels: 31.4), tail: (0.062, 0.15, -52)),
                       "echo: 31 dB cancelled (ERLE, where the track played alone); the room's echo falls 30 dB in 62 ms of the 150 ms modelled")
        XCTAssertEqual(echo.echoLine(VoiceProcessingStatus(), tail: (0.15, 0.15, -18.6)),
                       "echo: too little of the track played alone to measure what was cancelled; the room's echo outlasts the 150 ms modelled, "
                       + "18 dB down in its last tenth (--echo-tail 300 would model more; a longer filter converges more slowly)")
        XCTAssertThrowsError(try MicChain(try micOptions(["--echo-tail", "200"]))) { error in
            XCTAssertTrue("\(error)".contains("--echo-tail sets the echo canceller's length: it needs --echo-cancel"), "\(error)")
        }
        let plain = try MicChain(try micOptions([]))
        XCTAssertEqual(plain.latencyFrameCount(sampleRate: 48_000), 0)
        XCTAssertFalse(plain.description(sampleRate: 48_000).contains("voice processing"))
        XCTAssertThrowsError(try MicChain(try micOptions(["--echo-cancel"]))) { error in
            XCTAssertTrue("\(error)".contains("--echo-cancel removes what Staccato plays from the microphone: it needs --play SONG.mid"), "\(error)")
        }
    }

    func testDenoiseAndAGCCommandsSetTheirCells() {
        var render = RenderConfiguration()
        render.voiceProcessing = true
        let engine = Engine(configuration: EngineConfiguration(render: render))
        let effects = engine.effects
        XCTAssertEqual(MicKnob.apply("denoise on", to: engine), .applied)
        XCTAssertEqual(effects.noiseSuppressionDecibels.value, -25)
        XCTAssertEqual(MicKnob.apply("denoise -40", to: engine), .applied)
        XCTAssertEqual(effects.noiseSuppressionDecibels.value, -40)
        XCTAssertEqual(MicKnob.apply("denoise off", to: engine), .applied)
        XCTAssertEqual(effects.noiseSuppressionDecibels.value, 0)
        XCTAssertEqual(MicKnob.apply("agc -24", to: engine), .applied)
        XCTAssertEqual(effects.gainTargetDecibels.value, -24)
        XCTAssertEqual(effects.automaticGain.value, 1)
        XCTAssertEqual(MicKnob.apply("agc off", to: engine), .applied)
        XCTAssertEqual(effects.automaticGain.value, 0)
        XCTAssertEqual(MicKnob.apply("agc on", to: engine), .applied)
        XCTAssertEqual(effects.automaticGain.value, 1)
        XCTAssertEqual(effects.gainTargetDecibels.value, -24, "on keeps the last target")
        XCTAssertEqual(MicKnob.apply("dehum on", to: engine), .applied)
        XCTAssertEqual(effects.humRemoval.value, 1)
        XCTAssertEqual(MicKnob.apply("dehum off", to: engine), .applied)
        XCTAssertEqual(effects.humRemoval.value, 0)
        for bad in ["denoise 3", "denoise", "agc -1", "agc loud", "dehum", "dehum 50"] {
            XCTAssertEqual(MicKnob.apply(bad, to: engine), .rejected, bad)
        }
        XCTAssertEqual(effects.noiseSuppressionDecibels.value, 0, "a rejected command changes nothing")

        let plain = Engine(configuration: EngineConfiguration())
        XCTAssertEqual(MicKnob.apply("denoise on", to: plain), .rejected, "no voice-processing stage to switch")
        XCTAssertEqual(plain.effects.noiseSuppressionDecibels.value, 0)
    }
}
