import XCTest
@testable import CellHostCore

/// Values too large for the document's 32-bit offsets are refused, not trapped on.
final class DocumentSizeTests: XCTestCase {
    func test_aValueOf2GiB_isRefusedBeforeAnyByteIsRead() throws {
        var document = JSONDocument()
        var byte: UInt8 = 0x7B
        // Never read: the size check comes first.
        try withUnsafePointer(to: &byte) { pointer in
            let huge = UnsafeBufferPointer(start: pointer, count: Int(Int32.max))
            XCTAssertThrowsError(try document.parse(huge)) { error in
                XCTAssertEqual((error as? JSONSyntaxError)?.reason, "value of 2 GiB or more")
            }
        }
    }
}
