import CellHostABI
import Foundation
import XCTest
@testable import CellHostCore

/// The plugin catalog: records whose strings are numbered names, as the
/// plugin cache, the scanner and render workers carry them. What is
/// encoded decodes to the same records; bytes that are not a catalog are an
/// error, never a trap; the cache rebuilds itself from a damaged one.
final class PluginCatalogTests: XCTestCase {
    private func record(_ index: Int) -> PluginRecord {
        var record = PluginRecord(file: "/plugins/cell-\(index).so", state: .loaded)
        record.id = "test.cell\(index)"
        record.version = "1.0.\(index)"
        record.description = "Cell number \(index) — ünïcode"
        record.abi = .init(major: 2, minor: 0)
        record.threadSafe = index % 2 == 0
        record.registersAtInit = index % 3 == 0
        record.classes = [
            ClassDescription(name: "Cell\(index)", superclass: "MessageCell", messageClasses: ["cell\(index)", "text"],
                             rank: Int32(index) - 5, instanceSize: 8 * index,
                             methods: [.init(selector: WellKnownSelector.render.rawValue, types: CELLHOST_TYPES_RENDER, imp: 0)]),
            ClassDescription(name: "Plain\(index)", superclass: "Cell\(index)", messageClasses: [], rank: 0, instanceSize: 0,
                             methods: []),
        ]
        record.rejectedClasses = [.init(name: "Bad\(index)", reason: "register_class: refused")]
        record.messageClasses = [.init(name: "cell\(index)", parent: "text"), .init(name: "root\(index)", parent: nil)]
        return record
    }

    private func encoded(_ records: [PluginRecord]) -> [UInt8] {
        var encoder = PluginCatalogEncoder()
        for record in records { encoder.append(record) }
        var writer = WireWriter()
        encoder.encode(into: &writer)
        return writer.bytes
    }

    private func decoded(_ bytes: [UInt8]) throws -> PluginCatalog {
        var reader = WireReader(bytes)
        return try PluginCatalog.decode(&reader)
    }

    private func json(_ record: PluginRecord) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(record), as: UTF8.self)
    }

    func test_recordsEncoded_decodeToTheSameRecords() throws {
        let records = (0..<4).map(record) + [PluginRecord(file: "/plugins/broken.so", state: .failed("dlopen failed: no"))]
        let catalog = try decoded(encoded(records))
        XCTAssertEqual(catalog.plugins.count, records.count)
        for (index, original) in records.enumerated() {
            XCTAssertEqual(try json(catalog.record(index)), try json(original), "record \(index)")
        }
    }

    func test_aStringSharedByRecords_isOneName() throws {
        let catalog = try decoded(encoded((0..<10).map(record)))
        let renders = try XCTUnwrap(catalog.names.find(WellKnownSelector.render.rawValue))
        XCTAssertEqual(Set(catalog.methods.map(\.selector)), [renders], "ten classes, one selector name")
        XCTAssertEqual(Set(catalog.classes.map(\.superclass)).count, 11, "MessageCell once, and each Cell")
    }

    func test_aPluginEncodedWithSomeClasses_decodesWithThoseOnly() throws {
        let catalog = PluginCatalog()
        catalog.add(record(1))
        var encoder = PluginCatalogEncoder()
        encoder.append(catalog, plugin: 0) { catalog.string(catalog.classes[$0].name) != "Plain1" }
        var writer = WireWriter()
        encoder.encode(into: &writer)
        XCTAssertEqual(try decoded(writer.bytes).record(0).classes.map(\.name), ["Cell1"])
    }

    func test_bytesCutShort_areAnError() throws {
        let bytes = encoded([record(1), record(2)])
        for length in 0..<bytes.count {
            XCTAssertThrowsError(try decoded(Array(bytes[..<length])), "cut at \(length)")
        }
    }

    func test_aNameOutOfTheTable_isAnError() throws {
        let bytes = encoded([record(1)])
        var reader = WireReader(bytes)
        let names = try NameTable.decode(&reader)
        // After the table: the plugin count, then the plugin's file name.
        let file = reader.offset + 4
        for value in [UInt32(names.count), UInt32.max] {
            var damaged = bytes
            for byte in 0..<4 { damaged[file + byte] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(byte))) }
            XCTAssertThrowsError(try decoded(damaged), "name \(value)")
        }
    }

    func test_damagedBytes_decodeOrFail_butNeverTrap() throws {
        let bytes = encoded([record(1), record(2), record(3)])
        var random = SplitMix64(state: 11)
        for _ in 0..<2000 {
            var damaged = bytes
            for _ in 0..<(1 + random.below(4)) { damaged[random.below(damaged.count)] ^= UInt8(1 + random.below(255)) }
            if let catalog = try? decoded(damaged) {
                // Whatever decoded is consistent: every record can be made.
                for index in catalog.plugins.indices { _ = catalog.record(index) }
            }
        }
    }

    func test_aCacheWithAValidChecksumButANameOutOfTheTable_isCorrupt() throws {
        let directory = NSTemporaryDirectory() + "/cellhost-catalog-\(getpid())-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = PluginCache(path: directory + "/plugins.cache")
        let catalog = PluginCatalog()
        catalog.add(record(1))
        let identity = FileIdentity(path: "/plugins/cell-1.so", device: 1, inode: 2, size: 3, modifiedSeconds: 4, modifiedNanoseconds: 5)
        XCTAssertNil(cache.store([.init(plugin: 0, identity: identity)], of: catalog))
        let read = cache.load()
        XCTAssertNil(read.warning)
        XCTAssertEqual(try json(XCTUnwrap(read.contents).catalog.record(0)), try json(record(1)))
        XCTAssertEqual(read.contents?.plugin(for: "/plugins/cell-1.so", identity: identity), 0)

        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: cache.path)))
        var reader = WireReader(bytes, offset: PluginCache.magic.count + 4)
        _ = try reader.string()
        _ = try NameTable.decode(&reader)
        let file = reader.offset + 4
        for byte in 0..<4 { bytes[file + byte] = 0xEE }
        let checksum = ByteHash.hash(bytes[..<(bytes.count - 8)])
        for byte in 0..<8 { bytes[bytes.count - 8 + byte] = UInt8(truncatingIfNeeded: checksum >> (8 * UInt64(byte))) }
        try Data(bytes).write(to: URL(fileURLWithPath: cache.path))
        let damaged = cache.load()
        XCTAssertNil(damaged.contents)
        XCTAssertEqual(damaged.warning, "\(cache.path): the plugin cache is corrupt; rebuilding it")
    }

    func test_aCacheEntry_matchesItsFileOnlyAsItWas() throws {
        let catalog = PluginCatalog()
        catalog.add(record(1))
        let identity = FileIdentity(path: "/plugins/cell-1.so", device: 1, inode: 2, size: 3, modifiedSeconds: 4, modifiedNanoseconds: 5)
        let contents = PluginCache.Contents(catalog: catalog, stamps: [identity.stamp])
        XCTAssertEqual(contents.plugin(for: "/plugins/cell-1.so", identity: identity), 0)
        var touched = identity
        touched.modifiedNanoseconds += 1
        XCTAssertNil(contents.plugin(for: "/plugins/cell-1.so", identity: touched))
        XCTAssertNil(contents.plugin(for: "/plugins/cell-2.so", identity: identity))
    }
}

