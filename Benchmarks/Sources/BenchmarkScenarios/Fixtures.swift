import Foundation
import TypedNotifications

// Three fixtures doing the same work three ways, each on a center of its own:
// - `TypedFixture`: this package (`Tick.observe(in: center)`, `tick.post(in: center)`);
// - `PlainFixture`: plain `NotificationCenter`, the payload in `userInfo["tick"]`, each observer reading it back with
//   `userInfo["tick"] as? Tick`;
// - `MessageFixture`: Foundation's `NotificationCenter.MainActorMessage`.
// Every observer reads the payload and adds its `sequence` (1) to the fixture's `sink`.
// The loops are `@inline(never)` so that both sides of a pair are compiled the same way.

/// Typed observers of ``Tick`` on a center of their own.
package final class TypedFixture: @unchecked Sendable {
    package let center = NotificationCenter()
    package let sink = Sink()
    package let observers: Int
    private var tokens: [NotificationToken] = []

    /// - Parameters:
    ///   - observers: Typed observers of `Tick`.
    ///   - observersOnOtherNames: One typed observer on each of that many other `Notifiable` types (other names).
    package init(observers: Int, observersOnOtherNames: Int = 0) {
        self.observers = observers
        tokens.reserveCapacity(observers + observersOnOtherNames)
        addObservers(observers)
        if observersOnOtherNames > 0 {
            Self.observeOthers(
                OtherTickBase.self, remaining: observersOnOtherNames, in: center, sink: sink, into: &tokens)
        }
    }

    /// Adds `count` long-lived observers of `Tick` (kept until the fixture is released).
    @inline(never)
    package func addObservers(_ count: Int) {
        let sink = sink
        for _ in 0..<count {
            tokens.append(Tick.observe(in: center) { tick in sink.add(tick.sequence) })
        }
    }

    /// Makes room for `count` more tokens, so that measuring `addObservers` does not count the fixture's own array.
    package func reserve(_ count: Int) {
        tokens.reserveCapacity(tokens.count + count)
    }

    /// `count` posts of a fresh `Tick`.
    @inline(never)
    package func post(_ count: Int) {
        let center = center
        for _ in 0..<count {
            Tick(sequence: 1, price: 187.25, symbol: "AAPL").post(in: center)
        }
    }

    /// `count` times: observe `Tick`, then cancel the token.
    @inline(never)
    package func observeThenCancel(_ count: Int) {
        let center = center
        let sink = sink
        for _ in 0..<count {
            let token = Tick.observe(in: center) { tick in sink.add(tick.sequence) }
            token.cancel()
        }
    }

    private static func observeOthers<Inner: OtherTickNaming>(
        _ inner: Inner.Type,
        remaining: Int,
        in center: NotificationCenter,
        sink: Sink,
        into tokens: inout [NotificationToken]
    ) {
        guard remaining > 0 else { return }
        tokens.append(OtherTick<Inner>.observe(in: center) { tick in sink.add(tick.sequence) })
        observeOthers(OtherTick<Inner>.self, remaining: remaining - 1, in: center, sink: sink, into: &tokens)
    }
}

/// Plain `NotificationCenter` observers of ``PlainTick/name``, each decoding `userInfo["tick"] as? Tick`.
package final class PlainFixture: @unchecked Sendable {
    package let center = NotificationCenter()
    package let sink = Sink()
    package let observers: Int
    private var registrations: [any NSObjectProtocol] = []

    /// - Parameters:
    ///   - observers: Plain observers of `PlainTick.name`.
    ///   - observersOnOtherNames: One plain observer on each of that many other names (the typed twin's name strings).
    package init(observers: Int, observersOnOtherNames: Int = 0) {
        self.observers = observers
        registrations.reserveCapacity(observers + observersOnOtherNames)
        addObservers(observers)
        let sink = sink
        for index in stride(from: 1, through: observersOnOtherNames, by: 1) {
            registrations.append(
                center.addObserver(forName: OtherNames.name(index), object: nil, queue: nil) { notification in
                    if let tick = notification.userInfo?["tick"] as? Tick { sink.add(tick.sequence) }
                }
            )
        }
    }

    deinit {
        for registration in registrations { center.removeObserver(registration) }
    }

    @inline(never)
    package func addObservers(_ count: Int) {
        let sink = sink
        for _ in 0..<count {
            registrations.append(
                center.addObserver(forName: PlainTick.name, object: nil, queue: nil) { notification in
                    if let tick = notification.userInfo?["tick"] as? Tick { sink.add(tick.sequence) }
                }
            )
        }
    }

    package func reserve(_ count: Int) {
        registrations.reserveCapacity(registrations.count + count)
    }

    /// `count` posts of a fresh `Tick` in a fresh `userInfo`.
    @inline(never)
    package func post(_ count: Int) {
        let center = center
        for _ in 0..<count {
            center.post(
                name: PlainTick.name,
                object: nil,
                userInfo: ["tick": Tick(sequence: 1, price: 187.25, symbol: "AAPL")]
            )
        }
    }

    /// `count` times: `addObserver`, then `removeObserver`.
    @inline(never)
    package func observeThenRemove(_ count: Int) {
        let center = center
        let sink = sink
        for _ in 0..<count {
            let registration = center.addObserver(forName: PlainTick.name, object: nil, queue: nil) { notification in
                if let tick = notification.userInfo?["tick"] as? Tick { sink.add(tick.sequence) }
            }
            center.removeObserver(registration)
        }
    }
}

/// Observers of Foundation's ``Foundation/NotificationCenter/TickMessage`` (`MainActorMessage`), main actor only.
@available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
@MainActor
package final class MessageFixture {
    package let center = NotificationCenter()
    package let sink = Sink()
    package let observers: Int
    private var tokens: [NotificationCenter.ObservationToken] = []

    package init(observers: Int) {
        self.observers = observers
        tokens.reserveCapacity(observers)
        addObservers(observers)
    }

    @inline(never)
    package func addObservers(_ count: Int) {
        let sink = sink
        for _ in 0..<count {
            tokens.append(
                center.addObserver(for: NotificationCenter.TickMessage.self) { message in sink.add(message.sequence) }
            )
        }
    }

    package func reserve(_ count: Int) {
        tokens.reserveCapacity(tokens.count + count)
    }

    @inline(never)
    package func post(_ count: Int) {
        let center = center
        for _ in 0..<count {
            center.post(NotificationCenter.TickMessage(sequence: 1, price: 187.25, symbol: "AAPL"))
        }
    }
}
