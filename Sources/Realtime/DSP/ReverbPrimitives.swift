// What both reverb tanks are built from: a circular delay line, the Freeverb comb, the Schroeder
// all-pass.

/// A circular delay line: the storage of every comb, all-pass and delay in the reverbs. `index` is
/// the oldest sample, the next to leave and where the next one goes.
@usableFromInline
struct ReverbDelayLine {
    @usableFromInline let buffer: UnsafeMutablePointer<Float>
    @usableFromInline let length: Int
    @usableFromInline var index = 0

    @usableFromInline
    init(buffer: UnsafeMutablePointer<Float>, length: Int) {
        self.buffer = buffer
        self.length = length
    }

    /// The sample pushed `length` frames ago: what the next `push` returns.
    @usableFromInline var front: Float {
        @inlinable @_noAllocation @_noLocks get { buffer[index] }
    }

    /// Stores `sample` and returns the one stored `length` frames before it.
    @inlinable @_noAllocation @_noLocks
    mutating func push(_ sample: Float) -> Float {
        let leaving = buffer[index]
        buffer[index] = sample
        index += 1
        if index == length { index = 0 }
        return leaving
    }

    /// The sample pushed `age` frames before the latest (0 is the latest), for 0 ≤ age < length.
    @inlinable @_noAllocation @_noLocks
    func tap(_ age: Int) -> Float {
        let position = index - 1 - age
        return buffer[position < 0 ? position + length : position]
    }

    /// `tap` at a fractional age, linearly interpolated, for 0 ≤ age ≤ length − 2.
    @inlinable @_noAllocation @_noLocks
    func tap(fractional age: Float) -> Float {
        let whole = Int(age)
        let newer = tap(whole), older = tap(whole + 1)
        return newer + (older - newer) * (age - Float(whole))
    }

    /// Silences the line (not for use while it sounds: it would click).
    @inlinable @_noAllocation @_noLocks
    mutating func clear() {
        index = 0
        buffer.update(repeating: 0, count: length)
    }
}

/// One lowpass-feedback comb filter: a delay line whose output, low-passed, is fed back scaled by
/// `feedback`.
@usableFromInline
struct ReverbComb {
    @usableFromInline var line: ReverbDelayLine
    /// The feedback low-pass's state.
    @usableFromInline var store: Float = 0
    @usableFromInline var feedback: Float = 0
    /// The feedback low-pass's pole (0 = no damping).
    @usableFromInline var damping: Float = 0

    @usableFromInline
    init(buffer: UnsafeMutablePointer<Float>, length: Int) {
        line = ReverbDelayLine(buffer: buffer, length: length)
    }

    /// Runs `frameCount` frames of `input` through the comb, adding its output to `output`.
    @inlinable @_noAllocation @_noLocks
    mutating func accumulate(_ input: UnsafePointer<Float>, into output: UnsafeMutablePointer<Float>, frameCount: Int) {
        var state = store, position = line.index, done = 0
        let g = feedback, d = damping, oneMinusD = 1 - damping, length = line.length
        // Runs up to the end of the delay line, then wraps: no wrap test per sample.
        while done < frameCount {
            let run = min(frameCount - done, length - position)
            let samples = line.buffer + position, source = input + done, destination = output + done
            if d == 0 {
                // Undamped (the effects bus's reverb): the low-pass is a wire, so no frame waits on
                // the one before and the loop runs as vectors. (A run never reaches a sample it
                // writes: it stops at the end of the line, longer than any block.)
                state = samples[run - 1]
                for frame in 0..<run {
                    let delayed = samples[frame]
                    samples[frame] = source[frame] + delayed * g
                    destination[frame] += delayed
                }
            } else {
                for frame in 0..<run {
                    let delayed = samples[frame]
                    state = delayed * oneMinusD + state * d
                    samples[frame] = source[frame] + state * g
                    destination[frame] += delayed
                }
            }
            done += run
            position += run
            if position == length { position = 0 }
        }
        line.index = position
        store = abs(state) < 1e-20 ? 0 : state  // denormal protection
    }

    @inlinable @_noAllocation @_noLocks
    mutating func clear() {
        store = 0
        line.clear()
    }
}

/// One Schroeder all-pass: (z^−M − g) / (1 − g·z^−M).
@usableFromInline
struct ReverbAllPass {
    @usableFromInline var line: ReverbDelayLine

    @usableFromInline
    init(buffer: UnsafeMutablePointer<Float>, length: Int) {
        line = ReverbDelayLine(buffer: buffer, length: length)
    }

    /// One step of the recursion, given the sample leaving the delay line: what to store in its
    /// place, and the output. Shared with the plate's modulated all-passes, whose delay line is read
    /// between samples.
    @inlinable @_noAllocation @_noLocks
    static func step(_ input: Float, delayed: Float, gain g: Float) -> (store: Float, output: Float) {
        let w = input + g * delayed
        return (w, delayed - g * w)
    }

    /// Filters one sample.
    @inlinable @_noAllocation @_noLocks
    mutating func process(_ input: Float, gain: Float) -> Float {
        let (store, output) = ReverbAllPass.step(input, delayed: line.front, gain: gain)
        _ = line.push(store)
        return output
    }

    /// Filters `frameCount` frames of `samples` in place.
    @inlinable @_noAllocation @_noLocks
    mutating func process(_ samples: UnsafeMutablePointer<Float>, frameCount: Int, gain g: Float) {
        var position = line.index, done = 0
        let length = line.length
        // As in the comb: runs to the end of the line, then wraps.
        while done < frameCount {
            let run = min(frameCount - done, length - position)
            let delayLine = line.buffer + position, block = samples + done
            for frame in 0..<run {
                let (store, output) = ReverbAllPass.step(block[frame], delayed: delayLine[frame], gain: g)
                delayLine[frame] = store
                block[frame] = output
            }
            done += run
            position += run
            if position == length { position = 0 }
        }
        line.index = position
    }
}
