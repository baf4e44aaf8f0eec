import Foundation
import Render

/// Staccato's version, MAJOR.MINOR.PATCH: what `staccato --version`, `staccato_version()` and the
/// Python package say. The Makefile reads it from here for `staccato.pc`.
public let staccatoVersion = "0.5.0"

extension RenderConfiguration {
    /// Threads for "every core": the cores this process may run on, up to `maximumThreadCount`.
    /// What `--threads` and the libraries' thread counts default to.
    /// - Thread: any.
    public static var everyCoreThreadCount: Int { min(max(1, ProcessInfo.processInfo.activeProcessorCount), maximumThreadCount) }
}
