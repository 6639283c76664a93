import XCTest
@testable import CellHostCore

/// `ChainWalk.restart` keeps its steps only when given the same array (its
/// fast path): any other array, even of the same length and classes, replaces
/// them; `takeOutcome` leaves a walk that is over, not paused; and
/// `MessageRenderer.restart`, which keeps a walk's chain for a message of the
/// same class, gives the registry's chain whatever came before.
final class ChainWalkTests: XCTestCase {
    static let first = RuntimeClass(name: "FirstCell", pluginID: "test", messageClasses: ["text"], rank: 0,
                                    instanceSize: 0, selectors: SelectorTable())
    static let second = RuntimeClass(name: "SecondCell", pluginID: "test", messageClasses: ["text"], rank: 0,
                                     instanceSize: 0, selectors: SelectorTable())

    static func steps(_ classes: [RuntimeClass], _ messageClass: String) -> [Registry.Step] {
        classes.map { Registry.Step(cls: $0, messageClass: messageClass, isOverride: false) }
    }

    func describe(_ walk: ChainWalk) -> [String] {
        walk.steps.map { "\($0.cls.name)/\($0.messageClass)" }
    }

    func testRestartTakesEveryOtherArray() {
        let a = Self.steps([Self.first, Self.second], "text")
        let walk = ChainWalk(steps: a)
        walk.next = 2
        walk.restart(steps: a, type: "text", generation: 1, isUnregistered: false)
        XCTAssertEqual(describe(walk), ["FirstCell/text", "SecondCell/text"])
        XCTAssertEqual(walk.next, 0)
        // Same length, other contents.
        walk.restart(steps: Self.steps([Self.second, Self.first], "text"), type: "text", generation: 1, isUnregistered: false)
        XCTAssertEqual(describe(walk), ["SecondCell/text", "FirstCell/text"])
        // Same classes, other message class (non-ASCII).
        walk.restart(steps: Self.steps([Self.second, Self.first], "tëxt"), type: "text", generation: 1, isUnregistered: false)
        XCTAssertEqual(describe(walk), ["SecondCell/tëxt", "FirstCell/tëxt"])
        // A copy of the array is the same array; a mutated copy is not.
        var b = Self.steps([Self.first], "")
        walk.restart(steps: b, type: "text", generation: 1, isUnregistered: false)
        b.append(Registry.Step(cls: Self.second, messageClass: "", isOverride: true))
        walk.restart(steps: b, type: "text", generation: 1, isUnregistered: false)
        XCTAssertEqual(describe(walk), ["FirstCell/", "SecondCell/"])
        walk.restart(steps: [], type: "text", generation: 1, isUnregistered: false)
        XCTAssertEqual(describe(walk), [])
        XCTAssertFalse(walk.isPaused)
    }

    func testTakeOutcomeEndsTheWalk() {
        let walk = ChainWalk(steps: Self.steps([Self.first, Self.second], "text"))
        XCTAssertNil(walk.takeOutcome())
        walk.restart(steps: walk.steps, type: "text", generation: 1, isUnregistered: false)
        walk.next = 1
        walk.outcome = RenderOutcome(cls: Self.first, messageClass: "text", fallback: nil)
        let taken = walk.takeOutcome()
        XCTAssertTrue(taken?.cls === Self.first)
        XCTAssertEqual(taken?.messageClass, "text")
        XCTAssertNil(walk.outcome)
        XCTAssertFalse(walk.isPaused)
    }

