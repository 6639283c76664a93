import XCTest
@testable import CellHostCore
