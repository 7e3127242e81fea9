import Foundation
import Testing

// Every ```swift block of the doc comments in Sources/, of the DocC articles in Docs/TypedNotifications.docc and
// Docs/TypedSystemNotifications.docc, and of
// README.md is compiled: `GeneratedDocCommentExamples.swift`, in this target, holds a copy of each in a scope of its
// own (its header says how each is copied), except the README's, each of which is in a file of its own in
// `GeneratedReadmeExamples/`, with only the imports it shows. An article's block that needs context, or cannot be
// compiled here (SwiftUI), says so in an HTML comment before it: `<!-- example: prelude center -->`,
// `<!-- example: not compiled: SwiftUI -->` (the rules are in `DocCommentExample.Rules`). This suite checks that
// the files are up to date: it reads them all again, generates the files in memory and compares.
//
// After changing, adding or removing a doc-comment example, regenerate the file from the package root with
//
//     : > Tests/TypedNotificationsDocCommentTests/GeneratedDocCommentExamples.swift && \
//         rm -f Tests/TypedNotificationsDocCommentTests/GeneratedReadmeExamples/*.swift && \
//         TYPED_NOTIFICATIONS_REGENERATE_DOC_EXAMPLES=1 swift test --filter DocCommentExamplesTests
//
// With TYPED_NOTIFICATIONS_REGENERATE_DOC_EXAMPLES=1 the suite writes the files instead of comparing. Emptying them
// first lets this target build even when the examples it holds no longer compile (an API they use has changed);
// while they do, the last line alone is enough.
//
// Then build the tests (`swift build --build-tests`): an example that does not compile fails there, in the scope
// named for its file and symbol. Fix the doc comment, or, if it leaves out context on purpose, give it a prelude in
// `GeneratedExamplesFile.preludes`. CI also lints the generated file, so examples must be formatted as swift-format
// would format them (end-of-line comments excepted: the generator puts two spaces before them).
//
// The blocks that need Combine are also compiled and run against OpenCombine, in IntegrationTests/Combine, from a
// file its `CombineExamplesTests` generates with these same two files (it links to them): after changing such a
// block, regenerate that file too, as `CombineExamplesTests.swift` says.
//
// The extraction is in `DocCommentExample.swift`, the generation in `GeneratedExamplesFile.swift`; they are Swift, so
// `swift test` on a clean clone needs nothing else.

@Suite struct DocCommentExamplesTests {
    /// The package root, three levels above this file.
    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func generatedFilesMatchTheDocCommentsArticlesAndReadme() throws {
        let examples = try DocCommentExample.all(inPackageAt: Self.root)
        #expect(examples.count > 0, "no ```swift blocks found in the doc comments under \(Self.root.path)/Sources")
        let generated = GeneratedExamplesFile.files(for: examples)
        let folder = Self.root.appendingPathComponent(GeneratedExamplesFile.ownFilesFolder)
        let existing = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        let stale = existing.map { GeneratedExamplesFile.ownFilesFolder + "/" + $0 }.filter { generated[$0] == nil }
        if ProcessInfo.processInfo.environment["TYPED_NOTIFICATIONS_REGENERATE_DOC_EXAMPLES"] == "1" {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for path in stale { try FileManager.default.removeItem(at: Self.root.appendingPathComponent(path)) }
            for (path, contents) in generated {
                try contents.write(to: Self.root.appendingPathComponent(path), atomically: true, encoding: .utf8)
            }
            return
        }
        #expect(stale.isEmpty, "generated files no example needs: \(stale); regenerate:\n\(Self.regenerate)")
        for (path, contents) in generated.sorted(by: { $0.key < $1.key }) {
            let checkedIn = try? String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
            let difference = zip(
                (checkedIn ?? "").components(separatedBy: "\n"),
                contents.components(separatedBy: "\n")
            )
            .enumerated().first { $0.element.0 != $0.element.1 }
            let isUpToDate = checkedIn == contents  // not compared in `#expect`, which would print both files
            #expect(
                isUpToDate,
                """
                \(path) is out of date with the ```swift blocks of Sources/, the articles and the README\
                \(difference.map { ": line \($0.offset + 1) is \"\($0.element.0)\", expected \"\($0.element.1)\"" } ?? "").
                \(Self.regenerate)
                """
            )
        }
    }

    private static let regenerate = """
        Regenerate it from the package root:
        \(GeneratedExamplesFile.regenerationCommand)
        """

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

    @Test func readmeBlockIsCompiledInAFileOfItsOwnWithOnlyTheImportsItShows() throws {
        let readme = """
            ```swift
            import TypedNotifications
            let center = NotificationCenter()
            ```
            """
        var examples = try DocCommentExample.extract(fromMarkdown: readme, path: "README.md")
        examples[0].hasOwnFile = true
        let files = GeneratedExamplesFile.files(for: examples)
        let own = try #require(files[GeneratedExamplesFile.ownFilesFolder + "/README_line1_1.swift"])
        let imports = own.split(separator: "\n").filter { $0.hasPrefix("import ") }
        #expect(imports == ["import TypedNotifications"])  // no Foundation: this block must not compile
        #expect(own.contains("let center = NotificationCenter()"))
        #expect(files[GeneratedExamplesFile.path]?.contains("let center") == false)
    }

    @Test func articleBlockFollowsTheRulesOfTheCommentBeforeIt() throws {
        let article = """
            # Article

            <!-- example: named Saved -->
            ```swift
            struct Saved: Notifiable { let id: Int }
            ```

            <!-- example: not compiled: SwiftUI, which Linux does not have -->
            ```swift
            import SwiftUI
            ```

            ## Observe it

            <!-- example: prelude Saved, center; on the main actor -->
            ```swift
            Saved(id: 1).post(in: center)
            ```
            """
        let examples = try DocCommentExample.extract(fromMarkdown: article, path: "Docs/X.docc/Article.md")
        #expect(
            examples.map(\.lines) == [["struct Saved: Notifiable { let id: Int }"], ["Saved(id: 1).post(in: center)"]])
        #expect(examples.map(\.symbol) == ["Article", "ObserveIt"])
        #expect(examples[1].preludes == ["Saved", "center"])
        #expect(examples[1].isOnMainActor)
        let contents = GeneratedExamplesFile.contents(for: examples)
        let expected = """
                @MainActor static func example() async throws {
                    // Prelude: the block named `Saved`.
                    struct Saved: Notifiable { let id: Int }

                    // Prelude `center`, from the generator.
                    let center = NotificationCenter()

                    Saved(id: 1).post(in: center)
                    _ = center
                }
            """
        #expect(contents.contains(expected), "\(contents)")
    }

    @Test func aMisspeltRuleIsAnError() {
        #expect(throws: DocCommentExample.UnknownRule(rule: "on the main thread")) {
            try DocCommentExample.Rules.parse("<!-- example: on the main thread -->")
        }
    }
}
