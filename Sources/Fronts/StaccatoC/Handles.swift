import CStaccato
import DeviceCore
import Engine
import Glibc
import Render

/// Names kept as C strings for as long as their owner lives: what `staccato_preset.name` and the
/// path getters hand out.
final class CStrings: @unchecked Sendable {
    let pointers: [UnsafeMutablePointer<CChar>]

    init(_ strings: [String]) { pointers = strings.map { strdup($0)! } }

    deinit { pointers.forEach { free($0) } }
}

/// What `staccato_instrument *` points to: a loaded bank, shared read-only, and the kits loaded
/// for it (the shipped kit, for a bank without one), once.
final class InstrumentHandle {
    let bank: SampleBank
    let path: String
    let sampleRate: Double
    let kits: DrumKitShelf
    let names: CStrings
    let cPath: CStrings

    init(bank: SampleBank, path: String, sampleRate: Double) {
        self.bank = bank
        self.path = path
        self.sampleRate = sampleRate
        kits = DrumKitShelf(sampleRate: sampleRate)
        names = CStrings(bank.presetNames)
        cPath = CStrings([path])
    }

    /// Preset `index` into `preset`; false when out of range.
    func preset(_ index: Int32, into preset: UnsafeMutablePointer<staccato_preset>?) -> Bool {
        presetEntry(bank: bank, names: names, index: index, into: preset)
    }
}

/// Fills `preset` with `bank`'s preset `index`; false when out of range or `preset` is NULL.
func presetEntry(bank: SampleBank, names: CStrings, index: Int32, into preset: UnsafeMutablePointer<staccato_preset>?) -> Bool {
    guard let preset, index >= 0, Int(index) < bank.presets.count else { return false }
    let entry = bank.presets[Int(index)]
    preset.pointee = staccato_preset(bank: Int32(entry.bank), program: Int32(entry.program), name: UnsafePointer(names.pointers[Int(index)]))
    return true
}

/// What `staccato_synth *` points to.
final class SynthHandle {
    let synth: Synth
    /// The render cycle, for the audio thread: a guaranteed reference costs no reference counting.
    let cycle: Unmanaged<PlanarRenderCycle>
    var log: LogTarget?
    /// The playing instrument's preset names, as C strings.
    var names = CStrings([])

    init(synth: Synth) {
        self.synth = synth
        cycle = Unmanaged.passUnretained(synth.cycle)
    }
}

/// A C log callback and its user data.
struct LogTarget: @unchecked Sendable {
    let callback: staccato_log_callback
    let userData: UnsafeMutableRawPointer?

    func callAsFunction(_ line: String) { line.withCString { callback(userData, $0) } }
}

/// What `staccato_audio *` points to: a song's frames, interleaved.
final class AudioHandle {
    let samples: [Float]
    init(samples: [Float]) { self.samples = samples }
}
