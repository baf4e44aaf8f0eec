import AudioAnalysis
import AudioFile
import DSP
import FeedbackSuppression
import Engine
import Foundation
import Render

/// `staccato-bench feedback`: the maximum stable gain of the microphone chain in a simulated
/// acoustic loop (`AcousticLoop`), with its feedback suppressor off and on, in the built-in rooms
/// or through the impulse responses of `--ir`, and how the voice survives at the highest gain.
/// The chain is the engine's own: DC blocker, EQ (flat), boost (the gain swept), volume 1, the
/// feedback suppressor, the −1 dBFS limiter, in 64-frame blocks.
enum FeedbackBenchmark {
    /// The engine as a chain in the loop: the microphone's block in, the speaker's out.
    final class EngineChain: FeedbackLoopChain {
        let engine: Engine
        let interleaved: UnsafeMutablePointer<Float>
        let adapts: Bool

        init(sampleRate: Double, suppressorOn: Bool) {
            adapts = suppressorOn
            engine = Engine(configuration: EngineConfiguration(render: RenderConfiguration(
                sampleRate: sampleRate, maxFrameCount: AcousticLoop.blockFrameCount, feedbackSuppression: suppressorOn)))
            interleaved = .allocate(capacity: 2 * AcousticLoop.blockFrameCount)
        }
        deinit { interleaved.deallocate() }

        func setGain(decibels: Float) { engine.effects.boostDecibels.set(decibels) }
        func process(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frameCount: Int) {
            engine.renderer.render(input: left, inputChannelCount: 1, into: interleaved, frameCount: frameCount)
            for frame in 0..<frameCount {
                left[frame] = interleaved[2 * frame]
                right[frame] = interleaved[2 * frame + 1]
            }
        }
        var limitedFrameCount: Int { engine.renderer.statistics.limitedFrames }
        var duckCount: Int { engine.renderer.feedback.ducks }
        var notches: [MaximumStableGain.Notch] {
            engine.renderer.feedback.notches.map { MaximumStableGain.Notch(hertz: $0.hertz, depthDecibels: $0.depthDecibels) }
        }
        /// The engine's own account of the microphone's path (no reverb, no voice processing here).
        var linearChain: LoopStability.Chain {
            guard let path = engine.renderer.microphonePath() else { preconditionFailure("the benchmark's chain is linear") }
            return LoopStability.Chain(gain: path.gain, sections: path.sections)
        }
    }

    /// One run's figures for the JSON file.
    static func runFigures(_ run: MaximumStableGain.Run, sampleRate: Double) -> [String: Any] {
        ["gain_db": run.gainDecibels, "stable": run.stable, "closed_dbfs": run.closedDecibels, "open_dbfs": run.openDecibels,
         "limiter_seconds": run.limiterSeconds, "ducks": run.ducks,
         "margin_db": run.margin.decibels.isFinite ? Double(run.margin.decibels) as Any : NSNull(), "margin_hertz": run.margin.hertz,
         "notches": run.notches.map { ["hertz": Double($0.hertz), "depth_db": Double($0.depthDecibels)] },
         "seconds": Double(run.output.count) / sampleRate, "settling": run.settling]
    }

    /// The boost's range bounds the sweep.
    static let gainRange: ClosedRange<Float> = EffectsControls.boostRange

    /// A room to measure: its response as measured (`scaleDecibels` applied to the one given),
    /// and the peak of the given response's magnitude, in dB.
    struct Room {
        var name: String
        var response: [Float]
        var sampleRate: Double
        var peakDecibels: Float
        var scaleDecibels: Float
    }

    /// The voice's peak at the microphone in a room whose peak gain is 0 dB.
    static let voicePeakDecibels: Float = -24

    /// Where the sweep starts, against the room's peak gain (the loop's gain at its peak
    /// frequency, chain flat): below every room's edge.
    static let sweepStartBelowPeakDecibels: Float = 8

