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
    /// active during it, and none after.
    func test_callsInProgress_onSeveralThreads_areTrackedEach() {
        let failures = Atomicish()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<2_000 {
                let outer = Runtime.beginCall()
                let inner = Runtime.beginCall()
                if !Runtime.isActive(outer) || !Runtime.isActive(inner) { failures.add() }
                Runtime.endCall(inner)
                if Runtime.isActive(inner) || !Runtime.isActive(outer) { failures.add() }
                Runtime.endCall(outer)
                if Runtime.isActive(outer) { failures.add() }
            }
        }
        XCTAssertEqual(failures.count, 0)
    }

    /// A counter for the closure above.
    final class Atomicish: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func add() { lock.withLock { value += 1 } }
        var count: Int { lock.withLock { value } }
    }
}
