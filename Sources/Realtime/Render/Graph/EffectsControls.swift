import Lockfree
import VoiceProcessing

/// The live knobs of the effects graph, one `ParameterCell` each: the control thread writes them at
/// any time, the audio thread reads them once per block and smooths every change (no zipper noise).
/// Values outside a knob's documented range are clamped; NaN is ignored.
///
/// - Thread: any. For reading and writing the cells. Built by the renderer's creator on the control
///   thread (not real-time safe: allocates).
public final class EffectsControls: @unchecked Sendable {
    /// Bass: a low shelf at 150 Hz, −12…+12 dB (microphone input).
    public let bassDecibels = ParameterCell(0, range: -12...12)
    /// Treble: a high shelf at 6 kHz, −12…+12 dB (microphone input).
    public let trebleDecibels = ParameterCell(0, range: -12...12)
    /// Boost: gain on the microphone input after the EQ, −24…+24 dB.
    public let boostDecibels = ParameterCell(0, range: -24...24)
    /// Reverb wet/dry mix, 0 (dry) … 100 % (wet), over everything (microphone and instruments).
    public let reverbPercent = ParameterCell(0, range: 0...100)
    /// Master volume, 0…1, before the safety limiter.
    public let volume: ParameterCell
    /// Mains hum removal on the microphone: on above 0.5, off below. Heard only with voice
    /// processing, like `noiseSuppressionDecibels`.
    public let humRemoval = ParameterCell(0, range: 0...1)
    /// Noise suppression on the microphone, −60…0 dB; 0 is off. Heard only when the renderer was
    /// built with voice processing (`RenderConfiguration.voiceProcessing`).
    public let noiseSuppressionDecibels = ParameterCell(0, range: VoiceProcessor.noiseSuppressionRange)
    /// Automatic gain control on the microphone: on above 0.5, off below. Heard only with voice
    /// processing, like `noiseSuppressionDecibels`.
    public let automaticGain = ParameterCell(0, range: 0...1)
    /// The level the automatic gain control aims the microphone's speech at, in dBFS.
    public let gainTargetDecibels = ParameterCell(VoiceProcessor.defaultGainTargetDecibels, range: VoiceProcessor.gainTargetRange)

    /// - Thread: control.
    public init(initialVolume: Float) {
        volume = ParameterCell(initialVolume, range: 0...1)
    }

    /// The ranges, for front ends that validate before setting.
    /// - Thread: any.
    public static var bassRange: ClosedRange<Float> { -12...12 }
    /// - Thread: any.
    public static var trebleRange: ClosedRange<Float> { -12...12 }
    /// - Thread: any.
    public static var boostRange: ClosedRange<Float> { -24...24 }
    /// - Thread: any.
    public static var reverbRange: ClosedRange<Float> { 0...100 }
    /// - Thread: any.
    public static var volumeRange: ClosedRange<Float> { 0...1 }
}
