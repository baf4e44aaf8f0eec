import DSP

// Detection, once per hop of `hopFrameCount` frames of the mono sum (L+R)/2 of the input:
// - A Hann-windowed FFT of the last `analysisFrameCount` frames; its local maxima that stand
//   `prominenceDecibels` above the bins four and five bins away are candidates (a tone, not the
//   slope of a broad formant), the strongest `candidateCount` of them each hop.
// - Each candidate's frequency comes from the phase advance of its bin since the previous hop
//   (the phase vocoder's estimate): exact for a steady sinusoid, growing or not, and far finer
//   than the bins, which matters because a notch a tenth of an octave wide must sit on the howl.
extension FeedbackSuppressor {
    @inlinable @_noAllocation @_noLocks
    mutating func analyseHop() {
        let size = Self.analysisFrameCount
        let half = size / 2
        for n in 0..<size {
            real[n] = history[(writeIndex + n) & (size - 1)] * window[n]
            imaginary[n] = 0
        }
        transform()
        // Sinusoid amplitude from a bin: 2·|X| / Σw = 4·|X| / N, so dB = 10·log10(|X|²·16/N²).
        let powerScale = 16 / Float(size * size)
        for k in 0...half { power[k] = (real[k] * real[k] + imaginary[k] * imaginary[k]) * powerScale }

        let hopMeanSquare = hopSumOfSquares / Float(Self.hopFrameCount)
        let peakAtCeiling = hopPeak >= ceiling
        findCandidates()
        let quietest = decibelsToAmplitude(Self.quietestLevelDecibels)
        let quietestPower = quietest * quietest

        for index in 0..<Self.trackCount { tracks[index].matched = false }
        var strongestBin = 0
        var strongestPower: Float = 0
        for k in lowestBin...highestBin where power[k] > strongestPower {
            strongestPower = power[k]
            strongestBin = k
        }
        // Tracks already followed are looked for at their own bin first, however many louder
        // peaks the voice makes this hop: a howl building under the voice must not be lost.
        let relaxedProminence = decibelsToAmplitude(-Self.trackedProminenceDecibels)
        let binsPerHertz = Float(Self.analysisFrameCount) / Float(sampleRate)
        for index in 0..<Self.trackCount where tracks[index].active {
            let centre = Int(tracks[index].hertz * binsPerHertz + 0.5)
            var bin = -1
            var best: Float = quietestPower
            let low = max(lowestBin, centre - 1), high = min(highestBin, centre + 1)
            guard low <= high else { continue }
            for k in low...high where power[k] > best && power[k] > power[k - 1] && power[k] >= power[k + 1] {
                best = power[k]
                bin = k
            }
            guard bin >= 0, !binIsClaimed(bin) else { continue }
            let neighbours = neighbourPower(bin)
            guard neighbours <= power[bin] * relaxedProminence * relaxedProminence else { continue }
            let hertz = frequency(bin: bin)
            guard abs(hertz - tracks[index].hertz) < 0.035 * tracks[index].hertz else { continue }
            update(track: index, bin: bin, hertz: hertz, strongestPower: strongestPower, peakAtCeiling: peakAtCeiling)
        }
        // New tracks from the strongest prominent peaks no track holds.
        for rank in 0..<Self.candidateCount {
            let candidate = candidates[rank]
            guard candidate.power > 0 else { break }
            guard !binIsClaimed(candidate.bin, within: 2) else { continue }
            var free = -1
            for index in 0..<Self.trackCount where !tracks[index].active {
                free = index
                break
            }
            guard free >= 0 else { break }
            var track = Self.newTrack()
            track.active = true
            track.hertz = frequency(bin: candidate.bin)
            track.anchorHertz = track.hertz
            tracks[free] = track
            let level = Self.decibels(candidate.power)
            for hop in 0..<Self.envelopeHops { trackLevels[free * Self.envelopeHops + hop] = level }
            tracks[free].envelopeDecibels = level
            tracks[free].levelDecibels = level
            tracks[free].restartGrowth(at: level)
            update(track: free, bin: candidate.bin, hertz: track.hertz, strongestPower: strongestPower, peakAtCeiling: peakAtCeiling)
        }
        for index in 0..<Self.trackCount where tracks[index].active && !tracks[index].matched {
            tracks[index].missedHops += 1
            if tracks[index].missedHops > Self.maximumMissedHops { tracks[index] = Self.newTrack() }
        }
        judgeTracks()
        releaseQuietNotches()
        checkStuck(peakAtCeiling: peakAtCeiling, meanSquare: hopMeanSquare, strongestBin: strongestBin,
                   strongestDecibels: Self.decibels(strongestPower))
        if duckHopsLeft > 0 {
            duckHopsLeft -= 1
            if duckHopsLeft == 0 { moveDuck(to: 1, frameCount: duckReleaseFrameCount) }
        }
        for k in 0...half {
            previousReal[k] = real[k]
            previousImaginary[k] = imaginary[k]
        }
        for slot in 0..<Self.maximumNotchCount { notches[slot].flushDenormals() }
        hopPeak = 0
        hopSumOfSquares = 0
        hopsSinceNotchWork = min(hopsSinceNotchWork + 1, 1_000_000)
    }

    /// The strongest `candidateCount` prominent local maxima of the power spectrum.
    @inlinable @_noAllocation @_noLocks
    mutating func findCandidates() {
        for rank in 0..<Self.candidateCount { candidates[rank] = Self.newCandidate() }
        let quietest = decibelsToAmplitude(Self.quietestLevelDecibels)
        let quietestPower = quietest * quietest
        let prominence = decibelsToAmplitude(-Self.prominenceDecibels)
        let prominencePower = prominence * prominence
        for k in lowestBin...highestBin {
            let p = power[k]
            guard p >= quietestPower, p > power[k - 1], p >= power[k + 1] else { continue }
            let neighbours = neighbourPower(k)
            guard neighbours <= p * prominencePower else { continue }
            // Insert by power into the short list, strongest first.
            guard p > candidates[Self.candidateCount - 1].power else { continue }
            var position = Self.candidateCount - 1
            while position > 0 && candidates[position - 1].power < p {
                candidates[position] = candidates[position - 1]
                position -= 1
            }
            candidates[position].bin = k
            candidates[position].power = p
        }
    }

