import Render
import SampleSet

/// SFZ's three-band equalizer (`eq1_` to `eq3_`): each band's frequency, width (octaves) and gain,
/// the gain and frequency moved by velocity (`eqN_vel2gain`, `eqN_vel2freq`) and each of the three
/// by a controller (`eqN_gain_onccN`, SFZ 1's `eqN_gainccN`), read into `SamplerEqualizer`.
extension SFZPlan {
    /// The equalizer opcodes played, numbers as `N` (a band 1-3, a controller 0-127).
    static let equalizerPatterns = ["eqN_freq", "eqN_bw", "eqN_gain", "eqN_freq_onccN", "eqN_bw_onccN", "eqN_gain_onccN",
                                    "eqN_freqccN", "eqN_bwccN", "eqN_gainccN", "eqN_velNgain", "eqN_velNfreq"]

    /// `name` as a band (1-3), its field (`freq`, `bw`, `gain`, `vel2gain`, `vel2freq`) and the
    /// controller it names (0-127), when it is an equalizer opcode that plays.
    static func equalizerOpcode(_ name: String) -> (band: Int, field: String, controller: UInt8?)? {
        guard name.hasPrefix("eq"), name.count > 4, let band = Int(String(name.dropFirst(2).prefix(1))), (1...3).contains(band),
              name.dropFirst(3).first == "_" else { return nil }
        let rest = name.dropFirst(4)
        if ["freq", "bw", "gain", "vel2gain", "vel2freq"].contains(String(rest)) { return (band, String(rest), nil) }
        for field in ["freq", "bw", "gain"] {
            for spelling in ["_oncc", "cc"] where rest.hasPrefix(field + spelling) {
                guard let controller = Int(rest.dropFirst(field.count + spelling.count)), (0...127).contains(controller) else { return nil }
                return (band, field, UInt8(controller))
            }
        }
        return nil
    }

    /// The region's equalizer from its opcodes; inactive when no band has a gain to give.
    static func readEqualizer(_ opcodes: [String: SFZText.Value], notPlayed: inout [String: Int]) throws(SampleSetError) -> SamplerEqualizer {
        var equalizer = SamplerEqualizer()
        var bands = [equalizer.first, equalizer.second, equalizer.third]
        for (name, value) in opcodes.sorted(by: { $0.key < $1.key }) {
            guard let (index, field, controller) = equalizerOpcode(name) else { continue }
            var band = bands[index - 1]
            switch (field, controller) {
            case ("freq", nil): band.frequency = Float(try number(value, name, in: 0...30_000))
            case ("bw", nil): band.octaves = Float(try number(value, name, in: 0.001...4))
            case ("gain", nil): band.gainDecibels = Float(try number(value, name, in: -96...24))
            case ("vel2gain", _): band.gainAtFullVelocity = Float(try number(value, name, in: -96...24))
            case ("vel2freq", _): band.frequencyAtFullVelocity = Float(try number(value, name, in: -30_000...30_000))
            case ("freq", let cc?) where band.frequencyController == SamplerFlex.noController || band.frequencyController == cc:
                band.frequencyController = cc
                band.frequencyAtFullController = Float(try number(value, name, in: -30_000...30_000))
            case ("bw", let cc?) where band.octavesController == SamplerFlex.noController || band.octavesController == cc:
                band.octavesController = cc
                band.octavesAtFullController = Float(try number(value, name, in: -4...4))
            case ("gain", let cc?) where band.gainController == SamplerFlex.noController || band.gainController == cc:
                band.gainController = cc
                band.gainAtFullController = Float(try number(value, name, in: -96...24))
            default:
                notPlayed["\(SFZOpcodes.pattern(of: name)) on a second controller (the first plays)", default: 0] += 1
            }
            bands[index - 1] = band
        }
        (equalizer.first, equalizer.second, equalizer.third) = (bands[0], bands[1], bands[2])
        equalizer.isActive = bands.contains { $0.isAudible }
        return equalizer
    }
}
