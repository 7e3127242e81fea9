import Foundation

/// A fenced ```swift block of a doc comment in `Sources/`.
struct DocCommentExample {
    /// The source file, relative to the package root: `Sources/TypedNotifications/NotificationToken.swift`.
    var path: String
    /// The 1-based line of the opening fence.
    var line: Int
    /// The name of the declaration the doc comment documents (`cancel`, `init`), or `nil` if none follows it.
    var symbol: String?
    /// The conditions of the `#if` branches the doc comment is in, outermost first: `canImport(Combine)`, or
    /// `!(A) && (B)` in the `#elseif B` of an `#if A`.
    var conditions: [String]
    /// The block's lines, without their `///` and the indentation they all share.
    var lines: [String]
    /// The preludes the block names in the Markdown comment before it: blocks named so in the catalog, or
    /// `GeneratedExamplesFile.preludes`.
    var preludes: [String] = []
    /// The name other blocks give as their prelude to have this block's code before theirs.
    var blockName: String?
    /// The platforms of an `@available` attribute for the block's code (`macOS 26, iOS 26, *`).
    var availability: String?
    /// Whether the block runs on the main actor, as its Markdown comment says.
    var isOnMainActor = false
    /// Whether the block's `@Test` functions run, as its Markdown comment says, instead of being only compiled.
    var runsItsTests = false
    /// Whether the block is compiled in a file of its own, with only the imports it shows (every README block).
    var hasOwnFile = false
}

// MARK: - Extraction

extension DocCommentExample {
    /// The folder of the main module's DocC catalog, relative to the package root.
    static let catalog = "Docs/TypedNotifications.docc"

    /// The folders of every DocC catalog whose articles' blocks are compiled: the main module's, then the system
    /// notifications'.
    static let catalogs = [catalog, "Docs/TypedSystemNotifications.docc"]

    /// The examples of every `.swift` file under `Sources/` in the package at `root`, ordered by path and line, then
    /// those of the DocC catalogs' articles, catalog by catalog, ordered by path, then those of `README.md`.
    static func all(inPackageAt root: URL) throws -> [DocCommentExample] {
        let sources = root.appendingPathComponent("Sources")
        let files = (FileManager.default.subpaths(atPath: sources.path) ?? []).filter { $0.hasSuffix(".swift") }
        let documented = try files.sorted().flatMap { file in
            let source = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            return extract(fromSource: source, path: "Sources/" + file)
        }
        let articleExamples = try catalogs.flatMap { catalog in
            let articleFolder = root.appendingPathComponent(catalog)
            let articles = try FileManager.default.contentsOfDirectory(atPath: articleFolder.path)
                .filter { $0.hasSuffix(".md") }.sorted()
            return try articles.flatMap { file in
                let markdown = try String(contentsOf: articleFolder.appendingPathComponent(file), encoding: .utf8)
                return try extract(fromMarkdown: markdown, path: catalog + "/" + file)
            }
        }
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let readmeExamples = try extract(fromMarkdown: readme, path: "README.md").map { example in
            var example = example
            example.hasOwnFile = true
            return example
        }
        return documented + articleExamples + readmeExamples
    }

    /// A Markdown block that names no rule is compiled as it is. One that needs more says so in an HTML comment on
    /// the line before its fence, which readers of the rendered page do not see: `<!-- example: RULE; RULE -->`,
    /// each rule one of
    /// - `not compiled: why`, alone: the block is skipped (SwiftUI, UIKit, a manifest, a fragment);
    /// - `named A`: the block is the prelude `A` of the blocks that name it, in any article;
    /// - `prelude A, B`: the preludes of those names come first, in that order: blocks named so, or
    ///   `GeneratedExamplesFile.preludes`;
    /// - `on the main actor`: the block runs on the main actor;
    /// - `runs its tests`: its `@Test` functions stay tests, and run;
    /// - `if CONDITION`: the block is compiled only `#if CONDITION`, as `canImport(Combine)`;
    /// - `available PLATFORMS`: the block's code is `@available(PLATFORMS)`, as `macOS 26, iOS 26, *`.
    struct Rules: Equatable {
        var isCompiled = true
        var name: String?
        var availability: String?
        var preludes: [String] = []
        var isOnMainActor = false
        var runsItsTests = false
        var conditions: [String] = []

