import DSP
import FeedbackSuppression

/// The microphone's way to the speaker through the effects graph as one linear filter: a gain and
/// a cascade of biquads, from the same coefficients the graph runs. An acoustic feedback loop's
/// stability depends on it alone (`staccato-bench feedback` judges the loop by the Nyquist
/// criterion with it).
public struct MicrophonePath: Sendable {
    /// Boost × master volume.
    public var gain: Double
    /// The input's DC blocker, the bass and treble shelves, and the feedback suppressor's notches.
    public var sections: [BiquadCoefficients]
}

extension Renderer {
    /// The microphone's path as the knobs and the suppressor's published notches stand now (each
    /// notch at the depth it is moving to; the output unmuted and not ducked, the limiter below
    /// its ceiling). Nil where the path is not one linear filter: with reverb mixed in, or voice
    /// processing (its noise suppression and gain control adapt).
    /// - Thread: control.
    public func microphonePath() -> MicrophonePath? {
        guard !configuration.voiceProcessing, !configuration.echoCancellation, effects.reverbPercent.value == 0 else { return nil }
        let rate = configuration.sampleRate
        var sections = [DCBlocker(sampleRate: rate).coefficients,
                        EffectsChain.bassShelf(decibels: effects.bassDecibels.value, sampleRate: rate),
                        EffectsChain.trebleShelf(decibels: effects.trebleDecibels.value, sampleRate: rate)]
        for notch in feedback.notches {
            sections.append(FeedbackSuppressor.notchCoefficients(hertz: Double(notch.hertz), depthDecibels: notch.depthDecibels,
                                                                 sampleRate: rate))
        }
        let gain = Double(decibelsToAmplitude(effects.boostDecibels.value)) * Double(effects.volume.value)
        return MicrophonePath(gain: gain, sections: sections)
    }
}
