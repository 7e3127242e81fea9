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
}

// MARK: - Extraction

extension DocCommentExample {
    /// The examples of every `.swift` file under `Sources/` in the package at `root`, ordered by path and line, then
    /// those of `README.md`.
    static func all(inPackageAt root: URL) throws -> [DocCommentExample] {
        let sources = root.appendingPathComponent("Sources")
        let files = (FileManager.default.subpaths(atPath: sources.path) ?? []).filter { $0.hasSuffix(".swift") }
        let documented = try files.sorted().flatMap { file in
            let source = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            return extract(fromSource: source, path: "Sources/" + file)
        }
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        return documented + extract(fromMarkdown: readme, path: "README.md")
    }

    /// The ```swift blocks of a Markdown file, except a `Package.swift` manifest (a block whose first line is
    /// `// Package.swift`), which only SwiftPM can compile.
    static func extract(fromMarkdown markdown: String, path: String) -> [DocCommentExample] {
        // Read as one doc comment, closed by a line that is not one.
        let asComment = markdown.split(separator: "\n", omittingEmptySubsequences: false).map { "/// " + $0 }
        return extract(fromSource: (asComment + [""]).joined(separator: "\n"), path: path).filter { example in
            example.lines.first?.hasPrefix("// Package.swift") != true
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