        /// The rules of a comment line, `nil` if the line is not an `example:` comment; throws for a rule it does
        /// not know, so that a misspelt rule is not silently ignored.
        static func parse(_ line: String) throws -> Rules? {
            let text = line.trimmingCharacters(in: .whitespaces)
            guard text.hasPrefix("<!-- example:"), text.hasSuffix("-->") else { return nil }
            var rules = Rules()
            let body = text.dropFirst("<!-- example:".count).dropLast("-->".count)
            if body.trimmingCharacters(in: .whitespaces).hasPrefix("not compiled") {  // the rest says why
                rules.isCompiled = false
                return rules
            }
            for rule in body.split(separator: ";").map({ $0.trimmingCharacters(in: .whitespaces) }) {
                if rule.hasPrefix("not compiled") {
                    rules.isCompiled = false
                } else if rule.hasPrefix("prelude ") {
                    rules.preludes += rule.dropFirst("prelude ".count).split(separator: ",")
                        .map { $0.trimmingCharacters(in: .whitespaces) }
                } else if rule.hasPrefix("named ") {
                    rules.name = String(rule.dropFirst("named ".count))
                } else if rule.hasPrefix("available ") {
                    rules.availability = String(rule.dropFirst("available ".count))
                } else if rule == "on the main actor" {
                    rules.isOnMainActor = true
                } else if rule == "runs its tests" {
                    rules.runsItsTests = true
                } else if rule.hasPrefix("if ") {
                    rules.conditions.append(String(rule.dropFirst(3)))
                } else {
                    throw UnknownRule(rule: rule)
                }
            }
            return rules
        }
    }

    struct UnknownRule: Error, Equatable, CustomStringConvertible {
        var rule: String
        var description: String { "unknown rule in an `<!-- example: … -->` comment: \"\(rule)\"" }
    }

    /// The ```swift blocks of a Markdown file, with the rules of the `<!-- example: … -->` comment before each
    /// (see ``Rules``), except a `Package.swift` manifest (a block whose first line is `// Package.swift`), which
    /// only SwiftPM can compile. Each block's `symbol` is the heading it is under, in camel case.
    static func extract(fromMarkdown markdown: String, path: String) throws -> [DocCommentExample] {
        let markdownLines = markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // Read as one doc comment, closed by a line that is not one.
        let asComment = markdownLines.map { "/// " + $0 }
        return try extract(fromSource: (asComment + [""]).joined(separator: "\n"), path: path).compactMap { example in
            guard example.lines.first?.hasPrefix("// Package.swift") != true else { return nil }
            var example = example
            let before = markdownLines[..<(example.line - 1)]
            let heading = before.last { $0.hasPrefix("#") }
            example.symbol = heading.map { heading in
                heading.drop { $0 == "#" }.split { !$0.isIdentifierPart }
                    .map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
            }
            let comment = before.last { !$0.allSatisfy(\.isWhitespace) }
            guard let rules = try comment.flatMap(Rules.parse) else { return example }
            guard rules.isCompiled else { return nil }
            example.preludes = rules.preludes
            example.blockName = rules.name
            example.availability = rules.availability
            example.isOnMainActor = rules.isOnMainActor
            example.runsItsTests = rules.runsItsTests
            example.conditions += rules.conditions
            return example
        }
    }

