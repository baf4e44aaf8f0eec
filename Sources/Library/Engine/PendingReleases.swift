import Render

/// Releases (note-offs, pedal-ups, all-notes-off, tone-offs, mute) that found the command ring full.
/// Refusing a note-on costs one note; refusing its note-off would leave that note sounding until
/// the next panic, so the engine keeps refused releases here and retries them, in order, before
/// anything else is sent.
///
/// Bounded without a limit of its own: a release already waiting is not queued twice, so it holds
/// at most one entry per distinct release (16 channels × 128 keys plus the controllers and tone
/// slots), and it empties as soon as the audio thread makes room.
///
/// - Thread: control.
struct PendingReleases {
    private var waiting: [RenderCommand] = []

    var isEmpty: Bool { waiting.isEmpty }
    var count: Int { waiting.count }

    mutating func append(_ command: RenderCommand) {
        guard !waiting.contains(where: { $0.action == command.action }) else { return }
        waiting.append(command)
    }

    /// Pushes what fits, oldest first; stops at the first that does not.
    mutating func retry(_ push: (RenderCommand) -> Bool) {
        var sent = 0
        while sent < waiting.count, push(waiting[sent]) { sent += 1 }
        waiting.removeFirst(sent)
    }
}