    /// A room from a file, at the level it is given: the gain figures are then the boost that room
    /// takes, and a room at half the amplitude takes 6 dB more. A room so loud or so quiet that
    /// its sweep would start outside the boost's range is scaled to a 0 dB peak, and its figures
    /// are given for it as it was (`scaleDecibels` added back).
    static func room(fromFile path: String) throws -> Room {
        let file = try AudioFileReader.read(path)
        let response = file.channel(0)
        let peak = RoomImpulse.magnitudePeak(response)
        guard peak > 0 else { throw FeedbackFailure(description: "\(path): the impulse response is silent") }
        let peakDecibels = 20 * log10(peak)
        let start = -sweepStartBelowPeakDecibels - peakDecibels
        let reachable = start >= gainRange.lowerBound && start + 2 * sweepStartBelowPeakDecibels <= gainRange.upperBound
        let scale: Float = reachable ? 0 : -peakDecibels
        let factor = pow(10, scale / 20)
        return Room(name: (path as NSString).lastPathComponent, response: reachable ? response : response.map { $0 * factor },
                    sampleRate: Double(file.sampleRate), peakDecibels: peakDecibels, scaleDecibels: scale)
    }

    /// - Parameter irPaths: impulse response files to measure instead of the built-in rooms.
    static func run(irPaths: [String]) throws -> [String: Any] {
        // Every file is read before any room is measured: a bad one stops the run at once.
        let rooms: [Room] = irPaths.isEmpty
            ? RoomImpulse.allCases.map { Room(name: $0.rawValue, response: $0.response(), sampleRate: RoomImpulse.sampleRate, peakDecibels: 0, scaleDecibels: 0) }
            : try irPaths.map(room(fromFile:))
        print("Feedback: the mic chain in a simulated room (64-frame blocks, \(AcousticLoop.latencyFrameCount) frames of device latency),")
        print("its boost swept up 1 dB at a time; a gain is stable when the last of \(Int(MaximumStableGain.runSeconds)) s of speech-like voice")
        print("is within \(Int(MaximumStableGain.allowedRiseDecibels)) dB of the open loop's, with at most \(MaximumStableGain.allowedLimiterSeconds) s of limiting and no duck,")
        print("and the loop with the chain as it then stands meets the Nyquist criterion (where only the criterion finds")
        print("the loop unstable, the suppressor gets \(MaximumStableGain.settlingRunCount) times as long at that gain). Gains are the boost the room")
        print("takes as given (a room at half the amplitude takes 6 dB more; the voice comes in 6 dB quieter there, so the")
        print("speaker plays it as loud), and in brackets against the room's peak")
        print("gain (the loop's at its loudest frequency, the chain flat). The last column counts the notch-wide bands")
        print("where the open loop, \(Int(targetRiseDecibels)) dB past its edge, reaches +1 at zero phase: an estimate of the notches")
        print("that rise needs, one a band (the suppressor has \(FeedbackSuppressor.maximumNotchCount)); a room that needs more howls in more")
        print("places than notches can cover, whatever modes it has. Ideal: the rise \(FeedbackSuppressor.maximumNotchCount) notches of full depth would give,")
        print("each placed where the loop with those before it would first howl.\n")
        print("room                  peak gain  suppressor off     suppressor on      rise (ideal)        voice r (on)   notches (deepest)   +\(Int(targetRiseDecibels)) dB needs")
        var figures: [[String: Any]] = []
        for room in rooms {
            // The voice comes in as much quieter as the room takes more boost, so the speaker
            // plays it at the same level in every room: a quieter room then measures its loop,
            // not the limiter's headroom over a voice boosted 6 dB louder.
            let voice = SpeechLikeSignal.speechLike(seconds: MaximumStableGain.runSeconds, sampleRate: room.sampleRate,
                                                    peakDecibels: voicePeakDecibels + room.peakDecibels + room.scaleDecibels)
            // The room's criterion, made once (a large transform) for both sweeps and the count.
            let stability = LoopStability(response: room.response, latencyFrameCount: AcousticLoop.latencyFrameCount, sampleRate: room.sampleRate)
            let start = -sweepStartBelowPeakDecibels - (room.peakDecibels + room.scaleDecibels)
            func sweep(_ suppressorOn: Bool) -> MaximumStableGain.Result {
                MaximumStableGain.sweep(response: room.response, chain: EngineChain(sampleRate: room.sampleRate, suppressorOn: suppressorOn),
                                        voice: voice, sampleRate: room.sampleRate,
                                        startDecibels: start, ceilingDecibels: gainRange.upperBound, stability: stability)
            }
            let off = sweep(false), on = sweep(true)
            // The figures for the room as given: the scale applied to it added back.
            let offDecibels = off.decibels + room.scaleDecibels, onDecibels = on.decibels + room.scaleDecibels
            let rise = on.decibels - off.decibels
            let notches = (count: on.lastStable?.notches.count ?? 0, deepestDecibels: on.lastStable?.deepestNotchDecibels ?? 0)
            let bands = notchBands(stability: stability)
            let withinReach = bands.bands.count <= FeedbackSuppressor.maximumNotchCount
            // To the tenth printed, with no "-0.0" for a peak a hair under 0 dB.
            func tenths(_ decibels: Float) -> Float { let value = (decibels * 10).rounded() / 10; return value == 0 ? 0 : value }
            func gain(_ decibels: Float) -> String {
                String(format: "%+6.1f (%+5.1f) dB", tenths(decibels), tenths(decibels + room.peakDecibels))
            }
            print(room.name.padding(toLength: 22, withPad: " ", startingAt: 0)
                  + String(format: "%+6.1f dB  ", tenths(room.peakDecibels)) + gain(offDecibels) + "  " + gain(onDecibels)
                  + String(format: "  %+5.1f (%+5.1f) dB   %.3f          %d (%.0f dB)           %d notch",
                           rise, bands.idealRiseDecibels, on.correlation, notches.count, notches.deepestDecibels, bands.bands.count)
                  + (bands.bands.count == 1 ? "" : "es")
                  + (withinReach ? "" : "   (beyond the notches' reach)")
                  + (room.scaleDecibels == 0 ? "" : String(format: "   (measured scaled by %+.1f dB, into the boost's range)", room.scaleDecibels)))
            let edge = bands.edgeDecibels + room.scaleDecibels
            figures.append(["room": room.name, "within_notch_reach": withinReach,
                            "room_peak_gain_db": room.peakDecibels, "measured_scaled_by_db": room.scaleDecibels,
                            "maximum_stable_gain_off_db": offDecibels, "maximum_stable_gain_on_db": onDecibels,
                            "maximum_stable_gain_off_relative_db": offDecibels + room.peakDecibels,
                            "maximum_stable_gain_on_relative_db": onDecibels + room.peakDecibels,
                            "rise_db": rise, "ideal_notch_rise_db": bands.idealRiseDecibels.isFinite ? Double(bands.idealRiseDecibels) as Any : NSNull(),
                            "voice_correlation_on": on.correlation, "voice_correlation_off": off.correlation,
                            "notches": notches.count, "deepest_notch_db": notches.deepestDecibels,
                            "linear_edge_off_db": edge.isFinite ? Double(edge) as Any : NSNull(), "notch_bands_for_target_rise": bands.bands.count,
                            "notch_bands_hertz": bands.bands.map { $0.hertz.rounded() },
                            "runs_off": off.runs.map { runFigures($0, sampleRate: room.sampleRate) },
                            "runs_on": on.runs.map { runFigures($0, sampleRate: room.sampleRate) }])
        }
        return ["rooms": figures, "run_seconds": MaximumStableGain.runSeconds, "block_frames": AcousticLoop.blockFrameCount,
                "latency_frames": AcousticLoop.latencyFrameCount, "target_rise_db": targetRiseDecibels]
    }

