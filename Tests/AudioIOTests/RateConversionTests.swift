import AudioIO
import XCTest

/// Which periods a rate-converting device plays in tune, and how its setup is read.
final class RateConversionTests: XCTestCase {
    /// `aplay -v` on a plug over ALSA's jack plug-in at 48000 Hz (abridged: the stream's setup and
    /// two slaves').
    static let dump = """
        Plug PCM: Rate conversion PCM (48000, sformat=S16_LE)
        Converter: libspeex (external)
        Its setup is:
          stream       : PLAYBACK
          rate         : 44100
          exact rate   : 44100 (44100/1)
          buffer_size  : 3763
          period_size  : 58
          period_time  : 1333
        Slave: Linear Integer <-> Linear Float conversion PCM (FLOAT_LE)
        Its setup is:
          stream       : PLAYBACK
          rate         : 48000
          exact rate   : 48000 (48000/1)
          buffer_size  : 4096
          period_size  : 64
        Slave: ALSA <-> JACK PCM I/O Plugin
        Its setup is:
          rate         : 48000
          period_size  : 64
        """

    func testTheDumpGivesTheStreamAndTheDeviceItConvertsTo() throws {
        let conversion = try XCTUnwrap(RateConversion(dump: Self.dump))
        XCTAssertEqual(conversion, RateConversion(sampleRate: 44_100, periodFrameCount: 58, deviceSampleRate: 48_000, devicePeriodFrameCount: 64))
        XCTAssertFalse(conversion.isExact)
        // 58 frames played as 64 of 48000 Hz: 440 Hz comes out at 434 Hz.
        XCTAssertEqual(conversion.pitchErrorCents, 1_200 * log2(58.0 * 48_000 / (64 * 44_100)), accuracy: 1e-9)
        XCTAssertEqual(conversion.pitchErrorCents, -23.7, accuracy: 0.1)
    }

    func testNoSlaveAtAnotherRateIsNoConversion() {
        let sameRate = Self.dump.replacingOccurrences(of: "44100", with: "48000")
        XCTAssertNil(RateConversion(dump: sameRate))
        XCTAssertNil(RateConversion(dump: ""))
        XCTAssertNil(RateConversion(dump: "Hardware PCM card 0 'HDA Intel' device 0 subdevice 0\nIts setup is:\n  rate : 48000\n  period_size : 64\n"))
    }

    func testExactPeriodsAreInTheRatesRatio() {
        XCTAssertEqual(RateConversion.exactPeriodStep(sampleRate: 44_100, deviceSampleRate: 48_000), 147)
        XCTAssertEqual(RateConversion.exactPeriodStep(sampleRate: 32_000, deviceSampleRate: 48_000), 2)
        XCTAssertEqual(RateConversion.exactPeriodStep(sampleRate: 22_050, deviceSampleRate: 48_000), 147)
        XCTAssertEqual(RateConversion.exactPeriodStep(sampleRate: 96_000, deviceSampleRate: 48_000), 2)
        XCTAssertEqual(RateConversion.exactPeriodStep(sampleRate: 44_101, deviceSampleRate: 48_000), 44_101)
        XCTAssertTrue(RateConversion(sampleRate: 44_100, periodFrameCount: 294, deviceSampleRate: 48_000, devicePeriodFrameCount: 320).isExact)
        XCTAssertEqual(RateConversion(sampleRate: 44_100, periodFrameCount: 294, deviceSampleRate: 48_000, devicePeriodFrameCount: 320).pitchErrorCents, 0)
    }

    func testCandidatesRunFromTheAskedForPeriodOutwards() {
        XCTAssertEqual(RateConversion.exactPeriods(near: 64, sampleRate: 44_100, deviceSampleRate: 48_000, longest: 1_000), [147, 294, 441, 588, 735, 882])
        XCTAssertEqual(RateConversion.exactPeriods(near: 256, sampleRate: 44_100, deviceSampleRate: 48_000, longest: 600), [294, 147, 441, 588])
        // A tie goes to the longer period, which has more headroom.
        XCTAssertEqual(RateConversion.exactPeriods(near: 63, sampleRate: 32_000, deviceSampleRate: 48_000, longest: 100).prefix(3), [64, 62, 66])
        XCTAssertEqual(RateConversion.exactPeriods(near: 64, sampleRate: 44_101, deviceSampleRate: 48_000, longest: 4_096), [])
    }
}
