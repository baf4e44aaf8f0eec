import CALSA

/// A device sample encoding (`snd_pcm_format_t`).
public struct SampleFormat: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: snd_pcm_format_t
    /// - Thread: any.
    public init(rawValue: snd_pcm_format_t) { self.rawValue = rawValue }

    /// 32-bit float, little-endian (`SND_PCM_FORMAT_FLOAT_LE`): the engine's own, no conversion.
    public static let float32 = SampleFormat(rawValue: SND_PCM_FORMAT_FLOAT_LE)
    /// 32-bit signed integer, little-endian (`SND_PCM_FORMAT_S32_LE`).
    public static let int32 = SampleFormat(rawValue: SND_PCM_FORMAT_S32_LE)
    /// 16-bit signed integer, little-endian (`SND_PCM_FORMAT_S16_LE`).
    public static let int16 = SampleFormat(rawValue: SND_PCM_FORMAT_S16_LE)

    /// Preference order: float first, then integers, widest first.
    public static let preferred: [SampleFormat] = [.float32, .int32, .int16]

    /// Bytes per sample.
    /// - Thread: any.
    public var byteCount: Int { Int(snd_pcm_format_physical_width(rawValue)) / 8 }

    /// ALSA's name for it, e.g. `FLOAT_LE`.
    /// - Thread: any.
    public var description: String { String(cString: snd_pcm_format_name(rawValue)) }
}

/// How the device thread turns the engine's float samples into a device format. Decided once, on
/// the control thread, so the audio thread only branches on a plain enum.
enum SampleConversion {
    case float32, int32, int16

    init(_ format: SampleFormat) {
        switch format {
        case .int32: self = .int32
        case .int16: self = .int16
        default: self = .float32
        }
    }

    /// Converts `count` captured samples in the device format to float, −1…1.
    @_noAllocation @_noLocks
    func convertToFloat(_ source: UnsafeRawPointer, count: Int, into destination: UnsafeMutablePointer<Float>) {
        switch self {
        case .int32:
            let input = source.assumingMemoryBound(to: Int32.self)
            for index in 0..<count { destination[index] = Float(input[index]) * (1 / 2_147_483_648) }
        case .int16:
            let input = source.assumingMemoryBound(to: Int16.self)
            for index in 0..<count { destination[index] = Float(input[index]) * (1 / 32_768) }
        case .float32:
            UnsafeMutableRawPointer(destination).copyMemory(from: source, byteCount: count * MemoryLayout<Float>.stride)
        }
    }

    /// Converts `count` samples, clipping to the integer range.
    @_noAllocation @_noLocks
    func convert(_ source: UnsafePointer<Float>, count: Int, into destination: UnsafeMutableRawPointer) {
        switch self {
        case .int32:
            let output = destination.assumingMemoryBound(to: Int32.self)
            for index in 0..<count {
                // 2147483520 is the largest Float below 2^31: keeps +1.0 from overflowing.
                output[index] = Int32(min(max(source[index], -1), 1) * 2_147_483_520)
            }
        case .int16:
            let output = destination.assumingMemoryBound(to: Int16.self)
            for index in 0..<count {
                output[index] = Int16(min(max(source[index], -1), 1) * 32_767)
            }
        case .float32:
            destination.copyMemory(from: source, byteCount: count * MemoryLayout<Float>.stride)
        }
    }
}
