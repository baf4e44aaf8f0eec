import CALSA
import Glibc

/// alsa-lib and libjack (loaded by ALSA's jack plugin) print their own multi-line diagnostics to
/// stderr. Staccato reports every failure itself as one line that names the device, so their output
/// is dropped unless `STACCATO_DEBUG_AUDIO=1` asks to see it.
enum LibraryDiagnostics {
    /// - Thread: control. Runs once; later calls do nothing.
    static func quietOnce() { _ = quieted }

    private static let quieted: Void = {
        guard getenv("STACCATO_DEBUG_AUDIO") == nil else { return }
        staccato_alsa_set_quiet(1)
        // libjack is optional: only if it is installed does the jack plugin exist to print anything.
        // The handle is kept open so the plugin later shares this instance and its settings.
        guard let jack = dlopen("libjack.so.0", RTLD_LAZY | RTLD_GLOBAL) else { return }
        typealias MessageSink = @convention(c) (UnsafePointer<CChar>?) -> Void
        typealias SetSink = @convention(c) (MessageSink?) -> Void
        let discard: MessageSink = { _ in }
        for symbol in ["jack_set_error_function", "jack_set_info_function"] {
            if let setter = dlsym(jack, symbol) { unsafeBitCast(setter, to: SetSink.self)(discard) }
        }
    }()
}
