import XCTest
@testable import CellHostCore

/// `ChainWalk.restart` keeps its steps only when given the same array (its
/// fast path): any other array, even of the same length and classes, replaces
/// them; `takeOutcome` leaves a walk that is over, not paused.
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
        walk.restart(steps: a)
        XCTAssertEqual(describe(walk), ["FirstCell/text", "SecondCell/text"])
        XCTAssertEqual(walk.next, 0)
        // Same length, other contents.
        walk.restart(steps: Self.steps([Self.second, Self.first], "text"))
        XCTAssertEqual(describe(walk), ["SecondCell/text", "FirstCell/text"])
        // Same classes, other message class (non-ASCII).
        walk.restart(steps: Self.steps([Self.second, Self.first], "tëxt"))
        XCTAssertEqual(describe(walk), ["SecondCell/tëxt", "FirstCell/tëxt"])
        // A copy of the array is the same array; a mutated copy is not.
        var b = Self.steps([Self.first], "")
        walk.restart(steps: b)
        b.append(Registry.Step(cls: Self.second, messageClass: "", isOverride: true))
        walk.restart(steps: b)
        XCTAssertEqual(describe(walk), ["FirstCell/", "SecondCell/"])
        walk.restart(steps: [])
        XCTAssertEqual(describe(walk), [])
        XCTAssertFalse(walk.isPaused)
    }

    func testTakeOutcomeEndsTheWalk() {
        let walk = ChainWalk(steps: Self.steps([Self.first, Self.second], "text"))
        XCTAssertNil(walk.takeOutcome())
        walk.restart(steps: walk.steps)
        walk.next = 1
        walk.outcome = RenderOutcome(cls: Self.first, messageClass: "text", fallback: nil)
        let taken = walk.takeOutcome()
        XCTAssertTrue(taken?.cls === Self.first)
        XCTAssertEqual(taken?.messageClass, "text")
        XCTAssertNil(walk.outcome)
        XCTAssertFalse(walk.isPaused)
    }
}
