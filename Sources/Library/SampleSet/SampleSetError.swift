import ManifestSupport

/// A sample folder that could not be loaded: the file (or folder) at fault and what is wrong with
/// it, printable as one line, `<path>: <reason>`.
///
/// Manifest problems name the manifest as `path` and start `reason` with the field, so
/// `samples[2].root: expected a MIDI key 0-127 or a note name, got 200` points at the exact entry.
///
/// The drum kit loader's errors are the same one-line shape, so both are the shared `LoadError`
/// under their own names rather than two copies of it.
///
/// - Thread: any.
public typealias SampleSetError = LoadError
