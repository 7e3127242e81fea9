import Foundation
import OpenCombine
import Testing
@_spi(Testing) import TypedNotifications
import TypedNotificationsOpenCombine

// The Combine code examples of `Docs/TypedNotifications.docc/CombineAndSwiftUI.md` and of the doc comments in
// `Sources/TypedNotifications/NotificationPublisher.swift`, copied verbatim, compiled against OpenCombine, and run.
//
// The only differences: `import Combine` is `import OpenCombine` (at the top of this file), declarations sit in a
// namespace enum, snippets in a static function, and lines marked `// test only` are added. Inside a namespace,
// `print` is the namespace's own, which records the line, so the tests check exactly what an example prints. The
// article's SwiftUI examples (`onReceive`, `task`, `.receive(on: DispatchQueue.main)`) need SwiftUI or Combine's
// `DispatchQueue` scheduler, and are not compiled here. When you change an example, change it here too.

// MARK: - Support

/// The lines an example printed, in order.
///
/// `@unchecked Sendable`: `recorded` is only touched while `lock` is held.
final class PrintedLines: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [String] = []

    func append(_ items: [Any], separator: String) {
        let line = items.map { "\($0)" }.joined(separator: separator)
        lock.withLock { recorded.append(line) }
    }

    var lines: [String] { lock.withLock { recorded } }
}

// MARK: - The article "Combine and SwiftUI"

enum CombineAndSwiftUIArticle {
    final class Cart: Sendable {}

    struct CartDidChange: Notifiable {
        typealias Sender = Cart
        let itemCount: Int
    }

    static func subscribeWithCombine(printed: PrintedLines) {
        func print(_ items: Any..., separator: String = " ") { printed.append(items, separator: separator) }

        let center = NotificationCenter()
        let cart = Cart()
        var cancellables: Set<AnyCancellable> = []

        CartDidChange.publisher(from: cart, in: center)
            .map(\.itemCount)
            .removeDuplicates()
            .sink { count in print("items:", count) }
            .store(in: &cancellables)

        CartDidChange(itemCount: 2).post(from: cart, in: center)  // prints "items: 2", before `post` returns
        #expect(printed.lines == ["items: 2"])  // test only
        CartDidChange(itemCount: 2).post(from: cart, in: center)  // prints nothing: a duplicate
        CartDidChange(itemCount: 3).post(in: center)  // prints nothing: not from `cart`
        cancellables.removeAll()  // ends the observation
        #expect(center.typedRegistrationCounts() == (0, 0))  // test only
        CartDidChange(itemCount: 4).post(from: cart, in: center)  // prints nothing
    }

    static func centerSpelling(center: NotificationCenter, cart: Cart) -> NotificationPublisher<CartDidChange> {
        let changes = CartDidChange.publisher(from: cart, in: center)
        return changes  // test only
    }

    static func keepOnlyTheNewest(center: NotificationCenter) -> some Publisher<CartDidChange, Never> {
        let newest = CartDidChange.publisher(in: center)
            .buffer(size: 1, prefetch: .byRequest, whenFull: .dropOldest)  // only the newest change waits
        return newest  // test only
    }
}

// MARK: - Doc comments of NotificationPublisher.swift

enum PublisherDocComments {
    enum NotificationPublisherType {
        struct CartDidChange: Notifiable { let itemCount: Int }

        static func example(printed: PrintedLines) {
            func print(_ items: Any..., separator: String = " ") { printed.append(items, separator: separator) }

            let center = NotificationCenter()
            let cancellable = CartDidChange.publisher(in: center)
                .map(\.itemCount)
                .sink { count in print(count) }
            CartDidChange(itemCount: 2).post(in: center)  // prints 2, before `post` returns
            #expect(printed.lines == ["2"])  // test only
            cancellable.cancel()  // ends the observation
            #expect(center.typedRegistrationCounts() == (0, 0))  // test only
        }
    }

    enum Failure {
        struct CartDidChange: Notifiable { let itemCount: Int }

        static func example() {
            let publisher: AnyPublisher<CartDidChange, Never> = CartDidChange.publisher().eraseToAnyPublisher()
            _ = publisher  // test only
        }
    }

    enum ReceiveSubscriber {
        struct CartDidChange: Notifiable { let itemCount: Int }