    /// A walk reused for messages of changing classes, and across a change
    /// of the registry, always has the chain the registry gives now (and
    /// reports an unregistered class every time).
    func testRendererRestartGivesTheRegistrysChain() {
        let runtime = Runtime()
        runtime.registry.register(Self.first, forMessageClass: "text")
        let renderer = MessageRenderer(runtime: runtime)
        let walk = ChainWalk(steps: [])
        func restart(_ type: String) -> (steps: [String], unregistered: Bool) {
            let message = Message()
            message.type = type
            message.typeIsMissing = false
            renderer.restart(walk, for: message, state: runtime.state)
            let expected = runtime.registry.chain(for: type).steps.map { "\($0.cls.name)/\($0.messageClass)" }
            XCTAssertEqual(describe(walk), expected, type)
            XCTAssertEqual(walk.next, 0)
            return (describe(walk), walk.attempts.contains { $0.result == "unregistered" })
        }
        let text = restart("text")
        XCTAssertEqual(text.steps.first, "FirstCell/text")
        XCTAssertFalse(text.unregistered)
        XCTAssertEqual(restart("text").steps, text.steps)
        XCTAssertTrue(restart("nope").unregistered)
        XCTAssertTrue(restart("nope").unregistered, "the kept chain still reports it")
        XCTAssertEqual(restart("text").steps, text.steps)
        runtime.registry.override("text", with: Self.second)
        XCTAssertEqual(restart("text").steps.first, "SecondCell/text", "a changed registry is looked up again")
        XCTAssertEqual(restart("text").steps.first, "SecondCell/text")
    }

    /// `exchange` swaps everything: a paused walk moved into a slot's walk
    /// goes on there where it stopped, with its attempts and outcome, and
    /// the thread's walk restarts cleanly over the chain it was given.
    func testExchangeMovesTheWalk() {
        let thread = ChainWalk(steps: [])
        let slot = ChainWalk(steps: [])
        thread.restart(steps: Self.steps([Self.first, Self.second], "text"), type: "text", generation: 3, isUnregistered: false)
        thread.order = 7
        thread.next = 1
        thread.record(FallbackAttempt(messageClass: "text", className: "FirstCell", pluginID: "test", result: "declined"))
        XCTAssertTrue(thread.isPaused)
        thread.exchange(with: slot)
        XCTAssertEqual(describe(slot), ["FirstCell/text", "SecondCell/text"])
        XCTAssertEqual(slot.order, 7)
        XCTAssertEqual(slot.next, 1)
        XCTAssertTrue(slot.isPaused)
        XCTAssertEqual(slot.attempts.map(\.result), ["declined"])
        XCTAssertTrue(slot.hasAttempts)
        XCTAssertEqual(slot.chainType, "text")
        XCTAssertEqual(slot.chainGeneration, 3)
        XCTAssertEqual(describe(thread), [])
        XCTAssertFalse(thread.hasAttempts)
        XCTAssertNil(thread.chainType)
        XCTAssertFalse(thread.isPaused)
        slot.outcome = RenderOutcome(cls: Self.second, messageClass: "text", fallback: Fallback(attempts: slot.attempts))
        slot.exchange(with: thread)
        XCTAssertTrue(thread.outcome?.cls === Self.second)
        thread.restart()
        XCTAssertNil(thread.outcome)
        XCTAssertTrue(thread.attempts.isEmpty)
        XCTAssertEqual(thread.next, 0)
    }

    /// A walk whose messages alternate between classes takes back a kept
    /// chain (`ChainWalk.takeKeptChain`), and gives the registry's chain for
    /// every class in every order, also after the registry changed and
    /// with more classes than it keeps chains for.
    func testRendererRestartAlternatingClasses() {
        let runtime = Runtime()
        runtime.registry.register(Self.first, forMessageClass: "text")
        runtime.registry.register(Self.second, forMessageClass: "file")
        let renderer = MessageRenderer(runtime: runtime)
        let walk = ChainWalk(steps: [])
        func restart(_ type: String) {
            let message = Message()
            message.type = type
            message.typeIsMissing = false
            walk.next = 1
            walk.record(FallbackAttempt(messageClass: "x", className: nil, pluginID: nil, result: "declined"))
            renderer.restart(walk, for: message, state: runtime.state)
            let chain = runtime.registry.chain(for: type)
            XCTAssertEqual(describe(walk), chain.steps.map { "\($0.cls.name)/\($0.messageClass)" }, type)
            XCTAssertEqual(walk.next, 0)
            XCTAssertEqual(walk.attempts.map(\.result), chain.isUnregistered ? ["unregistered"] : [], type)
        }
        for type in ["text", "file", "text", "file", "file", "nope", "text", "nope", "file", "text", "", "text"] {
            restart(type)
        }
        runtime.registry.override("file", with: Self.first)
        for type in ["file", "text", "file", "nope", "text", "text", "file"] {
            restart(type)
        }
        XCTAssertEqual(describe(walk).first, "FirstCell/file")
        // More classes than a walk keeps chains for: the oldest are dropped,
        // and looked up again when they come back.
        let many = (0..<10).map { "kind\($0)" }
        for (index, type) in many.enumerated() {
            runtime.registry.register(index.isMultiple(of: 2) ? Self.first : Self.second, forMessageClass: type)
        }
        for type in many + many.reversed() + ["kind3", "text", "kind9", "kind0", "nope", "kind5", "kind3", "file"] {
            restart(type)
        }
    }

