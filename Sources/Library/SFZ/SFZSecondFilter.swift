import Foundation
import Render
import SampleSet

/// SFZ's second filter (`fil2_type`, `cutoff2`, `resonance2`, `fil2_keytrack`, `fil2_keycenter`,
/// `fil2_veltrack`, `cutoff2_onccN`, `resonance2_onccN`), read into `SamplerSecondFilter`: it runs
/// after the first, as sfizz runs it, when the region names its cutoff.
extension SFZPlan {
    /// The second filter's opcodes, numbers as `N` (the filter 2, a controller 0-127).
    static let secondFilterPatterns = ["filN_type", "cutoffN", "resonanceN", "filN_keytrack", "filN_keycenter", "filN_veltrack",
                                       "cutoffN_onccN", "cutoffN_ccN", "cutoffN_curveccN", "resonanceN_onccN", "resonanceN_ccN"]
    static let secondFilterOpcodes: Set<String> = ["fil2_type", "cutoff2", "resonance2", "fil2_keytrack", "fil2_keycenter", "fil2_veltrack"]
    static let secondFilterControls = ["cutoff2_oncc", "cutoff2_cc", "resonance2_oncc", "resonance2_cc"]

    /// A second filter's controller opcode split into its name and controller (`cutoff2_oncc7`:
    /// `cutoff2_oncc`, 7).
    static func secondFilterControl(_ name: String) -> (opcode: String, controller: UInt8)? {
        for opcode in secondFilterControls where name.hasPrefix(opcode) {
            if let number = Int(name.dropFirst(opcode.count)), (0...127).contains(number) { return (opcode, UInt8(number)) }
        }
        return nil
    }

    /// Whether `name` is a second-filter opcode that plays.
    static func isSecondFilterPlayed(_ name: String) -> Bool {
        if name.hasPrefix("cutoff2_curvecc") { return Int(name.dropFirst("cutoff2_curvecc".count)).map { (0...127).contains($0) } ?? false }
        return secondFilterOpcodes.contains(name) || secondFilterControl(name) != nil
    }

    /// The region's second filter; inactive without `cutoff2`, or with a type no voice filter has
    /// (said in `notPlayed`).
    /// `curves`: the curve indices the file defines; a curve the cutoff's controller names is
    /// added to `planned.curveUses`, as the modulators' are.
    static func readSecondFilter(_ opcodes: [String: SFZText.Value], into planned: inout PlannedRegion, curves: Set<Int>,
                                 notPlayed: inout [String: Int]) throws(SampleSetError) -> SamplerSecondFilter {
        var filter = SamplerSecondFilter()
        guard let cutoff = opcodes["cutoff2"] else { return filter }
        let type = opcodes["fil2_type"]?.text ?? "lpf_2p"
        guard let kind = filterKinds[type] else {
            notPlayed["fil2_type=\(type) (the second filter left out)", default: 0] += 1
            return filter
        }
        filter.isActive = true
        filter.kind = kind
        filter.cutoffCents = Float(1_200 * log2(max(try number(cutoff, "cutoff2", in: 0...100_000), 1) / 8.176))
        if let value = opcodes["resonance2"] { filter.resonanceDecibels = Float(try number(value, "resonance2", in: -96...96)) }
        if let value = opcodes["fil2_keytrack"] { filter.centsPerKey = Float(try number(value, "fil2_keytrack", in: 0...1_200)) }
        if let value = opcodes["fil2_keycenter"] { filter.keyCenter = Float(try key(value, "fil2_keycenter")) }
        if let value = opcodes["fil2_veltrack"] { filter.centsAtFullVelocity = Float(try number(value, "fil2_veltrack", in: -9_600...9_600)) }
        for (name, value) in opcodes.sorted(by: { $0.key < $1.key }) {
            guard let (opcode, controller) = secondFilterControl(name) else { continue }
            if opcode.hasPrefix("cutoff2") {
                guard filter.cutoffController == SamplerFlex.noController || filter.cutoffController == controller else {
                    notPlayed["cutoffN_onccN on a second controller (the first plays)", default: 0] += 1
                    continue
                }
                filter.cutoffController = controller
                filter.centsAtFullController = Float(try number(value, name, in: -9_600...9_600))
                let curveName = "cutoff2_curvecc\(controller)"
                if let curveValue = opcodes[curveName] {
                    let index = try integer(curveValue, curveName, in: 0...255)
                    guard curves.contains(index) else {
                        notPlayed["\(curveName)=\(index) (no such <curve>; read without one)", default: 0] += 1
                        continue
                    }
                    let use = CurveUse(curve: index)
                    filter.cutoffCurve = Int32(planned.curveUses.firstIndex(of: use) ?? planned.curveUses.count)
                    if !planned.curveUses.contains(use) { planned.curveUses.append(use) }
                }
            } else {
                guard filter.resonanceController == SamplerFlex.noController || filter.resonanceController == controller else {
                    notPlayed["resonanceN_onccN on a second controller (the first plays)", default: 0] += 1
                    continue
                }
                filter.resonanceController = controller
                filter.decibelsAtFullController = Float(try number(value, name, in: -96...96))
            }
        }
        return filter
    }
}
