/// The RIFF skeleton of a SoundFont: the three LIST chunks located and checked, the INFO and pdta
/// lists read, the sample data left in the file. Both `SoundFontLoader.load` and
/// `SoundFontLoader.info` start here.
struct SoundFontFile {
    let info: SoundFontInfo
    /// The `smpl` chunk: 16-bit little-endian sample words, and in an SF3 also the Ogg Vorbis
    /// streams of its compressed samples.
    let smpl: SampleChunk
    /// The `sm24` chunk (low bytes of 24-bit samples) when present and usable, else nil.
    let sm24: SampleChunk?
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
            throw SoundFontError(file: smpl.source.name, chunk: "INFO/ifil", offset: versionOffset,
                                 reason: "SoundFont version \(info.version) is neither 2.x (SF2) nor 3.x (SF3)")
        }
    }

    /// Checks the RIFF header and finds INFO, sdta and pdta, reading only the chunk headers and
    /// the two small lists.
    init(_ source: FontSource) throws(SoundFontError) {
        let file = source.name
        guard source.count >= 12 else {
            throw SoundFontError(file: file, chunk: "RIFF", offset: 0, reason: "the file is \(source.count) bytes, too short for a RIFF header (12)")
        }
        let header = ByteReader(file: file, bytes: try source.bytes(0, 12, chunk: "RIFF"))
        let magic = try header.fourCC(0)
        guard magic == "RIFF" else { throw header.error(at: 0, "not a RIFF file (starts with '\(magic)')") }
        let form = try header.fourCC(8)
        guard form == "sfbk" else { throw header.error(at: 8, "RIFF form type is '\(form)', not 'sfbk'") }
        let size = Int(try header.u32(4))
        guard size >= 4, size <= source.count - 8 else {
            throw header.error(at: 0, "size \(size) runs past the end of the file (\(source.count) bytes)")
        }
        // A chunk header (and a list's type) read from the file as the walk reaches it.
        func chunkHeader(_ offset: Int, chunk: String) throws(SoundFontError) -> (id: String, size: Int) {
            let bytes = ByteReader(file: file, bytes: try source.bytes(offset, 8, chunk: chunk), origin: offset, chunk: chunk)
            return (try bytes.fourCC(0), Int(try bytes.u32(4)))
        }
        // Bytes after the RIFF chunk (some tools append junk) are ignored.
        let top = try riffChunkHeaders(file: file, parent: "RIFF", prefix: "", start: 12, count: size - 4) {
            (offset) throws(SoundFontError) in try chunkHeader(offset, chunk: "RIFF")
        }
        var lists: [String: RIFFChunkHeader] = [:]
        for chunk in top where chunk.id == "LIST" {
            guard chunk.size >= 4 else {
                throw SoundFontError(file: file, chunk: "LIST", offset: chunk.dataOffset,
                                     reason: "a LIST chunk of \(chunk.size) bytes has no list type")
            }
            let type = try ByteReader(file: file, bytes: try source.bytes(chunk.dataOffset, 4, chunk: "LIST"),
                                      origin: chunk.dataOffset, chunk: "LIST").fourCC(0)
            guard lists[type] == nil else {
                throw SoundFontError(file: file, chunk: type, offset: chunk.headerOffset, reason: "a second LIST '\(type)'")
            }
            lists[type] = RIFFChunkHeader(id: type, path: type, headerOffset: chunk.headerOffset,
                                          dataOffset: chunk.dataOffset + 4, size: chunk.size - 4)
        }
        func list(_ type: String) throws(SoundFontError) -> RIFFChunkHeader {
            guard let list = lists[type] else {
                throw SoundFontError(file: file, chunk: "RIFF", offset: 12, reason: "no LIST '\(type)' chunk")
            }
            return list
        }
        func read(_ list: RIFFChunkHeader) throws(SoundFontError) -> ByteReader {
            ByteReader(file: file, bytes: try source.bytes(list.dataOffset, list.size, chunk: list.id), origin: list.dataOffset,
                       chunk: list.id)
        }

        (info, versionOffset) = try SoundFontInfo.read(list: try read(try list("INFO")))

        let sdta = try list("sdta")
        var smpl: SampleChunk?
        var sm24: SampleChunk?
        for chunk in try riffChunkHeaders(file: file, parent: "sdta", prefix: "sdta", start: sdta.dataOffset, count: sdta.size,
                                          header: { (offset) throws(SoundFontError) in try chunkHeader(offset, chunk: "sdta") }) {
            let data = SampleChunk(source: source, chunk: chunk.path, start: chunk.dataOffset, count: chunk.size)
            if chunk.id == "smpl", smpl == nil { smpl = data }
            if chunk.id == "sm24", sm24 == nil { sm24 = data }
        }
        guard let smpl else {
            throw SoundFontError(file: file, chunk: "sdta", offset: sdta.dataOffset, reason: "the sdta list has no 'smpl' chunk")
        }
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
        pdta = try read(try list("pdta"))
    }
}
