import XCTest
@testable import CellHostCore

/// `UnsafeList<UInt8>` holds a canvas's bytes: its appends (a byte, a
/// buffer, copies of its own elements, elements written in reserved
/// room), cuts and growth must keep what an array would.
final class UnsafeListTests: XCTestCase {
    /// Random appends (empty ones, buffers without memory, buffers larger
    /// than the capacity so far, writes in reserved room), truncations (past the end, below zero)
    /// and emptying, from a capacity of one, against an array.
    func test_byteOperations_keepWhatAnArrayKeeps() {
        var random = SplitMix64(state: 0xB17E_5EED)
        for _ in 0..<200 {
            var list = UnsafeList<UInt8>(capacity: 1)
            defer { list.deallocate() }
            var reference: [UInt8] = []
            for step in 0..<60 {
                switch random.below(9) {
                case 0:
                    let byte = UInt8(truncatingIfNeeded: random.below(256))
                    list.append(byte)
                    reference.append(byte)
                case 1, 2:
                    // Up to three times the capacity so far, often nothing.
                    let count = random.below(2) == 0 ? 0 : random.below(3 * list.capacity + 2)
                    let added = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ step) }
                    added.withUnsafeBufferPointer { list.append(contentsOf: $0) }
                    reference += added
                case 3:
                    list.append(contentsOf: UnsafeBufferPointer(start: nil, count: 0))
                case 4:
                    let from = random.below(reference.count + 1)
                    let range = from..<(from + random.below(reference.count - from + 1))
                    list.appendCopies(of: range)
                    reference += reference[range]
                case 5:
                    let newCount = random.below(reference.count + 3) - 1
                    list.truncate(to: newCount)
                    reference.removeSubrange(max(0, min(reference.count, newCount))...)
                case 6:
                    if random.below(4) == 0 {
                        list.removeAll()
                        reference.removeAll()
                    }
                case 7:
                    // Room for up to twice the capacity so far (often
                    // more than is free), part of it written in place (the
                    // elements before, read through the storage after it
                    // grew, then new bytes) and kept.
                    let room = random.below(2 * list.capacity + 2)
                    let kept = random.below(room + 1)
                    let before = list.count
                    let storage = list.reserve(room)
                    XCTAssertGreaterThanOrEqual(list.capacity - list.count, room)
                    for offset in 0..<kept {
                        let byte = offset < before ? storage[offset] : UInt8(truncatingIfNeeded: offset &* 7 &+ step)
                        (storage + before + offset).initialize(to: byte)
                        reference.append(byte)
                    }
                    list.extend(to: before + kept)
                default:
                    list.release(above: 64)
                    reference.removeAll()
                    XCTAssertLessThanOrEqual(list.capacity, 64)
                }
                XCTAssertEqual(Array(list.elements), reference, "step \(step)")
                XCTAssertEqual(list.count, reference.count)
                XCTAssertEqual(list.isEmpty, reference.isEmpty)
                XCTAssertEqual(list.last?.pointee, reference.last)
                XCTAssertGreaterThanOrEqual(list.capacity, list.count)
            }
        }
    }

    /// The sanitizer writes the same bytes to a canvas's list as to an
    /// array, after what either held already, for unsafe, invalid and
    /// non-ASCII text.
    func test_sanitizingIntoAList_appendsWhatSanitizingIntoAnArrayAppends() {
        let inputs: [[UInt8]] = [[], Array("plain".utf8), Array("tab\there".utf8), [0x1B, 0x5B, 0x33, 0x31, 0x6D, 0x41],
                                 [0xFF, 0xC3], Array("日本\u{202E}é".utf8), [0xC2, 0x85, 0x7F, 0x07],
                                 Array(String(repeating: "long ascii run ", count: 20).utf8)]
        var list = UnsafeList<UInt8>(capacity: 1)
        defer { list.deallocate() }
        var array: [UInt8] = []
        for input in inputs {
            let listASCII = input.withUnsafeBufferPointer { Sanitizer.sanitize($0, into: &list) }
            let arrayASCII = input.withUnsafeBufferPointer { Sanitizer.sanitize($0, into: &array) }
            XCTAssertEqual(listASCII, arrayASCII, "\(input)")
            XCTAssertEqual(Array(list.elements), array, "\(input)")
        }
    }
}
