import DSP
import FeedbackSuppression
import Lockfree
import Synchronization

// What the control thread reads of the audio thread's work: statistics, peaks, the feedback
// suppressor's state, published once a block.
extension Renderer {
    /// Frames the voices have been rendered past the last block delivered: after
    /// `declareCommandsQueued(before:)`, up to a segment (`VoiceWorkItems.maximumQuantumCount`
    /// quanta) and the quantum a block ends in. A command for an earlier frame sent now takes
    /// effect late.
    /// - Thread: audio. The thread that calls `render`, between two calls.
    public var framesRenderedAhead: Int {
        let reached = voicesUntil + FrameTime(segmentInFlight ? begunSegmentFrameCount : 0)
        return reached > frameTime ? Int(reached - frameTime) : 0
    }

    /// The time each stage of the render took so far, summed over its threads; all zero unless the
    /// configuration profiles them (`RenderConfiguration.profilesStages`).
    /// - Thread: stopped. Or the thread that renders offline, between blocks.
    public var stageTimes: RenderStageTimes { stageClock.times() }

    /// How the voices spent their control blocks so far (`RenderVoiceCensus`); all zero unless the
    /// configuration profiles the render (`RenderConfiguration.profilesStages`).
    /// - Thread: stopped. Or the thread that renders offline, between blocks.
    public var voiceCensus: RenderVoiceCensus { stageClock.census() }

    /// Sampler counters as last published by the audio thread.
    /// - Thread: any.
    public var statistics: RenderStatistics {
        RenderStatistics(activeVoices: publishedActiveVoices.load(ordering: .relaxed),
                         peakVoices: publishedPeakVoices.load(ordering: .relaxed),
                         stolenVoices: publishedStolenVoices.load(ordering: .relaxed),
                         hardCuts: publishedHardCuts.load(ordering: .relaxed),
                         noteOns: publishedNoteOns.load(ordering: .relaxed),
                         unmappedNotes: publishedUnmappedNotes.load(ordering: .relaxed),
                         drumHits: publishedDrumHits.load(ordering: .relaxed),
                         drumRecycles: publishedDrumRecycles.load(ordering: .relaxed),
                         drumChokes: publishedDrumChokes.load(ordering: .relaxed),
                         unmappedHits: publishedUnmappedHits.load(ordering: .relaxed),
                         activeDrumVoices: publishedDrumVoices.load(ordering: .relaxed),
                         limitedFrames: publishedLimitedFrames.load(ordering: .relaxed),
                         deepestLimiterDecibels: -amplitudeToDecibels(
                            Float(bitPattern: publishedDeepestLimiterGain.load(ordering: .relaxed))),
                         sampleUnderruns: publishedSampleUnderruns.load(ordering: .relaxed))
    }

    /// The highest input and output sample magnitudes since the last call (for level meters).
    /// - Thread: control. One reader: it resets the peaks.
    public func takePeaks() -> (input: Float, output: Float) {
        (Float(bitPattern: publishedInputPeak.exchange(0, ordering: .relaxed)),
         Float(bitPattern: publishedOutputPeak.exchange(0, ordering: .relaxed)))
    }

    /// What the feedback suppressor has done, as last published.
    /// - Thread: any.
    public var feedback: FeedbackStatus {
        FeedbackStatus(notchedFrequencies: publishedNotchedFrequencies.load(ordering: .acquiring),
                       lastNotchedHertz: Float(bitPattern: publishedLastNotchedHertz.load(ordering: .relaxed)),
                       ducks: publishedFeedbackDucks.load(ordering: .relaxed),
                       notches: (0..<publishedNotches.count).compactMap { slot in
                           let bits = publishedNotches[slot].load(ordering: .relaxed)
                           guard bits != 0 else { return nil }
                           return FeedbackNotch(hertz: Float(bitPattern: UInt32(truncatingIfNeeded: bits >> 32)),
                                                depthDecibels: Float(bitPattern: UInt32(truncatingIfNeeded: bits)))
                       })
    }

