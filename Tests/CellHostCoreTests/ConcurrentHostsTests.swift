import Foundation
import XCTest
@testable import CellHostCore

/// Two `CellHost` instances rendering on two threads at once give exactly
/// what each gives alone: a session owns all its mutable state (no shared
/// caches in CellHostCore).
final class ConcurrentHostsTests: XCTestCase {
    /// A conversation whose times jump between hours and days, so the local
    /// time cache is refilled again and again.
    private func messages(offset: Int) -> [String] {
        (0..<400).map { index in
            let time = 1_795_946_520 + offset + index * 5_437 * (index % 2 == 0 ? 1 : -1)
            return #"{"id":"m\#(index)","type":"text","sender":{"id":"u\#(index % 3)","name":"User \#(index % 3)"},"#
                + #""time":\#(time),"text":"message \#(index) at \#(time)"}"#
        }
    }

    private func render(_ records: [String]) throws -> [[String]] {
        let host = CellHost()
        return try records.map { try host.renderLines($0, width: 50) }
    }

    func test_twoHostsOnTwoThreads_renderWhatEachRendersAlone() throws {
        let inputs = [messages(offset: 0), messages(offset: 86_400 * 180 + 1_800)]
        let serial = try inputs.map(render)
        for _ in 0..<5 {
            var concurrent: [[[String]]?] = [nil, nil]
            let lock = NSLock()
            DispatchQueue.concurrentPerform(iterations: 2) { which in
                let result = try? render(inputs[which])
                lock.lock()
                concurrent[which] = result
                lock.unlock()
            }
            XCTAssertEqual(concurrent[0], serial[0])
            XCTAssertEqual(concurrent[1], serial[1])
        }
    }
}
