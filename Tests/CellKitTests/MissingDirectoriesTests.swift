@testable import CellKit
import Foundation
import XCTest

/// A directory found missing is remembered for one second
/// (`MissingDirectories`): paths under it are `.missing` without a look-up,
/// with the answer the look-up would give. Observed through the calling
/// thread's counts and an injected clock, never through timing.
final class MissingDirectoriesTests: XCTestCase {
    private var directory = ""
    /// The clock the tests hand to the look-ups: the real one's reading at
    /// set-up, moved forward by hand.
    private var now: Int64 = 0

    override func setUpWithError() throws {
        var template = Array((NSTemporaryDirectory() + "/cellkit-missing-XXXXXX").utf8CString)
        let made = try XCTUnwrap(template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) })
        directory = URL(fileURLWithPath: String(cString: made)).standardizedFileURL.path
        now = MissingDirectories.coarseNow()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// What `FileCell`, `ImageCell` and `VoiceCell` do: resolve against the
    /// base directory, then look up (at the test's clock).
    private func identity(of path: String) -> Result<MediaFile.Identity, MediaFile.Problem>? {
        var path = path
        var found: Result<MediaFile.Identity, MediaFile.Problem>?
        let now = now
        path.withUTF8 { bytes in
            MediaFile.withResolved(bytes, baseDirectory: directory) {
                found = MediaStat.identity(ofResolved: $0, now: { now })
            }
        }
        return found
    }

    /// The problem a plain `stat` of the absolute path gives, nothing
    /// remembered: what the answers must equal.
    private func statProblem(_ path: String) -> MediaFile.Problem? {
        var info = stat()
        guard stat(path, &info) != 0 else { return info.st_mode & S_IFMT == S_IFREG ? nil : .notARegularFile }
        return errno == ENOENT || errno == ENOTDIR ? .missing : .unreadable
    }

    /// Counts since `before`: paths answered from memory, directories
    /// looked up.
    private func counts(since before: (answered: Int, lookUps: Int)) -> (answered: Int, lookUps: Int) {
        let after = MissingDirectories.counts
        return (after.answered - before.answered, after.lookUps - before.lookUps)
    }

    private func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: directory + "/" + path))
    }

    func test_pathsInAMissingDirectoryAreMissingWithOneLookUp() {
        let before = MissingDirectories.counts
        for index in 0..<100 {
            XCTAssertEqual(identity(of: "media/img-\(index).jpg"), .failure(.missing))
        }
        XCTAssertEqual(identity(of: "media/sub/deeper.ogg"), .failure(.missing), "below the directory")
        let seen = counts(since: before)
        XCTAssertEqual(seen.lookUps, 1, "the directory is looked up once")
        XCTAssertEqual(seen.answered, 100, "every later path is answered from memory")
    }

    func test_theMissingDirectoryItselfIsAnsweredAndAPathTooLongIsLookedUp() {
        XCTAssertEqual(identity(of: "media/a.jpg"), .failure(.missing))
        var before = MissingDirectories.counts
        XCTAssertEqual(identity(of: "media"), .failure(.missing))
        XCTAssertEqual(identity(of: "media/"), .failure(.missing))
        XCTAssertEqual(counts(since: before).answered, 2)

        // The kernel refuses a path of PATH_MAX bytes before resolving
        // `media`: that answer, not `missing`.
        let long = "media/" + String(repeating: "x", count: Int(PATH_MAX))
        XCTAssertEqual(statProblem(directory + "/" + long), .unreadable)
        before = MissingDirectories.counts
        XCTAssertEqual(identity(of: long), .failure(statProblem(long) ?? .missing))
        XCTAssertEqual(counts(since: before).answered, 0)
    }

    func test_aSiblingWithTheSameNamePrefixIsLookedUp() throws {
        XCTAssertEqual(identity(of: "media/a.jpg"), .failure(.missing))
        try FileManager.default.createDirectory(atPath: directory + "/media2", withIntermediateDirectories: true)
        try write("abc", to: "media2/a.jpg")
        let before = MissingDirectories.counts

        XCTAssertEqual(try identity(of: "media2/a.jpg")?.get().size, 3)
        XCTAssertEqual(identity(of: "media2/b.jpg"), .failure(.missing))
        XCTAssertEqual(identity(of: "medi/b.jpg"), .failure(.missing))
        let seen = counts(since: before)
        XCTAssertEqual(seen.answered, 0)
        XCTAssertEqual(seen.lookUps, 2, "media2 (found) and medi (missing) looked up")
    }

    func test_aDirectoryCreatedAfterItWasFoundMissingIsSeenOnceTheEntryExpires() throws {
        XCTAssertEqual(identity(of: "media/a.jpg"), .failure(.missing))
        try FileManager.default.createDirectory(atPath: directory + "/media", withIntermediateDirectories: true)
        try write("abcd", to: "media/a.jpg")

        now += MissingDirectories.lifetime - 1
        XCTAssertEqual(identity(of: "media/a.jpg"), .failure(.missing), "remembered for one second")
        now += 1
        XCTAssertEqual(try identity(of: "media/a.jpg")?.get().size, 4, "expired: looked up again")
        let before = MissingDirectories.counts
        XCTAssertEqual(try identity(of: "media/a.jpg")?.get().size, 4)
        XCTAssertEqual(counts(since: before).answered, 0)
    }

    func test_anExpiredEntryIsLookedUpAgainAndRemembered() {
        XCTAssertEqual(identity(of: "gone/a.jpg"), .failure(.missing))
        now += MissingDirectories.lifetime
        var before = MissingDirectories.counts
        XCTAssertEqual(identity(of: "gone/b.jpg"), .failure(.missing))
        XCTAssertEqual(counts(since: before).lookUps, 1)
        before = MissingDirectories.counts
        XCTAssertEqual(identity(of: "gone/c.jpg"), .failure(.missing))
        XCTAssertEqual(counts(since: before).answered, 1)
    }

    func test_anExistingFileIsLookedUpEveryTimeAndAReplacedOneIsSeen() throws {
        try FileManager.default.createDirectory(atPath: directory + "/media", withIntermediateDirectories: true)
        try write("abc", to: "media/a.txt")
        let before = MissingDirectories.counts
        let first = try XCTUnwrap(identity(of: "media/a.txt")?.get())
        XCTAssertEqual(first.size, 3)
        try FileManager.default.removeItem(atPath: directory + "/media/a.txt")
        try write("abcdef", to: "media/a.txt")
        XCTAssertEqual(try identity(of: "media/a.txt")?.get().size, 6)

        // A missing file in a directory that exists: looked up each time.
        for _ in 0..<3 { XCTAssertEqual(identity(of: "media/none.txt"), .failure(.missing)) }
        let seen = counts(since: before)
        XCTAssertEqual(seen.answered, 0)
        XCTAssertEqual(seen.lookUps, 3, "its directory is looked up after each miss, and found")
    }

    func test_dotDotThroughAMissingDirectoryAnswersWhatTheKernelDoes() throws {
        try write("abc", to: "x")
        XCTAssertEqual(identity(of: "media/a.jpg"), .failure(.missing))
        let before = MissingDirectories.counts
        XCTAssertEqual(statProblem(directory + "/media/../x"), .missing, "the kernel resolves media first")
        XCTAssertEqual(identity(of: "media/../x"), .failure(.missing))
        XCTAssertEqual(identity(of: "media/sub/../../x"), .failure(.missing))
        XCTAssertEqual(counts(since: before).answered, 2)

        // Through a directory that exists, `..` finds the file.
        try FileManager.default.createDirectory(atPath: directory + "/real", withIntermediateDirectories: true)
        XCTAssertEqual(try identity(of: "real/../x")?.get().size, 3)
    }

    func test_aFileUsedAsADirectoryIsNotRemembered() throws {
        try write("abc", to: "plain")
        let before = MissingDirectories.counts
        for _ in 0..<2 {
            XCTAssertEqual(identity(of: "plain/a.jpg"), .failure(.missing))
            XCTAssertEqual(statProblem(directory + "/plain/a.jpg"), .missing)
        }
        XCTAssertEqual(counts(since: before).answered, 0, "`plain` exists: ENOTDIR each time, looked up each time")
        // Below it, `plain/sub` cannot be resolved (ENOTDIR): remembered.
        XCTAssertEqual(identity(of: "plain/sub/a.jpg"), .failure(.missing))
        XCTAssertEqual(identity(of: "plain/sub/b.jpg"), .failure(.missing))
        XCTAssertEqual(counts(since: before).answered, 1)
    }

    func test_absolutePathsAreRememberedAndAnsweredTheSame() {
        let missing = directory + "/absent"
        let before = MissingDirectories.counts
        for name in ["a", "b", "c/d"] {
            XCTAssertEqual(MediaStat.identity(of: missing + "/" + name), .failure(.missing))
            XCTAssertEqual(MediaFile.read(missing + "/" + name, maximumBytes: 10).failure, .missing)
        }
        let seen = counts(since: before)
        XCTAssertEqual(seen.lookUps, 1)
        XCTAssertEqual(seen.answered, 5)
    }

    func test_emptyPathsAndNULBytesAreUnchanged() {
        let before = MissingDirectories.counts
        XCTAssertEqual(MediaStat.identity(of: ""), .failure(.missing))
        XCTAssertEqual(MediaStat.identity(of: "absent/a\u{0}b"), .failure(.missing))
        XCTAssertEqual(MediaFile.read("", maximumBytes: 10).failure, .missing)
        XCTAssertEqual(identity(of: "absent-too/a\u{0}b"), .failure(.missing))
        let seen = counts(since: before)
        XCTAssertEqual(seen.lookUps, 0)
        XCTAssertEqual(seen.answered, 0)
    }

    func test_theDirectoryPartOfAPath() {
        func length(_ path: String) -> Int? {
            var path = path
            return path.withUTF8 { MissingDirectories.directoryLength(of: $0) }
        }
        XCTAssertEqual(length("media/a.jpg"), 5)
        XCTAssertEqual(length("media//a.jpg"), 5)
        XCTAssertEqual(length("media/"), 5)
        XCTAssertEqual(length("a/b/c"), 3)
        XCTAssertEqual(length("/abs/a"), 4)
        XCTAssertNil(length("a.jpg"), "the base directory itself")
        XCTAssertNil(length("/a.jpg"), "the root")
        XCTAssertNil(length("//a.jpg"))
        XCTAssertNil(length(""))
        XCTAssertNil(length("m/" + String(repeating: "x", count: Int(PATH_MAX))), "refused for its length first")
        XCTAssertEqual(length("médias/ü"), "médias".utf8.count, "bytes, not characters")
    }

    func test_containmentIsComponentWise() {
        func isAtOrBelow(_ path: String, _ directory: String) -> Bool {
            var path = path, directory = directory
            return path.withUTF8 { p in directory.withUTF8 { MissingDirectories.isAtOrBelow(p, $0) } }
        }
        XCTAssertTrue(isAtOrBelow("media", "media"))
        XCTAssertTrue(isAtOrBelow("media/sub", "media"))
        XCTAssertTrue(isAtOrBelow("media/", "media"))
        XCTAssertTrue(isAtOrBelow("media//sub", "media"))
        XCTAssertTrue(isAtOrBelow("media/../x", "media"))
        XCTAssertFalse(isAtOrBelow("media2", "media"))
        XCTAssertFalse(isAtOrBelow("media2/x", "media"))
        XCTAssertFalse(isAtOrBelow("medi", "media"))
        XCTAssertFalse(isAtOrBelow("media", "media/sub"))
        XCTAssertFalse(isAtOrBelow("medi\u{301}a/x", "média"), "bytes compared, not canonical characters")
    }

    /// Threads looking paths up at once (a thread-safe plugin on several
    /// workers, each thread remembering its own) all get the answers a
    /// plain `stat` gives.
    func test_concurrentLookUpsAgreeWithStat() throws {
        try FileManager.default.createDirectory(atPath: directory + "/present", withIntermediateDirectories: true)
        try write("ab", to: "present/f")
        let paths = ["present/f", "present/none", "absent/a", "absent/b/c", "absent2/a", "present/../absent/x"]
        let expected = paths.map { statProblem(directory + "/" + $0) }
        let lock = NSLock()
        var mismatches: [String] = []
        DispatchQueue.concurrentPerform(iterations: 600) { round in
            let index = round % paths.count
            var path = paths[index]
            var found: Result<MediaFile.Identity, MediaFile.Problem>?
            path.withUTF8 { bytes in
                MediaFile.withResolved(bytes, baseDirectory: directory) { found = MediaStat.identity(ofResolved: $0) }
            }
            let problem: MediaFile.Problem?
            switch found {
            case .success?: problem = nil
            case .failure(let failure)?: problem = failure
            case nil: problem = .unreadable
            }
            if problem != expected[index] {
                lock.lock()
                mismatches.append(paths[index])
                lock.unlock()
            }
        }
        XCTAssertEqual(mismatches, [])
    }
}

private extension Result {
    var failure: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}
