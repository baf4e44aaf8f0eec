import Engine
import Foundation
import TestSupport
import XCTest

/// The font played when no `--soundfont` is given: `$STACCATO_SOUNDFONT`, the first system
/// candidate that is a SoundFont by its contents, else the shipped font.
final class DefaultSoundFontTests: XCTestCase {
    func testFirstExistingSoundFontWinsSkippingBrokenLinksAndNonFonts() throws {
        let folder = try TemporaryFolder(self)
        let shipped = CommandRunner.shippedSoundFont
        try folder.writeText("readme.sf2", "not a font\n")
        try FileManager.default.createSymbolicLink(atPath: folder.file("broken.sf3"), withDestinationPath: folder.file("nowhere.sf2"))
        // Named .sf3, holding an SF2: the contents decide, as on Debian where default-GM.sf3 may link to one.
        try FileManager.default.createSymbolicLink(atPath: folder.file("default-GM.sf3"), withDestinationPath: shipped)
        try FileManager.default.copyItem(atPath: shipped, toPath: folder.file("later.sf2"))
        let candidates = ["missing.sf2", "broken.sf3", "readme.sf2", "default-GM.sf3", "later.sf2"].map(folder.file)

        let choice = InstrumentLoader.chooseSoundFont(candidates: candidates, environment: [:])
        XCTAssertEqual(choice.path, folder.file("default-GM.sf3"))
        XCTAssertEqual(choice.source, .system)
        XCTAssertEqual(choice.skipped, ["\(folder.file("readme.sf2")): not a SoundFont (no RIFF sfbk header), skipped"])
        XCTAssertEqual(choice.line, "soundfont: \(folder.file("default-GM.sf3")) -> \(URL(fileURLWithPath: shipped).resolvingSymlinksInPath().path) (system default; --soundfont to choose)")
    }

    func testEnvironmentComesFirstAndTheShippedFontLast() throws {
        let folder = try TemporaryFolder(self)
        try FileManager.default.copyItem(atPath: CommandRunner.shippedSoundFont, toPath: folder.file("system.sf2"))
        let fromEnvironment = InstrumentLoader.chooseSoundFont(candidates: [folder.file("system.sf2")],
                                                               environment: ["STACCATO_SOUNDFONT": "/chosen/font.sf2"])
        XCTAssertEqual(fromEnvironment.path, "/chosen/font.sf2")
        XCTAssertEqual(fromEnvironment.source, .environment)
        let fallback = InstrumentLoader.chooseSoundFont(candidates: [folder.file("absent.sf2")], environment: [:])
        XCTAssertEqual(fallback.source, .shipped)
        XCTAssertTrue(fallback.path.hasSuffix("soundfonts/FluidR3_GM_piano_xylo.sf2"), fallback.path)
    }

    /// An installed `staccato` (`make install`: PREFIX/bin) finds what it ships with in
    /// PREFIX/share/staccato before anything beside it, and a build in its package as before.
    func testInstalledBinaryFindsItsShippedFilesUnderShare() throws {
        let folder = try TemporaryFolder(self)
        try FileManager.default.createDirectory(atPath: folder.file("prefix/bin"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder.file("prefix/share/staccato/soundfonts"), withIntermediateDirectories: true)
        try folder.writeText("prefix/bin/staccato", "")
        try folder.writeText("prefix/share/staccato/soundfonts/FluidR3_GM_piano_xylo.sf2", "")
        XCTAssertEqual(InstrumentLoader.shippedFile("soundfonts/FluidR3_GM_piano_xylo.sf2", executable: folder.file("prefix/bin/staccato")),
                       folder.file("prefix/share/staccato/soundfonts/FluidR3_GM_piano_xylo.sf2"))
        // What is not installed is looked for up the tree, then left relative to the working directory.
        XCTAssertEqual(InstrumentLoader.shippedFile("samples/midi/absent.mid", executable: folder.file("prefix/bin/staccato")),
                       "samples/midi/absent.mid")
        // A build in the package finds the repository's files.
        XCTAssertTrue(FileManager.default.fileExists(atPath: InstrumentLoader.shippedFile("samples/midi/mozart_turkish_march.mid")))
    }
}
