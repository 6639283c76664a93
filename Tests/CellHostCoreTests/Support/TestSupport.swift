import CellHostABI
import Foundation
import XCTest
@testable import CellHostCore

// Shared helpers for the CellHostCore unit tests: building classes for the
// runtime, calling IMPs, parsing JSON, feeding the input reader.

// MARK: - Classes

/// A method description with the IMP given as a C function value.
func methodDescription<F>(_ selector: String, _ types: String, _ imp: F) -> ClassDescription.MethodDescription {
    ClassDescription.MethodDescription(selector: selector, types: types, imp: HostClasses.address(imp))
}

/// A class description with sensible defaults.
func classDescription(_ name: String, superclass: String = "MessageCell", messageClasses: [String] = [],
                      rank: Int32 = 0, instanceSize: Int = 0,
                      methods: [ClassDescription.MethodDescription] = []) -> ClassDescription {
    ClassDescription(name: name, superclass: superclass, messageClasses: messageClasses, rank: rank,
                     instanceSize: instanceSize, methods: methods)
}

/// Links `descriptions` as one batch of one plugin; returns the rejections.
@discardableResult
func link(_ runtime: Runtime, _ descriptions: [ClassDescription], plugin: String = "test.plugin") -> [ClassRejection] {
    runtime.link(descriptions.map { (description: $0, pluginID: plugin) }).map(\.rejection)
}

/// A render IMP that renders nothing and reports success; for registry tests.
let noopRender: Dispatcher.RenderIMP = { _, _, _, _, _ in Int32(CELLHOST_RENDERED) }

/// Links one renderer class for `messageClasses` and returns it.
@discardableResult
func linkRenderer(_ runtime: Runtime, _ name: String, for messageClasses: [String], rank: Int32 = 0,
                  superclass: String = "MessageCell", file: StaticString = #filePath, line: UInt = #line) -> RuntimeClass? {
    let rejections = link(runtime, [classDescription(name, superclass: superclass, messageClasses: messageClasses, rank: rank,
                                                     methods: [methodDescription(WellKnownSelector.render.rawValue,
                                                                                 CELLHOST_TYPES_RENDER, noopRender)])])
    XCTAssertEqual(rejections.map(\.description), [], file: file, line: line)
    return runtime.classes[name]
}

// MARK: - Calling through libffi

/// libffi `avalue` storage: one heap cell per argument, freed with the list.
final class ArgumentList {
    private var cells: [UnsafeMutableRawPointer] = []

    init() {}

    /// Appends `self` (nil) and `_cmd` (a C string), as every IMP receives them.
    static func receiverAndSelector(_ selector: UnsafePointer<CChar>? = nil) -> ArgumentList {
        let list = ArgumentList()
        list.add(OpaquePointer?.none)
        list.add(selector)
        return list
    }

    @discardableResult
    func add<T>(_ value: T) -> ArgumentList {
        let cell = UnsafeMutablePointer<T>.allocate(capacity: 1)
        cell.initialize(to: value)
        cells.append(UnsafeMutableRawPointer(cell))
        return self
    }

    func withValues<R>(_ body: (UnsafeMutablePointer<UnsafeMutableRawPointer?>) throws -> R) rethrows -> R {
        var values: [UnsafeMutableRawPointer?] = cells.isEmpty ? [nil] : cells
        return try values.withUnsafeMutableBufferPointer { try body($0.baseAddress!) }
    }

    deinit { for cell in cells { cell.deallocate() } }
}

/// Prepares a call interface for `types` and calls `imp` with `arguments`,
/// returning the result read as `R`.
func callThroughFFI<R, F>(_ types: String, _ imp: F, _ arguments: ArgumentList, returning: R.Type) throws -> R {
    let interface = try CallInterface(encoding: MethodTypeEncoding(parsing: types))
    let result = UnsafeMutableRawPointer.allocate(byteCount: interface.returnStorageSize, alignment: 16)
    defer { result.deallocate() }
    result.initializeMemory(as: UInt8.self, repeating: 0xEE, count: interface.returnStorageSize)
    let address = UnsafeRawPointer(bitPattern: HostClasses.address(imp))!
    arguments.withValues { interface.call(address, result: result, arguments: $0) }
    return result.load(as: R.self)
}

