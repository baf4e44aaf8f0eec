/// A positional argument (a MIDI file), or a list of them.
package struct PositionalSpec: Sendable {
    package let name: String
    package let help: String
    package let isRequired: Bool
    /// Takes any number of arguments (`SONG.mid...`); the command checks how many it got.
    package var isRepeatable = false

    package init(name: String, help: String, isRequired: Bool, isRepeatable: Bool = false) {
        self.name = name
        self.help = help
        self.isRequired = isRequired
        self.isRepeatable = isRepeatable
    }

    /// `SONG.mid`, or `SONG.mid...` when repeatable: the argument's left column in the table.
    package var synopsis: String { isRepeatable ? name + "..." : name }
    package var usage: String { isRequired ? synopsis : "[\(synopsis)]" }
}
