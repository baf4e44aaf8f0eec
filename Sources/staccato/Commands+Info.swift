import Engine
import Foundation
import Render
import SoundFont

extension Commands {
    static let info = Subcommand(
        name: "info",
        summary: "Describes a SoundFont (SF2 or SF3): its version, name, copyright, presets, instruments and samples.",
        description: "Loads the font as render would, to report the memory it holds once loaded.",
        positionals: [PositionalSpec(name: "FONT", help: "the SoundFont to describe", isRequired: true)],
        options: [OptionSpec(name: "json", help: "print one JSON object, for scripts")]
    ) { options in
        guard options.positionals.count == 1 else {
            throw UsageError(description: options.positionals.isEmpty ? "which font? (staccato info FONT.sf2)"
                                                                      : "one font at a time, got \(options.positionals.count)")
        }
        let path = options.positionals[0]
        let contents: SoundFontContents
        do { contents = try SoundFontLoader.contents(path: path) } catch let error as SoundFontError { throw CommandFailure(error.description) }
        let bank = try InstrumentLoader.load(path: path, sampleRate: 48_000)
        let loadedBytes = bank.sampleByteCount + bank.regions.count * MemoryLayout<SamplerRegion>.stride
            + bank.presets.count * MemoryLayout<SampleBank.Preset>.stride
            + (bank.keyRegionStarts.count + bank.keyRegions.count) * MemoryLayout<Int32>.stride
        let info = contents.info
        if options.has("json") {
            let object: [String: Any] = [
                "path": path, "format": contents.format, "version": info.version.description,
                "name": info.name ?? "", "copyright": info.copyright ?? "",
                "presets": contents.presets.map { ["bank": $0.bank, "program": $0.program, "name": $0.name] as [String: Any] },
                "instruments": contents.instrumentCount, "samples": contents.sampleCount,
                "compressed_samples": contents.compressedSampleCount, "sample_data_bytes": contents.sampleDataBytes,
                "loaded_bytes": loadedBytes, "loaded_sample_frames": bank.samples.count, "regions": bank.regions.count,
            ]
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
            return 0
        }
        print("\(path): \(contents.format), version \(info.version)")
        print("name: \(info.name ?? "")")
        print("copyright: \(info.copyright ?? "")")
        print("instruments: \(contents.instrumentCount)")
        print("samples: \(contents.sampleCount) (\(contents.compressedSampleCount) Ogg Vorbis compressed)")
        print("sample data: \(contents.sampleDataBytes) bytes")
        print("loaded: \(loadedBytes) bytes (\(bank.samples.count) sample frames as float, \(bank.regions.count) regions)")
        print("presets: \(contents.presets.count)")
        for preset in contents.presets { print("  \(preset.bank):\(preset.program) \(preset.name)") }
        return 0
    }
}