    /// The ```swift blocks of the `///` doc comments in `source`, in order. Blocks fenced otherwise (``` alone, for
    /// the text of a failure message) are not Swift and are skipped.
    static func extract(fromSource source: String, path: String) -> [DocCommentExample] {
        var examples: [DocCommentExample] = []
        var open: DocCommentExample?
        var awaitingSymbol: [DocCommentExample] = []
        var branches: [(previous: [String], current: String?)] = []  // the `#if`s around the line, outermost first
        for (index, sourceLine) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = sourceLine.drop { $0 == " " || $0 == "\t" }
            guard trimmed.hasPrefix("///") else {
                if var example = open {  // a fence left open ends with its comment
                    example.lines = dedented(example.lines)
                    awaitingSymbol.append(example)
                    open = nil
                }
                let directive = trimmed.prefix { !$0.isWhitespace }
                let condition = trimmed.dropFirst(directive.count).components(separatedBy: "//")[0]
                    .trimmingCharacters(in: .whitespaces)
                switch directive {
                case "#if": branches.append(([], condition))
                case "#elseif", "#else":
                    guard var branch = branches.popLast() else { break }
                    branch.previous += branch.current.map { [$0] } ?? []
                    branch.current = directive == "#else" ? nil : condition
                    branches.append(branch)
                case "#endif": _ = branches.popLast()
                default: break
                }
                let declaration = SwiftLine.declaration(in: trimmed)
                if awaitingSymbol.isEmpty || (declaration == nil && trimmed.hasPrefix("@")) {
                    continue  // no example waits, or an attribute on a line of its own: the declaration is below
                }
                examples += awaitingSymbol.map { example in
                    var example = example
                    example.symbol = declaration?.name
                    return example
                }
                awaitingSymbol = []
                continue
            }
            var text = trimmed.dropFirst(3)
            if text.first == " " { text = text.dropFirst() }
            let fence = text.trimmingCharacters(in: .whitespaces)
            if var example = open {
                if fence.hasPrefix("```") {
                    example.lines = dedented(example.lines)
                    awaitingSymbol.append(example)
                    open = nil
                } else {
                    example.lines.append(String(text))
                    open = example
                }
            } else if fence == "```swift" {
                let conditions = branches.map { branch in
                    let current = branch.current.map { branch.previous.isEmpty ? [$0] : ["(\($0))"] } ?? []
                    return (branch.previous.map { "!(\($0))" } + current).joined(separator: " && ")
                }
                open = DocCommentExample(path: path, line: index + 1, symbol: nil, conditions: conditions, lines: [])
            }
        }
        return examples + awaitingSymbol
    }

    private static func dedented(_ lines: [String]) -> [String] {
        let indents = lines.filter { !$0.allSatisfy(\.isWhitespace) }.map { $0.prefix { $0 == " " }.count }
        let indent = indents.min() ?? 0
        return lines.map { $0.allSatisfy(\.isWhitespace) ? "" : String($0.dropFirst(indent)) }
    }
}

// MARK: - Lexing

/// What the generator needs to know about a line of Swift: its code without comments and string contents, how deeply
/// it is nested, and the declaration it starts. Not a parser: it reads the code that doc comments show.
struct SwiftLine {
    /// The line as written.
    var text: String
    /// The line with its `//` comment removed and the contents of its string literals blanked out, character for
    /// character.
    var code: String
    /// The nesting of `(`, `[` and `{` where the line begins.
    var depth: Int
    /// Where the line's `//` comment begins, if it has one after some code.
    var trailingCommentStart: String.Index?

    /// Whether the line is a top-level item of its block: nested in nothing, and not indented as a continuation.
    var isTopLevel: Bool { depth == 0 && text.first.map { !$0.isWhitespace } ?? false }

    /// The lines of `lines`, lexed in order (a string or bracket may span lines).
    static func lex(_ lines: [String]) -> [SwiftLine] {
        var lexer = Lexer()
        return lines.map { lexer.lex($0) }
    }

