import Foundation

/// The lines a doc-comment example printed, for the generated test that checks its `// prints` comments; thread-safe,
/// since an example's handlers may print on the posting thread.
///
/// `@unchecked Sendable`: `recorded` is only touched while `lock` is held.
final class PrintedOutput: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [String] = []

    func append(_ line: String) {
        lock.withLock { recorded.append(line) }
    }

    var lines: [String] {
        lock.withLock { recorded }
    }
}
