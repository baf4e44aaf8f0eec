import FileChecks
import Foundation

/// A tempo in force from `tick` on, and when that tick falls.
///
/// - Thread: control. For every member.
public struct TempoChange: Sendable, Equatable {
    /// Where the tempo takes effect, in ticks from the start of the file.
    /// - Thread: control.
    public var tick: Int
    /// The length of a quarter note from `tick` on: 500,000 is 120 bpm.
    /// - Thread: control.
    public var microsecondsPerQuarter: Int
    /// Seconds from the start of the file to `tick`.
    /// - Thread: control.
    public var seconds: Double

    /// A change at `tick`, falling `seconds` into the file.
    /// - Thread: control.
    public init(tick: Int, microsecondsPerQuarter: Int, seconds: Double) {
        self.tick = tick
        self.microsecondsPerQuarter = microsecondsPerQuarter
        self.seconds = seconds
    }

    /// When `tick`, at or after this change and before the next, falls.
    func seconds(atTick tick: Int, division: MIDIFile.Division) -> Double {
        seconds + Double(tick - self.tick) * division.secondsPerTick(microsecondsPerQuarter: microsecondsPerQuarter)
    }
}

/// A Standard MIDI File read into memory: its tracks as events on ticks, and the tempo map that
/// turns ticks into seconds.
///
/// - Thread: control. For every member. Not real-time safe: reading allocates and does file I/O.
///   Hand the audio thread what is made of `timedMessages()`, never the file.
public struct MIDIFile: Sendable {
    /// 0 (one track), 1 (simultaneous tracks) or 2 (independent patterns). Format 2 is timed as
    /// if it were 1: every track starts at zero.
    /// - Thread: control.
    public var format: Int
    /// How long a tick is.
    /// - Thread: control.
    public var division: Division
    /// Every track chunk's events in file order, which is tick order.
    /// - Thread: control.
    public var tracks: [[TrackEvent]]
    /// Sorted by tick; equal ticks keep track order, then file order, so the last one at a tick is
    /// the one in force. The first entry is at tick 0: 120 bpm when the file sets no tempo there.
    /// Tempo events of every track count, as players honour them (the spec wants them in the
    /// first track of a format 1 file, and not every file obliges).
    /// Derived from `tracks` by `init(format:division:tracks:)`; it is not recomputed on mutation.
    /// - Thread: control.
    public var tempoMap: [TempoChange]

    /// The length of a tick: a fraction of a quarter note (and so set by tempo), or a fixed
    /// fraction of a second (SMPTE time code, where tempo events change nothing).
    /// - Thread: control.
    public enum Division: Sendable, Equatable {
        /// Pulses per quarter note: the usual division, the tempo map sets their length.
        case ticksPerQuarter(Int)
        /// `framesPerSecond` as the file codes it: 24, 25, 29 (30 drop-frame) or 30.
        case smpte(framesPerSecond: Int, ticksPerFrame: Int)

        /// Ticks in one second, for SMPTE division.
        /// - Thread: control.
        public static func ticksPerSecond(framesPerSecond: Int, ticksPerFrame: Int) -> Double {
            // Drop-frame time code drops frame numbers, not frames: real time runs at 30000/1001.
            let rate = framesPerSecond == 29 ? 30_000.0 / 1_001 : Double(framesPerSecond)
            return rate * Double(ticksPerFrame)
        }

        /// How long one tick lasts while `microsecondsPerQuarter` is the tempo.
        /// - Thread: control.
        public func secondsPerTick(microsecondsPerQuarter: Int) -> Double {
            switch self {
            case let .ticksPerQuarter(ticks):
                return Double(microsecondsPerQuarter) / 1_000_000 / Double(max(ticks, 1))
            case let .smpte(framesPerSecond, ticksPerFrame):
                let perSecond = Self.ticksPerSecond(framesPerSecond: framesPerSecond, ticksPerFrame: ticksPerFrame)
                return perSecond > 0 ? 1 / perSecond : 0
            }
        }
    }

    /// The default tempo, 120 bpm, in force until the file sets one.
    /// - Thread: control.
    public static let defaultMicrosecondsPerQuarter = 500_000

    /// Ticks per quarter note. An SMPTE file has no beats: for it this is the ticks in half a
    /// second, a quarter note at the default 120 bpm, so beat arithmetic stays meaningful and
    /// never divides by zero.
    /// - Thread: control.
    public var ticksPerQuarter: Int {
        switch division {
        case let .ticksPerQuarter(ticks):
            ticks
        case let .smpte(framesPerSecond, ticksPerFrame):
            max(1, Int((Division.ticksPerSecond(framesPerSecond: framesPerSecond, ticksPerFrame: ticksPerFrame) / 2).rounded()))
        }
    }

    /// Damage the parser read past: empty for a whole file. A file cut short still parses, with
    /// what arrived in `tracks` and what was lost here, for the caller to report.
    /// - Thread: control.
    public var problems: [MIDIFileProblem]

