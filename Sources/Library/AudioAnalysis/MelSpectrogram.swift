#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Triangular filters evenly spaced on the mel scale (the HTK formula, mel = 2595 log10(1 + f/700)),
/// which sum an FFT's power spectrum into bands about as wide as the ear resolves.
///
/// - Thread: any. Immutable after `init`.
public struct MelFilterbank: Sendable {
    public let bandCount: Int
    public let fftSize: Int
    public let sampleRate: Double
    /// `bandCount + 2` frequencies: band b rises from edge b, peaks at edge b+1, falls to edge b+2.
    public let edgeHertz: [Double]
    /// Per band: the first FFT bin it weights and the weights from there on.
    private let filters: [(firstBin: Int, weights: [Double])]

    /// `bandCount` bands from `lowHertz` to `highHertz` over a `fftSize`-point spectrum.
    /// - Thread: any.
    public init(bandCount: Int, lowHertz: Double, highHertz: Double, fftSize: Int, sampleRate: Double) {
        precondition(bandCount > 0 && lowHertz >= 0 && highHertz > lowHertz && highHertz <= sampleRate / 2,
                     "mel bands need 0 <= low < high <= Nyquist")
        self.bandCount = bandCount
        self.fftSize = fftSize
        self.sampleRate = sampleRate
        let lowMel = Self.mel(hertz: lowHertz), highMel = Self.mel(hertz: highHertz)
        let edges = (0 ... bandCount + 1).map { Self.hertz(mel: lowMel + (highMel - lowMel) * Double($0) / Double(bandCount + 1)) }
        edgeHertz = edges
        let binHertz = sampleRate / Double(fftSize)
        filters = (0 ..< bandCount).map { band in
            let low = edges[band], centre = edges[band + 1], high = edges[band + 2]
            let firstBin = Int((low / binHertz).rounded(.up))
            let lastBin = min(fftSize / 2, Int((high / binHertz).rounded(.down)))
            var weights = firstBin <= lastBin ? (firstBin ... lastBin).map { bin -> Double in
                let hertz = Double(bin) * binHertz
                return hertz <= centre ? (hertz - low) / (centre - low) : (high - hertz) / (high - centre)
            } : []
            // A band narrower than a bin would read nothing: it takes the bin nearest its centre.
            if weights.reduce(0, +) <= 0 {
                return (min(fftSize / 2, Int((centre / binHertz).rounded())), [1])
            }
            weights = weights.map { max($0, 0) }
            return (firstBin, weights)
        }
    }

    /// The HTK mel scale.
    /// - Thread: any.
    public static func mel(hertz: Double) -> Double { 2595 * log10(1 + hertz / 700) }

    /// The inverse of `mel(hertz:)`.
    /// - Thread: any.
    public static func hertz(mel: Double) -> Double { 700 * (pow(10, mel / 2595) - 1) }

    /// Where band `band`'s triangle peaks.
    /// - Thread: any.
    public func centreHertz(band: Int) -> Double { edgeHertz[band + 1] }

    /// The band whose centre is nearest `hertz` on the mel scale: where a pure tone's energy peaks.
    /// - Thread: any.
    public func nearestBand(toHertz hertz: Double) -> Int {
        let target = Self.mel(hertz: hertz)
        return (0 ..< bandCount).min { abs(Self.mel(hertz: centreHertz(band: $0)) - target) < abs(Self.mel(hertz: centreHertz(band: $1)) - target) }!
    }

    /// Band energies of one power spectrum (`fftSize / 2 + 1` bins).
    /// - Thread: any.
    public func apply(_ power: [Double]) -> [Double] {
        filters.map { filter in
            var sum = 0.0
            for (offset, weight) in filter.weights.enumerated() { sum += weight * power[filter.firstBin + offset] }
            return sum
        }
    }
}

/// A log-power mel spectrogram of a mono signal: Hann-windowed frames, power spectra summed into
/// mel bands, in dB, floored a fixed distance below the loudest cell so silence and near-silence
/// do not dominate a comparison with arbitrarily deep logarithms.
///
/// - Thread: any.
public struct LogMelSpectrogram: Sendable {
    /// The analysis the comparisons use: 2048-point frames every 512 samples, 64 bands from 30 Hz
    /// to 16 kHz, cells floored 100 dB below the peak.
    public struct Settings: Sendable {
        public var fftSize = 2048
        public var hop = 512
        public var bandCount = 64
        public var lowHertz = 30.0
        public var highHertz = 16_000.0
        public var floorBelowPeakDecibels = 100.0
        /// - Thread: any.
        public init() {}
    }

    /// `frames[t][b]`: band b of frame t, in dB (10 log10 of power).
    public let frames: [[Double]]
    public let filterbank: MelFilterbank

    /// The spectrogram of `samples` at `sampleRate`; frame t covers samples t*hop ..< t*hop+fftSize
    /// (a signal shorter than one frame is zero-padded to one).
    /// - Thread: any. Allocates; meant for control-thread analysis.
    public init(_ samples: [Float], sampleRate: Double, settings: Settings = Settings()) {
        let transform = FourierTransform(size: settings.fftSize)
        let filterbank = MelFilterbank(bandCount: settings.bandCount, lowHertz: settings.lowHertz,
                                       highHertz: min(settings.highHertz, sampleRate / 2), fftSize: settings.fftSize, sampleRate: sampleRate)
        self.filterbank = filterbank
        let size = settings.fftSize
        let window = (0 ..< size).map { 0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(size)) }
        let frameCount = samples.count <= size ? 1 : (samples.count - size) / settings.hop + 1
        var frame = [Double](repeating: 0, count: size)
        var decibels: [[Double]] = []
        decibels.reserveCapacity(frameCount)
        var peak = -Double.infinity
        for index in 0 ..< frameCount {
            let start = index * settings.hop
            for offset in 0 ..< size {
                frame[offset] = start + offset < samples.count ? Double(samples[start + offset]) * window[offset] : 0
            }
            let bands = filterbank.apply(transform.powerSpectrum(frame)).map { 10 * log10(max($0, Double.leastNormalMagnitude)) }
            peak = max(peak, bands.max() ?? peak)
            decibels.append(bands)
        }
        let floor = peak - settings.floorBelowPeakDecibels
        frames = decibels.map { $0.map { max($0, floor) } }
    }
}
