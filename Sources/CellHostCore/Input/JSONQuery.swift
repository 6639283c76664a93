import Glibc

extension JSONDocument {
    /// The root node.
    public static let root = 0

    /// The node just past `index` and all its descendants.
    @inline(__always)
    func skip(_ index: Int) -> Int {
        let node = nodes[index]
        return node.kind == .array || node.kind == .object ? Int(node.next) : index + 1
    }

    /// The kind of a node.
    public func kind(_ index: Int) -> Kind { nodes[index].kind }

    /// Member count of an object or element count of an array.
    public func count(_ index: Int) -> Int { Int(nodes[index].count) }

    /// The value of `key` in the object at `index` (the first, when repeated).
    /// Reads the tape and the bytes in place: a key of another length is
    /// passed over without a look at its bytes, one of the same length
    /// after its first byte (a message's top level, looked up on every
    /// plugin call, has half a dozen members).
    public func member(_ index: Int, _ key: UnsafeBufferPointer<UInt8>) -> Int? {
        member(index, key, padded: false)
    }

    /// `member`; `padded`: eight bytes can be read from the start of `key`
    /// (a segment of the memo's copy of a path), so a key of up to eight
    /// bytes is compared as one word, without a `memcmp` call.
    @inline(__always)
    func member(_ index: Int, _ key: UnsafeBufferPointer<UInt8>, padded: Bool) -> Int? {
        if let decided = Self.member(nodes, bytes, index, key, padded: padded) { return decided }
        return escapedMember(index, key)
    }

    /// `member` over the tape and bytes (passed in, so that the closures
    /// that read them in place capture no copy of the document's arrays):
    /// `.some(node)` or `.some(nil)` when decided, `nil` when a key with
    /// escapes had to be passed over (it is compared decoded, by
    /// `escapedMember`).
    @inline(__always)
    private static func member(_ nodes: Nodes, _ bytes: [UInt8], _ index: Int,
                               _ key: UnsafeBufferPointer<UInt8>, padded: Bool) -> Int?? {
        nodes.withUnsafeBufferPointer { nodes in
            bytes.withUnsafeBufferPointer { bytes in member(nodes, bytes, index, key, padded: padded) }
        }
    }

    @inline(__always)
    private static func member(_ nodes: UnsafeBufferPointer<Node>, _ bytes: UnsafeBufferPointer<UInt8>, _ index: Int,
                               _ key: UnsafeBufferPointer<UInt8>, padded: Bool) -> Int?? {
        var found: Int?
        let scanned = scanMembers(nodes, index) { name in
            guard nameEquals(nodes[name], bytes, key, padded: padded) else { return true }
            found = name + 1
            return false
        }
        return scanned ? .some(found) : nil
    }

    /// Calls `body` with the position of each member's key in the object
    /// at `index` (its value follows it), in order, while `body` returns
    /// true. False when a key with escapes was met first (only a decoded
    /// comparison can tell it apart); true otherwise, a non-object
    /// included (no members).
    @inline(__always)
    private static func scanMembers(_ nodes: UnsafeBufferPointer<Node>, _ index: Int, _ body: (Int) -> Bool) -> Bool {
        let object = nodes[index]
        guard object.kind == .object else { return true }
        var cursor = index + 1
        for _ in 0..<object.count {
            if nodes[cursor].escaped { return false }
            if !body(cursor) { return true }
            let value = nodes[cursor + 1]
            cursor = value.kind == .array || value.kind == .object ? Int(value.next) : cursor + 2
        }
        return true
    }

    /// Whether the unescaped key `name` is the bytes `key`.
    @inline(__always)
    private static func nameEquals(_ name: Node, _ bytes: UnsafeBufferPointer<UInt8>, _ key: UnsafeBufferPointer<UInt8>,
                                   padded: Bool = false) -> Bool {
        guard Int(name.end &- name.start) == key.count, let base = bytes.baseAddress else { return false }
        // A key of one to eight bytes as one word: the document's eight
        // bytes from the name's start when they are within the value (the
        // word's bytes past the name masked off).
        if padded, UInt(bitPattern: key.count &- 1) < 8, Int(name.start) &+ 8 <= bytes.count {
            let mask = UInt64.max >> UInt64(truncatingIfNeeded: 64 &- 8 &* key.count)
            let wanted = UnsafeRawPointer(key.baseAddress.unsafelyUnwrapped).loadUnaligned(as: UInt64.self)
            let seen = UnsafeRawPointer(base + Int(name.start)).loadUnaligned(as: UInt64.self)
            return UInt64(littleEndian: wanted ^ seen) & mask == 0
        }
        return key.isEmpty || (base[Int(name.start)] == key[0]
                               && memcmp(base + Int(name.start), key.baseAddress!, key.count) == 0)
    }

