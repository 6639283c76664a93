import XCTest
@testable import CellHostCore

/// The reply-quote ring answers exactly as a dictionary of the last
/// `capacity` distinct ids would: its own hash table (linear probing with
/// deletion by backward shift) loses no id and keeps no evicted one.
final class RecentRecordsTests: XCTestCase {
    static let cls = RuntimeClass(name: "TestCell", pluginID: "test", messageClasses: ["text"], rank: 0,
                                  instanceSize: 0, selectors: SelectorTable())

    /// The obvious model: ids in order of first appearance, oldest evicted first.
    struct Model {
        let capacity: Int
        var order: [String] = []
        var records: [String: [UInt8]] = [:]

        mutating func remember(_ id: String, _ record: [UInt8]) {
            guard record.count <= RecentRecords.maximumRecordBytes else { return }
            if records[id] != nil { records[id] = record; return }
            if order.count == capacity { records[order.removeFirst()] = nil }
            order.append(id)
            records[id] = record
        }
    }

    func test_lookups_matchADictionaryOfTheLastIds_underRandomRememberAndEviction() {
        var generator = SystemRandomNumberGenerator()
        for capacity in [1, 2, 7, 64] {
            var recent = RecentRecords(capacity: capacity)
            var model = Model(capacity: capacity)
            // Few distinct ids, so the same id comes back before and after it is evicted.
            let ids = (0..<(capacity * 3)).map { "m-\($0)" } + ["", "日本-1", "\u{0}x"]
            for step in 0..<4000 {
                let id = ids.randomElement(using: &generator)!
                let record = Array("\(step)".utf8)
                if Bool.random(using: &generator) {
                    record.withUnsafeBufferPointer { recent.remember(id: id, record: $0, renderedBy: Self.cls) }
                } else {
                    var handed = record
                    recent.remember(id: id, taking: &handed, renderedBy: Self.cls)
                }
                model.remember(id, record)
                for probe in ids {
                    XCTAssertEqual(recent.lookup(probe)?.record, model.records[probe],
                                   "capacity \(capacity), step \(step), id \(probe.debugDescription)")
                }
            }
        }
    }

    func test_idsWithTheSameHomePosition_areAllFound_andEvictedInOrder() {
        // Ids whose hashes share their low bits probe one run of the table.
        var recent = RecentRecords(capacity: 8)
        var colliding: [String] = []
        var candidate = 0
        let home = RecentRecords.hash("seed") & 15
        while colliding.count < 12 {
            let id = "c\(candidate)"
            if RecentRecords.hash(id) & 15 == home { colliding.append(id) }
            candidate += 1
        }
        for (number, id) in colliding.enumerated() {
            [UInt8(number)].withUnsafeBufferPointer { recent.remember(id: id, record: $0, renderedBy: Self.cls) }
        }
        // The first four were evicted; the last eight are found with their records.
        for (number, id) in colliding.enumerated() {
            XCTAssertEqual(recent.lookup(id)?.record, number < 4 ? nil : [UInt8(number)], id)
        }
    }

    func test_takingARecord_movesItsBuffer() {
        var recent = RecentRecords(capacity: 4)
        var small: [UInt8] = Array("abc".utf8)
        XCTAssertTrue(RecentRecords.canTake(small))
        let address = small.withUnsafeBufferPointer { $0.baseAddress }
        recent.remember(id: "m-1", taking: &small, renderedBy: Self.cls)
        XCTAssertEqual(recent.lookup("m-1")?.record.withUnsafeBufferPointer { $0.baseAddress }, address, "moved, not copied")
    }

    func test_aRecordLookedUp_keepsItsBytes_whenItsSlotIsReused() {
        // RenderSession.quote parses a looked-up record in place; the ring
        // may then hand its buffer to a render slot, which refills it.
        var recent = RecentRecords(capacity: 1)
        var first: [UInt8] = Array("abc".utf8)
        recent.remember(id: "m-1", taking: &first, renderedBy: Self.cls)
        let held = recent.lookup("m-1")?.record
        var second: [UInt8] = Array("xyz".utf8)
        recent.remember(id: "m-2", taking: &second, renderedBy: Self.cls)
        second.removeAll(keepingCapacity: true)
        second.append(contentsOf: Array("123".utf8))
        XCTAssertEqual(held, Array("abc".utf8))
        XCTAssertNil(recent.lookup("m-1"))
        XCTAssertEqual(recent.lookup("m-2")?.record, Array("xyz".utf8))
        [UInt8]("4".utf8).withUnsafeBufferPointer { recent.remember(id: "m-3", record: $0, renderedBy: Self.cls) }
        XCTAssertEqual(held, Array("abc".utf8))
        XCTAssertEqual(recent.lookup("m-3")?.record, Array("4".utf8))
    }

    func test_canTake_refusesOversizedRecordsAndBuffers() {
        // A buffer that grew for an earlier large record is not taken, however little it holds.
        var grown = [UInt8](repeating: 0x61, count: RecentRecords.maximumBufferBytes + 1)
        grown.removeAll(keepingCapacity: true)
        grown.append(contentsOf: Array("xyz".utf8))
        XCTAssertFalse(RecentRecords.canTake(grown))
        XCTAssertFalse(RecentRecords.canTake([UInt8](repeating: 0x61, count: RecentRecords.maximumRecordBytes + 1)))
        XCTAssertTrue(RecentRecords.canTake([UInt8](repeating: 0x61, count: RecentRecords.maximumRecordBytes)))
        XCTAssertTrue(RecentRecords.canTake([]))
    }

    func test_aRecordOverTheSizeLimit_isNotRemembered() {
        var recent = RecentRecords(capacity: 4)
        let big = [UInt8](repeating: 0x61, count: RecentRecords.maximumRecordBytes + 1)
        big.withUnsafeBufferPointer { recent.remember(id: "m-1", record: $0, renderedBy: Self.cls) }
        XCTAssertNil(recent.lookup("m-1"))
    }
}
