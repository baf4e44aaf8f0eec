import CSpeexDSP
import DSP
import Glibc

/// Voice processing for the microphone: mains hum removal (`HumRemover`, first, since speex's
/// suppressor leaves tones standing), then through libspeexdsp noise suppression, automatic gain
/// control, and echo cancellation of what the engine itself plays (with speex's residual-echo
/// suppression after its adaptive filter, which alone leaves about 15 dB of echo).
///
/// Speex works on whole frames of `frameCount(sampleRate:)` frames (5 ms). The stage collects the
/// microphone a frame at a time, and speex's preprocessor overlaps each frame with the one before
/// it (its analysis window is two frames long), so what comes out is two frames late:
/// `latencyFrameCount`, 10 ms, whatever the block size; and the output does not depend on the
/// block size either, since frames are counted from the first sample the stage sees. With every
/// step off the stage is that delay alone, sample for sample (speex still runs beside it, so that
/// a step switched on finds its state current).
///
/// Guarantees: `init` (control thread) allocates everything, speex's states included; `process`
/// and `apply` allocate nothing, lock nothing and make no system call (speex's frame functions and
/// parameter setters touch only the state they were given). The microphone is processed in mono.
///
/// - Thread: audio. Built on the control thread; `deallocate` when no audio thread runs it.
public struct VoiceProcessor {
    /// The noise suppression `--denoise` gives when no level is named.
    /// - Thread: any.
    public static var defaultNoiseSuppressionDecibels: Float { -25 }
    /// The deepest suppression speex is asked for: below that it mostly eats the voice.
    /// - Thread: any.
    public static var noiseSuppressionRange: ClosedRange<Float> { -60 ... 0 }
    /// The level `--agc` aims for when none is named, in dBFS (speech's loudness, about its RMS
    /// while it is voiced).
    /// - Thread: any.
    public static var defaultGainTargetDecibels: Float { -18 }
    /// - Thread: any.
    public static var gainTargetRange: ClosedRange<Float> { -40 ... -3 }
    /// How long an echo the canceller models: the speaker-to-microphone path (the devices'
    /// buffers, then the room's reflections). Speex's guidance is a third of the room's
    /// reverberation time; 100 ms is that for a living room's 300 ms, and a longer filter
    /// converges more slowly (200 ms left twice the echo after the same 3 s of a backing track, in
    /// `VoiceProcessingTests`); what it leaves, speex's residual-echo suppression takes.
    /// - Thread: any.
    public static var echoTailSeconds: Double { 0.1 }
    /// The tails `--echo-tail` may choose, in seconds.
    /// - Thread: any.
    public static var echoTailRange: ClosedRange<Double> { 0.02...1 }
    /// The gain the automatic gain control may apply at most, in dB: enough to bring a quiet
    /// talker at −45 dBFS to the default target, not so much that it pumps the room's noise up.
    /// - Thread: any.
    public static var maximumGainDecibels: Int32 { 30 }
    /// How fast the automatic gain may rise and must be able to fall, in dB per second: it rises
    /// only while speech is present, so a quiet talker is up to level within two seconds.
    /// - Thread: any.
    public static var gainIncreaseDecibelsPerSecond: Int32 { 24 }
    /// - Thread: any.
    public static var gainDecreaseDecibelsPerSecond: Int32 { -40 }

    /// The processing frame at `sampleRate`: 5 ms, so that with the preprocessor's overlap of one
    /// frame the stage adds 10 ms. (Speex's spectra are then 200 Hz apart at 48 kHz; its gains are
    /// smoothed over critical bands anyway.)
    /// - Thread: any.
    public static func frameCount(sampleRate: Double) -> Int { max(1, Int((sampleRate / 200).rounded())) }

    /// The delay the stage adds at `sampleRate`, in frames: two processing frames, 10 ms.
    /// - Thread: any.
    public static func latencyFrameCount(sampleRate: Double) -> Int { 2 * frameCount(sampleRate: sampleRate) }