    /// The rise the suppressor is built to give in a room with strong modes.
    static let targetRiseDecibels: Float = 6

    /// The loop's edge with the suppressor off (the Nyquist criterion, exact where the sweep's
    /// steps are half a decibel), the notch-wide bands that howl `targetRiseDecibels` past it, and
    /// the rise an ideal bank of the suppressor's notches, at their full depth, would give.
    static func notchBands(stability: LoopStability) -> (edgeDecibels: Float, bands: [LoopStability.Crossing], idealRiseDecibels: Float) {
        let engine = EngineChain(sampleRate: stability.sampleRate, suppressorOn: false)
        engine.setGain(decibels: 0)
        let chain = engine.linearChain
        let edge = stability.margin(chain: chain).decibels
        let bands = stability.howlBands(chain: chain, raisedDecibels: edge + targetRiseDecibels,
                                        bandOctaves: FeedbackSuppressor.notchBandwidthOctaves)
        let ideal = stability.idealNotchRise(chain: chain, notchCount: FeedbackSuppressor.maximumNotchCount) { hertz in
            FeedbackSuppressor.notchCoefficients(hertz: hertz, depthDecibels: -FeedbackSuppressor.maximumDepthDecibels,
                                                 sampleRate: stability.sampleRate)
        }
        return (edge, bands, ideal.decibels)
    }
}

/// A benchmark input that cannot be measured: one line.
struct FeedbackFailure: Error, CustomStringConvertible {
    let description: String
}
