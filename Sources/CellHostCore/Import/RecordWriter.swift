/// Writes one JSON object, member by member, into reusable bytes: how
/// importers spell a message in CellHost's own schema for the render path.
///
/// Strings are escaped as JSON requires (quote, backslash, C0 controls);
/// everything else passes through, invalid UTF-8 included: the host repairs
/// and sanitizes every string when it shows it.
public struct RecordWriter {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8] = []
    /// Per open container: whether a member was written (a comma comes next).
    private var needsComma: [Bool] = []

    public init() { bytes.reserveCapacity(1024) }

    /// Starts again with nothing written (capacity is kept).
    public mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        needsComma.removeAll(keepingCapacity: true)
    }

    private mutating func separate() {
        if let last = needsComma.last {
            if last { bytes.append(UInt8(ascii: ",")) }
            needsComma[needsComma.count - 1] = true
        }
    }

    private mutating func key(_ name: String) {
        separate()
        appendQuoted(name)
        bytes.append(UInt8(ascii: ":"))
        // The value after a key needs no comma of its own.
        needsComma.append(false)
    }

    private mutating func endKey() { needsComma.removeLast() }

    // MARK: Containers

    /// Opens an object (as an array element or the root).
    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma.append(false)
    }

    /// Opens an object as the value of `name`.
    public mutating func beginObject(_ name: String) {
        key(name)
        endKey()
        bytes.append(UInt8(ascii: "{"))
        needsComma.append(false)
    }

    public mutating func endObject() {
        needsComma.removeLast()
        bytes.append(UInt8(ascii: "}"))
    }

    /// Opens an array as the value of `name`.
    public mutating func beginArray(_ name: String) {
        key(name)
        endKey()
        bytes.append(UInt8(ascii: "["))
        needsComma.append(false)
    }

    public mutating func endArray() {
        needsComma.removeLast()
        bytes.append(UInt8(ascii: "]"))
    }

    // MARK: Members

    public mutating func string(_ name: String, _ value: String) {
        key(name)
        endKey()
        appendQuoted(value)
    }

    public mutating func number(_ name: String, _ value: Double) {
        key(name)
        endKey()
        appendNumber(value)
    }

    public mutating func integer(_ name: String, _ value: Int64) {
        key(name)
        endKey()
        bytes.append(contentsOf: String(value).utf8)
    }

    public mutating func bool(_ name: String, _ value: Bool) {
        key(name)
        endKey()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    // MARK: Array elements

    public mutating func element(_ value: String) {
        separate()
        appendQuoted(value)
    }

    public mutating func element(_ value: Double) {
        separate()
        appendNumber(value)
    }

    // MARK: Encoding

    private mutating func appendNumber(_ value: Double) {
        // JSON has no NaN or infinity; such a number is written as 0.
        guard value.isFinite else { bytes.append(UInt8(ascii: "0")); return }
        if value == value.rounded(), abs(value) < 1e15 {
            bytes.append(contentsOf: String(Int64(value)).utf8)
        } else {
            bytes.append(contentsOf: "\(value)".utf8)
        }
    }

    private mutating func appendQuoted(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(0x5C); bytes.append(byte)
            case UInt8(ascii: "\\"): bytes.append(0x5C); bytes.append(byte)
            case 0x0A: bytes.append(0x5C); bytes.append(UInt8(ascii: "n"))
            case 0x09: bytes.append(0x5C); bytes.append(UInt8(ascii: "t"))
            case 0x0D: bytes.append(0x5C); bytes.append(UInt8(ascii: "r"))
            case 0..<0x20:
                let digits: StaticString = "0123456789abcdef"
                bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                digits.withUTF8Buffer { hex in
                    bytes.append(hex[Int(byte >> 4)])
                    bytes.append(hex[Int(byte & 15)])
                }
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
