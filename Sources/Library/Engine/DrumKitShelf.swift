import DrumKitLoader
import Render
import Synchronization

/// Drum kits loaded at one sample rate, each at most once, and handed to every song that asks for
/// it: the songs of a batch (`BatchRender`) share the shipped kit (or the one asked for) instead of
/// decoding it once a song. Sharing is safe because a `DrumKit` is immutable once built: every engine that
/// installs it plays it through a `DrumKitPlayback` of its own.
///
/// - Thread: any. A load holds the lock, so a thread asking for a kit another is loading waits for
///   it rather than loading it a second time. A load that fails is not kept: the next ask tries
///   again and names the same fault.
public final class DrumKitShelf: Sendable {
    private let sampleRate: Double
    /// Kits by the manifest path they were asked for with.
    private let loaded = Mutex<[String: DrumKit]>([:])

    /// - Thread: any.
    public init(sampleRate: Double) {
        self.sampleRate = sampleRate
    }

    /// The kit `path`'s manifest describes, loaded on the first ask.
    /// - Throws: `DrumKitError` naming the manifest or the pad's file at fault.
    /// - Thread: any.
    public func kit(at path: String) throws -> DrumKit {
        try loaded.withLock { (kits) throws -> DrumKit in
            if let kit = kits[path] { return kit }
            let kit = try DrumKitLoader.load(manifest: path, sampleRate: sampleRate)
            kits[path] = kit
            return kit
        }
    }
}