// MARK: - JSON

func parseJSON(_ text: String) throws -> JSONDocument {
    try parseJSON(bytes: Array(text.utf8))
}

func parseJSON(bytes: [UInt8]) throws -> JSONDocument {
    var document = JSONDocument()
    try bytes.withUnsafeBufferPointer { try document.parse($0) }
    return document
}

/// The syntax error `text` is rejected with, or nil when it parses.
func jsonError(_ text: String) -> JSONSyntaxError? {
    jsonError(bytes: Array(text.utf8))
}

func jsonError(bytes: [UInt8]) -> JSONSyntaxError? {
    do {
        _ = try parseJSON(bytes: bytes)
        return nil
    } catch let error as JSONSyntaxError {
        return error
    } catch {
        XCTFail("unexpected error type: \(error)")
        return nil
    }
}

// MARK: - Rendering

/// Renders one message through a `RenderSession` writing JSON, and returns the
/// decoded output object.
func renderJSON(_ host: CellHost, _ json: String, width: Int = 60, line: Int = 1) throws -> [String: Any] {
    let output = OutputBuffer(fd: -1)
    let session = RenderSession(host: host, settings: OutputSettings(format: .json, depth: .none, width: width),
                                me: nil, output: output)
    var json = json
    try json.withUTF8 { try session.render($0, line: line) }
    let object = try JSONSerialization.jsonObject(with: Data(output.bytes))
    return try XCTUnwrap(object as? [String: Any])
}

/// The content lines of an incoming message's plain rendering: the lines
/// that start with the gutter ("┃" on a message's first line, "│" on the
/// others), without the gutter and the space after it.
func contentLines(_ lines: [String]) -> [String] {
    lines.compactMap { line in
        guard let first = line.first, first == "┃" || first == "│" else { return nil }
        let rest = line.dropFirst()
        return String(rest.hasPrefix(" ") ? rest.dropFirst() : rest)
    }
}

// MARK: - Input

/// What the input reader delivered.
struct ReadResult {
    var records: [(text: String, line: Int)] = []
    var problems: [(line: Int, reason: String)] = []
    var texts: [String] { records.map(\.text) }
    var lines: [Int] { records.map(\.line) }
}

/// Writes `bytes` to a temporary file and reads it with `InputReader`.
func readInput(_ bytes: [UInt8]) throws -> ReadResult {
    var template = Array("/tmp/cellhost-input-XXXXXX".utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard fd >= 0 else { throw POSIXError(.EIO) }
    let path = String(cString: template)
    defer { close(fd); unlink(path) }
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
        guard written > 0 else { throw POSIXError(.EIO) }
        offset += written
    }
    lseek(fd, 0, SEEK_SET)
    return try readRecords(fd: fd)
}

func readInput(_ text: String) throws -> ReadResult { try readInput(Array(text.utf8)) }

func readRecords(fd: Int32) throws -> ReadResult {
    var result = ReadResult()
    try InputReader(fd: fd).read(
        record: { result.records.append((String(decoding: $0.bytes, as: UTF8.self), $0.line)) },
        problem: { result.problems.append(($0.line, $0.reason)) })
    return result
}

// MARK: - Bytes

/// Sanitizes raw bytes.
func sanitize(bytes: [UInt8]) -> [UInt8] {
    var output: [UInt8] = []
    bytes.withUnsafeBufferPointer { _ = Sanitizer.sanitize($0, into: &output) }
    return output
}

/// A small deterministic generator for fuzz-style tests.
struct SplitMix64 {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
