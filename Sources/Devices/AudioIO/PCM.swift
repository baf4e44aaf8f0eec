import CALSA
import Glibc

/// Which way a PCM moves audio (`snd_pcm_stream_t`).
public struct PCMDirection: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: snd_pcm_stream_t
    /// - Thread: any.
    public init(rawValue: snd_pcm_stream_t) { self.rawValue = rawValue }
    /// `SND_PCM_STREAM_PLAYBACK`
    public static let playback = PCMDirection(rawValue: SND_PCM_STREAM_PLAYBACK)
    /// `SND_PCM_STREAM_CAPTURE`
    public static let capture = PCMDirection(rawValue: SND_PCM_STREAM_CAPTURE)
    /// - Thread: any.
    public var description: String { self == .playback ? "playback" : "capture" }
}

/// An open ALSA PCM (`snd_pcm_t`), wrapped thinly. Each alsa-lib call has exactly one funnel in
/// this type, which turns negative returns into `ALSAError` and retries `EINTR` where a call can
/// be interrupted.
///
/// - Thread: audio | control. `open` and `configure` are control-thread calls (they allocate). The transfer funnels
///   (`availableFrameCount`, `wait`, `write`, `recover…`, `state`) belong to the one device thread.
final class PCM: @unchecked Sendable {
    let name: String
    let direction: PCMDirection
    let handle: OpaquePointer

    private init(name: String, direction: PCMDirection, handle: OpaquePointer) {
        self.name = name
        self.direction = direction
        self.handle = handle
    }

    deinit { snd_pcm_close(handle) }

    /// Opens `name` non-blocking (`snd_pcm_open` with `SND_PCM_NONBLOCK`): a busy hardware device
    /// then answers `EBUSY` at once instead of making us wait for it.
    static func open(_ name: String, direction: PCMDirection) throws(DeviceError) -> PCM {
        LibraryDiagnostics.quietOnce()
        var handle: OpaquePointer?
        let result = snd_pcm_open(&handle, name, direction.rawValue, SND_PCM_NONBLOCK)
        guard result >= 0, let handle else { throw .openFailure(name, ALSAError(returned: result)) }
        return PCM(name: name, direction: direction, handle: handle)
    }

