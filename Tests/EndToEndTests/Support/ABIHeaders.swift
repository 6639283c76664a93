import Foundation
import XCTest

/// Values the tests expect, read from the contract headers themselves
/// (Sources/CellHostABI/include/cellhost), so the tests cannot drift from
/// them. The test target has no dependencies, so it reads the text rather
/// than importing the C module.
enum ABIHeaders {
    static var directory: URL {
        EndToEndTestCase.abiIncludeDirectory.appendingPathComponent("cellhost", isDirectory: true)
    }

    /// The string literal of `#define <name> "..."` in `header`.
    static func stringMacro(_ name: String, in header: String = "selectors.h",
                            file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let value = try macro(name, in: header, file: file, line: line)
        guard value.count >= 2, value.first == "\"", value.last == "\"" else {
            XCTFail("\(name) in \(header) is not a string literal: \(value)", file: file, line: line)
            throw HarnessError.fixtureMissing("\(header): \(name)")
        }
        return String(value.dropFirst().dropLast())
    }

    /// The host ABI version the headers describe, "major.minor".
    static func version(file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let major = try macro("CELLHOST_ABI_MAJOR", in: "version.h", file: file, line: line)
        let minor = try macro("CELLHOST_ABI_MINOR", in: "version.h", file: file, line: line)
        return "\(major).\(minor)"
    }

    /// The raw replacement text of `#define <name> <value>` in `header`.
    private static func macro(_ name: String, in header: String,
                              file: StaticString, line: UInt) throws -> String {
        let url = directory.appendingPathComponent(header)
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        let prefix = "#define \(name) "
        for sourceLine in text.split(separator: "\n") where sourceLine.hasPrefix(prefix) {
            return sourceLine.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces)
        }
        XCTFail("no `#define \(name)` in \(url.path)", file: file, line: line)
        throw HarnessError.fixtureMissing("\(header): \(name)")
    }
}
