@testable import CellKit
import CellHostABI
import Foundation
import XCTest

/// `PluginInfo.threadSafe` sets CELLHOST_PLUGIN_THREAD_SAFE only when every
/// exported type is stateless, and CellKit's shared state holds up when
/// several threads call a plugin at once.
final class ThreadSafeFlagTests: XCTestCase {
    override func setUp() {
        super.setUp()
        Runtime.pendingWarnings = []
    }

    func test_withoutTheDeclaration_theFlagIsUnset() {
        let plugin = ExportedPlugin([PlainRenderer.self])
        XCTAssertEqual(plugin.descriptor.pointee.flags, 0)
    }

    func test_statelessTypesDeclaredThreadSafe_setTheFlag() {
        let info = PluginInfo(id: "test.plain", version: "1", threadSafe: true)
        let plugin = ExportedPlugin(plugin: info, [PlainRenderer.self])
        XCTAssertEqual(plugin.descriptor.pointee.flags, UInt32(CELLHOST_PLUGIN_THREAD_SAFE))
        XCTAssertEqual(Runtime.pendingWarnings, [])
    }

    func test_aStatefulType_leavesTheFlagUnset_withAWarning() {
        let info = PluginInfo(id: "test.counting", version: "1", threadSafe: true)
        let plugin = ExportedPlugin(plugin: info, [PlainRenderer.self, CountingRenderer.self])
        XCTAssertEqual(plugin.descriptor.pointee.flags, 0)
        XCTAssertEqual(Runtime.pendingWarnings, [
            "PluginInfo.threadSafe is ignored: CountingCell has stored properties; the host calls the plugin from one thread",
        ])
    }

    /// Calls in progress on several threads: each thread's own call is
    /// active during it (seen from another thread too), and none after.
    func test_callsInProgress_onSeveralThreads_areTrackedEach() {
        let failures = Atomicish()
        let published = TokenBox()
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for _ in 0..<2_000 {
                let outer: CallToken = Runtime.beginCall()
                let inner: CallToken = Runtime.beginCall()
                if !Runtime.isActive(outer) || !Runtime.isActive(inner) { failures.add() }
                // Another thread's ended call must read as inactive here.
                if let other = published.take(), Runtime.isActive(other) { failures.add() }
                Runtime.endCall(inner)
                if Runtime.isActive(inner) || !Runtime.isActive(outer) { failures.add() }
                Runtime.endCall(outer)
                if Runtime.isActive(outer) { failures.add() }
                if worker % 2 == 0 { published.put(outer) }
            }
        }
        XCTAssertEqual(failures.count, 0)
    }

    /// Call tokens are unique across threads, whether a thread takes them
    /// from blocks of its own (`ThreadCache`, past a block's end too) or
    /// from the shared counter (a thread without a cache).
    func test_callTokens_areUniqueAcrossThreadsAndTheirBlocks() {
        let perThread = Int(ThreadCache.callTokenBlock) * 2 + 10
        let lock = NSLock()
        var all: [UInt64] = []
        DispatchQueue.concurrentPerform(iterations: 6) { worker in
            var mine: [UInt64] = []
            for _ in 0..<perThread {
                let call = worker % 3 == 0 ? Runtime.beginCall(cache: nil) : Runtime.beginCall()
                mine.append(call.value)
                Runtime.endCall(call)
            }
            lock.lock()
            all += mine
            lock.unlock()
        }
        XCTAssertEqual(all.count, 6 * perThread)
        XCTAssertEqual(Set(all).count, all.count)
        XCTAssertFalse(all.contains(0))
    }

    /// A token whose slot a later call took is still inactive.
    func test_aTokenIsInactiveAfterEndCall_evenWhenItsSlotIsReused() throws {
        let first = Runtime.beginCall()
        Runtime.endCall(first)
        let slot = try XCTUnwrap(first.slot)
        var reusing: CallToken?
        for _ in 0..<(Runtime.callSlotCount * 2) {
            let call = Runtime.beginCall()
            if call.slot == slot {
                reusing = call
                break
            }
            Runtime.endCall(call)
        }
        let later = try XCTUnwrap(reusing, "a later call claims the freed slot")
        XCTAssertNotEqual(later.value, first.value)
        XCTAssertTrue(Runtime.isActive(later))
        XCTAssertFalse(Runtime.isActive(first))
        // Ending the old call again leaves the later one alone.
        Runtime.endCall(first)
        XCTAssertTrue(Runtime.isActive(later))
        Runtime.endCall(later)
        XCTAssertFalse(Runtime.isActive(later))
    }

    /// Calls nest (`send_super`): each level is active until its own end.
    func test_nestedCalls_endInnermostFirst() {
        let calls = (0..<5).map { _ in Runtime.beginCall() }
        XCTAssertTrue(calls.allSatisfy { Runtime.isActive($0) })
        for depth in (0..<calls.count).reversed() {
            Runtime.endCall(calls[depth])
            XCTAssertFalse(Runtime.isActive(calls[depth]))
            XCTAssertTrue(calls[..<depth].allSatisfy { Runtime.isActive($0) }, "outer calls stay active")
        }
    }

    /// More calls than slots: the rest go to the locked list, and every
    /// call works alike, ended in any order.
    func test_moreCallsThanSlots_fallBackToTheLockedList() {
        let count = Runtime.callSlotCount + 6
        let calls = (0..<count).map { _ in Runtime.beginCall() }
        XCTAssertEqual(Set(calls.map(\.value)).count, count, "tokens are unique")
        XCTAssertEqual(calls.filter { $0.slot == nil }.count, 6, "the calls past the slots have none")
        XCTAssertTrue(calls.allSatisfy { Runtime.isActive($0) })
        var order = Array(calls.indices)
        var generator = SystemRandomNumberGenerator()
        order.shuffle(using: &generator)
        for (ended, index) in order.enumerated() {
            Runtime.endCall(calls[index])
            XCTAssertFalse(Runtime.isActive(calls[index]))
            let stillOpen = order[(ended + 1)...]
            XCTAssertTrue(stillOpen.allSatisfy { Runtime.isActive(calls[$0]) })
        }
        XCTAssertFalse(calls.contains { Runtime.isActive($0) })
        XCTAssertTrue(Runtime.activeCalls.isEmpty)
    }

    /// Each thread has its own context-string cache, and every thread reads
    /// the context's own strings (from its own cache, and from the shared
    /// locked one a thread without a cache uses).
    func test_contextStrings_onSeveralThreads_areEachContextsOwn() {
        let failures = Atomicish()
        let texts = ["text", "voice", "file", "a/much/longer/base/directory/than/fits/inline"]
        let buffers = texts.map { PermanentCString.make($0) }
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for round in 0..<500 {
                let index = (worker + round) % texts.count
                let strings = Runtime.contextStrings(messageClass: buffers[index], baseDirectory: buffers[(index + 1) % texts.count],
                                                     cache: round % 2 == 0 ? ThreadCache.current : nil)
                if strings.messageClass != texts[index] || strings.baseDirectory != texts[(index + 1) % texts.count] {
                    failures.add()
                }
            }
        }
        XCTAssertEqual(failures.count, 0)
    }

    /// One token handed between threads.
    final class TokenBox: @unchecked Sendable {
        private let lock = NSLock()
        private var token: CallToken?
        func put(_ value: CallToken) { lock.withLock { token = value } }
        func take() -> CallToken? { lock.withLock { defer { token = nil }; return token } }
    }

    /// A counter for the closures above.
    final class Atomicish: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func add() { lock.withLock { value += 1 } }
        var count: Int { lock.withLock { value } }
    }
}