    /// Frames per processing frame.
    public let frameCount: Int
    private let sampleRate: Double
    /// True when the stage was built with an echo canceller (it cannot be added later: its filter
    /// is allocated at build).
    public let cancelsEcho: Bool

    private let preprocessor: OpaquePointer
    private let echoCanceller: OpaquePointer?
    /// The frame being collected: the microphone as it came (for the exact bypass) and as speex
    /// reads it, and the reference (what the engine played) beside it.
    private let captured: UnsafeMutablePointer<Float>
    private let capturedWords: UnsafeMutablePointer<Int16>
    private let referenceWords: UnsafeMutablePointer<Int16>
    private let cancelledWords: UnsafeMutablePointer<Int16>
    /// The last processed frame, handed out while the next is collected.
    private let processed: UnsafeMutablePointer<Float>
    /// The frame before `captured`, as it came: what speex's output stands for, and so what the
    /// bypass hands out.
    private let previous: UnsafeMutablePointer<Float>
    /// The reference frame `previous` was captured beside, for the echo meter.
    private let previousReference: UnsafeMutablePointer<Int16>
    private var filledFrameCount = 0
    private var noiseSuppressionDecibels: Float = 0
    private var gainTargetDecibels: Float? = nil
    /// How much of the echo the stage takes out (the microphone's power over the output's, in
    /// the stretches that hold echo alone).
    private var echoMeter: EchoReturnLossMeter
    /// The late echo past the filter's length, turned down where no voice is (with echo
    /// cancellation only).
    private var lateEchoGate: LateEchoGate?
    /// Sample by sample, before the frame is collected: it adds no delay of its own.
    private var hum: HumRemover
    private var removesHum = false

    /// - Parameters:
    ///   - sampleRate: the microphone's rate.
    ///   - echoCancellation: build the echo canceller (its reference is passed to `process`).
    ///   - echoTailSeconds: how long an echo it models (clamped to `echoTailRange`).
    /// - Thread: control. Not real-time safe: allocates.
    public init(sampleRate: Double, echoCancellation: Bool, echoTailSeconds: Double = VoiceProcessor.echoTailSeconds) {
        let frames = Self.frameCount(sampleRate: sampleRate)
        frameCount = frames
        self.sampleRate = sampleRate
        cancelsEcho = echoCancellation
        let rate = Int32(sampleRate.rounded())
        preprocessor = speex_preprocess_state_init(Int32(frames), rate)
        echoMeter = EchoReturnLossMeter(frameCount: frames, sampleRate: sampleRate)
        if echoCancellation {
            let seconds = min(max(echoTailSeconds, Self.echoTailRange.lowerBound), Self.echoTailRange.upperBound)
            let tail = Int32(seconds * sampleRate)
            lateEchoGate = LateEchoGate(frameCount: frames, filterFrameCount: Int(tail), sampleRate: sampleRate)
            let canceller = speex_echo_state_init(Int32(frames), tail)!
            var echoRate = rate
            speex_echo_ctl(canceller, SPEEX_ECHO_SET_SAMPLING_RATE, &echoRate)
            speex_preprocess_ctl(preprocessor, SPEEX_PREPROCESS_SET_ECHO_STATE, UnsafeMutableRawPointer(canceller))
            echoCanceller = canceller
        } else {
            echoCanceller = nil
        }
        var maximumGain = Self.maximumGainDecibels
        speex_preprocess_ctl(preprocessor, SPEEX_PREPROCESS_SET_AGC_MAX_GAIN, &maximumGain)
        var increase = Self.gainIncreaseDecibelsPerSecond
        speex_preprocess_ctl(preprocessor, SPEEX_PREPROCESS_SET_AGC_INCREMENT, &increase)
        var decrease = Self.gainDecreaseDecibelsPerSecond
        speex_preprocess_ctl(preprocessor, SPEEX_PREPROCESS_SET_AGC_DECREMENT, &decrease)
        func buffer<Element: Numeric>(_: Element.Type) -> UnsafeMutablePointer<Element> {
            let buffer = UnsafeMutablePointer<Element>.allocate(capacity: frames)
            buffer.initialize(repeating: 0, count: frames)  // touched now, not on the audio thread
            return buffer
        }
        captured = buffer(Float.self)
        processed = buffer(Float.self)
        previous = buffer(Float.self)
        capturedWords = buffer(Int16.self)
        referenceWords = buffer(Int16.self)
        cancelledWords = buffer(Int16.self)
        previousReference = buffer(Int16.self)
        hum = HumRemover(sampleRate: sampleRate)
        SpeexCalls.configure(preprocessor, noiseSuppressionDecibels: 0, gainTargetDecibels: nil, cancelsEcho: cancelsEcho)
    }

