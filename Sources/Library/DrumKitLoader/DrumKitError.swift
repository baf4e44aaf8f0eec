import ManifestSupport

/// A drum kit that could not be loaded: the file at fault and what is wrong, printable as one
/// line, `<path>: <reason>`.
///
/// `path` is the manifest for everything the manifest names, including a pad's audio file, and
/// `reason` starts with the field at fault, so
/// `kit.json: pads[1].file: snare.wav: 3 channels; a pad must be mono or stereo` points at both
/// the entry to fix and the file behind it.
///
/// The sample set loader's errors are the same one-line shape, so both are the shared `LoadError`
/// under their own names rather than two copies of it.
///
/// - Thread: any.
public typealias DrumKitError = LoadError
