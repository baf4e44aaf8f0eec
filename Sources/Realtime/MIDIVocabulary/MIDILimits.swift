/// The sizes MIDI 1.0 fixes, in one place: the renderer's per-channel, per-controller and per-key
/// tables, the loaders' key tables and every loop over the channels agree because they read these.
///
/// Computed, not stored: the audio thread reads them, and a global would be initialised lazily
/// behind a lock the performance checker rejects.
public enum MIDILimits {
    /// Channels on one MIDI port, numbered 0-15 here (1-16 on the wire's documentation).
    /// - Thread: any.
    @inlinable
    public static var channelCount: Int {
        @_noAllocation @_noLocks get { 16 }
    }

    /// Controller numbers, 0-127: one continuous controller value a channel keeps for each.
    /// - Thread: any.
    @inlinable
    public static var controllerCount: Int {
        @_noAllocation @_noLocks get { 128 }
    }

    /// Keys (note numbers), 0-127: the key-indexed tables (regions by key, pads by note, key
    /// pressures, voice chains) have this many entries.
    /// - Thread: any.
    @inlinable
    public static var keyCount: Int {
        @_noAllocation @_noLocks get { 128 }
    }
}
