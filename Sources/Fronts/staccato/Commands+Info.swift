import AudioFile
import CommandLineSpec
import DrumKitLoader
import Engine
import FileChecks
import Foundation
import MIDI
import Render
import SampleSet
import SFZ
import SoundFont

extension Commands {
    static let info = Subcommand(
        program: program, name: "info",
        summary: "Describes an instrument: a SoundFont (SF2 or SF3), an SFZ instrument, a sample set (its folder or samples.json) or a drum kit (kit.json).",
        description: "A font: its version, name, copyright, presets, instruments and samples. An SFZ: its regions, keyswitches, labels and what "
            + "does not play. A sample set or a kit: its notes or pads, each "
            + "one's file with its frames, rate and channels. A font is read headers first, nothing decoded; an SFZ, a sample set or a kit is "
            + "loaded as render would, to report the memory it holds once loaded.",
        positionals: [PositionalSpec(name: "INSTRUMENT", help: "the SoundFont, SFZ, sample set or drum kit to describe", isRequired: true)],
        options: [OptionSpec(name: "json", help: "print one JSON object, for scripts")]
    ) { options in
        guard options.positionals.count == 1 else {
            throw UsageError(description: options.positionals.isEmpty ? "which instrument? (staccato info FONT.sf2, DIR or KIT.json)"
                                                                      : "one instrument at a time, got \(options.positionals.count)")
        }
        let path = options.positionals[0]
        let json = options.has("json")
        switch try InstrumentInfo.Kind(path: path) {
        case .soundFont: try InstrumentInfo.describeSoundFont(path, json: json)
        case .sfz: try InstrumentInfo.describeSFZ(path, json: json)
        case .sampleSet(let folder): try InstrumentInfo.describeSampleSet(path, folder: folder, json: json)
        case .drumKit: try InstrumentInfo.describeDrumKit(path, json: json)
        }
        return 0
    }
}

/// What `staccato info` prints for each kind of instrument.
enum InstrumentInfo {
    /// The rate instruments are loaded at to measure their memory (sample sets and kits are
    /// resampled to it; a font's samples keep their own rates).
    static let sampleRate = 48_000.0

    /// Which kind of instrument a path holds, by its contents: a folder is a sample set; a file
    /// that starts as JSON is a manifest, a kit's having `pads` and a sample set's `samples`
    /// (the loaders are told which they get, so only the fields tell them apart); anything else is
    /// taken for a SoundFont, whose loader says what is wrong with it.
    enum Kind: Equatable {
        case soundFont
        case sfz
        case sampleSet(folder: String)
        case drumKit

