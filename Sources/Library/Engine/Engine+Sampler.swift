import DSP
import MIDI
import Render

extension Engine {
    /// Queues `bank` to become the current instrument set at `frameTime`. Voices already sounding
    /// ring out on the bank they started with; the old bank is freed here, on the control thread,
    /// once its last voice has ended (see `processEvents`). Returns false, and nothing changes,
    /// when the command ring is full.
    /// - Thread: control.
    @discardableResult
    public func install(_ bank: SampleBank, at frameTime: FrameTime = 0) -> Bool {
        let handle = RetainedObject(retaining: bank)
        if send(.installBank(handle, layout: bank.layout), at: frameTime) { return true }
        handle.release()
        return false
    }

    /// Queues `kit` to become the drum kit at `frameTime`: from then on channel 10 plays it, through
    /// a playback of its own (`DrumKitPlayback`), so one kit may serve any number of engines. The
    /// old kit rings out and its playback is freed here once silent. Returns false when the command
    /// ring is full.
    /// - Thread: control.
    @discardableResult
    public func install(_ kit: DrumKit, at frameTime: FrameTime = 0) -> Bool {
        let playback = DrumKitPlayback(of: kit)
        let handle = RetainedObject(retaining: playback)
        if send(.installKit(handle, layout: playback.layout), at: frameTime) { return true }
        handle.release()
        return false
    }

    /// Queues a MIDI message (a channel message, or a recognised SysEx) at `frameTime`, as
    /// `send(.midi(message))` does. Returns false when the command ring is full (releases are kept:
    /// see `send(_:at:)`).
    /// - Thread: control.
    @discardableResult
    public func send(midi message: MIDIMessage, at frameTime: FrameTime = 0) -> Bool {
        send(.midi(message), at: frameTime)
    }

    /// Sends All Notes Off and resets the pedals on every channel: what every exit path does, so
    /// no note can stay stuck.
    /// - Thread: control.
    public func releaseAllNotes(at frameTime: FrameTime = 0) {
        for channel in 0..<MIDILimits.channelCount {
            send(midi: .controlChange(channel: UInt8(channel), controller: MIDIController.sustainPedal.rawValue, value: 0), at: frameTime)
            send(midi: .controlChange(channel: UInt8(channel), controller: MIDIController.allNotesOff.rawValue, value: 0), at: frameTime)
        }
    }
}
