import Foundation
import Testing

// Every ```swift block of the doc comments in Sources/ is compiled: `GeneratedDocCommentExamples.swift`, in this
// target, holds a copy of each in a scope of its own (its header says how each is copied). This suite checks that
// the file is up to date: it reads Sources/ again, generates the file in memory and compares.
//
// After changing, adding or removing a doc-comment example, regenerate the file from the package root with
//
//     : > Tests/TypedNotificationsDocCommentTests/GeneratedDocCommentExamples.swift && \
//         TYPED_NOTIFICATIONS_REGENERATE_DOC_EXAMPLES=1 swift test --filter DocCommentExamplesTests
//
// With TYPED_NOTIFICATIONS_REGENERATE_DOC_EXAMPLES=1 the suite writes the file instead of comparing. Emptying it
// first lets this target build even when the examples it holds no longer compile (an API they use has changed);
// while they do, the second line alone is enough.
//
// Then build the tests (`swift build --build-tests`): an example that does not compile fails there, in the scope
// named for its file and symbol. Fix the doc comment, or, if it leaves out context on purpose, give it a prelude in
// `GeneratedExamplesFile.preludes`. CI also lints the generated file, so examples must be formatted as swift-format
// would format them (end-of-line comments excepted: the generator puts two spaces before them).
//
// The extraction is in `DocCommentExample.swift`, the generation in `GeneratedExamplesFile.swift`; they are Swift, so
// `swift test` on a clean clone needs nothing else.

@Suite struct DocCommentExamplesTests {
    /// The package root, three levels above this file.
    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func generatedFileMatchesTheDocComments() throws {
        let examples = try DocCommentExample.all(inPackageAt: Self.root)
        #expect(examples.count > 0, "no ```swift blocks found in the doc comments under \(Self.root.path)/Sources")
        let generated = GeneratedExamplesFile.contents(for: examples)
        let file = Self.root.appendingPathComponent(GeneratedExamplesFile.path)
        if ProcessInfo.processInfo.environment["TYPED_NOTIFICATIONS_REGENERATE_DOC_EXAMPLES"] == "1" {
            try generated.write(to: file, atomically: true, encoding: .utf8)
            return
        }
        let checkedIn = try String(contentsOf: file, encoding: .utf8)
        let difference = zip(checkedIn.components(separatedBy: "\n"), generated.components(separatedBy: "\n"))
            .enumerated().first { $0.element.0 != $0.element.1 }
        let isUpToDate = checkedIn == generated  // not compared in `#expect`, which would print both files
        #expect(
            isUpToDate,
            """
            \(GeneratedExamplesFile.path) is out of date with the doc comments in Sources/\
            \(difference.map { ": line \($0.offset + 1) is \"\($0.element.0)\", expected \"\($0.element.1)\"" } ?? "").
            Regenerate it from the package root:
            \(GeneratedExamplesFile.regenerationCommand)
            """
        )
    }

    @Test func exampleThatDeclaresAnExtensionIsScopedInAnEnum() {
        let source = """
            /// ```swift
            /// @_spi(Testing) import TypedNotifications
            /// protocol Named { var name: String { get } }
            /// struct Saved: Notifiable { let id: Int }
            /// extension Saved: Named { var name: String { "saved" } }
            /// func show(_ saved: Saved) { print(saved.name) }   // a function
            /// let saved = Saved(id: 1)
            /// ```
            public func save() {}
            """
        let examples = DocCommentExample.extract(fromSource: source, path: "Sources/Module/Store+Saving.swift")
        #expect(examples.map(\.symbol) == ["save"])
        let expected = """
            enum Store_Saving_save_1 {
                protocol Named { var name: String { get } }
                struct Saved: Notifiable { let id: Int }
                static func show(_ saved: Saved) { print(saved.name) }  // a function

                static func example() async throws {
                    let saved = Saved(id: 1)
                    _ = saved
                }
            }

            extension Store_Saving_save_1.Saved: Store_Saving_save_1.Named { var name: String { "saved" } }

            """
        let contents = GeneratedExamplesFile.contents(for: examples)
        #expect(contents.contains("\n@_spi(Testing) import TypedNotifications\n"))
        #expect(contents.hasSuffix(expected), "\(contents)")
    }

    @Test func exampleKeepsTheConditionsOfItsDocComment() {
        let source = """
            #if os(Linux)
            #elseif canImport(Combine)
            /// ```swift
            /// import Combine
            /// let subject = PassthroughSubject<Int, Never>()
            /// ```
            public func publish() {}
            #endif
            """
        let examples = DocCommentExample.extract(fromSource: source, path: "Sources/Module/Publishing.swift")
        #expect(examples.map(\.conditions) == [["!(os(Linux)) && (canImport(Combine))"]])
        let expected = """
            #if !(os(Linux)) && (canImport(Combine))
            enum Publishing_publish_1 {
                static func example() async throws {
                    let subject = PassthroughSubject<Int, Never>()
                    _ = subject
                }
            }
            #endif

            """
        let contents = GeneratedExamplesFile.contents(for: examples)
        #expect(contents.contains("\n#if !(os(Linux)) && (canImport(Combine))\nimport Combine\n#endif\n"))
        #expect(contents.hasSuffix(expected), "\(contents)")
    }
}
