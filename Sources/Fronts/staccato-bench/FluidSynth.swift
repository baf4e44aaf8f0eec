import AudioFile
import Foundation

/// Debian's `fluidsynth` command, the reference the benchmarks measure Staccato beside.
enum FluidSynth {
    /// "2.3.1", or `nil` when `fluidsynth` is not on PATH.
    static let version: String? = {
        guard let run = ChildProcess.run(["fluidsynth", "--version"]), run.status == 0 else { return nil }
        let text = String(decoding: run.output, as: UTF8.self)
        return text.split(separator: "\n").first.flatMap { $0.split(separator: " ").last.map(String.init) }
    }()

    /// Start-up and font load alone: given no MIDI file, `fluidsynth -F` loads the font, then exits
    /// with an error (255) without rendering.
    static func loadSeconds(font: String, output: String) -> Double? {
        ChildProcess.run(["fluidsynth", "-ni", "-q", "-R", "0", "-C", "0", "-r", "48000", "-T", "wav", "-F", output, font])?.seconds
    }

    /// One offline render of `song` to a WAV file, reverb and chorus off, as README's "Comparing with
    /// FluidSynth" does it: wall seconds of the whole child process and seconds of audio written.
    static func render(font: String, song: String, to output: String) -> (seconds: Double, audioSeconds: Double)? {
        guard let run = ChildProcess.run(renderArguments(font: font, song: song, output: output)),
              run.status == 0, let audio = try? AudioFileReader.read(output), audio.sampleRate > 0
        else { return nil }
        return (run.seconds, Double(audio.frameCount) / Double(audio.sampleRate))
    }

    /// The gain users and the field compare at: FluidSynth's own default, spelled out so a
    /// different default in another build cannot move every level.
    static let comparisonGain = "0.2"

    /// The command line of one offline render, reverb and chorus off; `gain` adds `-g`.
    static func renderArguments(font: String, song: String, output: String, gain: String? = nil) -> [String] {
        ["fluidsynth", "-ni", "-q", "-R", "0", "-C", "0"] + (gain.map { ["-g", $0] } ?? [])
            + ["-r", "48000", "-T", "wav", "-F", output, font, song]
    }

    /// The audio of one render at `comparisonGain`, for comparing with Staccato's.
    static func renderAudio(font: String, song: String, to output: String) throws -> DecodedAudio {
        let arguments = renderArguments(font: font, song: song, output: output, gain: comparisonGain)
        guard let run = ChildProcess.run(arguments) else { throw FluidSynthFailure(description: "cannot start fluidsynth") }
        guard run.status == 0 else {
            throw FluidSynthFailure(description: "fluidsynth failed (exit \(run.status)) on \(song) with \(font)")
        }
        return try AudioFileReader.read(output)
    }
}

struct FluidSynthFailure: Error, CustomStringConvertible {
    var description: String
}
