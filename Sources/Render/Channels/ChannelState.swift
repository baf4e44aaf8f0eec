import DSP

/// One MIDI channel's controllers as the sampler's voices see them: the values their modulators
/// read (`SamplerModulator`), and a counter that moves whenever one changes, so a voice re-evaluates
/// its modulators only then.
struct ChannelState {
    static var count: Int {
        @_noAllocation @_noLocks get { 16 }
    }
    /// GM's percussion channel (channel 10, index 9) plays bank 128.
    static var percussionChannel: UInt8 {
        @_noAllocation @_noLocks get { 9 }
    }
    /// Continuous controllers a channel keeps, one per MIDI controller number.
    static var controllerCount: Int {
        @_noAllocation @_noLocks get { 128 }
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
    var channelPressure: UInt8 = 0
    var reverbLevel: UInt8 = 40
    var chorusLevel: UInt8 = 0
    var sustainPedal = false
    /// The last value of every controller (`controllerCount`), what CC modulator sources read;
    /// owned by the sampler.
    let controllers: UnsafeMutablePointer<UInt8>
    /// Moves on every change a modulator source can see (controllers, pitch wheel, pressure).
    var controllerSerial: UInt32 = 0

    var isPercussion: Bool = false

    init(index: UInt8, controllers: UnsafeMutablePointer<UInt8>) {
        isPercussion = index == Self.percussionChannel
        self.controllers = controllers
        controllers.initialize(repeating: 0, count: Self.controllerCount)
        // Power-on values (GM; FluidSynth's too): volume 100, pan centre, expression full, reverb 40.
        controllers[MIDIController.volume.index] = 100
        controllers[MIDIController.pan.index] = 64
        controllers[MIDIController.expression.index] = 127
        controllers[MIDIController.reverbSend.index] = reverbLevel
    }

    /// Records controller `number` at `value` for the modulators.
    @_noAllocation @_noLocks
    mutating func setController(_ number: UInt8, _ value: UInt8) {
        controllers[Int(number & 0x7F)] = value
        controllerSerial &+= 1
    }

    /// Something a modulator may read changed: voices of this channel re-evaluate theirs.
    @_noAllocation @_noLocks
    mutating func noteSourceChange() { controllerSerial &+= 1 }

    /// What this channel's voices' modulators read, for a note of `key` and `velocity`.
    @_noAllocation @_noLocks
    func modulatorSources(key: UInt8, velocity: UInt8) -> ModulatorSourceValues {
        ModulatorSourceValues(key: key, velocity: velocity, controllers: UnsafePointer(controllers),
                              channelPressure: channelPressure, pitchBend: pitchBend,
                              pitchBendRangeSemitones: bendRangeSemitones)
    }

    /// Reset All Controllers (CC121), as the MIDI RP-015 recommended practice lists it.
    @_noAllocation @_noLocks
    mutating func resetControllers() {
        controllers[MIDIController.modulationWheel.index] = 0
        controllers[MIDIController.expression.index] = 127
        pitchBend = 8_192
        channelPressure = 0
        sustainPedal = false
        controllers[MIDIController.sustainPedal.index] = 0
        registeredParameter = (127, 127)
        noteSourceChange()
    }
}
