import Engine
import Glibc

/// `staccato_last_error()`'s line, one per thread: a C string the library owns, replaced by the
/// thread's next failure and freed with the thread.
enum LastError {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { free($0) }
        return key
    }()

    /// Keeps `line` as the calling thread's last error.
    /// - Thread: any.
    static func set(_ line: String) {
        let old = pthread_getspecific(key)
        pthread_setspecific(key, strdup(line))
        free(old)
    }

    /// The calling thread's last error; "" when there was none.
    /// - Thread: any.
    static var current: UnsafePointer<CChar> {
        guard let line = pthread_getspecific(key) else { return UnsafePointer(empty.pointers[0]) }
        return UnsafePointer(line.assumingMemoryBound(to: CChar.self))
    }

    private static let empty = CStrings([""])

    /// Runs `body`; a thrown error becomes the thread's last error and `failure` is returned.
    /// - Thread: any.
    static func catching<Result>(_ failure: Result, _ body: () throws -> Result) -> Result {
        do { return try body() } catch {
            set("\(error)")
            return failure
        }
    }
}

/// A C string argument as a Swift string, or an error naming the argument when it is NULL.
func string(_ pointer: UnsafePointer<CChar>?, naming argument: String) throws -> String {
    guard let pointer else { throw RenderFailure("\(argument): NULL") }
    return String(cString: pointer)
}