    /// Frees speex's states and the buffers.
    /// - Thread: stopped.
    public func deallocate() {
        speex_preprocess_state_destroy(preprocessor)
        if let echoCanceller { speex_echo_state_destroy(echoCanceller) }
        captured.deallocate()
        processed.deallocate()
        previous.deallocate()
        capturedWords.deallocate()
        referenceWords.deallocate()
        cancelledWords.deallocate()
        previousReference.deallocate()
        lateEchoGate?.deallocate()
        hum.deallocate()
    }

    /// True while any of speex's steps works on the signal; otherwise the stage is its delay
    /// alone, after the hum removal when that is on.
    /// - Thread: audio.
    public var isProcessing: Bool {
        @_noAllocation @_noLocks get { noiseSuppressionDecibels < 0 || gainTargetDecibels != nil || cancelsEcho }
    }

    /// The echo return loss enhancement: how far below the microphone's echo the output's is, in
    /// dB, once the track has played long enough to tell (nil before, or without echo
    /// cancellation).
    /// - Thread: audio.
    public var echoReturnLossEnhancementDecibels: Float? {
        @_noAllocation @_noLocks get { cancelsEcho ? echoMeter.decibels : nil }
    }

    /// What the echo canceller's filter has learnt of the room: how long its response takes to
    /// fall `learntTailFloorDecibels` (its energy, integrated backwards from the end), and how far
    /// below its start the energy is in the filter's last tenth. A room whose echo outlasts the
    /// filter still holds energy there: a longer `echoTailSeconds` would model more of it. Nil
    /// without echo cancellation, or before the filter has learnt anything.
    /// - Thread: stopped. Allocates.
    public func learntEchoTail() -> (decaySeconds: Double, filterSeconds: Double, endDecibels: Float)? {
        guard let echoCanceller else { return nil }
        var size: Int32 = 0
        speex_echo_ctl(echoCanceller, SPEEX_ECHO_GET_IMPULSE_RESPONSE_SIZE, &size)
        guard size > 0 else { return nil }
        var taps = [Int32](repeating: 0, count: Int(size))
        taps.withUnsafeMutableBufferPointer { _ = speex_echo_ctl(echoCanceller, SPEEX_ECHO_GET_IMPULSE_RESPONSE, $0.baseAddress) }
        // Schroeder's backward integration: the energy still to come after each tap.
        var remaining = [Double](repeating: 0, count: taps.count + 1)
        for index in stride(from: taps.count - 1, through: 0, by: -1) {
            remaining[index] = remaining[index + 1] + Double(taps[index]) * Double(taps[index])
        }
        guard remaining[0] > 0 else { return nil }
        let floor = remaining[0] * pow(10, Double(Self.learntTailFloorDecibels) / 10)
        let decay = remaining.firstIndex { $0 <= floor } ?? taps.count
        let lastTenth = remaining[taps.count - taps.count / 10]
        return (Double(decay) / sampleRate, Double(taps.count) / sampleRate,
                lastTenth > 0 ? Float(10 * log10(lastTenth / remaining[0])) : -200)
    }

    /// How far the learnt response's energy must fall for the echo to count as over, in dB.
    /// - Thread: any.
    public static var learntTailFloorDecibels: Float { -30 }

