// The messages the readers here produce are the vocabulary's: whoever reads a file or a stream
// gets `MIDIMessage` and its kin with this module.
@_exported import MIDIVocabulary
