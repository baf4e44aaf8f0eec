import DSP

/// One MIDI channel's controllers as the sampler's voices see them: the values their modulators
/// read (`SamplerModulator`), and a counter that moves whenever one changes, so a voice re-evaluates
/// its modulators only then.
struct ChannelState {
    var bankMSB: UInt8 = 0
    var bankLSB: UInt8 = 0
    var program: UInt8 = 0
    /// Index of the selected preset in the current bank, or -1 when the bank has none for it.
    var presetIndex = -1
    /// The last keyswitch played (`SampleBank.Preset.lowKeyswitch`), or the preset's default
    /// since it was selected.
    var keyswitch = SamplerRegion.anyKeyswitch
    var pitchBend: UInt16 = 8_192
    /// RPN 0: pitch-bend range in semitones (+ cents / 100).
    var bendRangeSemitones: Float = 2
    var registeredParameter: (msb: UInt8, lsb: UInt8) = (127, 127)
    /// Channel pressure (aftertouch for the whole channel); polyphonic key pressure is per key,
    /// in `keyPressures`, and never moves it.
    var channelPressure: UInt8 = 0
    var sustainPedal = false
    /// CC66 is down: the notes it caught (`SamplerVoice.isCaughtBySostenuto`) are held.
    var sostenutoPedal = false
    /// RPN 0 as data entry set it: semitones (MSB) and cents (LSB); `bendRangeSemitones` follows it.
    var bendRange: (semitones: UInt8, cents: UInt8) = (2, 0)
    /// RPN 1, fine tuning: 14 bits over ±100 cents, 8192 = none.
    var fineTuning: UInt16 = 8_192
    /// RPN 2, coarse tuning: semitones, 64 = none.
    var coarseTuning: UInt8 = 64
    /// RPN 1 and RPN 2 together, in cents: what every voice of the channel adds to its pitch.
    var tuningCents: Float = 0

    /// The last value of every controller (`controllerCount`), what CC modulator sources read;
    /// owned by the sampler.
    let controllers: UnsafeMutablePointer<UInt8>
    /// The polyphonic key pressure of every key (`keyCount`), what the poly-pressure modulator
    /// source reads; owned by the sampler.
    let keyPressures: UnsafeMutablePointer<UInt8>
    /// Moves on every change a modulator source can see (controllers, pitch wheel, pressures).
    var controllerSerial: UInt32 = 0

    var isPercussion: Bool = false

    @_noAllocation @_noLocks
    init(index: UInt8, controllers: UnsafeMutablePointer<UInt8>, keyPressures: UnsafeMutablePointer<UInt8>) {
        isPercussion = index == GeneralMIDI.percussionChannel
        self.controllers = controllers
        self.keyPressures = keyPressures
        controllers.initialize(repeating: 0, count: MIDILimits.controllerCount)
        keyPressures.initialize(repeating: 0, count: MIDILimits.keyCount)
        // Power-on values (GM; FluidSynth's too): volume 100, pan centre, expression full, reverb 40.
        controllers[MIDIController.volume.index] = 100
        controllers[MIDIController.pan.index] = 64
        controllers[MIDIController.expression.index] = 127
        controllers[MIDIController.reverbSend.index] = 40
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

    /// What this channel's voices' modulators read, for a note of `key` and `velocity` (after the
    /// zone's keynum and velocity generators) played on `pressedKey`, the MIDI key whose
    /// polyphonic pressure it follows (FluidSynth reads the played key's too, not the keynum's).
    @_noAllocation @_noLocks
    func modulatorSources(key: UInt8, velocity: UInt8, pressedKey: UInt8) -> ModulatorSourceValues {
        ModulatorSourceValues(key: key, velocity: velocity, controllers: UnsafePointer(controllers),
                              keyPressure: keyPressures[Int(pressedKey & 0x7F)], channelPressure: channelPressure,
                              pitchBend: pitchBend, pitchBendRangeSemitones: bendRangeSemitones)
    }

    /// Reset All Controllers (CC121), as the MIDI RP-015 recommended practice lists it.
    @_noAllocation @_noLocks
    mutating func resetControllers() {
        controllers[MIDIController.modulationWheel.index] = 0
        controllers[MIDIController.expression.index] = 127
        pitchBend = 8_192
        channelPressure = 0
        keyPressures.update(repeating: 0, count: MIDILimits.keyCount)
        sustainPedal = false
        sostenutoPedal = false
        controllers[MIDIController.sustainPedal.index] = 0
        registeredParameter = (127, 127)
        noteSourceChange()
    }
}

extension ChannelState {
    /// The selected registered parameter's value as data entry's MSB and LSB, or nil when no RPN
    /// Staccato knows (0, 1, 2) is selected. Data entry starts from it, so an MSB alone keeps the
    /// parameter's own LSB and an LSB alone fine-adjusts its own MSB, as MIDI 1.0 intends.
    /// (FluidSynth combines the channel's last CC6 and CC38, whichever parameter they were sent
    /// for, so an LSB left from one parameter leaks into the next.)
    var selectedParameterValue: (msb: UInt8, lsb: UInt8)? {
        @_noAllocation @_noLocks get {
            guard registeredParameter.msb == 0 else { return nil }
            switch registeredParameter.lsb {
            case 0: return (bendRange.semitones, bendRange.cents)
            case 1: return (UInt8(fineTuning >> 7), UInt8(fineTuning & 0x7F))
            case 2: return (coarseTuning, 0)
            default: return nil
            }
        }
    }

    /// Data entry (CC6 `msb`, CC38 `lsb`, one of them per message) for the selected RPN:
    /// 0 is the pitch-bend range (semitones + cents / 100, as FluidSynth reads it), 1 fine tuning
    /// ((data - 8192) / 8192 × 100 cents), 2 coarse tuning (MSB - 64 semitones; the LSB is unused).
    @_noAllocation @_noLocks
    mutating func enterData(msb: UInt8?, lsb: UInt8?) {
        guard var data = selectedParameterValue else { return }
        if let msb { data.msb = msb }
        if let lsb { data.lsb = lsb }
        switch registeredParameter.lsb {
        case 0:
            bendRange = (data.msb, data.lsb)
            bendRangeSemitones = Float(data.msb) + Float(data.lsb) / 100
        case 1:
            fineTuning = UInt16(data.msb) << 7 | UInt16(data.lsb)
        default:
            coarseTuning = data.msb
        }
        tuningCents = (Float(fineTuning) - 8_192) * (100 / 8_192) + (Float(coarseTuning) - 64) * 100
    }
}