    /// The hum's fundamental once found, in hertz, and the power being cancelled (mean square);
    /// nil and 0 while hum removal is off or has found none.
    /// - Thread: audio.
    public var humStatus: (fundamentalHertz: Double?, power: Float) {
        @_noAllocation @_noLocks get { removesHum ? (hum.fundamentalHertz, hum.humPower) : (nil, 0) }
    }

    /// Sets the steps: hum removal, noise suppression by `noiseSuppressionDecibels` (0 is off),
    /// automatic gain towards `gainTargetDecibels` dBFS (nil is off). Values are clamped to the
    /// ranges above. Speex's steps apply from the next processing frame on, hum removal from the
    /// next sample.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    public mutating func apply(removesHum: Bool, noiseSuppressionDecibels: Float, gainTargetDecibels: Float?) {
        self.removesHum = removesHum
        let noise = min(max(noiseSuppressionDecibels.isNaN ? 0 : noiseSuppressionDecibels, Self.noiseSuppressionRange.lowerBound),
                        Self.noiseSuppressionRange.upperBound)
        var target: Float? = nil
        if let gainTargetDecibels, !gainTargetDecibels.isNaN {
            target = min(max(gainTargetDecibels, Self.gainTargetRange.lowerBound), Self.gainTargetRange.upperBound)
        }
        guard noise != self.noiseSuppressionDecibels || target != self.gainTargetDecibels else { return }
        self.noiseSuppressionDecibels = noise
        self.gainTargetDecibels = target
        SpeexCalls.configure(preprocessor, noiseSuppressionDecibels: noise, gainTargetDecibels: target, cancelsEcho: cancelsEcho)
    }

    /// Processes `frameCount` mono samples in place, two processing frames late. `reference` is what
    /// the engine played over the same frames (the echo to cancel), when the stage cancels echo.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    public mutating func process(_ samples: UnsafeMutablePointer<Float>, reference: UnsafePointer<Float>?, frameCount count: Int) {
        if removesHum { hum.process(samples, frameCount: count) }
        for index in 0..<count {
            let sample = samples[index]
            samples[index] = processed[filledFrameCount]
            captured[filledFrameCount] = sample
            capturedWords[filledFrameCount] = Self.word(sample)
            if let reference { referenceWords[filledFrameCount] = Self.word(reference[index]) }
            filledFrameCount += 1
            if filledFrameCount == frameCount {
                processFrame()
                filledFrameCount = 0
            }
        }
    }

    @_noAllocation @_noLocks
    private mutating func processFrame() {
        var words = capturedWords
        if let echoCanceller {
            SpeexCalls.cancelEcho(echoCanceller, captured: capturedWords, played: referenceWords, into: cancelledWords)
            words = cancelledWords
        }
        SpeexCalls.preprocess(preprocessor, words)
        if isProcessing {
            // Speex's automatic gain aims `SpeexCalls.gainHeadroomDecibels` low, clear of its
            // clipping; the rest of the gain is applied here, in floating point.
            let scale: Float = (gainTargetDecibels == nil ? 1 : SpeexCalls.gainHeadroom) / 32_768
            for index in 0..<frameCount { processed[index] = Float(words[index]) * scale }
        } else {
            for index in 0..<frameCount { processed[index] = previous[index] }
        }
        // Speex's output stands for the frame before: the microphone and reference of that frame.
        if lateEchoGate != nil { lateEchoGate!.process(processed, reference: previousReference) }
        if let lateEchoGate {
            echoMeter.measure(microphone: previous, output: processed, frameCount: frameCount, echoOnly: lateEchoGate.heldEchoOnly)
        }
        for index in 0..<frameCount { previousReference[index] = referenceWords[index] }
        for index in 0..<frameCount { previous[index] = captured[index] }
    }

    /// A sample as speex reads it: 16-bit, clipped at full scale.
    @inline(__always) @_noAllocation @_noLocks
    static func word(_ sample: Float) -> Int16 {
        let scaled = sample * 32_768
        // NaN fails both comparisons and the conversion's range: it is silence.
        guard scaled < 32_767 else { return .max }
        guard scaled > -32_768 else { return scaled.isNaN ? 0 : .min }
        return Int16(scaled + (scaled < 0 ? -0.5 : 0.5))
    }
}