    /// The mean power 4 and 5 bins either side of `bin`; only above it for the lowest bins,
    /// whose lower neighbours would be DC (or beyond it).
    @inlinable @_noAllocation @_noLocks
    func neighbourPower(_ bin: Int) -> Float {
        let above = (power[bin + 4] + power[bin + 5]) * 0.5
        guard bin >= 6 else { return above }
        return (power[bin - 4] + power[bin - 5]) * 0.5 * 0.5 + above * 0.5
    }

    /// The frequency of the sinusoid in `bin`, from its phase advance over the hop: the bin's
    /// own advance is k·hop/N turns; the rest, wrapped to ±½ turn, is the offset from the bin's
    /// centre in units of N/hop bins (±2 bins with a quarter-window hop).
    @inlinable @_noAllocation @_noLocks
    func frequency(bin: Int) -> Float {
        let size = Self.analysisFrameCount
        // X_now · conj(X_before): its angle is the phase advance.
        let re = real[bin] * previousReal[bin] + imaginary[bin] * previousImaginary[bin]
        let im = imaginary[bin] * previousReal[bin] - real[bin] * previousImaginary[bin]
        let advance = angleInTurns(x: Double(re), y: Double(im))
        let hopsPerWindow = Double(size / Self.hopFrameCount)
        var deviation = advance - Double(bin) / hopsPerWindow
        deviation -= Double(Int(deviation + (deviation < 0 ? -0.5 : 0.5)))  // wrap to ±½ turn
        let bins = Double(bin) + deviation * hopsPerWindow
        return Float(bins * sampleRate / Double(size))
    }

    /// The strongest power found at the frequencies that would make a tone at `hertz` part of a
    /// harmonic series (a note's partial, not a loop's single tone).
    @inlinable @_noAllocation @_noLocks
    func harmonicRelativesPower(bin: Int, hertz: Float) -> Float {
        let binsPerHertz = Float(Self.analysisFrameCount) / Float(sampleRate)
        let half = Self.analysisFrameCount / 2
        var strongest: Float = 1e-30
        // ½ and ⅓ (it is the 2nd or 3rd partial), 2× and 3× (it is a fundamental), and the
        // neighbouring partials (n ± 1)/n of a 2nd to 5th partial.
        for ratioIndex in 0..<14 {
            let ratio: Float
            switch ratioIndex {
            case 0: ratio = 0.5
            case 1: ratio = 1.0 / 3
            case 2: ratio = 2
            case 3: ratio = 3
            case 4: ratio = 1.5
            case 5: ratio = 2.0 / 3
            case 6: ratio = 4.0 / 3
            case 7: ratio = 0.75
            case 8: ratio = 1.25
            case 9: ratio = 0.8
            case 10: ratio = 1.2
            case 11: ratio = 5.0 / 6
            case 12: ratio = 7.0 / 6
            default: ratio = 6.0 / 7
            }
            let centre = Int(hertz * ratio * binsPerHertz + 0.5)
            // Too near the peak itself (its own main lobe, ±2 bins) says nothing: low tones'
            // close ratios fall there.
            guard centre >= 2, centre <= half - 2, abs(centre - bin) >= 4 else { continue }
            // A relative inside a notch's band is a howl of its own (two modes a fifth or a
            // twelfth apart feed back together), not the rest of a note.
            guard notchCovering(hertz: hertz * ratio) == nil else { continue }
            strongest = max(strongest, max(power[centre - 1], max(power[centre], power[centre + 1])))
        }
        return strongest
    }

    /// Whether a track matched this hop holds `bin` (or one within `within` bins of it).
    @inlinable @_noAllocation @_noLocks
    func binIsClaimed(_ bin: Int, within: Int = 0) -> Bool {
        for index in 0..<Self.trackCount where tracks[index].active && tracks[index].matched {
            if abs(tracks[index].bin - bin) <= within { return true }
        }
        return false
    }

    /// In-place radix-2 FFT of `real`/`imaginary` (decimation in time, bit-reversed input order).
    @inlinable @_noAllocation @_noLocks
    func transform() {
        let size = Self.analysisFrameCount
        for n in 0..<size {
            let m = Int(bitReversed[n])
            if m > n {
                let r = real[n]; real[n] = real[m]; real[m] = r
                let i = imaginary[n]; imaginary[n] = imaginary[m]; imaginary[m] = i
            }
        }
        var span = 2
        while span <= size {
            let half = span / 2
            let stride = size / span
            var start = 0
            while start < size {
                for j in 0..<half {
                    // e^(−2πi·j/span)
                    let wr = twiddleCosine[j * stride], wi = -twiddleSine[j * stride]
                    let a = start + j, b = a + half
                    let tr = wr * real[b] - wi * imaginary[b]
                    let ti = wr * imaginary[b] + wi * real[b]
                    real[b] = real[a] - tr
                    imaginary[b] = imaginary[a] - ti
                    real[a] += tr
                    imaginary[a] += ti
                }
                start += span
            }
            span *= 2
        }
    }

    /// 10·log10 of a power, floored at −200 dB.
    @inlinable @_noAllocation @_noLocks
    static func decibels(_ power: Float) -> Float {
        power > 1e-20 ? 3.010_3 * log2Approximation(power) : -200
    }
}
