import Engine
import Foundation
import MIDI
import Render
import SoundFont
import TestSupport
import XCTest

/// The builds of the sampler kernels (generic SSE2, AVX2 with fused multiply-add, AVX-512) render the
/// same music: a whole piano piece through the shipped font, filters, loops and releases included.
/// The AVX2 and AVX-512 builds to the bit, the generic one within a few float ulps.
final class SamplerKernelTests: XCTestCase {
    static let root = CommandRunner.repositoryRoot
    static let font = root.appendingPathComponent("soundfonts/FluidR3_GM_piano_xylo.sf2").path

    func render(_ song: String, kernel: SamplerKernelVariant, cubic: Bool) throws -> [Float] {
        let configuration = RenderConfiguration(sampleRate: 48_000, cubicInterpolation: cubic, samplerKernel: kernel)
        XCTAssertEqual(configuration.samplerKernel, kernel)
        let engine = Engine(configuration: EngineConfiguration(render: configuration))
        engine.install(try SoundFontLoader.load(path: Self.font, sampleRate: 48_000))
        var samples: [Float] = []
        let midi = Self.root.appendingPathComponent("Tests/Fixtures/midi/\(song).mid").path
        // Program 0 (the font's piano) on every channel: the piece asks for a harpsichord it lacks.
        let summary = try engine.render(MIDIFile.read(path: midi), options: MIDIRenderOptions(program: 0)) {
            samples.append(contentsOf: $0)
        }
        XCTAssertEqual(summary.statistics.unmappedNotes, 0)
        return samples
    }

    func compareKernels(_ song: String, cubic: Bool) throws {
        guard SamplerKernelVariant.avx2FMA.isSupported else { throw XCTSkip("this CPU does not run AVX2 and FMA") }
        let generic = try render(song, kernel: .generic, cubic: cubic)
        let fused = try render(song, kernel: .avx2FMA, cubic: cubic)
        XCTAssertEqual(generic.count, fused.count)
        var largest: Float = 0, worst: Float = 0
        for (a, b) in zip(generic, fused) {
            largest = max(largest, abs(a))
            worst = max(worst, abs(a - b))
        }
        print("sampler kernels: \(song), \(cubic ? "cubic" : "linear"): peak \(largest), largest difference \(worst)")
        XCTAssertGreaterThan(largest, 0.05, "the piece is audible")
        // One rounding instead of two per product-and-sum: differences of a few float ulps.
        XCTAssertLessThan(worst, 1e-6)
        // Were the two renders bit-identical, the fused build would not have run.
        XCTAssertGreaterThan(worst, 0, "the AVX2+FMA build rendered")
        guard SamplerKernelVariant.avx512.isSupported else {
            print("sampler kernels: this CPU (or STACCATO_SAMPLER_KERNELS) rules out the AVX-512 build")
            return
        }
        let wide = try render(song, kernel: .avx512, cubic: cubic)
        XCTAssertTrue(wide.elementsEqual(fused) { $0.bitPattern == $1.bitPattern }, "the AVX-512 build renders the AVX2 build's bits")
    }

    func testBothBuildsRenderTheSamePieceCubic() throws { try compareKernels("bach_bwv772_sankey", cubic: true) }
    func testBothBuildsRenderTheSamePieceLinear() throws { try compareKernels("bach_bwv772_sankey", cubic: false) }

    /// The run-time check agrees with the CPU flags the kernel reports, and a variant the CPU cannot
    /// run is never configured.
    func testFastestVariantMatchesTheCPUFlags() throws {
        guard let cpuinfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
              let flagsLine = cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("flags") }) else {
            throw XCTSkip("no /proc/cpuinfo flags line")
        }
        let flags = Set(flagsLine.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == ":" }).map(String.init))
        #if arch(x86_64)
        let onThisCPU: SamplerKernelVariant =
            !(flags.contains("avx2") && flags.contains("fma")) ? .generic
            : ["avx512f", "avx512vl", "avx512bw", "avx512dq"].allSatisfy(flags.contains) ? .avx512 : .avx2FMA
        #else
        let onThisCPU = SamplerKernelVariant.generic
        #endif
        XCTAssertEqual(SamplerKernelVariant.fastestOnThisCPU, onThisCPU)
        // STACCATO_SAMPLER_KERNELS, when set, holds the choice to that build or a lesser one.
        let limit = ProcessInfo.processInfo.environment["STACCATO_SAMPLER_KERNELS"]
            .flatMap { name in SamplerKernelVariant.allCases.first { $0.name == name } }
        XCTAssertEqual(SamplerKernelVariant.environmentLimit, limit)
        let expected = min(onThisCPU, limit ?? onThisCPU)
        XCTAssertEqual(SamplerKernelVariant.fastestSupported, expected)
        XCTAssertEqual(RenderConfiguration().samplerKernel, expected, "the default is the fastest supported")
        XCTAssertEqual(RenderConfiguration(samplerKernel: .generic).samplerKernel, .generic)
        XCTAssertEqual(RenderConfiguration(samplerKernel: .avx2FMA).samplerKernel, min(.avx2FMA, expected))
        XCTAssertEqual(RenderConfiguration(samplerKernel: .avx512).samplerKernel, expected)
        XCTAssertEqual(SamplerKernelVariant.supportedVariants, SamplerKernelVariant.allCases.filter { $0 <= expected })
    }
}