    /// Negotiates format, channels, rate, period and buffer, and returns what the device granted.
    /// The rate and channel count must be granted exactly; period and buffer may be rounded. On a
    /// device that converts the rate, the period nearest the one asked for whose ratio to the
    /// device's is the rates' (`RateConversion`), up to `longestPeriodFrameCount` frames.
    func configure(_ request: StreamConfiguration, longestPeriodFrameCount: Int) throws(DeviceError) -> GrantedConfiguration {
        var hardware: OpaquePointer?
        guard snd_pcm_hw_params_malloc(&hardware) >= 0, let hardware else {
            throw DeviceError(device: name, message: "out of memory for hardware parameters")
        }
        defer { snd_pcm_hw_params_free(hardware) }

        try check(snd_pcm_hw_params_any(handle, hardware), "cannot read its capabilities")
        try check(snd_pcm_hw_params_set_access(handle, hardware, SND_PCM_ACCESS_RW_INTERLEAVED),
                  "does not support interleaved read/write access")

        guard let format = request.formats.first(where: { snd_pcm_hw_params_test_format(handle, hardware, $0.rawValue) == 0 }) else {
            let wanted = request.formats.map(\.description).joined(separator: ", ")
            let offered = (0...SND_PCM_FORMAT_LAST.rawValue).map { SampleFormat(rawValue: snd_pcm_format_t($0)) }
                .filter { snd_pcm_hw_params_test_format(handle, hardware, $0.rawValue) == 0 }
                .map(\.description).joined(separator: ", ")
            throw DeviceError(device: name, message: "supports none of the sample formats \(wanted) (it offers \(offered.isEmpty ? "none" : offered))")
        }
        try check(snd_pcm_hw_params_set_format(handle, hardware, format.rawValue), "refused format \(format)")

        var minimumChannels: UInt32 = 0, maximumChannels: UInt32 = 0
        snd_pcm_hw_params_get_channels_min(hardware, &minimumChannels)
        snd_pcm_hw_params_get_channels_max(hardware, &maximumChannels)
        guard maximumChannels > 0 else {
            throw DeviceError(device: name, message: "has no \(direction) channels", code: .invalid)
        }
        // A microphone takes what it has (mono or stereo: the graph uses at most two); an output
        // must give exactly the channels the renderer makes.
        let channelCount = direction == .capture
            ? Int(min(max(UInt32(request.channelCount), minimumChannels), maximumChannels))
            : request.channelCount
        if snd_pcm_hw_params_set_channels(handle, hardware, UInt32(channelCount)) < 0 {
            throw DeviceError(device: name, message: "cannot do \(channelCount) \(direction) channels (it supports \(minimumChannels)-\(maximumChannels))",
                              code: .invalid)
        }

        var rate = UInt32(request.sampleRate)
        var direction: Int32 = 0
        try check(snd_pcm_hw_params_set_rate_near(handle, hardware, &rate, &direction), "refused rate \(request.sampleRate) Hz")
        guard rate == UInt32(request.sampleRate) else {
            throw DeviceError(device: name, message: "runs at \(rate) Hz, not the \(request.sampleRate) Hz asked for (try --rate \(rate))",
                              code: .invalid)
        }

        let (period, buffer, conversion) = try negotiatePeriod(hardware, request, longest: longestPeriodFrameCount)
        var software: OpaquePointer?
        guard snd_pcm_sw_params_malloc(&software) >= 0, let software else {
            throw DeviceError(device: name, message: "out of memory for software parameters")
        }
        defer { snd_pcm_sw_params_free(software) }
        try check(snd_pcm_sw_params_current(handle, software), "cannot read its software parameters")
        // Playback starts once the buffer is as full as whole periods can make it, so the first
        // period has the most headroom; capture starts at once. The thread writes and wakes in
        // whole periods, so a threshold of the whole buffer would never be reached when the
        // buffer is not a multiple of the period (a rate plug grants 58 x 3 in 176 frames).
        // (A duplex stream starts both explicitly, after pre-filling playback.)
        let threshold = self.direction == .playback ? Self.wholePeriodFrameCount(buffer, period: period) : 1
        try check(snd_pcm_sw_params_set_start_threshold(handle, software, threshold), "refused the start threshold")
        try check(snd_pcm_sw_params_set_avail_min(handle, software, period), "refused the wake-up size")
        try check(snd_pcm_sw_params(handle, software), "refused the software parameters")

        return GrantedConfiguration(format: format, sampleRate: Int(rate), channelCount: channelCount,
                                    periodFrameCount: Int(period), bufferFrameCount: Int(buffer),
                                    requestedPeriodFrameCount: request.periodFrameCount, rateConversion: conversion)
    }

    /// The period and buffer nearest those asked for; on a device that converts the rate and
    /// would play them off pitch, the nearest exact period it accepts instead, if any. `hardware`
    /// holds the format, channel and rate constraints on entry, the committed setup on return.
    private func negotiatePeriod(_ hardware: OpaquePointer, _ request: StreamConfiguration, longest: Int) throws(DeviceError)
        -> (period: snd_pcm_uframes_t, buffer: snd_pcm_uframes_t, conversion: RateConversion?) {
        var constraints: OpaquePointer?
        guard snd_pcm_hw_params_malloc(&constraints) >= 0, let constraints else {
            throw DeviceError(device: name, message: "out of memory for hardware parameters")
        }
        defer { snd_pcm_hw_params_free(constraints) }
        snd_pcm_hw_params_copy(constraints, hardware)
        let nearest = try negotiatePeriodAndBuffer(hardware, request, exactPeriod: nil)
        let conversion = RateConversion(dump: setupDump())
        guard let conversion, !conversion.isExact else { return (nearest.period, nearest.buffer, conversion) }
        // The committed setup undone and the constraints back, then a negotiation at `exactPeriod`.
        func negotiateAgain(exactPeriod: Int?) throws(DeviceError) -> (period: snd_pcm_uframes_t, buffer: snd_pcm_uframes_t) {
            snd_pcm_hw_free(handle)
            snd_pcm_hw_params_copy(hardware, constraints)
            return try negotiatePeriodAndBuffer(hardware, request, exactPeriod: exactPeriod)
        }
        for candidate in RateConversion.exactPeriods(near: request.periodFrameCount, sampleRate: request.sampleRate,
                                                     deviceSampleRate: conversion.deviceSampleRate, longest: longest) {
            guard let exact = try? negotiateAgain(exactPeriod: candidate),
                  let granted = RateConversion(dump: setupDump()), granted.isExact else { continue }
            return (exact.period, exact.buffer, granted)
        }
        // None is exact: the nearest again, and the conversion says by how much it is off.
        let fallback = try negotiateAgain(exactPeriod: nil)
        return (fallback.period, fallback.buffer, RateConversion(dump: setupDump()))
    }