        static func example(printed: PrintedLines) {
            func print(_ items: Any..., separator: String = " ") { printed.append(items, separator: separator) }

            let center = NotificationCenter()
            let subscriber = Subscribers.Sink<CartDidChange, Never>(
                receiveCompletion: { _ in },
                receiveValue: { change in print(change.itemCount) }
            )
            CartDidChange.publisher(in: center).receive(subscriber: subscriber)
            CartDidChange(itemCount: 1).post(in: center)  // prints 1
            subscriber.cancel()
            #expect(center.typedRegistrationCounts() == (0, 0))  // test only
        }
    }

    enum CenterPublisher {
        final class Cart: Sendable {}
        struct CartDidChange: Notifiable {
            typealias Sender = Cart
            let itemCount: Int
        }

        static func example(printed: PrintedLines) {
            func print(_ items: Any..., separator: String = " ") { printed.append(items, separator: separator) }

            let center = NotificationCenter()
            let cart = Cart()
            let cancellable = CartDidChange.publisher(from: cart, in: center)
                .sink { change in print(change.itemCount) }
            CartDidChange(itemCount: 3).post(from: cart, in: center)  // prints 3
            CartDidChange(itemCount: 4).post(in: center)  // another sender: prints nothing
            withExtendedLifetime(cancellable) {}  // test only
        }
    }

    enum NotifiablePublisher {
        struct CartDidChange: Notifiable { let itemCount: Int }

        static func example() -> [Int] {
            let center = NotificationCenter()
            var counts: [Int] = []
            let cancellable = CartDidChange.publisher(in: center).sink { change in counts.append(change.itemCount) }
            CartDidChange(itemCount: 1).post(in: center)
            CartDidChange(itemCount: 2).post(in: center)  // counts == [1, 2]
            withExtendedLifetime(cancellable) {}  // test only
            return counts  // test only
        }
    }
}

// MARK: - Tests

@Suite struct DocumentationExamplesTests {
    // MARK: The article

    @Test func subscribeWithCombine() {
        let printed = PrintedLines()
        CombineAndSwiftUIArticle.subscribeWithCombine(printed: printed)
        #expect(printed.lines == ["items: 2"])
    }

    @Test func theCenterSpellingMakesTheSamePublisher() {
        let center = NotificationCenter()
        let cart = CombineAndSwiftUIArticle.Cart()
        var counts: [Int] = []
        let cancellable = CombineAndSwiftUIArticle.centerSpelling(center: center, cart: cart)
            .sink { counts.append($0.itemCount) }
        CombineAndSwiftUIArticle.CartDidChange(itemCount: 1).post(from: cart, in: center)
        CombineAndSwiftUIArticle.CartDidChange(itemCount: 2).post(in: center)
        #expect(counts == [1])
        withExtendedLifetime(cancellable) {}
    }

    @Test func bufferOperatorKeepsOnlyTheNewest() {
        let center = NotificationCenter()
        let subscriber = RecordingSubscriber<CombineAndSwiftUIArticle.CartDidChange>(initialDemand: .none)
        CombineAndSwiftUIArticle.keepOnlyTheNewest(center: center).subscribe(subscriber)
        for count in 1...3 { CombineAndSwiftUIArticle.CartDidChange(itemCount: count).post(in: center) }
        subscriber.request(.max(1))
        #expect(subscriber.values.map(\.itemCount) == [3])
        subscriber.cancel()
    }

    // MARK: Doc comments

    @Test func notificationPublisherType() {
        let printed = PrintedLines()
        PublisherDocComments.NotificationPublisherType.example(printed: printed)
        #expect(printed.lines == ["2"])
    }

    @Test func failureIsNever() {
        PublisherDocComments.Failure.example()
    }

    @Test func receiveSubscriber() {
        let printed = PrintedLines()
        PublisherDocComments.ReceiveSubscriber.example(printed: printed)
        #expect(printed.lines == ["1"])
    }

    @Test func centerPublisher() {
        let printed = PrintedLines()
        PublisherDocComments.CenterPublisher.example(printed: printed)
        #expect(printed.lines == ["3"])
    }

    @Test func notifiablePublisher() {
        #expect(PublisherDocComments.NotifiablePublisher.example() == [1, 2])
    }
}
