import XCTest
@testable import CellHostCore

/// The reply-quote ring answers exactly as a dictionary of the last
/// `capacity` distinct ids would: its own hash table (linear probing, an
/// evicted id's entry left stale until the table is rebuilt) loses no id
/// and keeps no evicted one.
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
            // A small byte ring, so that it comes round and is rebuilt often.
            var recent = RecentRecords(capacity: capacity, bytes: 64)
            var model = Model(capacity: capacity)
            // Few distinct ids, so the same id comes back before and after it is evicted.
            let ids = (0..<(capacity * 3)).map { "m-\($0)" } + ["", "日本-1", "\u{0}x"]
            for step in 0..<4000 {
                let id = ids.randomElement(using: &generator)!
                // Mostly short records, now and then an empty one or one of up to the limit.
                let length = switch Int.random(in: 0..<20, using: &generator) {
                case 0: 0
                case 1: Int.random(in: 0...RecentRecords.maximumRecordBytes + 1, using: &generator)
                default: Int.random(in: 1...40, using: &generator)
                }
                let record = (0..<length).map { UInt8(truncatingIfNeeded: step &+ $0) }
                record.withUnsafeBufferPointer { recent.remember(id: id, record: $0, renderedBy: Unmanaged.passUnretained(Self.cls)) }
                model.remember(id, record)
                for probe in ids {
                    XCTAssertEqual(recent.lookup(probe).map { Array($0.record) }, model.records[probe],
                                   "capacity \(capacity), step \(step), id \(probe.debugDescription)")
                }
            }
        }
    }

    func test_anIdRememberedOverAndOver_keepsTheOthersRecords() {
        // The ring comes round many times while the other ids stay remembered.
        var recent = RecentRecords(capacity: 4, bytes: 100)
        for (number, id) in ["a", "b", "c"].enumerated() {
            [UInt8](repeating: UInt8(number), count: 30).withUnsafeBufferPointer {
                recent.remember(id: id, record: $0, renderedBy: Unmanaged.passUnretained(Self.cls))
            }
        }
        for step in 0..<1000 {
            let record = [UInt8](repeating: UInt8(truncatingIfNeeded: step), count: 1 + step % 50)
            record.withUnsafeBufferPointer { recent.remember(id: "d", record: $0, renderedBy: Unmanaged.passUnretained(Self.cls)) }
            XCTAssertEqual(recent.lookup("d").map { Array($0.record) }, record)
        }
        for (number, id) in ["a", "b", "c"].enumerated() {
            XCTAssertEqual(recent.lookup(id).map { Array($0.record) }, [UInt8](repeating: UInt8(number), count: 30), id)
        }
    }

    func test_idsWithTheSameHomePosition_areAllFound_andEvictedInOrder() {
        // Ids whose hashes share their low bits (more than the table of
        // 64 positions uses) probe one run of the table.
        var recent = RecentRecords(capacity: 8)
        var colliding: [String] = []
        var candidate = 0
        let home = RecentRecords.hash("seed") & 127
        while colliding.count < 40 {
            let id = "c\(candidate)"
            if RecentRecords.hash(id) & 127 == home { colliding.append(id) }
            candidate += 1
        }
        // Remembered in turn, they leave stale entries on the run until the
        // table is rebuilt (at 16 entries): each time, the last eight are
        // found with their records, and the ones before are not.
        for (number, id) in colliding.enumerated() {
            [UInt8(number)].withUnsafeBufferPointer { recent.remember(id: id, record: $0, renderedBy: Unmanaged.passUnretained(Self.cls)) }
            for (other, otherID) in colliding.enumerated() {
                XCTAssertEqual(recent.lookup(otherID).map { Array($0.record) },
                               other <= number && other > number - 8 ? [UInt8(other)] : nil, "after \(number): \(otherID)")
            }
        }
    }

    func test_aRecordOverTheSizeLimit_isNotRemembered() {
        var recent = RecentRecords(capacity: 4)
        let big = [UInt8](repeating: 0x61, count: RecentRecords.maximumRecordBytes + 1)
        big.withUnsafeBufferPointer { recent.remember(id: "m-1", record: $0, renderedBy: Unmanaged.passUnretained(Self.cls)) }
        XCTAssertNil(recent.lookup("m-1"))
    }
}
