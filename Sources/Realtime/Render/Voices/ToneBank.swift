import DSP

/// The test-tone instrument: a few sine voices, each faded in and out so that starting and stopping
/// never clicks. Storage is allocated once by `init`; rendering only reads and writes it.
struct ToneBank {
    static var slotCount: Int { 16 }

    struct Voice {
        var oscillator = SineOscillator()
        var amplitude: SmoothedValue
        var isSounding = false
    }

    let voices: UnsafeMutablePointer<Voice>
    let sampleRate: Double

    init(sampleRate: Double) {
        self.sampleRate = sampleRate
        voices = .allocate(capacity: Self.slotCount)
        let fadeFrameCount = Int((ClickFreeFade.seconds * sampleRate).rounded())
        voices.initialize(repeating: Voice(amplitude: SmoothedValue(0, rampFrameCount: fadeFrameCount)),
                          count: Self.slotCount)
    }

    func deallocate() {
        voices.deinitialize(count: Self.slotCount)
        voices.deallocate()
    }

    @_noAllocation @_noLocks
    func start(slot: UInt8, frequency: Float, amplitude: Float) {
        guard Int(slot) < Self.slotCount, frequency.isFinite, amplitude.isFinite else { return }
        let voice = voices + Int(slot)
        if !voice.pointee.isSounding {
            voice.pointee.oscillator.resetPhase()
            voice.pointee.amplitude.reset(to: 0)
            voice.pointee.isSounding = true
        }
        voice.pointee.oscillator.setFrequency(Double(frequency), sampleRate: sampleRate)
        voice.pointee.amplitude.move(to: min(max(amplitude, 0), 1))
    }

    @_noAllocation @_noLocks
    func stop(slot: UInt8) {
        guard Int(slot) < Self.slotCount else { return }
        voices[Int(slot)].amplitude.move(to: 0)
    }

    @_noAllocation @_noLocks
    func stopAll() {
        for slot in 0..<Self.slotCount { voices[slot].amplitude.move(to: 0) }
    }

    /// Adds every sounding voice into both `left` and `right` (a centred tone).
    @_noAllocation @_noLocks
    func render(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frameCount: Int) {
        for slot in 0..<Self.slotCount where voices[slot].isSounding {
            let voice = voices + slot
            for frame in 0..<frameCount {
                let value = voice.pointee.oscillator.next() * voice.pointee.amplitude.next()
                left[frame] += value
                right[frame] += value
            }
            if !voice.pointee.amplitude.isMoving && voice.pointee.amplitude.current == 0 {
                voice.pointee.isSounding = false
            }
        }
    }
}
