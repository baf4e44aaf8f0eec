/// The RIFF skeleton of a SoundFont: the three LIST chunks located and checked, nothing decoded
/// yet. Both `SoundFontLoader.load` and `SoundFontLoader.info` start here.
struct SoundFontFile {
    let info: SoundFontInfo
    /// The `smpl` chunk: 16-bit little-endian sample words, and in an SF3 also the Ogg Vorbis
    /// streams of its compressed samples.
    let smpl: ByteReader
    /// The `sm24` chunk (low bytes of 24-bit samples) when present and usable, else nil.
    let sm24: ByteReader?
    /// The `pdta` list's data.
    let pdta: ByteReader
    /// File offset of the ifil chunk's header, for version errors.
    let versionOffset: Int

    /// Whether this is an SF3 (major version 3, FluidSynth's and MuseScore's format): its samples
    /// may be Ogg Vorbis streams in smpl, and smpl may then have any length.
    var isSF3: Bool { info.version.major == 3 }

    /// Throws unless this is a SoundFont the loader can play: SF2 (major version 2) or SF3 (3);
    /// other majors are unknown formats. Checked by `load` only, so `info` can still describe them.
    func requirePlayableVersion() throws(SoundFontError) {
        guard info.version.major == 2 || isSF3 else {
            throw SoundFontError(file: smpl.file, chunk: "INFO/ifil", offset: versionOffset,
                                 reason: "SoundFont version \(info.version) is neither 2.x (SF2) nor 3.x (SF3)")
        }
    }

    /// Checks the RIFF header and finds INFO, sdta and pdta.
    init(_ file: ByteReader) throws(SoundFontError) {
        guard file.count >= 12 else {
            throw file.error(at: 0, "the file is \(file.count) bytes, too short for a RIFF header (12)")
        }
        let magic = try file.fourCC(0)
        guard magic == "RIFF" else { throw file.error(at: 0, "not a RIFF file (starts with '\(magic)')") }
        let form = try file.fourCC(8)
        guard form == "sfbk" else { throw file.error(at: 8, "RIFF form type is '\(form)', not 'sfbk'") }
        let size = Int(try file.u32(4))
        guard size >= 4, size <= file.count - 8 else {
            throw file.error(at: 0, "size \(size) runs past the end of the file (\(file.count) bytes)")
        }
        // Bytes after the RIFF chunk (some tools append junk) are ignored.
        let body = try file.window(12, size - 4, chunk: "RIFF")

        var lists: [String: ByteReader] = [:]
        for chunk in try body.chunks(prefix: "") where chunk.id == "LIST" {
            guard chunk.data.count >= 4 else {
                throw chunk.data.error(at: 0, "a LIST chunk of \(chunk.data.count) bytes has no list type")
            }
            let type = try chunk.data.fourCC(0)
            guard lists[type] == nil else {
                throw SoundFontError(file: file.file, chunk: type, offset: chunk.headerOffset,
                                     reason: "a second LIST '\(type)'")
            }
            lists[type] = try chunk.data.window(4, chunk.data.count - 4, chunk: type)
        }
        func list(_ type: String) throws(SoundFontError) -> ByteReader {
            guard let list = lists[type] else { throw body.error(at: 0, "no LIST '\(type)' chunk") }
            return list
        }

        (info, versionOffset) = try SoundFontInfo.read(list: try list("INFO"))

        let sdta = try list("sdta")
        var smpl: ByteReader?
        var sm24: ByteReader?
        for chunk in try sdta.chunks(prefix: "sdta") {
            if chunk.id == "smpl", smpl == nil { smpl = chunk.data }
            if chunk.id == "sm24", sm24 == nil { sm24 = chunk.data }
        }
        guard let smpl else { throw sdta.error(at: 0, "the sdta list has no 'smpl' chunk") }
        // An SF3's smpl holds whole Vorbis streams too, which may end on any byte.
        guard smpl.count % 2 == 0 || info.version.major == 3 else {
            throw smpl.error(at: 0, "size \(smpl.count) is odd; samples are 16-bit words")
        }
        self.smpl = smpl
        // SF2 2.04 §6.2: sm24 is ignored before version 2.04, and when its size is not exactly
        // half of smpl's (rounded up to even); the 16-bit data then plays on its own.
        let frames = smpl.count / 2
        if let sm24, info.version.minor >= 4, sm24.count == frames + (frames & 1) {
            self.sm24 = sm24
        } else {
            self.sm24 = nil
        }
        pdta = try list("pdta")
    }
}
