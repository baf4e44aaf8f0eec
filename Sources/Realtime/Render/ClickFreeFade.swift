/// The one length of every fade that must not click: a stolen or silenced voice, a drum pad's
/// recycle and choke, the test tone's start and stop, the effect returns on all sound off, and the
/// master volume, mute and song-gain ramps. 5 ms: long enough that the fade has no audible
/// spectrum of its own, short enough to feel instant.
public enum ClickFreeFade {
    /// The fade's length in seconds. Computed, not stored: the audio thread reads it, and a global
    /// would be initialised lazily behind a lock the performance checker rejects.
    /// - Thread: any.
    @inlinable
    public static var seconds: Double {
        @_noAllocation @_noLocks get { 0.005 }
    }
}
