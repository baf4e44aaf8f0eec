import Foundation
import TestSupport
import XCTest

/// The fonts users have are large: FluidR3_GM.sf2 holds 148 MB of samples, MuseScore's General
/// MIDI SF3 takes seconds to decode. Loading one that does not fit is one line,
/// and a slow load shows its progress on a terminal only.
final class LargeFontTests: XCTestCase {
    static let fluidR3 = "/usr/share/sounds/sf2/FluidR3_GM.sf2"
    /// Debian's MuseScore font (musescore-general-soundfont), whichever edition the system links.
    static let museScore = "/usr/share/sounds/sf3/MuseScore_General.sf3"

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: CommandRunner.staccatoExecutable.path) else {
            XCTFail("build the staccato executable first (swift build)")
            throw XCTSkip("no staccato executable")
        }
    }

    /// A one-note song, the least a render can play.
    static func oneNoteSong() throws -> String {
        let path = TestDevices.temporaryFile("one-note.mid")
        let track = SMF.noteOn(key: 60) + SMF.vlq(480) + [0x80, 60, 0] + SMF.endOfTrack
        try Data(SMF.file(format: 0, tracks: [track])).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// `staccato render` of one note through FluidR3_GM.sf2 to `out`, the process's address space
    /// limited to `megabytes`.
    static func renderFluidR3(underMegabytes megabytes: Int, to out: String) throws -> CommandRunner.Result {
        let song = try oneNoteSong()
        defer { unlink(song) }
        return try CommandRunner.shell("ulimit -v \(megabytes * 1_024) && exec '\(CommandRunner.staccatoExecutable.path)' render '\(song)' --soundfont \(fluidR3) --out '\(out)'",
                                       timeout: 60)
    }

    /// Under a 250 MB address-space limit the samples (148 MB, and a reserve) cannot be had: one
    /// line and exit 1, not Swift's "failed to allocate" abort.
    func testAFontLargerThanTheMemoryThatCanBeHadIsOneLine() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: Self.fluidR3), "no \(Self.fluidR3) (apt install fluid-soundfont-gm)")
        let out = TestDevices.temporaryFile("too-large.wav")
        defer { unlink(out) }
        let result = try Self.renderFluidR3(underMegabytes: 250, to: out)
        XCTAssertEqual(result.exitCode, 1, result.standardOutput + result.standardError)
        XCTAssertEqual(result.errorLines.count, 1, result.standardError)
        let line = try XCTUnwrap(result.errorLines.first)
        // One note decodes little, but the pool is laid out whole (its untouched pages cost
        // address space, which `ulimit -v` counts, and no memory).
        XCTAssertNotNil(line.range(of: #"^staccato: soundfont 'FluidR3_GM\.sf2': needs \d+ MB of (sample memory|address space for its sample pool), only \d+ MB can be had$"#,
                                   options: .regularExpression), line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out), "nothing is rendered")
    }

    /// The samples go from the file straight into the pool, which the bank takes over rather than
    /// copying, so the pool (148 MB) is held once: under a 350 MB address-space limit
    /// FluidR3_GM.sf2 loads and plays (263 MB can be had), where holding the file's bytes or a
    /// second copy of the pool would need over 360 MB.
    func testAFontsSamplePoolIsHeldOnceWhileLoading() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: Self.fluidR3), "no \(Self.fluidR3) (apt install fluid-soundfont-gm)")
        let out = TestDevices.temporaryFile("held-once.wav")
        defer { unlink(out) }
        let result = try Self.renderFluidR3(underMegabytes: 350, to: out)
        XCTAssertEqual(result.exitCode, 0, result.standardOutput + result.standardError)
        XCTAssertEqual(result.errorLines, [], result.standardError)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out), "the note is rendered")
    }

    /// A song that reaches nearly every sample of a General MIDI font: every program, then every
    /// drum kit, each on every third key at three velocities, one tick a note. A render decodes
    /// only what its song plays, so only such a song makes it decode (nearly) a whole font.
    static func everyProgramSong() throws -> String {
        let path = TestDevices.temporaryFile("every-program.mid")
        var track: [UInt8] = []
        for (channel, programs) in [(UInt8(0), 0..<128), (UInt8(9), 0..<128)] {
            for program in programs {
                track += SMF.vlq(0) + [0xC0 | channel, UInt8(program)]
                for key in stride(from: 21, through: 108, by: 3) {
                    for velocity in [30, 80, 127] as [UInt8] {
                        track += SMF.noteOn(channel: channel, key: UInt8(key), velocity: velocity)
                        track += SMF.vlq(1) + [0x80 | channel, UInt8(key), 0]
                    }
                }
            }
        }
        try Data(SMF.file(format: 0, tracks: [track + SMF.endOfTrack])).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// MuseScore's SF3 takes seconds to decode whole: on a terminal (`script` gives the command
    /// one) its progress is drawn in place and cleared before the render's report; with standard
    /// error on a pipe not a byte of it is written.
    func testASlowLoadShowsItsProgressOnATerminalOnly() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: Self.museScore), "no \(Self.museScore) (apt install musescore-general-soundfont)")
        try XCTSkipIf((try? CommandRunner.shell("command -v script >/dev/null").exitCode) != 0, "script (util-linux) is not installed")
        let song = try Self.everyProgramSong()
        let out = TestDevices.temporaryFile("progress.wav")
        defer { unlink(song); unlink(out) }
        let command = "'\(CommandRunner.staccatoExecutable.path)' render '\(song)' --soundfont \(Self.museScore) --out '\(out)'"

        let terminal = try CommandRunner.shell("script -qec \"\(command)\" /dev/null", timeout: 120)
        XCTAssertEqual(terminal.exitCode, 0, terminal.standardOutput)
        let screen = terminal.standardOutput
        XCTAssertTrue(screen.contains("\rloading MuseScore_General.sf3: "), screen)
        XCTAssertTrue(screen.contains(" %\u{1B}[K"), screen)
        let cleared = try XCTUnwrap(screen.range(of: "\r\u{1B}[K", options: .backwards), "the line is cleared")
        let report = try XCTUnwrap(screen.range(of: "rendered "), screen)
        XCTAssertLessThan(cleared.lowerBound, report.lowerBound, "cleared before the report")
        XCTAssertFalse(screen[report.lowerBound...].contains("loading MuseScore"), screen)

        let piped = try CommandRunner.shell("\(command) 2>&1 | cat", timeout: 120)
        XCTAssertEqual(piped.exitCode, 0, piped.standardOutput)
        XCTAssertFalse(piped.standardOutput.contains("loading MuseScore"), piped.standardOutput)
        XCTAssertFalse(piped.standardOutput.contains("\r"), piped.standardOutput)
    }
}