    /// The declaration keyword a line starts with after its attributes and modifiers (`struct`, `func`, `let`,
    /// `import`, …), with the name that follows it (`init` for `init`); `nil` if the line starts no declaration.
    static func declaration(in code: Substring) -> (keyword: String, name: String?)? {
        var rest = code.drop { $0.isWhitespace }
        while rest.first == "@" {  // attributes: `@MainActor`, `@_spi(Testing)`, `@available(macOS 13, *)`
            rest = rest.dropFirst().drop(while: \.isIdentifierPart)
            if rest.first == "(" { rest = rest.dropFirst(balancedParenthesesLength(rest)) }
            rest = rest.drop { $0.isWhitespace }
        }
        let words = rest.split { !$0.isIdentifierPart }.map(String.init)
        for (index, word) in words.enumerated() {
            let next = index + 1 < words.count ? words[index + 1] : nil
            if word == "class", let next, declarationKeywords.contains(next) { continue }  // `class func`
            if ["init", "deinit", "subscript"].contains(word) { return (word, word) }
            if declarationKeywords.contains(word) { return (word, next) }
            if !modifiers.contains(word) { return nil }
        }
        return nil
    }

    private static let declarationKeywords: Set = [
        "actor", "associatedtype", "case", "class", "enum", "extension", "func", "import", "let", "macro", "protocol",
        "struct", "typealias", "var",
    ]
    private static let modifiers: Set = [
        "consuming", "convenience", "distributed", "dynamic", "fileprivate", "final", "indirect", "internal", "lazy",
        "mutating", "nonisolated", "nonmutating", "open", "optional", "override", "package", "private", "public",
        "required", "set", "static", "unowned", "unsafe", "weak",
    ]

    /// The length of the `(…)` that `text` starts with, or of all of `text` if it is not closed.
    static func balancedParenthesesLength(_ text: Substring) -> Int {
        var depth = 0
        for (offset, character) in text.enumerated() {
            if character == "(" { depth += 1 }
            if character == ")" { depth -= 1 }
            if depth == 0 { return offset + 1 }
        }
        return text.count
    }

    private struct Lexer {
        private enum Context {
            case string(multiline: Bool)
            case interpolation(depth: Int)
        }
        private var contexts: [Context] = []
        private var depth = 0

        mutating func lex(_ text: String) -> SwiftLine {
            var line = SwiftLine(text: text, code: "", depth: depth)
            var index = text.startIndex
            func isAt(_ token: String) -> Bool { text[index...].hasPrefix(token) }
            while index < text.endIndex {
                let character = text[index]
                var length = 1
                if case .string(let multiline) = contexts.last {
                    if isAt("\\(") {
                        contexts.append(.interpolation(depth: depth))
                        depth += 1
                        line.code += "\\("
                        length = 2
                    } else if character == "\\" {
                        line.code += "  "
                        length = 2
                    } else if multiline ? isAt("\"\"\"") : character == "\"" {
                        contexts.removeLast()
                        length = multiline ? 3 : 1
                        line.code += String(text[index...].prefix(length))
                    } else {
                        line.code += " "
                    }
                } else if isAt("//") {
                    if !line.code.allSatisfy(\.isWhitespace) { line.trailingCommentStart = index }
                    break
                } else {
                    if character == "\"" {
                        let multiline = isAt("\"\"\"")
                        contexts.append(.string(multiline: multiline))
                        length = multiline ? 3 : 1
                    } else if "([{".contains(character) {
                        depth += 1
                    } else if ")]}".contains(character) {
                        depth -= 1
                        if case .interpolation(let start) = contexts.last, start == depth { contexts.removeLast() }
                    }
                    line.code += String(text[index...].prefix(length))
                }
                index = text.index(index, offsetBy: length, limitedBy: text.endIndex) ?? text.endIndex
            }
            if case .string(multiline: false) = contexts.last { contexts.removeLast() }  // unclosed: recover
            return line
        }
    }
}

extension Character {
    /// Whether the character can be part of a Swift identifier (ASCII letters, digits and `_` are what examples use).
    var isIdentifierPart: Bool { isLetter || isNumber || self == "_" }
}
