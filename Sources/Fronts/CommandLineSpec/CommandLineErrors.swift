/// A command-line mistake (an unknown option, a missing or malformed value): printed as one line,
/// exit code 2.
package struct UsageError: Error, CustomStringConvertible {
    package let description: String

    package init(description: String) {
        self.description = description
    }
}

/// A failure of a command that is neither a usage error nor a library's (a file that is not
/// there, nothing to play): printed as one line, exit code 1.
package struct CommandFailure: Error, CustomStringConvertible {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }
}
