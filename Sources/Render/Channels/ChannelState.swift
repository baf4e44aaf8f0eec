import DSP

/// One MIDI channel's controllers as the sampler's voices see them, with the SoundFont default
/// modulators already turned into the numbers a voice needs (cents, centibels, pan).
struct ChannelState {
    static var count: Int {
        @_noAllocation @_noLocks get { 16 }
    }
    /// GM's percussion channel (channel 10, index 9) plays bank 128.
    static var percussionChannel: UInt8 {
        @_noAllocation @_noLocks get { 9 }
    }

    var bankMSB: UInt8 = 0
    var bankLSB: UInt8 = 0
    var program: UInt8 = 0
    /// Index of the selected preset in the current bank, or -1 when the bank has none for it.
    var presetIndex = -1
    var pitchBend: UInt16 = 8_192
    /// RPN 0: pitch-bend range in semitones (+ cents / 100).
    var bendRangeSemitones: Float = 2
    var registeredParameter: (msb: UInt8, lsb: UInt8) = (127, 127)
    var modulationWheel: UInt8 = 0
    var volume: UInt8 = 100
    var panPosition: UInt8 = 64
    var expression: UInt8 = 127
    var channelPressure: UInt8 = 0
    var reverbLevel: UInt8 = 40
    var chorusLevel: UInt8 = 0
    var sustainPedal = false

    // Derived once per change, read by every voice each block.
    var attenuationCentibels: Float = 0
    var panOffset: Float = 0
    var pitchBendCents: Float = 0
    var vibratoDepthCents: Float = 0

    var isPercussion: Bool = false

    init(index: UInt8) {
        isPercussion = index == Self.percussionChannel
        refresh()
    }

    /// Recomputes the derived values from the controllers (SF2 2.04 §8.4 default modulators):
    /// CC7 and CC11 → attenuation through the concave curve, 960 cB full scale; CC10 → pan, ±100 %;
    /// pitch wheel × RPN 0 range → cents; CC1 and channel pressure → vibrato depth, 50 cents each.
    @_noAllocation @_noLocks
    mutating func refresh() {
        attenuationCentibels = min(960, concaveAttenuation(volume) + concaveAttenuation(expression))
        panOffset = (Float(panPosition) - 64) / 64
        pitchBendCents = (Float(pitchBend) - 8_192) / 8_192 * bendRangeSemitones * 100
        vibratoDepthCents = Float(modulationWheel) / 127 * 50 + Float(channelPressure) / 127 * 50
    }

    /// Reset All Controllers (CC121), as the MIDI RP-015 recommended practice lists it.
    @_noAllocation @_noLocks
    mutating func resetControllers() {
        modulationWheel = 0
        expression = 127
        pitchBend = 8_192
        channelPressure = 0
        sustainPedal = false
        registeredParameter = (127, 127)
        refresh()
    }
}

/// SF2's concave transform of a 7-bit controller as an attenuation: 400·log10(127/value) cB,
/// i.e. amplitude ∝ (value/127)², capped at 960 cB. Used for velocity, volume and expression.
@_noAllocation @_noLocks
func concaveAttenuation(_ value: UInt8) -> Float {
    guard value > 0 else { return 960 }
    // 400·log10(127/v) = 400·log10(2)·log2(127/v)
    return min(960, 120.411_998 * log2Approximation(127 / Float(value)))
}
