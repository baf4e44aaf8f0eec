/// The URIs the plug-in speaks: its own (the plug-in, its parameters) and the LV2 ones it reads
/// and writes. `lv2/staccato.lv2/staccato.ttl` names the same ones.
public enum PluginURI {
    public static let plugin = "urn:staccato:lv2:sampler"
    /// The instrument file, a `patch:writable` parameter whose values are `atom:Path`s.
    public static let instrument = plugin + "#instrument"
    /// Why the last instrument asked for did not load, an `atom:String` sent on the notify port.
    public static let error = plugin + "#error"
    /// The instrument's path as given, beside its mapped (session-relative) path, in saved state.
    public static let absoluteInstrument = plugin + "#absoluteInstrument"

    static let atom = "http://lv2plug.in/ns/ext/atom#"
    static let patch = "http://lv2plug.in/ns/ext/patch#"
    public static let atomPath = atom + "Path"
    static let atomSequence = atom + "Sequence"
    static let atomObject = atom + "Object"
    static let atomBlank = atom + "Blank"
    static let atomString = atom + "String"
    static let atomURID = atom + "URID"
    static let midiEvent = "http://lv2plug.in/ns/ext/midi#MidiEvent"
    static let patchSet = patch + "Set"
    static let patchGet = patch + "Get"
    static let patchProperty = patch + "property"
    static let patchValue = patch + "value"
}

/// The numbers the host's URID map gave those URIs, looked up once when the plug-in is made, so the
/// audio thread compares integers.
public struct PluginURIDs: Sendable, BitwiseCopyable {
    var atomPath: UInt32 = 0, atomSequence: UInt32 = 0, atomObject: UInt32 = 0, atomBlank: UInt32 = 0
    var atomString: UInt32 = 0, atomURID: UInt32 = 0, midiEvent: UInt32 = 0
    var patchSet: UInt32 = 0, patchGet: UInt32 = 0, patchProperty: UInt32 = 0, patchValue: UInt32 = 0
    var instrument: UInt32 = 0, error: UInt32 = 0

    /// - Parameter map: the host's `urid:map`.
    /// - Thread: control.
    public init(map: (String) -> UInt32) {
        atomPath = map(PluginURI.atomPath)
        atomSequence = map(PluginURI.atomSequence)
        atomObject = map(PluginURI.atomObject)
        atomBlank = map(PluginURI.atomBlank)
        atomString = map(PluginURI.atomString)
        atomURID = map(PluginURI.atomURID)
        midiEvent = map(PluginURI.midiEvent)
        patchSet = map(PluginURI.patchSet)
        patchGet = map(PluginURI.patchGet)
        patchProperty = map(PluginURI.patchProperty)
        patchValue = map(PluginURI.patchValue)
        instrument = map(PluginURI.instrument)
        error = map(PluginURI.error)
    }
}

/// The plug-in's port indices, as `lv2:index` in `staccato.ttl` gives them.
public enum PluginPort {
    /// `atom:Sequence` of MIDI events and `patch:Set`/`patch:Get` messages.
    /// - Thread: any.
    public static var control: UInt32 { @_noAllocation @_noLocks get { 0 } }
    /// `atom:Sequence` of `patch:Set` messages: the instrument loaded, or why one did not.
    /// - Thread: any.
    public static var notify: UInt32 { @_noAllocation @_noLocks get { 1 } }
    /// - Thread: any.
    public static var left: UInt32 { @_noAllocation @_noLocks get { 2 } }
    /// - Thread: any.
    public static var right: UInt32 { @_noAllocation @_noLocks get { 3 } }
    /// Input control: output gain in decibels (`PluginRunCycle.gainRange`).
    /// - Thread: any.
    public static var gain: UInt32 { @_noAllocation @_noLocks get { 4 } }
    /// Output control: the latency the plug-in adds, in frames (`lv2:reportsLatency`).
    /// - Thread: any.
    public static var latency: UInt32 { @_noAllocation @_noLocks get { 5 } }
    /// Input control: the most voices that sound at once (`PluginRunCycle.polyphonyRange`).
    /// - Thread: any.
    public static var polyphony: UInt32 { @_noAllocation @_noLocks get { 6 } }
}

/// What the worker is asked to do, and what it answers: a 32-bit kind, then UTF-8 text (a path, an
/// error line) to the message's end. The host copies the bytes between the threads.
public enum WorkMessage {
    /// Loads the path that follows.
    /// - Thread: any.
    public static var load: UInt32 {
        @_noAllocation @_noLocks get { 1 }
    }
    /// Loads the system's General MIDI font, unless an instrument is in or on its way.
    /// - Thread: any.
    public static var loadDefault: UInt32 {
        @_noAllocation @_noLocks get { 2 }
    }
    /// Frees what the audio thread has let go (an instrument replaced, once silent).
    /// - Thread: any.
    public static var tidy: UInt32 {
        @_noAllocation @_noLocks get { 3 }
    }
    /// Answers with the playing instrument's path (`loaded`): a `patch:Get`.
    /// - Thread: any.
    public static var report: UInt32 {
        @_noAllocation @_noLocks get { 4 }
    }
    /// Answer: the instrument at the path that follows plays now.
    /// - Thread: any.
    public static var loaded: UInt32 {
        @_noAllocation @_noLocks get { 101 }
    }
    /// Answer: the line that follows says why an instrument did not load.
    /// - Thread: any.
    public static var failed: UInt32 {
        @_noAllocation @_noLocks get { 102 }
    }
    /// The longest text a message carries, in bytes (PATH_MAX): a longer path is refused.
    /// - Thread: any.
    public static var maxTextByteCount: Int {
        @_noAllocation @_noLocks get { 4096 }
    }
}