/// Names: each string once, found by its bytes, made a `String` when asked.
final class NameTableTests: XCTestCase {
    func test_internedStrings_areNamedOnce_andFound() {
        let table = NameTable()
        let first = table.intern("renderMessage:context:into:")
        XCTAssertEqual(table.intern("text"), Name(1))
        XCTAssertEqual(table.intern("renderMessage:context:into:"), first)
        XCTAssertEqual(table.find("text"), Name(1))
        XCTAssertNil(table.find("tex"))
        XCTAssertEqual(table.string(first), "renderMessage:context:into:")
        XCTAssertEqual(table.count, 2)
    }

    func test_manyNames_areAllFound_afterTheIndexGrows() {
        let table = NameTable()
        let names = (0..<5000).map { table.intern("name-\($0)") }
        XCTAssertEqual(Set(names).count, 5000)
        for index in stride(from: 0, to: 5000, by: 97) { XCTAssertEqual(table.find("name-\(index)"), names[index]) }
        XCTAssertEqual(table.find(""), nil)
        XCTAssertEqual(table.string(table.intern("")), "")
    }

    func test_aTableEncoded_decodesToTheSameNames() throws {
        let table = NameTable()
        for string in ["a", "", "ünï", "MessageCell"] { _ = table.intern(string) }
        var writer = WireWriter()
        table.encode(into: &writer)
        var reader = WireReader(writer.bytes)
        let decoded = try NameTable.decode(&reader)
        XCTAssertEqual((0..<4).map { decoded.string(Name($0)) }, ["a", "", "ünï", "MessageCell"])
        XCTAssertEqual(decoded.find("ünï"), Name(2))
        var cut = WireReader(Array(writer.bytes.dropLast()))
        XCTAssertThrowsError(try NameTable.decode(&cut))
    }

    func test_lengthsPastTheEnd_areAnError() {
        var writer = WireWriter()
        writer.u32(2)
        writer.u32(UInt32.max)
        writer.u32(UInt32.max)
        writer.data([1, 2, 3])
        var reader = WireReader(writer.bytes)
        XCTAssertThrowsError(try NameTable.decode(&reader))
    }
}