    /// `member` for an object with an escaped key: every key compared
    /// decoded, in order.
    private func escapedMember(_ index: Int, _ key: UnsafeBufferPointer<UInt8>) -> Int? {
        guard nodes[index].kind == .object else { return nil }
        var cursor = index + 1
        for _ in 0..<nodes[index].count {
            if keyEquals(cursor, key) { return cursor + 1 }
            cursor = skip(cursor + 1)
        }
        return nil
    }

    /// The value of `key` in the object at `index`.
    public func member(_ index: Int, _ key: StaticString) -> Int? {
        member(index, UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
    }

    /// The values of `first` and `second` in the object at `index` (the
    /// first of each, as `member` gives them), found in one pass over its
    /// members: a message's sender is read for its `id` and `name`.
    func members(_ index: Int, _ first: StaticString, _ second: StaticString) -> (Int?, Int?) {
        if let decided = Self.members(nodes, bytes, index, first, second) { return decided }
        return (member(index, first), member(index, second))
    }

    /// `members` over the tape and bytes (passed in as `member`'s are);
    /// nil when a key with escapes had to be passed over (`member` then
    /// compares keys decoded).
    private static func members(_ nodes: Nodes, _ bytes: [UInt8], _ index: Int, _ first: StaticString,
                                _ second: StaticString) -> (Int?, Int?)? {
        nodes.withUnsafeBufferPointer { nodes in
            bytes.withUnsafeBufferPointer { bytes -> (Int?, Int?)? in
                let first = UnsafeBufferPointer(start: first.utf8Start, count: first.utf8CodeUnitCount)
                let second = UnsafeBufferPointer(start: second.utf8Start, count: second.utf8CodeUnitCount)
                var found: (Int?, Int?) = (nil, nil)
                let scanned = scanMembers(nodes, index) { name in
                    if found.0 == nil, nameEquals(nodes[name], bytes, first) {
                        found.0 = name + 1
                    } else if found.1 == nil, nameEquals(nodes[name], bytes, second) {
                        found.1 = name + 1
                    }
                    return found.0 == nil || found.1 == nil
                }
                return scanned ? found : nil
            }
        }
    }

    /// Element `position` of the array at `index`: O(1) after the first
    /// indexed look-up into that array (`ArrayIndex`).
    public func element(_ index: Int, _ position: Int) -> Int? {
        guard nodes[index].kind == .array, position >= 0, position < nodes[index].count else { return nil }
        return arrayIndex.element(self, index, position, count: Int(nodes[index].count))
    }

    /// The elements of the array at `index`, in order.
    public func elements(_ index: Int) -> [Int] {
        guard nodes[index].kind == .array else { return [] }
        var result: [Int] = []
        result.reserveCapacity(Int(nodes[index].count))
        var cursor = index + 1
        for _ in 0..<nodes[index].count {
            result.append(cursor)
            cursor = skip(cursor)
        }
        return result
    }

    /// Calls `body` with the key node and value node of each member of the
    /// object at `index`, in order.
    func forEachMember(_ index: Int, _ body: (Int, Int) -> Void) {
        guard nodes[index].kind == .object else { return }
        var cursor = index + 1
        for _ in 0..<nodes[index].count {
            body(cursor, cursor + 1)
            cursor = skip(cursor + 1)
        }
    }

    /// Raw byte length of a key (before unescaping).
    func keyLength(_ index: Int) -> Int { Int(nodes[index].end - nodes[index].start) }

    /// True when the string at `index` has escapes.
    func isEscaped(_ index: Int) -> Bool { nodes[index].escaped }

    /// True when the key at `index` is `name`.
    func keyEquals(_ index: Int, _ name: StaticString) -> Bool {
        keyEquals(index, UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
    }

    private func keyEquals(_ index: Int, _ key: UnsafeBufferPointer<UInt8>) -> Bool {
        let node = nodes[index]
        if node.escaped {
            var decoded: [UInt8] = []
            appendString(index, to: &decoded)
            return decoded.elementsEqual(key)
        }
        let length = Int(node.end - node.start)
        guard length == key.count else { return false }
        return bytes.withUnsafeBufferPointer { buffer in
            memcmp(buffer.baseAddress! + Int(node.start), key.baseAddress!, length) == 0
        }
    }

    /// Resolves a dot-separated key path ("file.size", "poll.options.0.text")
    /// from the root. A path segment of digits indexes an array. A backslash
    /// makes the next byte part of the key ("content.m\\.relates_to" names the
    /// key "m.relates_to"); a path ending in a lone backslash resolves to nothing.
    ///
    /// The segments a path shares with the path resolved before it are not
    /// looked up again (`PathMemo`).
    public func resolve(path: UnsafeBufferPointer<UInt8>) -> Int? {
        guard !nodes.isEmpty, path.baseAddress != nil else { return nil }
        let (current, start) = arrayIndex.paths.resume(path)
        // The caller's bytes: nothing may be read past their end.
        return resolve(path, from: current, at: start, padded: false)
    }

    /// `resolve(path:)` of the C string `cString` (the message API's
    /// paths): its length found while the memo copies and compares it
    /// (`PathMemo.resume(cString:)`), not by a `strnlen` first. Nil for a
    /// path of 256 bytes or more, as for a path that leads nowhere.
    ///
    /// A call of its own: inlined into each accessor, it made the string
    /// accessor call the sanitizer instead of inlining it (+0.3 M
    /// instructions for 10⁴ `real` messages).
    @inline(never)
    func resolve(cString: UnsafePointer<UInt8>) -> Int? {
        guard !nodes.isEmpty, let (current, start, path) = arrayIndex.paths.resume(cString: cString) else { return nil }
        return resolve(path, from: current, at: start, padded: true)
    }

    /// The rest of a resolve: the segments of `path` from offset `start`,
    /// from the node `current` (where the memo left off). `padded`: eight
    /// bytes can be read at every offset of `path` (the memo's copy), so
    /// a segment's end is looked for a word at a time
    /// (`PathMemo.separatorOrEscape`).
    @inline(__always)
    private func resolve(_ path: UnsafeBufferPointer<UInt8>, from current: Int, at start: Int, padded: Bool) -> Int? {
        guard let base = path.baseAddress else { return nil }
        var current = current, start = start
        while true {
            // The segment runs to the next '.' that no backslash escapes.
            var end = start
            var escaped = false
            if padded {
                end = PathMemo.separatorOrEscape(base, from: start, count: path.count)
                // A backslash: the segment is read again below, a byte at a time.
                if end < path.count, base[end] == UInt8(ascii: "\\") { end = start }
            }
            while end < path.count, base[end] != UInt8(ascii: ".") {
                if base[end] == UInt8(ascii: "\\") {
                    guard end + 1 < path.count else { return nil }
                    escaped = true
                    end += 1
                }
                end += 1
            }
            guard end > start else { return nil }
            let raw = UnsafeBufferPointer(start: base + start, count: end - start)
            let next: Int? = escaped
                ? Self.unescaped(raw).withUnsafeBufferPointer { step(from: current, $0) }
                : step(from: current, raw, padded: padded)
            guard let next else { return nil }
            current = next
            guard end < path.count else { return current }
            arrayIndex.paths.record(separator: end, node: current)
            start = end + 1
        }
    }

    /// One key path step: an array element by position, or an object member.
    @inline(__always)
    private func step(from current: Int, _ segment: UnsafeBufferPointer<UInt8>, padded: Bool = false) -> Int? {
        if nodes[current].kind == .array {
            guard let position = Self.decimal(segment) else { return nil }
            return element(current, position)
        }
        return member(current, segment, padded: padded)
    }

    /// A path segment with its backslash escapes removed.
    private static func unescaped(_ segment: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var key: [UInt8] = []
        key.reserveCapacity(segment.count)
        var index = 0
        while index < segment.count {
            if segment[index] == UInt8(ascii: "\\"), index + 1 < segment.count { index += 1 }
            key.append(segment[index])
            index += 1
        }
        return key
    }

    /// Resolves a key path given as a Swift string.
    public func resolve(_ path: String) -> Int? {
        var path = path
        return path.withUTF8 { resolve(path: $0) }
    }

    private static func decimal(_ segment: UnsafeBufferPointer<UInt8>) -> Int? {
        guard segment.count <= 9 else { return nil }
        var value = 0
        for byte in segment {
            guard byte &- 0x30 < 10 else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }

    // MARK: Scalars

    /// The number at `index`, or nil when it is not a number.
    public func number(_ index: Int) -> Double? {
        let node = nodes[index]
        guard node.kind == .number else { return nil }
        return bytes.withUnsafeBufferPointer {
            Self.number(UnsafeBufferPointer(rebasing: $0[Int(node.start)..<Int(node.end)]))
        }
    }

    /// The value of a number literal: an integer below 2^53 exactly (so
    /// `-0` is 0), a short decimal by one exact division or multiplication,
    /// anything else by `strtod`.
    static func number(_ literal: UnsafeBufferPointer<UInt8>) -> Double {
        if let integer = integer(literal), integer.magnitude < (1 << 53) { return Double(integer) }
        if let value = shortDecimal(literal) { return value }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: literal.count + 1) { text in
            for offset in 0..<literal.count { text[offset] = CChar(bitPattern: literal[offset]) }
            text[literal.count] = 0
            return strtod(text.baseAddress!, nil)
        }
    }

    /// Exact powers of ten as `Double`s: 10^0 ... 10^22.
    private static let powersOfTen: [Double] = (0...22).map { exponent in
        (0..<exponent).reduce(1.0) { value, _ in value * 10 }
    }

    /// What `strtod` gives for a literal whose digits, read as a whole
    /// number, are below 2^53 and whose power of ten is within ±22
    /// (`62.7` is 627 / 10^1): both operands are exact doubles, so one
    /// division or multiplication rounds the exact value once, as `strtod`
    /// rounds it. Nil for every other literal (more digits, a larger
    /// exponent, anything that is not JSON number syntax).
    static func shortDecimal(_ literal: UnsafeBufferPointer<UInt8>) -> Double? {
        guard let base = literal.baseAddress, !literal.isEmpty else { return nil }
        let end = literal.count
        let negative = base[0] == UInt8(ascii: "-")
        var position = negative ? 1 : 0
        var digits: UInt64 = 0
        var significant = 0
        var fractionDigits = 0
        var sawDigit = false
        var inFraction = false
        while position < end {
            let byte = base[position]
            if byte == UInt8(ascii: ".") {
                guard !inFraction, sawDigit else { return nil }
                inFraction = true
            } else if byte &- 0x30 < 10 {
                // Leading zeros add nothing; 17 significant digits keep the
                // product below 2^64 (the 2^53 check comes after).
                if digits != 0 || byte != 0x30 { significant += 1 }
                guard significant <= 17 else { return nil }
                digits = digits &* 10 &+ UInt64(byte &- 0x30)
                if inFraction { fractionDigits += 1 }
                sawDigit = true
            } else {
                break
            }
            position += 1
        }
        guard sawDigit, base[position - 1] != UInt8(ascii: ".") else { return nil }
        var exponent = 0
        if position < end {
            guard base[position] | 0x20 == UInt8(ascii: "e"), position + 1 < end else { return nil }
            position += 1
            let negativeExponent = base[position] == UInt8(ascii: "-")
            if base[position] == UInt8(ascii: "-") || base[position] == UInt8(ascii: "+") { position += 1 }
            guard position < end else { return nil }
            while position < end {
                let digit = base[position] &- 0x30
                guard digit < 10, exponent < 1000 else { return nil }
                exponent = exponent * 10 + Int(digit)
                position += 1
            }
            if negativeExponent { exponent = -exponent }
        }
        guard digits <= 1 << 53 else { return nil }
        let scale = exponent - fractionDigits
        guard scale >= -22, scale <= 22 else { return nil }
        let magnitude = scale < 0 ? Double(digits) / powersOfTen[-scale] : Double(digits) * powersOfTen[scale]
        return negative ? -magnitude : magnitude
    }

    /// The element count of the array at `index` when every element is a
    /// number, after writing the first `capacity` elements (as `number`
    /// reads them) to `out`; nil, with nothing written, for anything else.
    /// An array of numbers holds leaf nodes only, one after the other on
    /// the tape: its elements are `index + 1 ...`, checked by kind (the
    /// first container among them stops the check), then read once each.
    func numberElements(_ index: Int, into out: UnsafeMutablePointer<Double>?, capacity: Int) -> Int? {
        Self.numberElements(nodes, bytes, index, into: out, capacity: capacity)
    }

    /// `numberElements` over the tape and bytes, passed in as `member`'s are.
    private static func numberElements(_ nodes: Nodes, _ bytes: [UInt8], _ index: Int,
                                       into out: UnsafeMutablePointer<Double>?, capacity: Int) -> Int? {
        nodes.withUnsafeBufferPointer { nodes -> Int? in
            let array = nodes[index]
            guard array.kind == .array else { return nil }
            let total = Int(array.count)
            let first = index + 1
            for element in first..<(first + total) where nodes[element].kind != .number { return nil }
            if let out {
                bytes.withUnsafeBufferPointer { bytes in
                    guard let base = bytes.baseAddress else { return }
                    for position in 0..<min(max(0, capacity), total) {
                        let node = nodes[first + position]
                        let start = Int(node.start), end = Int(node.end)
                        out[position] = shortDigits(base, start, end) ?? shortInteger(base, start, end)
                            ?? number(UnsafeBufferPointer(start: base + start, count: end - start))
                    }
                }
            }
            return total
        }
    }

    /// A literal of one to three digits (a waveform's samples, 0-255) in
    /// the bytes `start..<end` of `base`: what `shortInteger` gives for
    /// it, read without its loop (unrolled for the length); nil for any
    /// other literal.
    @inline(__always)
    static func shortDigits(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Double? {
        let length = end &- start
        guard UInt(bitPattern: length &- 1) < 3 else { return nil }
        let text = base + start
        var value = UInt32(text[0]) &- 0x30
        guard value < 10 else { return nil }
        if length > 1 {
            let second = UInt32(text[1]) &- 0x30
            guard second < 10 else { return nil }
            value = value &* 10 &+ second
            if length > 2 {
                let third = UInt32(text[2]) &- 0x30
                guard third < 10 else { return nil }
                value = value &* 10 &+ third
            }
        }
        return Double(value)
    }

    /// A literal of an optional '-' and at most 15 digits (a waveform's
    /// samples), read in one pass: what `number` gives for it (an integer
    /// below 2^53, `-0` as 0); nil for any other literal.
    @inline(__always)
    static func shortInteger(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Double? {
        let negative = start < end && base[start] == UInt8(ascii: "-")
        let first = negative ? start + 1 : start
        guard first < end, end - first <= 15 else { return nil }
        var value = 0
        for position in first..<end {
            let digit = base[position] &- 0x30
            guard digit < 10 else { return nil }
            value = value &* 10 &+ Int(digit)
        }
        return Double(negative ? -value : value)
    }

    /// The integer at `index`: a number without fraction or exponent that fits in 64 bits.
    public func integer(_ index: Int) -> Int64? {
        let node = nodes[index]
        guard node.kind == .number else { return nil }
        return bytes.withUnsafeBufferPointer {
            Self.integer(UnsafeBufferPointer(rebasing: $0[Int(node.start)..<Int(node.end)]))
        }
    }

    /// The integer a number literal spells (`-`, digits, and a fraction of
    /// zeros at most), when it fits in 64 bits.
    static func integer(_ literal: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard let base = literal.baseAddress, !literal.isEmpty else { return nil }
        let end = literal.count
        let negative = base[0] == UInt8(ascii: "-")
        var position = negative ? 1 : 0
        // Accumulate negatively so that Int64.min is representable.
        var value: Int64 = 0
        while position < end {
            let digit = base[position] &- 0x30
            guard digit < 10 else {
                // A fraction of zeros ("3.0") is still an integer.
                guard base[position] == UInt8(ascii: "."),
                      !literal[(position + 1)...].contains(where: { $0 != UInt8(ascii: "0") }) else { return nil }
                break
            }
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (minus, overflow2) = times.subtractingReportingOverflow(Int64(digit))
            guard !overflow1, !overflow2 else { return nil }
            value = minus
            position += 1
        }
        if negative { return value }
        return value == Int64.min ? nil : -value
    }

    /// The boolean at `index`.
    public func bool(_ index: Int) -> Bool? {
        switch nodes[index].kind {
        case .boolTrue: return true
        case .boolFalse: return false
        default: return nil
        }
    }

    /// True when the string at `index` equals `literal` (no escapes).
    public func stringEquals(_ index: Int, _ literal: StaticString) -> Bool {
        let node = nodes[index]
        guard node.kind == .string, !node.escaped, Int(node.end - node.start) == literal.utf8CodeUnitCount else { return false }
        return bytes.withUnsafeBufferPointer { memcmp($0.baseAddress! + Int(node.start), literal.utf8Start, literal.utf8CodeUnitCount) == 0 }
    }

    /// Raw bytes of a string without escapes, for fast comparisons; nil when escaped.
    @inline(__always)
    func rawString(_ index: Int) -> Range<Int>? {
        let node = nodes[index]
        guard node.kind == .string, !node.escaped else { return nil }
        return Int(node.start)..<Int(node.end)
    }

    // MARK: Strings

    /// Appends the decoded string at `index` to `output` as valid UTF-8:
    /// escapes decoded, lone surrogates and invalid sequences as U+FFFD.
    public func appendString(_ index: Int, to output: inout [UInt8]) {
        let node = nodes[index]
        guard node.kind == .string else { return }
        bytes.withUnsafeBufferPointer { buffer in
            var position = Int(node.start)
            let end = Int(node.end)
            if !node.escaped {
                UTF8Repair.append(UnsafeBufferPointer(rebasing: buffer[position..<end]), to: &output)
                return
            }
            var runStart = position
            while position < end {
                guard buffer[position] == UInt8(ascii: "\\") else { position += 1; continue }
                UTF8Repair.append(UnsafeBufferPointer(rebasing: buffer[runStart..<position]), to: &output)
                let escape = buffer[position + 1]
                position += 2
                switch escape {
                case UInt8(ascii: "n"): output.append(0x0A)
                case UInt8(ascii: "t"): output.append(0x09)
                case UInt8(ascii: "r"): output.append(0x0D)
                case UInt8(ascii: "b"): output.append(0x08)
                case UInt8(ascii: "f"): output.append(0x0C)
                case UInt8(ascii: "u"):
                    var scalar = hex4(buffer, position)
                    position += 4
                    if scalar >= 0xD800 && scalar < 0xDC00 {
                        if position + 6 <= end, buffer[position] == UInt8(ascii: "\\"), buffer[position + 1] == UInt8(ascii: "u") {
                            let low = hex4(buffer, position + 2)
                            if low >= 0xDC00 && low < 0xE000 {
                                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                                position += 6
                            } else {
                                scalar = 0xFFFD
                            }
                        } else {
                            scalar = 0xFFFD
                        }
                    } else if scalar >= 0xDC00 && scalar < 0xE000 {
                        scalar = 0xFFFD
                    }
                    UTF8Repair.appendScalar(scalar, to: &output)
                default: output.append(escape) // \" \\ \/
                }
                runStart = position
            }
            UTF8Repair.append(UnsafeBufferPointer(rebasing: buffer[runStart..<end]), to: &output)
        }
    }

    /// The decoded string at `index` as a Swift string.
    public func string(_ index: Int) -> String? {
        let node = nodes[index]
        guard node.kind == .string else { return nil }
        if !node.escaped {
            // String(decoding:) repairs invalid UTF-8 with U+FFFD, as appendString does.
            return bytes.withUnsafeBufferPointer {
                String(decoding: UnsafeBufferPointer(rebasing: $0[Int(node.start)..<Int(node.end)]), as: UTF8.self)
            }
        }
        var output: [UInt8] = []
        appendString(index, to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    private func hex4(_ buffer: UnsafeBufferPointer<UInt8>, _ position: Int) -> UInt32 {
        var value: UInt32 = 0
        for offset in 0..<4 { value = value << 4 | (hexValue(buffer[position + offset]) ?? 0) }
        return value
    }
}
