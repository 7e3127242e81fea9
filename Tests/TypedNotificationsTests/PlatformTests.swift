import Dispatch
import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// The platform layer (`Internal/Foundation/Platform.swift`) in the branch this build takes: Apple's in the simulated-Apple build
/// (`-DTYPED_NOTIFICATIONS_SIMULATE_DARWIN`) and on Apple platforms, Linux's otherwise.
@Suite struct PlatformTests {
    /// Whether this build takes the Apple platforms' branches.
    static let takesAppleBranches: Bool = {
        #if canImport(Darwin) || TYPED_NOTIFICATIONS_SIMULATE_DARWIN
        true
        #else
        false
        #endif
    }()

    // MARK: - Foundation's observer tokens

    @Test func foundationTokenLastsWhileItsObserverIsRegistered() throws {
        let center = NotificationCenter()
        let calls = Counter()
        let name = Notification.Name("PlatformTests.token")
        weak var token: AnyObject?
        token = Platform.addObserver(name, on: center) { _ in calls.increment() }
        // Nothing but the center (on Linux, through the observer's block) keeps Foundation's token.
        let object = try #require(token)
        center.post(name: name, object: nil)
        #expect(calls.count == 1)
        center.removeObserver(object)
        center.post(name: name, object: nil)
        #expect(calls.count == 1)
    }

    @Test func foundationTokenIsReleasedWithItsObserver() throws {
        let center = NotificationCenter()
        let name = Notification.Name("PlatformTests.release")
        weak var token: AnyObject?
        token = Platform.addObserver(name, on: center) { _ in }
        center.removeObserver(try #require(token))
        #expect(token == nil)
    }

    @Test func foundationTokenIsReleasedWithItsCenter() {
        var center: NotificationCenter? = NotificationCenter()
        weak var weakCenter: NotificationCenter?
        weakCenter = center
        weak var token: AnyObject?
        token = center.map { Platform.addObserver(.init("PlatformTests.death"), on: $0) { _ in } }
        #expect(token != nil)
        center = nil
        #expect(weakCenter == nil)
        #expect(token == nil)
    }

    // MARK: - The main queue

    @Test func mainQueueIsRecognisedWhateverObjectReadsIt() {
        // One object on Apple platforms; a new wrapper each time on Linux.
        let first = DispatchQueue.main
        let second = DispatchQueue.main
        #expect(Platform.isMainQueue(first))
        #expect(Platform.isMainQueue(second))
    }

    @Test func otherQueuesAreNotTheMainQueue() {
        #expect(!Platform.isMainQueue(DispatchQueue(label: "com.apple.main-thread")))
        #expect(!Platform.isMainQueue(DispatchQueue(label: "PlatformTests.targetsMain", target: .main)))
        #expect(!Platform.isMainQueue(.global()))
    }

    // MARK: - Main-actor handlers

    #if canImport(Darwin) || TYPED_NOTIFICATIONS_SIMULATE_DARWIN
    /// Where the main thread is the main actor, a main-actor handler is called without `MainActor.assumeIsolated`,
    /// whose check traps before Swift 6's runtime on the main thread outside a main-actor job: the package's rule of
    /// when it runs on the main actor is what makes the call safe. Called here from a thread that is not the main
    /// actor, which only a missing check allows.
    @Test func mainActorHandlerIsCalledWithoutARuntimeCheckWhereTheMainThreadIsTheMainActor() async {
        let calls = Recorded<Int>()
        let handler = Platform.onMainActor { (value: Int) in calls.append(value) }
        await Task.detached { handler(1) }.value
        #expect(calls.values == [1])
    }
    #endif

    @Test func mainThreadCountsAsTheMainActorOnlyWhereItIsIt() {
        #expect(Platform.mainThreadIsMainActor == Self.takesAppleBranches)
    }

    // MARK: - Autorelease pools

    @Test func autoreleasePoolRunsItsBodyOnceAndReturnsItsResult() throws {
        let runs = Counter()
        let result = withAutoreleasePool {
            runs.increment()
            return 7
        }
        #expect(result == 7)
        #expect(runs.count == 1)
        struct Failure: Error {}
        #expect(throws: Failure.self) { try withAutoreleasePool { throw Failure() } }
    }
}