    /// Builds a file from events, deriving the tempo map from the tempo events in `tracks`.
    /// - Thread: control.
    public init(format: Int, division: Division, tracks: [[TrackEvent]], problems: [MIDIFileProblem] = []) {
        self.format = format
        self.division = division
        self.tracks = tracks
        self.problems = problems
        tempoMap = Self.tempoMap(of: tracks, division: division)
    }

    /// Reads and parses the file at `path`.
    /// - Throws: `MIDIFileError` naming the file by its last path component: unreadable, or
    ///   malformed as `parse(_:name:)` describes.
    /// - Thread: control.
    public static func read(path: String) throws(MIDIFileError) -> MIDIFile {
        let name = URL(fileURLWithPath: path).lastPathComponent
        guard FileManager.default.fileExists(atPath: path) else {
            throw MIDIFileError(file: path, reason: "no such file")
        }
        // Reading a FIFO would wait for a writer: only regular files are songs.
        if let reason = FileKind.notRegularFileReason(path) { throw MIDIFileError(file: path, reason: reason) }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw MIDIFileError(file: path, reason: "cannot be read")
        }
        return try parse([UInt8](data), name: name)
    }

    /// Seconds from the start of the file to `tick`, through the tempo map.
    /// - Thread: control.
    public func seconds(atTick tick: Int) -> Double {
        // The last change at or before `tick`: binary search, since a map can be long.
        var low = 0
        var high = tempoMap.count
        while low < high {
            let middle = low + (high - low) / 2
            if tempoMap[middle].tick <= tick { low = middle + 1 } else { high = middle }
        }
        // Before the first change (only a negative tick, or a hand-emptied map): its tempo, else 120 bpm.
        let change = low > 0 ? tempoMap[low - 1]
            : TempoChange(tick: 0, microsecondsPerQuarter: tempoMap.first?.microsecondsPerQuarter ?? Self.defaultMicrosecondsPerQuarter, seconds: 0)
        return change.seconds(atTick: tick, division: division)
    }

    /// Every channel message and recognised SysEx message of every track merged into one time-ordered list (stable: equal
    /// times keep track order, then file order), times in seconds through the tempo map.
    /// - Thread: control.
    public func timedMessages() -> [TimedMIDIMessage] {
        var merged: [(tick: Int, track: Int, index: Int, message: MIDIMessage)] = []
        merged.reserveCapacity(tracks.reduce(0) { $0 + $1.count })
        for (track, events) in tracks.enumerated() {
            for (index, event) in events.enumerated() {
                switch event.kind {
                case let .channel(message): merged.append((event.tick, track, index, message))
                case let .sysEx(recognised?): merged.append((event.tick, track, index, .system(recognised)))
                default: break
                }
            }
        }
        // Sorting by tick is sorting by time (time never runs backwards), and the tie-breaks make
        // the order stable whatever the sort algorithm.
        merged.sort { ($0.tick, $0.track, $0.index) < ($1.tick, $1.track, $1.index) }

        // Ticks now only grow, so the tempo in force is found by walking the map alongside.
        var next = 0
        var current: TempoChange?
        return merged.map { entry in
            while next < tempoMap.count, tempoMap[next].tick <= entry.tick {
                current = tempoMap[next]
                next += 1
            }
            let seconds = current.map { $0.seconds(atTick: entry.tick, division: division) } ?? seconds(atTick: entry.tick)
            return TimedMIDIMessage(seconds: seconds, track: entry.track, message: entry.message)
        }
    }

    /// Seconds to the last event of any track (end-of-track meta events count).
    /// - Thread: control.
    public var duration: Double {
        seconds(atTick: tracks.compactMap { $0.last?.tick }.max() ?? 0)
    }

    /// Note-ons with velocity > 0 (the reader has already turned the others into note-offs).
    /// - Thread: control.
    public var noteOnCount: Int {
        tracks.reduce(0) { count, events in
            count + events.reduce(0) { count, event in
                if case .channel(.noteOn) = event.kind { count + 1 } else { count }
            }
        }
    }

    static func tempoMap(of tracks: [[TrackEvent]], division: Division) -> [TempoChange] {
        var changes: [(tick: Int, order: Int, microsecondsPerQuarter: Int)] = []
        for events in tracks {
            for event in events {
                // A zero tempo would stack the rest of the file onto one instant: no file means that.
                if case let .tempo(microsecondsPerQuarter) = event.kind, microsecondsPerQuarter > 0 {
                    changes.append((event.tick, changes.count, microsecondsPerQuarter))
                }
            }
        }
        changes.sort { ($0.tick, $0.order) < ($1.tick, $1.order) }
        if changes.first?.tick != 0 {
            changes.insert((0, -1, defaultMicrosecondsPerQuarter), at: 0)
        }

        var map: [TempoChange] = []
        map.reserveCapacity(changes.count)
        for change in changes {
            let seconds = map.last?.seconds(atTick: change.tick, division: division) ?? 0
            map.append(TempoChange(tick: change.tick, microsecondsPerQuarter: change.microsecondsPerQuarter, seconds: seconds))
        }
        return map
    }
}
