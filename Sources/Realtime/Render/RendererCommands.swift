import DSP
import FeedbackSuppression
import Lockfree
import Synchronization

// Command scheduling: what arrives through the command ring and from a live MIDI port, applied
// at its frame, and events reported back to the control thread.
extension Renderer {
    /// Whether a queued command takes effect at `frame` or before.
    @_noAllocation @_noLocks
    func commandIsDue(at frame: FrameTime) -> Bool {
        takeQueuedCommands(arrivingAt: frame)
        guard let command = pending.first else { return false }
        return command.frameTime <= frame
    }

    /// Sends an event to the control thread; when the return ring is full it is counted as dropped.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    public func report(_ event: RenderEvent) {
        if !events.tryPush(event) {
            publishedDroppedEventCount.add(1, ordering: .relaxed)
        }
    }

    /// Takes a MIDI message that arrived on the audio thread itself (a JACK MIDI port's event in the
    /// current cycle), to take effect `frameOffset` frames into the next block `render` renders:
    /// sample-accurate as a stamped command is, and ordered with the ring's commands by frame.
    /// Returns false, and counts the message as dropped, when the pending store is full.
    /// - Thread: audio. Before the `render` call of the block it belongs to.
    @_noAllocation @_noLocks
    @discardableResult
    public func receive(_ message: MIDIMessage, atFrameOffset frameOffset: Int) -> Bool {
        // What the ring holds was sent earlier: it keeps its place ahead of this message.
        takeQueuedCommands(arrivingAt: frameTime)
        let command = RenderCommand(at: frameTime + FrameTime(max(0, frameOffset)), .midi(message))
        guard pending.insert(command, dueNoEarlierThan: frameTime) else {
            publishedDroppedInputMessages.add(1, ordering: .relaxed)
            return false
        }
        return true
    }

    /// Applies every command due at `offset` in the quantum and returns where the quantum must next
    /// be split: the offset of the first command still in the future, or `frameCount`.
    ///
    /// Commands take effect in the order of their frames (at the same frame, in the order sent),
    /// whatever order they were sent in: each call first moves what the ring holds into `pending`,
    /// so a command for now is never held behind one sent earlier for later. A command stamped in
    /// the past is due at the frame it is read at, after the commands sent before it.
    ///
    /// A command that cannot be applied yet (a bank or kit install waiting for a free slot) keeps
    /// its place and is retried at the next call, and is a barrier: every command due after it
    /// waits too, so a note-on sent after an install never sounds on the old bank, nor a note-off
    /// overtakes its note-on. Commands due before it are not held by it.
    ///
    /// When `pending` is full, the ring is read no further until a pending command has been
    /// applied: what is still in the ring waits there, in the order sent, and senders find the ring
    /// full (`Engine.send`).
    ///
    /// A command that changes what the mixing uses waits until every segment rendered before it
    /// is mixed (`advanceInstruments`).
    @_noAllocation @_noLocks
    func applyCommands(dueBefore frameCount: Int, offset: Int, quantumStart: FrameTime) -> Int {
        let now = quantumStart + FrameTime(offset)
        while true {
            takeQueuedCommands(arrivingAt: now)
            guard let command = pending.first else { return frameCount }
            if command.frameTime > now {
                let distance = command.frameTime - quantumStart
                return distance < FrameTime(frameCount) ? Int(distance) : frameCount
            }
            if command.action.touchesMix { mixUnmixedSegments() }
            guard apply(command.action) else { return frameCount }
            pending.removeFirst()
        }
    }

    /// Moves commands from the ring into `pending` while it has room.
    @_noAllocation @_noLocks
    func takeQueuedCommands(arrivingAt now: FrameTime) {
        while !pending.isFull, let command = commands.tryPop() {
            _ = pending.insert(command, dueNoEarlierThan: now)
        }
    }

    /// Gives back the retain an install command carries (one that was never applied).
    /// - Thread: stopped. Not real-time safe: may free.
    static func releaseObject(of command: RenderCommand) {
        switch command.action {
        case let .installBank(object, _), let .installKit(object, _): object.release()
        default: break
        }
    }

    /// Returns false when the action must wait for a later block.
    @_noAllocation @_noLocks
    func apply(_ action: RenderCommand.Action) -> Bool {
        switch action {
        case let .toneOn(slot, frequency, amplitude):
            tones.start(slot: slot, frequency: frequency, amplitude: amplitude)
        case let .toneOff(slot):
            tones.stop(slot: slot)
        case .allSoundOff:
            tones.stopAll()
            sampler.allSoundOff(channel: nil)
            drums.fadeAll()
            sends.fadeOut(from: sampler.now)
        case let .midi(message):
            apply(message)
        case let .installBank(bank, layout):
            return sampler.install(bank, layout: layout)
        case let .installKit(kit, layout):
            return drums.install(kit, layout: layout)
        case let .reverbPreset(preset):
            chain.setReverbPreset(preset)
        case let .mute(muted):
            chain.setMuted(muted)
        }
        return true
    }

    /// Acts on a MIDI message: the sampler's channels, the drum kit on channel 10, the song's volume.
    @_noAllocation @_noLocks
    func apply(_ message: MIDIMessage) {
        switch message {
        case let .noteOn(channel, key, velocity):
            // With a kit installed, channel 10 is the kit's (one-shots: note-offs do not matter).
            let kitPlays = drums.hasKit
            if kitPlays, channel == GeneralMIDI.percussionChannel {
                if velocity > 0 { _ = drums.hit(note: key, velocity: velocity) }
            } else {
                sampler.noteOn(channel: channel, key: key, velocity: velocity)
            }
        case let .noteOff(channel, key, _):
            sampler.noteOff(channel: channel, key: key)
        case let .controlChange(channel, controller, value):
            if channel == GeneralMIDI.percussionChannel, case .allSoundOff? = MIDIController.named(controller) { drums.fadeAll() }
            sampler.controlChange(channel: channel, controller: controller, value: value)
        case let .programChange(channel, program):
            sampler.programChange(channel: channel, program: program)
        case let .pitchBend(channel, value):
            sampler.pitchBend(channel: channel, value: value)
        case let .channelPressure(channel, pressure):
            sampler.channelPressure(channel: channel, pressure: pressure)
        case let .polyPressure(channel, key, pressure):
            sampler.polyPressure(channel: channel, key: key, pressure: pressure)
        case .system(.systemReset):
            // Every sound stops, the channels go back to the General MIDI defaults, and the song's
            // master volume to full.
            sampler.systemReset()
            drums.fadeAll()
            songVolume.move(to: songGain)
        case let .system(.rhythmPart(channel, isDrum)):
            sampler.setRhythmPart(channel: channel, isDrum: isDrum)
        case let .system(.masterVolume(value)):
            // A linear gain on every MIDI instrument, ramped over 5 ms; it multiplies the
            // listener's `masterVolume` knob, which it leaves alone.
            songVolume.move(to: songGain * Float(min(value, 16_383)) / 16_383)
        }
    }
}
