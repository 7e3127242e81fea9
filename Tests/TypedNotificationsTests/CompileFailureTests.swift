import Foundation
import Testing
import TypedNotificationsTestSupport

// Misuse that must not compile, checked with the toolchain that runs these tests: each snippet is type-checked
// against the `TypedNotifications` module this build just made, and the compiler's message is compared with the one
// the API promises. A snippet of correct code is type-checked the same way first, so that a broken setup (a module
// not found) fails instead of passing for the wrong reason.

@Suite struct CompileFailureTests {
    /// Type-checks `source` against the built `TypedNotifications` module; returns the compiler's exit status and
    /// output.
    private func typeCheck(_ source: String) throws -> (status: Int32, output: String) {
        let build = try #require(
            Self.buildDirectory, "no Modules/TypedNotifications.swiftmodule near \(Self.executable)")
        let swiftc = try #require(Self.swiftc, "no swiftc on PATH")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tn-compile-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("Snippet.swift")
        try source.write(to: file, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = swiftc
        process.arguments = [
            "-typecheck", "-swift-version", "6", file.path,
            "-I", build.appendingPathComponent("Modules").path,
            "-Xcc",
            "-fmodule-map-file="
                + build.appendingPathComponent("CTypedNotificationsRuntime.build/module.modulemap").path,
            "-Xcc", "-I" + Self.root.appendingPathComponent("Sources/CTypedNotificationsRuntime/include").path,
            "-module-cache-path", directory.appendingPathComponent("ModuleCache").path,
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    private static let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()

    /// The build's products directory: the first directory at or above the test executable that has the module.
    private static let buildDirectory: URL? = {
        var directory = executable.deletingLastPathComponent()
        for _ in 0..<6 {
            let module = directory.appendingPathComponent("Modules/TypedNotifications.swiftmodule")
            if FileManager.default.fileExists(atPath: module.path) { return directory }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }()

    /// `swiftc` from `PATH`, as `swift test` found it.
    private static let swiftc: URL? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent("swiftc") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    private static let prelude = """
        import Foundation
        import TypedNotifications

        struct CounterDidChange: Notifiable { let count: Int }

        """

    @Test func correctCodeTypeChecks() throws {
        let result = try typeCheck(
            Self.prelude + """
                @MainActor final class Model {
                    var count = 0
                    init() {
                        CounterDidChange.observeOnMainActor(for: self) { model, change in model.count = change.count }
                    }
                }
                func plain() -> [NotificationToken] {
                    [
                        CounterDidChange.observe(delivery: .async(on: DispatchQueue.main)) { _ in },
                        CounterDidChange.observe(delivery: .async(on: .global())) { _ in },
                        CounterDidChange.observe(delivery: .async(on: OperationQueue.main)) { _ in },
                    ]
                }
                """)
        #expect(result.status == 0, "\(result.output)")
    }

    @Test func theMainQueueAsADeliveryNamesTheMainActorForm() throws {
        let result = try typeCheck(
            Self.prelude + """
                let token = CounterDidChange.observe(delivery: .async(on: .main)) { _ in }
                """)
        #expect(result.status != 0)
        #expect(
            result.output.contains(
                "'main' is unavailable: for a handler on the main actor, use observeOnMainActor(...)"),
            "\(result.output)")
    }

    /// The one-line wait that observes only once it runs, and so misses what work started before it posts, is not
    /// offered: the compiler says to pass the work as a trailing closure instead, which compiles.
    @Test func aWaitWithoutTheWorkThatPostsDoesNotCompileAndSaysWhatToWrite() throws {
        let racy = try typeCheck(
            Self.prelude + """
                func startCounting() {}
                func wait() async throws {
                    async let change = CounterDidChange.next(where: .matching { $0.count == 1 }, timeout: 1)
                    startCounting()
                    _ = try await change
                }
                """)
        #expect(racy.status != 0)
        #expect(racy.output.contains("'next(from:in:where:timeout:)' is unavailable"), "\(racy.output)")
        #expect(racy.output.contains("pass that work as a trailing closure"), "\(racy.output)")
        let safe = try typeCheck(
            Self.prelude + """
                func startCounting() {}
                func wait() async throws -> CounterDidChange {
                    try await CounterDidChange.next(where: .matching { $0.count == 1 }, timeout: 1) { startCounting() }
                }
                """)
        #expect(safe.status == 0, "\(safe.output)")
    }

    @Test func aPayloadThatIsNotSendableDoesNotCompile() throws {
        let result = try typeCheck(
            Self.prelude + """
                final class Model { var count = 0 }
                struct ModelDidChange: Notifiable { let model: Model }
                """)
        #expect(result.status != 0)
        #expect(result.output.contains("Sendable"), "\(result.output)")
    }

    @Test func theCaseShorthandIsForObserveAloneAndOtherFormsTakeTheConditionAsWhere() throws {
        let enumPrelude =
            Self.prelude + """
                enum Connection: Notifiable, Equatable { case online, offline }

                """
        let shorthand = try typeCheck(
            enumPrelude + """
                @MainActor func watch() -> NotificationToken {
                    Connection.offline.observeOnMainActor { _ in }
                }
                """)
        #expect(shorthand.status != 0)
        #expect(
            shorthand.output.contains("static member 'observeOnMainActor' cannot be used on instance"),
            "the message the shorthand's docs quote: \(shorthand.output)")
        let condition = try typeCheck(
            enumPrelude + """
                @MainActor func watch() -> [NotificationToken] {
                    [
                        Connection.offline.observe { _ in },
                        Connection.observeOnMainActor(where: .equals(.offline)) { _ in },
                    ]
                }
                """)
        #expect(condition.status == 0, "\(condition.output)")
    }

    @Test func anOwnerThatIsAStructDoesNotCompile() throws {
        let result = try typeCheck(
            Self.prelude + """
                struct Screen { var title = "" }
                func start(_ screen: Screen) {
                    CounterDidChange.observe(for: screen) { screen, change in print(screen.title, change.count) }
                }
                """)
        #expect(result.status != 0)
        // The owner-bound docs explain this message: a struct is no owner, and the fix is not to make it an actor.
        #expect(result.output.contains("conform to 'Actor'"), "\(result.output)")
    }

    @Test func anOwnerThatIsNotSendableDoesNotCompile() throws {
        let result = try typeCheck(
            Self.prelude + """
                final class Screen { var title = "" }
                func start(_ screen: Screen) {
                    CounterDidChange.observe(for: screen) { screen, change in screen.title = "\\(change.count)" }
                }
                """)
        #expect(result.status != 0)
        #expect(result.output.contains("Sendable"), "\(result.output)")
    }
}

extension CompileFailureTests {
    /// Code that imports the package still names Dispatch's own `main` and `global()` unambiguously.
    @Test func dispatchsOwnMainAndGlobalStillResolveInCodeThatImportsThePackage() throws {
        let result = try typeCheck(
            """
            import Dispatch
            import Foundation
            import TypedNotifications

            struct CounterDidChange: Notifiable { let count: Int }
            let main: DispatchQueue = .main
            let global: DispatchQueue = .global()
            let utility = DispatchQueue.global(qos: .utility)
            func schedule() { DispatchQueue.main.async {} }
            let token = CounterDidChange.observe(delivery: .async(on: main)) { _ in }
            """)
        #expect(result.status == 0, "\(result.output)")
    }
}
