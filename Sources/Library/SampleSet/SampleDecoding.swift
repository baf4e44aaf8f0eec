import AudioFile
import Foundation
import Render

/// An instrument's sample files decoded and resampled to the engine's rate at load, on every
/// core: the one path the SFZ loader and the sample-set loader share.
/// - Thread: control. Not real-time safe: reads files and allocates.
enum SampleDecoding {
    /// What becomes of a stereo file.
    enum Stereo {
        /// One channel, the mean of the two (a sample set's note).
        case mixedToMono
        /// Both channels, left then right (an SFZ region plays them as two panned voices).
        case bothChannels
    }

    /// One channel of a decoded sample, at the engine's rate.
    struct Channel {
        var frames: [Float]
        /// Its length and rate in the file, before resampling (loop points are in those frames).
        var sourceFrameCount: Int
        var sourceRate: Double
        /// What the file tells samplers (`SamplerChunk`): its unity note and loop, in its frames.
        var samplerChunk: SamplerChunk?
    }

    /// Decodes `files` and resamples them to `sampleRate`, each file on whichever core is free,
    /// and returns their channels in the order of `files`.
    /// - Parameter progress: told the share of the files decoded, 0…1, as they are.
    /// - Throws: `SampleSetError` naming the file for one that can't be decoded, has no frames or
    ///   more than two channels (the first such in the order of `files`).
    static func decode(_ files: [String], sampleRate: Double, stereo: Stereo,
                       progress: (@Sendable (Double) -> Void)? = nil) throws(SampleSetError) -> [[Channel]] {
        var channels: [[Channel]] = []
        for outcome in decodeEach(files, sampleRate: sampleRate, stereo: stereo, progress: progress) {
            switch outcome {
            case let .success(decoded): channels.append(decoded)
            case let .failure(error): throw error
            }
        }
        return channels
    }

    /// Decodes `files` as `decode` does, each to its channels or the error that names it: a
    /// library with one damaged sample still plays the rest.
    static func decodeEach(_ files: [String], sampleRate: Double, stereo: Stereo,
                           progress: (@Sendable (Double) -> Void)? = nil) -> [Result<[Channel], SampleSetError>] {
        final class Results: @unchecked Sendable {
            var channels: [[Channel]]
            var errors: [SampleSetError?]
            var done = 0
            let lock = NSLock()
            init(count: Int) {
                channels = Array(repeating: [], count: count)
                errors = Array(repeating: nil, count: count)
            }
        }
        let results = Results(count: files.count)
        DispatchQueue.concurrentPerform(iterations: files.count) { index in
            var outcome: [Channel] = []
            var failure: SampleSetError? = nil
            do throws(SampleSetError) {
                outcome = try decode(files[index], sampleRate: sampleRate, stereo: stereo)
            } catch {
                failure = error
            }
            results.lock.lock()
            results.channels[index] = outcome
            results.errors[index] = failure
            results.done += 1
            let share = Double(results.done) / Double(max(1, files.count))
            results.lock.unlock()
            progress?(share)
        }
        return zip(results.channels, results.errors).map { channels, error in error.map { .failure($0) } ?? .success(channels) }
    }

    /// One file's channels at `sampleRate`.
    private static func decode(_ path: String, sampleRate: Double, stereo: Stereo) throws(SampleSetError) -> [Channel] {
        let audio: DecodedAudio
        do {
            audio = try AudioFileReader.read(path)
        } catch {
            throw SampleSetError(path: error.path, reason: error.reason)
        }
        guard audio.channelCount == 1 || audio.channelCount == 2 else {
            throw SampleSetError(path: path, reason: "\(audio.channelCount) channels; expected mono or stereo")
        }
        guard audio.frameCount > 0 else { throw SampleSetError(path: path, reason: "no audio frames") }
        let resampler = Resampler.Converter.shared(from: Double(audio.sampleRate), to: sampleRate)
        let channels: [[Float]]
        if audio.channelCount == 1 {
            channels = [audio.samples]
        } else if stereo == .mixedToMono {
            channels = [(0..<audio.frameCount).map { 0.5 * (audio.samples[2 * $0] + audio.samples[2 * $0 + 1]) }]
        } else {
            channels = (0..<2).map { channel in (0..<audio.frameCount).map { audio.samples[2 * $0 + channel] } }
        }
        let chunk = SamplerChunk.read(path: path)
        return channels.map { Channel(frames: resampler.convert($0), sourceFrameCount: audio.frameCount, sourceRate: Double(audio.sampleRate),
                                      samplerChunk: chunk) }
    }
}

/// A bank's one array of frames as it is filled: it starts with guard frames and every sample is
/// followed by more, so every sample has silence on both sides (the interpolator reads past ends).
/// - Thread: control.
package struct SamplePoolBuilder {
    package private(set) var frames = [Float](repeating: 0, count: SampleBank.guardFrameCount)

    /// A decoded channel's place in the pool, and what it was before resampling.
    package struct Placed {
        package var start: Int
        package var frameCount: Int
        package var sourceFrameCount: Int
        package var sourceRate: Double
        package var samplerChunk: SamplerChunk?

        package init(start: Int, frameCount: Int, sourceFrameCount: Int, sourceRate: Double, samplerChunk: SamplerChunk?) {
            (self.start, self.frameCount, self.sourceFrameCount, self.sourceRate, self.samplerChunk)
                = (start, frameCount, sourceFrameCount, sourceRate, samplerChunk)
        }
    }

    /// Appends `channel` and the guard frames after it.
    mutating func append(_ channel: SampleDecoding.Channel) -> Placed {
        let placed = Placed(start: frames.count, frameCount: channel.frames.count,
                            sourceFrameCount: channel.sourceFrameCount, sourceRate: channel.sourceRate, samplerChunk: channel.samplerChunk)
        frames += channel.frames
        frames += repeatElement(0, count: SampleBank.guardFrameCount)
        return placed
    }
}
