import DSP
import FeedbackSuppression
import Lockfree
import Synchronization

// The buses in and out of a block: the microphone's input read and tapped, the output written,
// and their peaks published.
extension Renderer {
    /// De-interleaves the microphone block onto the microphone's bus, where the input chain runs.
    @_noAllocation @_noLocks
    func readInput(_ input: UnsafePointer<Float>, channelCount: Int, frameCount: Int) {
        let rightChannel = channelCount > 1 ? 1 : 0
        var sampleIndex = 0
        var peak: Float = 0
        for frame in 0..<frameCount {
            let left = input[sampleIndex], right = input[sampleIndex + rightChannel]
            microphoneLeft[frame] = left
            microphoneRight[frame] = right
            peak = max(peak, max(abs(left), abs(right)))
            sampleIndex += channelCount
        }
        raisePeak(publishedInputPeak, to: peak)
    }

    /// Copies the processed microphone, interleaved, into its tap, when somebody records it.
    @_noAllocation @_noLocks
    func writeMicrophoneTap(frameCount: Int) {
        guard recordsMicrophone else { return }
        for frame in 0..<frameCount {
            microphoneFrames[2 * frame] = microphoneLeft[frame]
            microphoneFrames[2 * frame + 1] = microphoneRight[frame]
        }
        let frames = microphoneFrames  // a local: the closure must not capture (retain) self
        microphoneTapReference._withUnsafeGuaranteedRef { $0.write(frames, frameCount: frameCount) }
    }

    /// Interleaves the finished mix bus into `output`: stereo as is, mono as the average, extra
    /// channels silent.
    @_noAllocation @_noLocks
    func writeOutput(_ output: UnsafeMutablePointer<Float>, frameCount: Int) {
        let channelCount = configuration.channelCount
        var sampleIndex = 0
        for frame in 0..<frameCount {
            if channelCount == 1 {
                output[frame] = (mixLeft[frame] + mixRight[frame]) * 0.5
            } else {
                output[sampleIndex] = mixLeft[frame]
                output[sampleIndex + 1] = mixRight[frame]
                for channel in 2..<max(2, channelCount) { output[sampleIndex + channel] = 0 }
            }
            sampleIndex += channelCount
        }
    }

    @_noAllocation @_noLocks
    func publishPeak(_ cell: borrowing Atomic<UInt32>, of left: UnsafePointer<Float>, _ right: UnsafePointer<Float>, frameCount: Int) {
        raisePeak(cell, to: max(peakMagnitude(left, count: frameCount), peakMagnitude(right, count: frameCount)))
    }

    /// Meters hold the highest peak until the control thread takes it (`takePeaks`).
    @_noAllocation @_noLocks
    func raisePeak(_ cell: borrowing Atomic<UInt32>, to peak: Float) {
        if peak > Float(bitPattern: cell.load(ordering: .relaxed)) { cell.store(peak.bitPattern, ordering: .relaxed) }
    }
}
