/// The notes a song plays through a bank, each under the preset its channel asks for then, with
/// the first frame it is played at: what a loader needs to decode only the samples the song can
/// reach, the earliest needed first. A SoundFont region is chosen by preset, key and velocity
/// alone, so the regions these notes reach are every region the song can sound.
///
/// - Thread: control. A plain value.
public struct PlayedNotes: Sendable, Equatable {
    /// What a channel asks a bank for: a bank and program, on a melodic or a drum channel (which
    /// asks the percussion bank, `SampleBank.Preset.index`).
    public struct Request: Hashable, Sendable {
        public var bank: UInt16
        public var program: UInt8
        public var percussion: Bool
        /// - Thread: any.
        public init(bank: UInt16, program: UInt8, percussion: Bool) {
            self.bank = bank
            self.program = program
            self.percussion = percussion
        }
    }

    /// One key at one velocity under one request.
    public struct Note: Hashable, Sendable {
        public var request: Request
        public var key: UInt8
        public var velocity: UInt8
    }

    /// Every note played, with the first frame it is played at.
    /// - Thread: control.
    public private(set) var firstFrames: [Note: Int64] = [:]
    /// The requests in the order of their first notes, each with the channels (0-15) that play it.
    /// - Thread: control.
    public private(set) var requests: [(request: Request, channels: [UInt8])] = []
    private var requestIndex: [Request: Int] = [:]

    /// No notes.
    /// - Thread: control.
    public init() {}

    /// Records a note-on of `key` at `velocity` on `channel` under `request`, at `frame`.
    /// - Thread: control.
    public mutating func add(_ request: Request, channel: UInt8, key: UInt8, velocity: UInt8, frame: Int64) {
        let note = Note(request: request, key: min(key, 127), velocity: min(velocity, 127))
        if let first = firstFrames[note] {
            if frame < first { firstFrames[note] = frame }
        } else {
            firstFrames[note] = frame
        }
        file(request, channel: channel)
    }

    /// Lists `request` (after those already listed) with `channel` among its channels.
    private mutating func file(_ request: Request, channel: UInt8) {
        guard let index = requestIndex[request] else {
            requestIndex[request] = requests.count
            requests.append((request, [channel]))
            return
        }
        if !requests[index].channels.contains(channel) {
            requests[index].channels.append(channel)
            requests[index].channels.sort()
        }
    }

    /// Adds every note of `other`, keeping the earlier first frame of a note both play: the notes
    /// of several songs rendered through one bank.
    /// - Thread: control.
    public mutating func formUnion(_ other: PlayedNotes) {
        for (request, channels) in other.requests {
            for channel in channels { file(request, channel: channel) }
        }
        for (note, frame) in other.firstFrames where firstFrames[note].map({ frame < $0 }) ?? true {
            firstFrames[note] = frame
        }
    }

    /// The notes first played before `frame`, with the requests that play them.
    /// - Thread: control.
    public func playedBefore(frame: Int64) -> PlayedNotes {
        var early = PlayedNotes()
        var channelsOf: [Request: [UInt8]] = [:]
        for (request, channels) in requests { channelsOf[request] = channels }
        for (note, first) in firstFrames where first < frame {
            for channel in channelsOf[note.request] ?? [] {
                early.add(note.request, channel: channel, key: note.key, velocity: note.velocity, frame: first)
            }
        }
        return early
    }

    /// - Thread: any.
    public static func == (lhs: PlayedNotes, rhs: PlayedNotes) -> Bool {
        lhs.firstFrames == rhs.firstFrames && lhs.requests.elementsEqual(rhs.requests) { $0.request == $1.request && $0.channels == $1.channels }
    }

    /// For each region of `regions` (laid out by `presets`), the first frame at which one of these
    /// notes reaches it, or nil: the presets the requests resolve to (`SampleBank.Preset.index`,
    /// the renderer's own lookup, fallbacks included), then each preset's regions whose key and
    /// velocity ranges hold a note.
    /// - Thread: control.
    public func firstFrames(ofRegions regions: UnsafeBufferPointer<SamplerRegion>,
                            presets: UnsafeBufferPointer<SampleBank.Preset>) -> [Int64?] {
        // Each preset's notes as a key × velocity grid of first frames: a region's first frame
        // is the earliest within its rectangle, found without visiting notes outside it.
        var gridOfPreset: [Int: Int] = [:]
        var grids: [[Int64]] = [], earliest: [Int64] = [], presetOfGrid: [Int] = []
        var presetOfRequest: [Request: Int] = [:]
        for (note, frame) in firstFrames {
            let preset: Int
            if let known = presetOfRequest[note.request] {
                preset = known
            } else {
                preset = SampleBank.Preset.index(playing: note.request.bank, program: note.request.program,
                                                 percussion: note.request.percussion, in: presets)
                presetOfRequest[note.request] = preset
            }
            guard preset >= 0 else { continue }
            let grid: Int
            if let known = gridOfPreset[preset] {
                grid = known
            } else {
                grid = grids.count
                gridOfPreset[preset] = grid
                grids.append([Int64](repeating: .max, count: Self.gridCellCount))
                earliest.append(.max)
                presetOfGrid.append(preset)
            }
            let cell = Self.gridCell(key: Int(note.key), velocity: Int(note.velocity))
            grids[grid][cell] = min(grids[grid][cell], frame)
            earliest[grid] = min(earliest[grid], frame)
        }
        var first = [Int64?](repeating: nil, count: regions.count)
        for (grid, frames) in grids.enumerated() {
            let preset = presets[presetOfGrid[grid]]
            for index in preset.firstRegion ..< preset.firstRegion + preset.regionCount {
                let region = regions[index]
                guard region.lowKey <= region.highKey, region.lowVelocity <= region.highVelocity else { continue }
                var found = Int64.max
                search: for key in Int(min(region.lowKey, 127)) ... Int(min(region.highKey, 127)) {
                    for velocity in Int(min(region.lowVelocity, 127)) ... Int(min(region.highVelocity, 127)) {
                        found = min(found, frames[Self.gridCell(key: key, velocity: velocity)])
                        // Nothing in the preset comes earlier: the rest of the rectangle cannot.
                        if found == earliest[grid] { break search }
                    }
                }
                if found != .max { first[index] = found }
            }
        }
        return first
    }

    /// One cell per key and velocity, 0-127 each.
    private static let gridCellCount = 128 * 128
    private static func gridCell(key: Int, velocity: Int) -> Int { key << 7 | velocity }
}
