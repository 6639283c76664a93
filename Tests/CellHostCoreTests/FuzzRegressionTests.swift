import Foundation
import XCTest
@testable import CellHostCore

/// Inputs the libFuzzer targets in Fuzz/ found crashing (or breaking an
/// invariant), each run through the same code path as its target. The raw
/// crash files are in the seed corpus, Fuzz/corpus/TARGET/, named `crash-…`;
/// here they are reduced to the bytes that matter.
final class FuzzRegressionTests: XCTestCase {

    // MARK: - elf

    /// A 64-byte ELF64 little-endian x86-64 shared-object header, with its
    /// program headers at `phoff` and section headers at `shoff`.
    private func elfHeader(phoff: UInt64 = 64, phnum: UInt16 = 1, shoff: UInt64 = 0, shnum: UInt16 = 0) -> [UInt8] {
        var header = [UInt8](repeating: 0, count: 64)
        header[0...3] = [0x7F, 0x45, 0x4C, 0x46]
        header[4] = 2; header[5] = 1; header[6] = 1
        put(&header, 16, UInt64(3), bytes: 2)                       // ET_DYN
        put(&header, 18, UInt64(ELFProbe.hostMachine), bytes: 2)
        put(&header, 32, phoff, bytes: 8)
        put(&header, 40, shoff, bytes: 8)
        put(&header, 54, 56, bytes: 2)
        put(&header, 56, UInt64(phnum), bytes: 2)
        put(&header, 58, 64, bytes: 2)
        put(&header, 60, UInt64(shnum), bytes: 2)
        return header
    }

    /// One 56-byte PT_LOAD program header.
    private func loadSegment(offset: UInt64, fileSize: UInt64) -> [UInt8] {
        var segment = [UInt8](repeating: 0, count: 56)
        segment[0] = 1
        put(&segment, 8, offset, bytes: 8)
        put(&segment, 32, fileSize, bytes: 8)
        return segment
    }

    private func put(_ bytes: inout [UInt8], _ offset: Int, _ value: UInt64, bytes count: Int) {
        for index in 0..<count { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(index))) }
    }

    /// The probe's answer for `bytes`, in memory and from a file (the path the
    /// loader takes), which must agree.
    private func probe(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) throws -> String? {
        let inMemory = bytes.withUnsafeBytes { ELFProbe.problem(bytes: $0) }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-elf-\(UUID().uuidString).so").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        XCTAssertEqual(ELFProbe.problem(with: path), inMemory, "file and in-memory probes agree", file: file, line: line)
        return inMemory
    }

    // ELFProbe.swift: `offset + fileSize > size` on a PT_LOAD segment's
    // p_offset and p_filesz read as Int: a file whose segment offset and size
    // add past Int.max trapped with an arithmetic overflow, taking the host
    // down while scanning the plugin directory (Fuzz/corpus/elf/crash-5c37ea0d…).
    func test_elf_segmentOffsetPlusSizeOverflowing_isATruncatedFile() throws {
        let bytes = elfHeader() + loadSegment(offset: 0x7FFF_FFFF_FFFF_FF00, fileSize: 0x1000)
        XCTAssertEqual(try probe(bytes), "truncated ELF file (120 bytes; a segment needs 9223372036854779648)")
        let wrapping = elfHeader() + loadSegment(offset: 0xFFFF_FFFF_FFFF_FF00, fileSize: 0x1000)
        XCTAssertEqual(try probe(wrapping), "truncated ELF file (120 bytes; a segment needs more than 18446744073709551615)")
    }

    // The same addition for the program and section header tables:
    // `phoff + phnum * phentsize` and `shoff + shnum * shentsize`.
    func test_elf_headerTableOffsetsNearTheTopOfTheRange_areTruncatedFiles() throws {
        let programHeaders = elfHeader(phoff: UInt64(Int.max) - 10) + loadSegment(offset: 0, fileSize: 120)
        XCTAssertEqual(try probe(programHeaders), "truncated ELF file (120 bytes; program headers missing)")
        let sectionHeaders = elfHeader(shoff: UInt64(Int.max) - 10, shnum: 4) + loadSegment(offset: 0, fileSize: 120)
        XCTAssertEqual(try probe(sectionHeaders),
                       "truncated ELF file (120 bytes; section headers at \(UInt64(Int.max) - 10) missing)")
        let negative = elfHeader(shoff: 0xFFFF_FFFF_FFFF_FFF0, shnum: 1) + loadSegment(offset: 0, fileSize: 120)
        XCTAssertEqual(try probe(negative),
                       "truncated ELF file (120 bytes; section headers at 18446744073709551600 missing)")
    }

    func test_elf_wellFormedHeaderAndSegment_passTheProbe() throws {
        XCTAssertNil(try probe(elfHeader() + loadSegment(offset: 0, fileSize: 120)))
    }
}

// MARK: - encoding

final class FuzzEncodingRegressionTests: XCTestCase {
    // TypeEncoding.swift, EncodingParser.parseType: one recursion per '^' or
    // '{', with no limit. The loader caps a method's types at 4095 bytes, but
    // the `types` a plugin passes to `send` at render time is any C string:
    // "v@:" and 100 000 '^' overflowed the stack (found by running the
    // `encoding` target's binary on inputs longer than libFuzzer's 4096-byte
    // limit). Nesting is now limited to 64 levels.
    func test_encoding_pointerChain100000Deep_isAnError() {
        let deep = "v@:" + String(repeating: "^", count: 100_000) + "v"
        XCTAssertThrowsError(try MethodTypeEncoding(parsing: deep)) { error in
            XCTAssertEqual((error as? TypeEncodingError)?.reason, "types nested more than 64 deep")
        }
        XCTAssertNil(MethodTypeEncoding.canonicalForm(of: deep))
        let structs = "v@:" + String(repeating: "{a=", count: 100_000) + "i" + String(repeating: "}", count: 100_000)
        XCTAssertThrowsError(try MethodTypeEncoding(parsing: structs))
    }

    func test_encoding_nesting64Deep_parses_65Deep_doesNot() throws {
        let ok = try MethodTypeEncoding(parsing: "v@:" + String(repeating: "^", count: 63) + "v")
        XCTAssertEqual(ok.arguments.count, 3)
        XCTAssertThrowsError(try MethodTypeEncoding(parsing: "v@:" + String(repeating: "^", count: 64) + "v"))
    }
}
