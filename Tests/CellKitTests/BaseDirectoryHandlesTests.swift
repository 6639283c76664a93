@testable import CellKit
import Foundation
import XCTest

/// Media paths under a base directory are looked up relative to a handle on
/// it (`BaseDirectoryHandles`), with the same results as by absolute path.
final class BaseDirectoryHandlesTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        var template = Array((NSTemporaryDirectory() + "/cellkit-handles-XXXXXX").utf8CString)
        let made = try XCTUnwrap(template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) })
        // mkdtemp keeps a doubled "/"; a base directory never has one.
        directory = URL(fileURLWithPath: String(cString: made)).standardizedFileURL.path
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
        try? FileManager.default.removeItem(atPath: directory + "-moved")
    }

    /// What `FileCell`, `ImageCell` and `VoiceCell` do: resolve, then stat.
    private func identity(of path: String, base: String) -> Result<MediaFile.Identity, MediaFile.Problem>? {
        var path = path
        var found: Result<MediaFile.Identity, MediaFile.Problem>?
        path.withUTF8 { bytes in
            MediaFile.withResolved(bytes, baseDirectory: base) { found = MediaStat.identity(ofResolved: $0) }
        }
        return found
    }

    private func handle(for path: String) -> (descriptor: Int32, relative: Int)? {
        var path = path
        return path.withUTF8 { BaseDirectoryHandles.handle(for: $0) }
    }

    func test_resolvingAgainstADirectoryOpensAHandleUsedForPathsUnderIt() throws {
        try FileManager.default.createDirectory(atPath: directory + "/media", withIntermediateDirectories: true)
        try Data("abc".utf8).write(to: URL(fileURLWithPath: directory + "/media/a.txt"))
        XCTAssertNil(handle(for: directory + "/media/a.txt"), "no handle before the directory is resolved against")

        let found = identity(of: "media/a.txt", base: directory)

        let used = try XCTUnwrap(handle(for: directory + "/media/a.txt"))
        XCTAssertGreaterThanOrEqual(used.descriptor, 0)
        XCTAssertEqual(used.relative, directory.utf8.count + 1)
        XCTAssertEqual(found, MediaStat.identity(of: directory + "/media/a.txt"))
        XCTAssertEqual(try found?.get().size, 3)
    }

    func test_lookUpsRelativeToAHandleGiveTheProblemsAnAbsolutePathGives() throws {
        try FileManager.default.createDirectory(atPath: directory + "/sub", withIntermediateDirectories: true)
        try Data().write(to: URL(fileURLWithPath: directory + "/file"))
        for path in ["missing.txt", "sub", "file/below", "sub/../file", "./file", "sub/", "a\u{0}b"] {
            XCTAssertEqual(identity(of: path, base: directory), MediaStat.identity(of: directory + "/" + path), path)
        }
        XCTAssertEqual(identity(of: "sub", base: directory), .failure(.notARegularFile))
        XCTAssertEqual(identity(of: "missing.txt", base: directory), .failure(.missing))
    }

    func test_aRestStartingWithASlashOrEmptyIsNotLookedUpRelatively() throws {
        _ = identity(of: "x", base: directory)
        XCTAssertNotNil(handle(for: directory + "/x"))
        XCTAssertNil(handle(for: directory + "/"), "empty rest")
        XCTAssertNil(handle(for: directory + "//x"), "a rest fstatat would read as absolute")
        XCTAssertNil(handle(for: directory + "x/y"), "a sibling whose name starts with the directory's")
    }

    func test_aBaseThatIsNotADirectoryGetsNoHandle() throws {
        try Data().write(to: URL(fileURLWithPath: directory + "/plain"))
        let base = directory + "/plain"
        XCTAssertEqual(identity(of: "x", base: base), .failure(.missing))
        XCTAssertNil(handle(for: base + "/x"))
    }

    /// The documented trade: a directory is looked up once; paths under it
    /// keep resolving in the directory that was opened, even after a rename.
    func test_aRenamedBaseDirectoryKeepsResolvingInTheDirectoryOpened() throws {
        try Data("abcd".utf8).write(to: URL(fileURLWithPath: directory + "/kept.txt"))
        XCTAssertEqual(try identity(of: "kept.txt", base: directory)?.get().size, 4)
        try FileManager.default.moveItem(atPath: directory, toPath: directory + "-moved")

        XCTAssertEqual(try identity(of: "kept.txt", base: directory)?.get().size, 4)
        XCTAssertEqual(MediaStat.identity(of: directory + "/kept.txt"), .failure(.missing))
    }

    /// Threads that note directories and look paths up at once (readers
    /// take no lock) all find the same handle for a directory, and a file
    /// under it gives what its absolute path gives.
    func test_concurrentNotesAndLookUpsAgree() throws {
        var bases: [String] = []
        for index in 0..<3 {
            let base = directory + "/base\(index)"
            try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
            try Data(repeating: 1, count: index + 1).write(to: URL(fileURLWithPath: base + "/f"))
            bases.append(base)
        }
        let lock = NSLock()
        var seen: [String: Set<Int32>] = [:]
        var mismatches = 0
        DispatchQueue.concurrentPerform(iterations: 64) { round in
            let base = bases[round % bases.count]
            let found = identity(of: "f", base: base)
            let handle = self.handle(for: base + "/f")
            lock.lock()
            if found != MediaStat.identity(of: base + "/f") { mismatches += 1 }
            if let handle { seen[base, default: []].insert(handle.descriptor) }
            lock.unlock()
        }
        XCTAssertEqual(mismatches, 0)
        for base in bases where seen[base] != nil { XCTAssertEqual(seen[base]?.count, 1, base) }
        XCTAssertLessThanOrEqual(BaseDirectoryHandles.count, BaseDirectoryHandles.limit)
    }
}