    /// What the microphone's voice processing has found, as last published.
    /// - Thread: any.
    public var voiceProcessing: VoiceProcessingStatus {
        let hertz = Float(bitPattern: publishedHumHertz.load(ordering: .relaxed))
        let power = Float(bitPattern: publishedHumPower.load(ordering: .relaxed))
        let echoReturnLoss = Float(bitPattern: publishedEchoReturnLoss.load(ordering: .relaxed))
        return VoiceProcessingStatus(humHertz: hertz > 0 ? hertz : nil, humDecibels: power > 1e-20 ? amplitudeToDecibels(power.squareRoot()) : -200,
                                     echoReturnLossEnhancementDecibels: echoReturnLoss.isNaN ? nil : echoReturnLoss)
    }

    /// What the echo canceller's filter has learnt of the room (`VoiceProcessor.learntEchoTail`).
    /// - Thread: stopped. Allocates.
    public func learntEchoTail() -> (decaySeconds: Double, filterSeconds: Double, endDecibels: Float)? {
        chain.voice?.learntEchoTail()
    }

    /// Events the audio thread could not send because the return ring was full.
    /// - Thread: any.
    public var droppedEventCount: Int { publishedDroppedEventCount.load(ordering: .relaxed) }

    /// MIDI messages `receive(_:atFrameOffset:)` could not take because the pending store was full.
    /// - Thread: any.
    public var droppedInputMessageCount: Int { publishedDroppedInputMessages.load(ordering: .relaxed) }

    @_noAllocation @_noLocks
    func publishStatistics() {
        publishedActiveVoices.store(sampler.activeVoiceCount, ordering: .relaxed)
        publishedPeakVoices.store(sampler.peakVoiceCount, ordering: .relaxed)
        publishedStolenVoices.store(sampler.pool.stolenCount, ordering: .relaxed)
        publishedHardCuts.store(sampler.pool.hardCutCount, ordering: .relaxed)
        publishedNoteOns.store(sampler.noteOnCount, ordering: .relaxed)
        publishedUnmappedNotes.store(sampler.unmappedNoteCount, ordering: .relaxed)
        publishedSampleUnderruns.store(sampler.sampleUnderruns, ordering: .relaxed)
        publishedDrumHits.store(drums.hitCount, ordering: .relaxed)
        publishedDrumRecycles.store(drums.recycledCount, ordering: .relaxed)
        publishedDrumChokes.store(drums.chokedCount, ordering: .relaxed)
        publishedUnmappedHits.store(drums.unmappedHitCount, ordering: .relaxed)
        publishedDrumVoices.store(drums.activeVoiceCount, ordering: .relaxed)
        publishedLimitedFrames.store(chain.limiter.reducedFrameCount, ordering: .relaxed)
        // The frequency before the count: a reader that sees the count sees its frequency.
        publishedLastNotchedHertz.store(chain.feedback.lastNotchedHertz.bitPattern, ordering: .relaxed)
        publishedFeedbackDucks.store(chain.feedback.duckCount, ordering: .relaxed)
        for slot in 0..<publishedNotches.count {
            let notch = chain.feedback.notch(at: slot)
            let bits = notch.hertz > 0 ? UInt64(notch.hertz.bitPattern) << 32 | UInt64(notch.depthDecibels.bitPattern) : 0
            publishedNotches[slot].store(bits, ordering: .relaxed)
        }
        publishedNotchedFrequencies.store(chain.feedback.notchedFrequencyCount, ordering: .releasing)
        publishedDeepestLimiterGain.store(chain.limiter.deepestGain.bitPattern, ordering: .relaxed)
        let hum: (fundamentalHertz: Double?, power: Float) = chain.voice?.humStatus ?? (nil, 0)
        publishedHumHertz.store(Float(hum.fundamentalHertz ?? 0).bitPattern, ordering: .relaxed)
        publishedHumPower.store(hum.power.bitPattern, ordering: .relaxed)
        publishedEchoReturnLoss.store((chain.voice?.echoReturnLossEnhancementDecibels ?? .nan).bitPattern, ordering: .relaxed)
    }
}