/// The speex calls, one funnel each. Speex's frame functions and parameter setters touch only the
/// state they are given (its allocation is in the init calls, made on the control thread); the
/// performance checker cannot see into C, so each is vouched for here.
enum SpeexCalls {
    /// The speex target for `decibels` dBFS: speex aims its loudness (a weighted spectral measure
    /// in 16-bit units) at this level. `gainTargetCalibrationDecibels` makes the speech that comes
    /// out measure the dBFS asked for, and the target is set `gainHeadroomDecibels` low, since
    /// speex clamps its level at full scale and damps frames that peak near it.
    @_noAllocation @_noLocks
    static func gainLevel(decibels: Float) -> Float {
        32_768 * decibelsToAmplitude(decibels + gainTargetCalibrationDecibels - gainHeadroomDecibels)
    }

    /// How far speex's loudness measure reads below the RMS of voiced speech, in dB: measured on
    /// espeak-ng's speech, at every level (`VoiceProcessingTests.testAutomaticGainBringsSpeechToItsTarget`).
    static var gainTargetCalibrationDecibels: Float { 15.1 }
    /// Speex's residual-echo suppression: how far it turns down what echo the filter leaves, in
    /// dB, while the singer is silent and while the singer sings (speex's defaults: −40, −15).
    static var echoSuppressionDecibels: Int32 { -40 }
    static var activeEchoSuppressionDecibels: Int32 { -15 }
    /// How far below the target speex's automatic gain works; the stage adds it back.
    static var gainHeadroomDecibels: Float { 20 }
    /// `gainHeadroomDecibels` as a factor.
    static var gainHeadroom: Float { 10 }

    /// Sets the preprocessor's steps. Echo suppression works only while speex's denoiser runs, so
    /// with echo cancellation the denoiser stays on, at 0 dB of noise suppression when that is off.
    @_noAllocation @_noLocks
    static func configure(_ state: OpaquePointer, noiseSuppressionDecibels: Float, gainTargetDecibels: Float?, cancelsEcho: Bool) {
        var denoise: Int32 = noiseSuppressionDecibels < 0 || cancelsEcho ? 1 : 0
        var suppression = Int32(noiseSuppressionDecibels - 0.5)  // rounded: it is never positive
        var gain: Int32 = gainTargetDecibels == nil ? 0 : 1
        var level = gainLevel(decibels: gainTargetDecibels ?? VoiceProcessor.defaultGainTargetDecibels)
        var echoSuppression = echoSuppressionDecibels, activeEchoSuppression = activeEchoSuppressionDecibels
        _ = _unsafePerformance {
            speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_ECHO_SUPPRESS, &echoSuppression)
            speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_ECHO_SUPPRESS_ACTIVE, &activeEchoSuppression)
            speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_DENOISE, &denoise)
            speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_NOISE_SUPPRESS, &suppression)
            speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_AGC, &gain)
            return speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_AGC_LEVEL, &level)
        }
    }

    /// `speex_echo_cancellation`: the captured frame less the adaptive filter's estimate of the
    /// played frame's echo.
    @_noAllocation @_noLocks
    static func cancelEcho(_ state: OpaquePointer, captured: UnsafePointer<Int16>, played: UnsafePointer<Int16>,
                           into output: UnsafeMutablePointer<Int16>) {
        _unsafePerformance { speex_echo_cancellation(state, captured, played, output) }
    }

    /// `speex_preprocess_run`, in place.
    @_noAllocation @_noLocks
    static func preprocess(_ state: OpaquePointer, _ frame: UnsafeMutablePointer<Int16>) {
        _ = _unsafePerformance { speex_preprocess_run(state, frame) }
    }
}

