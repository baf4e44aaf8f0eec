import CommandLineSpec
import Engine

extension OptionDefault {
    /// `--soundfont`'s default in every command that plays one: `InstrumentLoader.chooseSoundFont`,
    /// which the command announces with `announceDefaultSoundFont`.
    static let shippedSoundFont = OptionDefault.described(
        "$STACCATO_SOUNDFONT, else the system's General MIDI font, else the shipped piano/xylophone font",
        value: { InstrumentLoader.chooseSoundFont().path })
}

extension ParsedOptions {
    /// `--soundfont` as given, else the default font, announced (`announceDefaultSoundFont`).
    func soundFontPath() throws -> String {
        values["soundfont"] == nil ? announceDefaultSoundFont() : try string("soundfont")
    }
}

/// When `--soundfont` was not given: says on stdout which font plays (and on stderr which system
/// files were passed over), and returns its path.
func announceDefaultSoundFont() -> String {
    let choice = InstrumentLoader.chooseSoundFont()
    for note in choice.skipped { printError(note) }
    StatusLine.standard.print(choice.line)
    return choice.path
}
