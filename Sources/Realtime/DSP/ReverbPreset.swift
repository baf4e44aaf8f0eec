/// The reverb's named settings. `rt60Seconds` is the broadband decay time, as measured: T30
/// (Schroeder backward integration of the impulse response's energy, a line fitted from −5 to
/// −35 dB, extrapolated to −60 dB) at 48 kHz; `ReverbTests` checks each within 10 %. Damping makes
/// the highs die sooner than the lows, so the low-frequency decay the preset sets
/// (`lowFrequencyRT60Seconds`, what `Reverb.setDecay` takes) is longer, by a factor calibrated
/// against that measurement. The three rooms are Freeverb settings; the plate is Dattorro's plate
/// tank (see `DattorroPlate`), whose damping runs only twice per trip round a long loop, so it
/// shortens the broadband decay less.
public enum ReverbPreset: Sendable, CaseIterable, BitwiseCopyable {
    /// A small, fairly dead room: RT60 0.5 s, strong damping.
    case smallRoom
    /// A medium room: RT60 1.0 s.
    case mediumRoom
    /// A large concert hall: RT60 2.8 s, gently damped.
    case largeHall
    /// Dattorro's plate: RT60 1.8 s, bright (lightly damped), dense from the start, with a slowly
    /// modulated tail and a 20 ms pre-delay.
    case plate

    /// For display.
    /// - Thread: any.
    public var name: String {
        switch self {
        case .smallRoom: "Small room"
        case .mediumRoom: "Medium room"
        case .largeHall: "Large hall"
        case .plate: "Plate"
        }
    }

    /// The broadband decay time to −60 dB (T30), in seconds.
    /// - Thread: any.
    public var rt60Seconds: Double {
        @inlinable @_noAllocation @_noLocks get {
            switch self {
            case .smallRoom: 0.5
            case .mediumRoom: 1.0
            case .largeHall: 2.8
            case .plate: 1.8
            }
        }
    }

    /// The decay time to −60 dB below the damping's reach (the tank's DC loop gain), in seconds.
    /// - Thread: any.
    public var lowFrequencyRT60Seconds: Double {
        @inlinable @_noAllocation @_noLocks get {
            switch self {
            case .smallRoom: 0.59
            case .mediumRoom: 1.17
            case .largeHall: 3.18
            case .plate: 1.88
            }
        }
    }

    /// High-frequency damping, 0 (none) … 1 (Freeverb's strongest pole, in either tank).
    /// - Thread: any.
    public var damping: Float {
        @inlinable @_noAllocation @_noLocks get {
            switch self {
            case .smallRoom: 0.7
            case .mediumRoom: 0.5
            case .largeHall: 0.35
            case .plate: 0.25
            }
        }
    }
}