    /// The PCM's setup and its slaves' as `snd_pcm_dump` prints them ("" if it cannot).
    private func setupDump() -> String {
        var output: OpaquePointer?
        guard snd_output_buffer_open(&output) >= 0, let output else { return "" }
        defer { snd_output_close(output) }
        guard snd_pcm_dump(handle, output) >= 0 else { return "" }
        var text: UnsafeMutablePointer<CChar>?
        let count = snd_output_buffer_string(output, &text)
        guard let text, count > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// The most frames of whole periods that fit in `buffer` (at least one period).
    static func wholePeriodFrameCount<Frames: BinaryInteger>(_ buffer: Frames, period: Frames) -> Frames {
        max(period, buffer / max(1, period) * period)
    }

    /// Sets the period nearest the one asked for and a buffer of about the asked-for periods, and
    /// commits the hardware parameters. A rate-converting plug maps both onto its slave's sizes
    /// and may accept each alone yet refuse the pair (44100 Hz over a 48000 Hz JACK server:
    /// period 235, buffer 705 is EINVAL), so on refusal it tries a whole number of periods near
    /// the count asked for, then the buffer the device prefers for that period. Returns the
    /// granted period and buffer; throws one line naming what the device offers when none works.
    private func negotiatePeriodAndBuffer(_ hardware: OpaquePointer, _ request: StreamConfiguration, exactPeriod: Int?) throws(DeviceError)
        -> (period: snd_pcm_uframes_t, buffer: snd_pcm_uframes_t) {
        var base: OpaquePointer?
        guard snd_pcm_hw_params_malloc(&base) >= 0, let base else {
            throw DeviceError(device: name, message: "out of memory for hardware parameters")
        }
        defer { snd_pcm_hw_params_free(base) }
        snd_pcm_hw_params_copy(base, hardware)
        let periodCount = UInt32(max(2, request.periodCount))

        enum BufferChoice: CaseIterable { case periodsTimesPeriod, wholePeriodCount, deviceChoice }
        var lastRefusal: Int32 = 0
        for choice in BufferChoice.allCases {
            snd_pcm_hw_params_copy(hardware, base)
            var period = snd_pcm_uframes_t(exactPeriod ?? request.periodFrameCount)
            var direction: Int32 = 0
            if exactPeriod != nil {
                try check(snd_pcm_hw_params_set_period_size(handle, hardware, period, 0), "refused a period of \(period) frames")
            } else {
                try check(snd_pcm_hw_params_set_period_size_near(handle, hardware, &period, &direction),
                          "refused a period of \(request.periodFrameCount) frames")
            }
            switch choice {
            case .periodsTimesPeriod:
                var buffer = period * snd_pcm_uframes_t(periodCount)
                try check(snd_pcm_hw_params_set_buffer_size_near(handle, hardware, &buffer),
                          "refused a buffer of \(request.periodCount) periods")
            case .wholePeriodCount:
                var count = periodCount
                guard snd_pcm_hw_params_set_periods_integer(handle, hardware) >= 0,
                      snd_pcm_hw_params_set_periods_near(handle, hardware, &count, &direction) >= 0 else { continue }
            case .deviceChoice:
                break
            }
            lastRefusal = snd_pcm_hw_params(handle, hardware)
            if lastRefusal >= 0 {
                var buffer: snd_pcm_uframes_t = 0
                snd_pcm_hw_params_get_period_size(hardware, &period, &direction)
                snd_pcm_hw_params_get_buffer_size(hardware, &buffer)
                return (period, buffer)
            }
        }
        var minimumPeriod: snd_pcm_uframes_t = 0, maximumPeriod: snd_pcm_uframes_t = 0
        var minimumBuffer: snd_pcm_uframes_t = 0, maximumBuffer: snd_pcm_uframes_t = 0
        var direction: Int32 = 0
        snd_pcm_hw_params_get_period_size_min(base, &minimumPeriod, &direction)
        snd_pcm_hw_params_get_period_size_max(base, &maximumPeriod, &direction)
        snd_pcm_hw_params_get_buffer_size_min(base, &minimumBuffer)
        snd_pcm_hw_params_get_buffer_size_max(base, &maximumBuffer)
        let code = ALSAError(returned: lastRefusal)
        throw DeviceError(device: name, message: "refused every buffer for a period near \(request.periodFrameCount) frames at \(request.sampleRate) Hz: \(code) (it offers periods of \(minimumPeriod)-\(maximumPeriod) frames, buffers of \(minimumBuffer)-\(maximumBuffer) frames; try another --period)",
                          code: code)
    }

    private func check(_ result: Int32, _ what: String) throws(DeviceError) {
        if result < 0 {
            let code = ALSAError(returned: result)
            throw DeviceError(device: name, message: "\(what): \(code)", code: code)
        }
    }

    // MARK: Transfer funnels (device thread)

    /// Frames that can be written (playback) or read (capture) now, or the error
    /// (`snd_pcm_avail_update`).
    func availableFrameCount() -> Result<Int, ALSAError> {
        let available = snd_pcm_avail_update(handle)
        return available < 0 ? .failure(ALSAError(returned: available)) : .success(available)
    }

    /// Waits until the device is ready for a period or `milliseconds` pass (`snd_pcm_wait`),
    /// retrying `EINTR`. Returns `true` when ready, `false` on timeout.
    func wait(milliseconds: Int32) -> Result<Bool, ALSAError> {
        while true {
            let result = snd_pcm_wait(handle, milliseconds)
            if result == -EINTR { continue }
            if result < 0 { return .failure(ALSAError(returned: result)) }
            return .success(result > 0)
        }
    }

    /// Reads up to `frameCount` interleaved frames (`snd_pcm_readi`), retrying `EINTR`.
    /// Returns the frames read, which may be fewer.
    func read(_ frames: UnsafeMutableRawPointer, frameCount: Int) -> Result<Int, ALSAError> {
        while true {
            let count = snd_pcm_readi(handle, frames, snd_pcm_uframes_t(frameCount))
            if count == -Int(EINTR) { continue }
            return count < 0 ? .failure(ALSAError(returned: count)) : .success(count)
        }
    }

    /// Starts the stream now, not at the start threshold (`snd_pcm_start`).
    func start() -> ALSAError? {
        let result = snd_pcm_start(handle)
        return result < 0 ? ALSAError(returned: result) : nil
    }

    /// Links this PCM with `other` so they start, stop and prepare together (`snd_pcm_link`).
    /// Returns false when the devices cannot be linked (different cards, most plugins).
    func link(to other: PCM) -> Bool { snd_pcm_link(handle, other.handle) >= 0 }

    /// Undoes `link(to:)` (`snd_pcm_unlink`).
    func unlink() { snd_pcm_unlink(handle) }

    /// Writes up to `frameCount` interleaved frames (`snd_pcm_writei`), retrying `EINTR`.
    /// Returns the frames written, which may be fewer.
    func write(_ frames: UnsafeRawPointer, frameCount: Int) -> Result<Int, ALSAError> {
        while true {
            let written = snd_pcm_writei(handle, frames, snd_pcm_uframes_t(frameCount))
            if written == -Int(EINTR) { continue }
            return written < 0 ? .failure(ALSAError(returned: written)) : .success(written)
        }
    }

    /// After an xrun: back to the prepared state (`snd_pcm_prepare`).
    func prepare() -> ALSAError? {
        let result = snd_pcm_prepare(handle)
        return result < 0 ? ALSAError(returned: result) : nil
    }

    /// After a suspend: resume (`snd_pcm_resume`), returning `wouldBlock` while the device wakes.
    func resume() -> ALSAError? {
        let result = snd_pcm_resume(handle)
        return result < 0 ? ALSAError(returned: result) : nil
    }

    /// `snd_pcm_state`
    func state() -> snd_pcm_state_t { snd_pcm_state(handle) }

    /// Frames between the application pointer and the sound coming out (`snd_pcm_delay`).
    func delay() -> Result<Int, ALSAError> {
        var frames: snd_pcm_sframes_t = 0
        let result = snd_pcm_delay(handle, &frames)
        return result < 0 ? .failure(ALSAError(returned: result)) : .success(frames)
    }

    /// Starts draining without blocking (`snd_pcm_drain` on a non-blocking handle returns `EAGAIN`
    /// and leaves the PCM in DRAINING until the last frame has played).
    func beginDrain() -> ALSAError? {
        let result = snd_pcm_drain(handle)
        return result < 0 ? ALSAError(returned: result) : nil
    }

    /// Stops at once, discarding what is queued (`snd_pcm_drop`).
    func drop() { snd_pcm_drop(handle) }
}
