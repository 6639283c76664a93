import Foundation
import XCTest
@testable import CellHostCore

/// Indexed key-path look-ups (`poll.options.N`) cost O(1) after the first one
/// into an array, so reading every element is linear in the array's size.
/// Cost is counted in nodes stepped over (`ArrayIndex.steps`), never timed.
final class IndexedLookupTests: XCTestCase {
    private func poll(options: Int) throws -> JSONDocument {
        let list = (0..<options).map { #"{"text":"option \#($0)","votes":\#($0)}"# }.joined(separator: ",")
        var document = JSONDocument()
        var json = #"{"type":"poll","poll":{"question":"?","options":["# + list + "]}}"
        try json.withUTF8 { try document.parse($0) }
        return document
    }

    /// Steps taken to resolve `poll.options.N.text` for every N.
    private func stepsToReadEveryOption(_ options: Int) throws -> Int {
        let document = try poll(options: options)
        for position in 0..<options {
            XCTAssertEqual(document.resolve("poll.options.\(position).text").flatMap { document.string($0) }, "option \(position)")
        }
        return document.arrayIndex.steps
    }

    func test_readingEveryElement_stepsOverEachElementOnce() throws {
        XCTAssertEqual(try stepsToReadEveryOption(1_000), 1_000)
        XCTAssertEqual(try stepsToReadEveryOption(8_000), 8_000)
    }

    func test_lookUpsAfterTheNextParse_useTheNewDocument() throws {
        var document = try poll(options: 20)
        XCTAssertEqual(document.resolve("poll.options.15.votes").flatMap { document.integer($0) }, 15)
        var json = #"{"poll":{"options":[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,"fifteen"]}}"#
        try json.withUTF8 { try document.parse($0) }
        XCTAssertEqual(document.resolve("poll.options.15").flatMap { document.string($0) }, "fifteen")
    }

    func test_aCopyKeepsItsIndexWhenTheOriginalParsesAgain() throws {
        var document = try poll(options: 20)
        let copy = document
        XCTAssertEqual(copy.resolve("poll.options.12.votes").flatMap { copy.integer($0) }, 12)
        var json = #"{"poll":{"options":[]}}"#
        try json.withUTF8 { try document.parse($0) }
        XCTAssertEqual(copy.resolve("poll.options.13.votes").flatMap { copy.integer($0) }, 13)
    }

    func test_outOfRangeAndNegativePositions_areAbsent() throws {
        let document = try poll(options: 20)
        XCTAssertNil(document.resolve("poll.options.20"))
        XCTAssertNil(document.element(try XCTUnwrap(document.resolve("poll.options")), -1))
        XCTAssertNil(document.resolve("poll.options.999999999"))
        XCTAssertNil(document.resolve("poll.options.9999999999999999999999"))
    }
}