        /// - Throws: `CommandFailure` for a JSON file that is neither manifest.
        init(path: String) throws {
            if FileKind(path: path) == .directory {
                self = .sampleSet(folder: path)
                return
            }
            guard FileKind.notRegularFileReason(path) == nil, let handle = FileHandle(forReadingAtPath: path) else {
                self = .soundFont
                return
            }
            if SFZLoader.isSFZ(path: path) {
                self = .sfz
                return
            }
            // The first bytes tell JSON from a font: a font (often hundreds of megabytes) is
            // never read whole here.
            let head = (try? handle.read(upToCount: 4_096)) ?? Data()
            guard let first = head.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }), first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else {
                try? handle.close()
                self = .soundFont
                return
            }
            let data = head + ((try? handle.readToEnd()) ?? Data())
            try? handle.close()
            let object: Any
            do { object = try JSONSerialization.jsonObject(with: data) } catch {
                let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
                throw CommandFailure("\(path): not valid JSON: \(detail)")
            }
            let fields = object as? [String: Any] ?? [:]
            if fields["pads"] != nil {
                self = .drumKit
            } else if fields["samples"] != nil {
                let url = URL(fileURLWithPath: path)
                guard url.lastPathComponent == "samples.json" else {
                    throw CommandFailure("\(path): a sample set manifest (it has \"samples\"), but a sample set reads it only as samples.json in its folder")
                }
                self = .sampleSet(folder: url.deletingLastPathComponent().path)
            } else {
                throw CommandFailure("\(path): JSON, but neither a drum kit (no \"pads\") nor a sample set manifest (no \"samples\")")
            }
        }
    }

    /// Loads the instrument at `path` to measure it, with the progress line `render` shows while
    /// a load takes over a second (an SFZ library or a sample set is decoded whole here).
    static func loadWithProgress(_ path: String) throws(InstrumentLoadError) -> SampleBank {
        let progress = LoadProgressLine(name: URL(fileURLWithPath: path).lastPathComponent)
        defer { progress.finish() }
        return try InstrumentLoader.load(path: path, sampleRate: sampleRate, progress: progress.report)
    }

    /// Memory a loaded bank holds: its float samples and its tables.
    static func loadedBytes(of bank: SampleBank) -> Int {
        bank.sampleByteCount + bank.regions.count * MemoryLayout<SamplerRegion>.stride
            + bank.presets.count * MemoryLayout<SampleBank.Preset>.stride
            + (bank.keyRegionStarts.count + bank.keyRegions.count) * MemoryLayout<Int32>.stride
    }

    static func printJSON(_ object: [String: Any]) throws {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        print(String(decoding: data, as: UTF8.self))
    }

    static func describeSoundFont(_ path: String, json: Bool) throws {
        let contents: SoundFontContents
        do { contents = try SoundFontLoader.contents(path: path) } catch { throw CommandFailure(error.description) }
        let info = contents.info
        let decodedBytes = contents.decodedFrames * contents.bytesPerDecodedFrame
        if json {
            try printJSON([
                "path": path, "format": contents.format, "version": info.version.description,
                "name": info.name ?? "", "copyright": info.copyright ?? "",
                "presets": contents.presets.map { ["bank": $0.bank, "program": $0.program, "name": $0.name] as [String: Any] },
                "instruments": contents.instrumentCount, "samples": contents.sampleCount,
                "compressed_samples": contents.compressedSampleCount, "sample_data_bytes": contents.sampleDataBytes,
                "decoded_bytes": decodedBytes, "decoded_sample_frames": contents.decodedFrames, "decoded_bits": contents.decodedBits,
                "regions": contents.regionCount,
            ])
            return
        }
        print("\(path): \(contents.format), version \(info.version)")
        print("name: \(info.name ?? "")")
        print("copyright: \(info.copyright ?? "")")
        print("instruments: \(contents.instrumentCount)")
        print("samples: \(contents.sampleCount) (\(contents.compressedSampleCount) Ogg Vorbis compressed)")
        print("sample data: \(contents.sampleDataBytes) bytes")
        print("decoded: \(decodedBytes) bytes (\(contents.decodedFrames) sample frames at \(contents.decodedBits) bits, \(contents.regionCount) regions)")
        print("presets: \(contents.presets.count)")
        for preset in contents.presets { print("  \(preset.bank):\(preset.program) \(preset.name)") }
    }

    /// One audio file as `info` describes it.
    struct AudioFacts {
        var frames: Int
        var sampleRate: Int
        var channels: Int
        var fileBytes: Int

        var line: String { "\(frames) frames, \(sampleRate) Hz, \(channels == 1 ? "mono" : channels == 2 ? "stereo" : "\(channels) channels")" }
        var json: [String: Any] { ["frames": frames, "sample_rate": sampleRate, "channels": channels, "file_bytes": fileBytes] }
    }

    /// Each distinct file decoded once; a file that cannot be is one line naming it.
    static func audioFacts(_ paths: [String], shownAs name: (String) -> String) throws -> [String: AudioFacts] {
        var facts: [String: AudioFacts] = [:]
        for path in paths where facts[path] == nil {
            let audio: DecodedAudio
            do { audio = try AudioFileReader.read(path) } catch {
                throw CommandFailure("\(name(path)): \(error.reason)")
            }
            let attributes = try? FileManager.default.attributesOfItem(atPath: path)
            let size = attributes?[.size] as? Int ?? 0
            facts[path] = AudioFacts(frames: audio.frameCount, sampleRate: audio.sampleRate, channels: audio.channelCount, fileBytes: size)
        }
        return facts
    }

    /// `C4 (60)`.
    static func noteName(_ key: UInt8) -> String { "\(NoteName.name(of: key, ascii: true)) (\(key))" }

    /// Sums over distinct files: frames, bytes on disk.
    static func totals(_ facts: [String: AudioFacts]) -> (frames: Int, fileBytes: Int) {
        facts.values.reduce((0, 0)) { ($0.0 + $1.frames, $0.1 + $1.fileBytes) }
    }

    static func describeSampleSet(_ path: String, folder: String, json: Bool) throws {
        let contents: SampleSetContents
        do { contents = try SampleSetLoader.contents(directory: folder) } catch { throw CommandFailure(error.description) }
        // Loaded first: the loader's messages for a file it cannot play are the ones to show.
        let bank = try loadWithProgress(folder)
        let facts = try audioFacts(contents.notes.map(\.path)) { $0 }
        let loaded = loadedBytes(of: bank)
        let total = totals(facts)
        let rate = Int(sampleRate)
        if json {
            try printJSON([
                "path": path, "format": "sample set", "folder": folder, "name": contents.name,
                "manifest": contents.manifest ?? NSNull(),
                "notes": contents.notes.map { note -> [String: Any] in
                    var entry: [String: Any] = ["name": NoteName.name(of: note.root, ascii: true), "number": Int(note.root),
                                                "low_key": Int(note.keys.low), "high_key": Int(note.keys.high),
                                                "low_velocity": Int(note.velocities.lowerBound), "high_velocity": Int(note.velocities.upperBound),
                                                "file": note.path]
                    entry.merge(facts[note.path]?.json ?? [:]) { $1 }
                    return entry
                },
                "files": facts.count, "sample_frames": total.frames, "file_bytes": total.fileBytes,
                "loaded_bytes": loaded, "loaded_sample_frames": bank.samples.frameCount, "loaded_sample_rate": rate, "regions": bank.regions.count,
            ])
            return
        }
        print("\(path): sample set \"\(contents.name)\"" + (contents.manifest.map { " (manifest \($0))" } ?? " (no samples.json: roots from file names)"))
        print("notes: \(contents.notes.count)")
        for note in contents.notes {
            let file = URL(fileURLWithPath: note.path).lastPathComponent
            print("  \(noteName(note.root))  keys \(note.keys.low)-\(note.keys.high), velocities \(note.velocities.lowerBound)-\(note.velocities.upperBound)  "
                  + "\(file): \(facts[note.path]?.line ?? "")")
        }
        print("sample data: \(total.frames) frames in \(facts.count) file\(facts.count == 1 ? "" : "s"), \(total.fileBytes) bytes on disk")
        print("loaded: \(loaded) bytes (\(bank.samples.frameCount) mono sample frames as float at \(rate) Hz, \(bank.regions.count) regions)")
    }

    static func describeSFZ(_ path: String, json: Bool) throws {
        let contents: SFZContents
        do { contents = try SFZLoader.contents(path: path) } catch { throw CommandFailure(error.description) }
        // Loaded first: the loader's messages for a sample it cannot play are the ones to show.
        let bank = try loadWithProgress(path)
        let loaded = loadedBytes(of: bank)
        let rate = Int(sampleRate)
        if json {
            try printJSON([
                "path": path, "format": "sfz", "name": contents.name,
                "regions": contents.regions.map { region -> [String: Any] in
                    ["sample": region.sample, "line": region.line, "low_key": Int(region.keys.lowerBound), "high_key": Int(region.keys.upperBound),
                     "low_velocity": Int(region.velocities.lowerBound), "high_velocity": Int(region.velocities.upperBound),
                     "root_key": region.rootKey]
                },
                "keyswitches": contents.keyswitches.map { [Int($0.lowerBound), Int($0.upperBound)] as Any } ?? NSNull(),
                "controller_labels": Dictionary(uniqueKeysWithValues: contents.controllerLabels.map { (String($0.key), $0.value) }),
                "key_labels": Dictionary(uniqueKeysWithValues: contents.keyLabels.map { (String($0.key), $0.value) }),
                "warnings": contents.warnings,
                "loaded_bytes": loaded, "loaded_sample_frames": bank.samples.frameCount, "loaded_sample_rate": rate,
                "loaded_regions": bank.regions.count,
                "programs": bank.presets.map { ["program": Int($0.program), "loaded_regions": $0.regionCount] },
            ])
            return
        }
        print("\(path): SFZ \"\(contents.name)\"")
        print("regions: \(contents.regions.count)")
        for region in contents.regions {
            let file = URL(fileURLWithPath: region.sample).lastPathComponent
            print("  line \(region.line): keys \(noteName(region.keys.lowerBound))-\(noteName(region.keys.upperBound)), "
                  + "velocities \(region.velocities.lowerBound)-\(region.velocities.upperBound), root \(region.rootKey.formatted())  \(file)")
        }
        if bank.presets.count > 1 {
            // loprog/hiprog: a program each.
            print("programs: " + bank.presets.map { "\($0.program) (\($0.regionCount) voices' regions)" }.joined(separator: ", "))
        }
        if let keyswitches = contents.keyswitches { print("keyswitches: \(noteName(keyswitches.lowerBound))-\(noteName(keyswitches.upperBound))") }
        for (number, label) in contents.controllerLabels.sorted(by: { $0.key < $1.key }) { print("controller \(number): \(label)") }
        for (number, label) in contents.keyLabels.sorted(by: { $0.key < $1.key }) { print("key \(number): \(label)") }
        for warning in contents.warnings { print("warning: \(warning)") }
        print("loaded: \(loaded) bytes (\(bank.samples.frameCount) mono sample frames as float at \(rate) Hz, \(bank.regions.count) voices' regions: a stereo sample is two)")
    }

    static func describeDrumKit(_ path: String, json: Bool) throws {
        let contents: DrumKitContents
        do { contents = try DrumKitLoader.contents(manifest: path) } catch { throw CommandFailure(error.description) }
        // Loaded first: the loader's messages for a file it cannot play are the ones to show.
        let kit: DrumKit
        do { kit = try DrumKitLoader.load(manifest: path, sampleRate: sampleRate) } catch { throw CommandFailure(error.description) }
        let facts = try audioFacts(contents.pads.map(\.path)) { $0 }
        let loaded = kit.samples.count * MemoryLayout<Float>.stride + kit.pads.count * MemoryLayout<DrumKit.Pad>.stride
        let total = totals(facts)
        let rate = Int(sampleRate)
        if json {
            try printJSON([
                "path": path, "format": "drum kit", "name": contents.name,
                "pads": contents.pads.map { pad -> [String: Any] in
                    var entry: [String: Any] = ["name": pad.name, "file": pad.path, "gain_db": pad.gainDecibels, "voices": pad.voiceCount,
                                                "choke_group": Int(pad.chokeGroup),
                                                "notes": pad.notes.map { ["name": NoteName.name(of: $0, ascii: true), "number": Int($0)] as [String: Any] }]
                    entry.merge(facts[pad.path]?.json ?? [:]) { $1 }
                    return entry
                },
                "files": facts.count, "sample_frames": total.frames, "file_bytes": total.fileBytes,
                "loaded_bytes": loaded, "loaded_sample_frames": kit.samples.count / 2, "loaded_sample_rate": rate,
            ])
            return
        }
        print("\(path): drum kit \"\(contents.name)\"")
        print("pads: \(contents.pads.count)")
        for pad in contents.pads {
            let choke = pad.chokeGroup == 0 ? "" : ", choke group \(pad.chokeGroup)"
            print("  \(pad.name)  notes \(pad.notes.map(noteName).joined(separator: ", "))  gain \(pad.gainDecibels) dB, \(pad.voiceCount) voices\(choke)  "
                  + "\(pad.file): \(facts[pad.path]?.line ?? "")")
        }
        print("sample data: \(total.frames) frames in \(facts.count) file\(facts.count == 1 ? "" : "s"), \(total.fileBytes) bytes on disk")
        print("loaded: \(loaded) bytes (\(kit.samples.count / 2) stereo sample frames as float at \(rate) Hz)")
    }
}