    /// Messages of an unregistered class each report it once, with their
    /// own class, also when a later attempt is added to one of them (which
    /// must not change the others' or the next message's).
    func testUnregisteredAttemptsAreEachMessagesOwn() {
        let runtime = Runtime()
        runtime.registry.register(Self.first, forMessageClass: "text")
        let renderer = MessageRenderer(runtime: runtime)
        let walk = ChainWalk(steps: [])
        func restart(_ type: String) -> [String] {
            let message = Message()
            message.type = type
            message.typeIsMissing = false
            renderer.restart(walk, for: message, state: runtime.state)
            return walk.attempts.map { "\($0.messageClass)/\($0.result)" }
        }
        XCTAssertEqual(restart("nope"), ["nope/unregistered"])
        let kept = walk.attempts
        walk.record(FallbackAttempt(messageClass: "nope", className: "X", pluginID: nil, result: "declined"))
        XCTAssertEqual(kept.count, 1)
        XCTAssertEqual(restart("nope"), ["nope/unregistered"])
        XCTAssertEqual(restart("other"), ["other/unregistered"])
        XCTAssertEqual(restart("nope"), ["nope/unregistered"])
        XCTAssertEqual(restart("text"), [])
        XCTAssertEqual(restart("other"), ["other/unregistered"])
        XCTAssertEqual(restart("third"), ["third/unregistered"])
        XCTAssertEqual(restart("other"), ["other/unregistered"])
    }

    /// The receiver a walk keeps with its chain for the first step
    /// (`ChainWalk.firstReceiver`) is always the current conversation's
    /// instance of the step's class: for messages whose classes alternate
    /// (chains taken back from those kept, more classes than it keeps),
    /// across the end of a conversation, a change of the registry, and a
    /// walk exchanged with a slot's; later steps are looked up each time.
    func testFirstReceiverIsTheCurrentConversationsInstance() {
        let runtime = Runtime()
        let classes = (0..<10).map { index in
            RuntimeClass(name: "Cell\(index)", pluginID: "test", messageClasses: ["type\(index)"], rank: 0,
                         instanceSize: 0, selectors: SelectorTable())
        }
        for (index, cls) in classes.enumerated() { runtime.registry.register(cls, forMessageClass: "type\(index)") }
        let renderer = MessageRenderer(runtime: runtime)
        var walk = ChainWalk(steps: [])
        var spare = ChainWalk(steps: [])
        var random = SplitMix64(state: 0xF125_7000)
        for round in 0..<2_000 {
            switch random.below(40) {
            case 0: runtime.endConversation()
            case 1: runtime.registry.register(Self.first, forMessageClass: "type\(random.below(10))")
            case 2:
                walk.exchange(with: spare)
                swap(&walk, &spare)
            default: break
            }
            let message = Message()
            message.type = "type\(random.below(random.below(2) == 0 ? 3 : 10))"
            message.typeIsMissing = false
            renderer.restart(walk, for: message, state: runtime.state)
            for index in walk.steps.indices.prefix(2) {
                let cls = walk.steps[index].cls
                let expected = runtime.conversation.instance(of: cls, runtime: runtime).handle
                XCTAssertEqual(renderer.receiver(walk, index, cls, state: runtime.state), expected, "round \(round)")
                XCTAssertEqual(renderer.receiver(walk, index, cls, state: runtime.state), expected, "round \(round), again")
            }
        }
    }
}
