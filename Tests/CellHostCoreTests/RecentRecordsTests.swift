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

    /// As `RenderSession.complete` remembers a record: by the id's bytes
    /// within it when they are ASCII, else (or when they are not within
    /// it) by the id `String`, an empty id not at all.
    private func rememberAsComplete(_ recent: inout RecentRecords, _ id: String, _ record: [UInt8], idAt range: Range<Int>) {
        record.withUnsafeBufferPointer { record in
            if recent.remember(idAt: range, record: record, renderedBy: Unmanaged.passUnretained(Self.cls)) {
            } else if !id.isEmpty {
                recent.remember(id: id, record: record, renderedBy: Unmanaged.passUnretained(Self.cls))
            }
        }
    }

    func test_idsRememberedByTheirBytesInTheRecord_orByString_matchADictionaryOfTheLastIds() {
        var generator = SystemRandomNumberGenerator()
        for capacity in [1, 3, 16] {
            var recent = RecentRecords(capacity: capacity, bytes: 64)
            var model = Model(capacity: capacity)
            // Lengths around the hash's eight-byte steps, non-ASCII (by
            // `String`), a NUL, and one that is a prefix of another.
            let ids = ["", "a", "m-1", "m-12", "abcdefg", "abcdefgh", "abcdefghi", "m-123456789012345", "m-1234567890123456",
                       "m-12345678901234567", "日本-1", "é", "x\u{0}y", "abcdefgh\u{7F}"]
            for step in 0..<3000 {
                let id = ids.randomElement(using: &generator)!
                // The id somewhere in the record, with bytes of the step around it.
                let before = (0..<Int.random(in: 0...20, using: &generator)).map { UInt8(truncatingIfNeeded: step &+ $0) }
                let after = (0..<Int.random(in: 0...20, using: &generator)).map { UInt8(truncatingIfNeeded: step &* 3 &+ $0) }
                let record = before + Array(id.utf8) + after
                rememberAsComplete(&recent, id, record, idAt: before.count..<(before.count + id.utf8.count))
                if !id.isEmpty { model.remember(id, record) }
                for probe in ids {
                    XCTAssertEqual(recent.lookup(probe).map { Array($0.record) }, model.records[probe],
                                   "capacity \(capacity), step \(step), id \(probe.debugDescription)")
                }
            }
        }
    }

    func test_rememberingByBytes_takesOnlyASCIIWithinTheRecord() {
        var recent = RecentRecords(capacity: 8)
        let cls = Unmanaged.passUnretained(Self.cls)
        for length in 1...20 {
            let ascii = [UInt8](repeating: 0x61, count: length)
            XCTAssertTrue(ascii.withUnsafeBufferPointer { recent.remember(idAt: 0..<length, record: $0, renderedBy: cls) })
            XCTAssertEqual(recent.lookup(String(decoding: ascii, as: UTF8.self)).map { Array($0.record) }, ascii)
            // A byte from 0x80 anywhere: not taken, not remembered.
            for position in 0..<length {
                var bytes = [UInt8](repeating: 0x62, count: length)
                bytes[position] = 0x80 | UInt8(position)
                XCTAssertFalse(bytes.withUnsafeBufferPointer { recent.remember(idAt: 0..<length, record: $0, renderedBy: cls) },
                               "length \(length), position \(position)")
                XCTAssertNil(recent.lookup(String(decoding: bytes, as: UTF8.self)))
            }
        }
        // Outside the record: not taken. Empty: nothing to remember.
        let record = Array("abc".utf8)
        XCTAssertFalse(record.withUnsafeBufferPointer { recent.remember(idAt: 2..<4, record: $0, renderedBy: cls) })
        XCTAssertTrue(record.withUnsafeBufferPointer { recent.remember(idAt: 1..<1, record: $0, renderedBy: cls) })
        XCTAssertNil(recent.lookup(""))
    }
}
