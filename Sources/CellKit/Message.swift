internal import CellHostABI

/// The answer of a typed look-up into a message's payload.
///
/// The host distinguishes a value that is absent (or JSON `null`) from one of
/// another type, so a cell can tell "no size given" from "size is a string"
/// and decline or log accordingly.
public enum Lookup<Value> {
    /// A value of the asked type.
    case found(Value)
    /// No value at that path, or JSON `null`.
    case missing
    /// A value is there, but of another type (numbers are never converted to
    /// strings, nor fractions to integers).
    case wrongType

    /// The value when found, else `nil`.
    public var value: Value? {
        if case .found(let value) = self { return value }
        return nil
    }
}

extension Lookup: Equatable where Value: Equatable {}
extension Lookup: Sendable where Value: Sendable {}

/// Delivery status of a message, as the input states it.
public enum MessageStatus: Sendable {
    case none, sending, sent, delivered, read, failed
}

/// The common fields of a message, copied out of the host's message.
public struct MessageInfo: Sendable {
    /// The message class as given in the input (`"text"`, `"voice"`, …); `""` when missing.
    public var type: String
    /// The message id; `""` when missing.
    public var id: String
    /// The sender's id; `""` when missing.
    public var senderID: String
    /// The sender's display name; `""` when missing.
    public var senderName: String
    /// The body, which is also every type's fallback text; `""` when missing.
    public var text: String
    /// Seconds since the Unix epoch (UTC), when the message has a time.
    public var time: Double?
    /// True when the viewer sent the message.
    public var isOutgoing: Bool
    /// The delivery status.
    public var status: MessageStatus
    /// True when the message was edited.
    public var edited: Bool
}

/// One message, as handed to a renderer method.
///
/// A `Message` is a view onto a host-owned message that is valid only during
/// the call that received it: read what you need, and do not store the
/// `Message` itself (its `String`s and numbers are copies and may be kept).
///
/// Payload fields are read by **key path**: dot-separated keys, where a key
/// made of digits indexes an array, e.g. `"file.size"`,
/// `"voice.waveform.3"`, `"poll.options.0.text"` (UTF-8, at most 255 bytes;
/// a longer path reads as missing). A key that itself contains a dot or a
/// backslash is written escaped: build it with `Message.escapedKey(_:)`,
/// as in `"content." + Message.escapedKey("m.relates_to")`.
public struct Message {
    let handle: OpaquePointer
    /// The host this message came from, e.g. to log about it.
    public let host: Host

    init(handle: OpaquePointer, host: Host) {
        self.handle = handle
        self.host = host
    }

    /// The host's message-reading functions (`nil`: every look-up is missing).
    private var api: UnsafePointer<cellhost_message_api>? { host.extensions.message }

    /// `key` as one key of a key path: each `.` and `\` in it is preceded
    /// by a backslash, so the host reads it as part of the key rather than
    /// as a separator. `escapedKey("m.relates_to")` is `m\.relates_to`, and
    /// `string("content." + Message.escapedKey("m.relates_to"))` reads the
    /// key `"m.relates_to"` inside `"content"`. A key without `.` or `\` is
    /// returned as it is. Escape every key that comes from the input (such
    /// as a message's `type`) before putting it in a path.
    public static func escapedKey(_ key: String) -> String {
        guard key.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "\\") }) else { return key }
        // By scalar, not Character: "." followed by a combining mark is one
        // Character, yet the host still sees the '.' byte.
        var escaped = String.UnicodeScalarView()
        for scalar in key.unicodeScalars {
            if scalar == "." || scalar == "\\" { escaped.append("\\") }
            escaped.append(scalar)
        }
        return String(escaped)
    }

    /// The common fields (type, id, sender, text, time, direction, status,
    /// edited). Each access asks the host again and copies every field; keep
    /// the value in a local when you need several fields, and prefer `text`
    /// or `type` when you need only one.
    public var info: MessageInfo {
        let raw = rawInfo()
        return MessageInfo(
            type: Self.string(raw.type),
            id: Self.string(raw.id),
            senderID: Self.string(raw.sender_id),
            senderName: Self.string(raw.sender_name),
            text: Self.string(raw.text),
            time: raw.has_time && raw.time.isFinite ? raw.time : nil,
            isOutgoing: Int(raw.direction) == CELLHOST_OUTGOING,
            status: Self.status(raw.status),
            edited: raw.edited)
    }

    /// The message class as given in the input; `""` when missing. Copies
    /// only this field.
    public var type: String { Self.string(rawInfo().type) }

    /// The body text (every type's fallback text); `""` when missing. Reads
    /// only this field (`info.text` and `string("text")` are the same field,
    /// the `text` member of the message).
    public var text: String { withTextUTF8 { Self.string($0) } }

    /// Calls `body` with the UTF-8 bytes of the body text (none when
    /// missing), without copying them into a `String`: the fastest way to
    /// read it. The bytes are the host's and valid only during `body`; the
    /// host hands out valid, sanitized UTF-8, so they are the bytes of
    /// `text`. Pass them to `CellBuilder.append(utf8:style:)` or
    /// `InlineMarkup.append(_:to:)`.
    ///
    /// Inlinable, so that a cell's call is specialized for its `body`: the
    /// host call is `textUTF8()`, which is not generic.
    @inlinable
    public func withTextUTF8<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try body(textUTF8())
    }

    /// The UTF-8 bytes of the body text, none when missing: the host's,
    /// valid for the call (`withTextUTF8`).
    @usableFromInline
    func textUTF8() -> UnsafeBufferPointer<UInt8> {
        var out = cellhost_string()
        // A literal's storage is a NUL-terminated C string.
        let path: StaticString = "text"
        let answer = api?.pointee.string(handle, UnsafeRawPointer(path.utf8Start).assumingMemoryBound(to: CChar.self), &out)
        guard answer == LookupCode.found else { return UnsafeBufferPointer(start: nil, count: 0) }
        return Self.bytes(out)
    }

    /// Calls `body` with the UTF-8 bytes of the message class (`info.type`)
    /// and of the body text (`info.text`), read with one host call and
    /// without making a `String` of either (nor of the id and sender names
    /// that `info` copies too): what a media cell needs to pick its payload
    /// key and show its caption. Either is empty when missing. The bytes are
    /// the host's, valid, sanitized UTF-8, and valid only during `body`.
    public func withTypeAndTextUTF8<R>(
        _ body: (_ type: UnsafeBufferPointer<UInt8>, _ text: UnsafeBufferPointer<UInt8>) throws -> R
    ) rethrows -> R {
        let raw = rawInfo()
        return try body(Self.bytes(raw.type), Self.bytes(raw.text))
    }

    /// Calls `body` with the UTF-8 bytes of the string at `path`, without
    /// copying them into a `String`, and returns its result; `nil` (without
    /// calling `body`) when the value is missing or not a string. The bytes
    /// are the host's and valid only during `body`.
    public func withUTF8<R>(_ path: String, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R? {
        try utf8(path).map(body)
    }

    /// The UTF-8 bytes of the string at `path`, without copying them into
    /// a `String`; nil when the value is missing or not a string. The bytes
    /// are the host's, valid and sanitized UTF-8, and like the `Message`
    /// itself valid only during the call that received the message: for
    /// this package's cells, which hold several at once (a file's name,
    /// path and type); other plugins read them with `withUTF8(_:_:)`.
    package func utf8(_ path: String) -> UnsafeBufferPointer<UInt8>? {
        var out = cellhost_string()
        let answer = path.withCString { api?.pointee.string(handle, $0, &out) }
        guard answer == LookupCode.found else { return nil }
        return Self.bytes(out)
    }

    /// The common fields as the host fills them (its strings valid only
    /// during the call that received the message).
    func rawInfo() -> cellhost_message_info {
        var raw = cellhost_message_info()
        raw.struct_size = UInt32(MemoryLayout<cellhost_message_info>.size)
        api?.pointee.info(handle, &raw)
        return raw
    }

    // MARK: Typed look-ups

    /// The string at `path`. Numbers are `.wrongType`, never converted.
    public func lookupString(_ path: String) -> Lookup<String> {
        var out = cellhost_string()
        let answer = path.withCString { api?.pointee.string(handle, $0, &out) }
        return Self.lookup(answer) { Self.string(out) }
    }

    /// The number at `path` (any JSON number, as a `Double`).
    public func lookupNumber(_ path: String) -> Lookup<Double> {
        var out = 0.0
        let answer = path.withCString { api?.pointee.number(handle, $0, &out) }
        return Self.lookup(answer) { out }
    }

    /// The integer at `path`: a JSON number with no fraction that fits
    /// `Int64`; any other number is `.wrongType`.
    public func lookupInteger(_ path: String) -> Lookup<Int64> {
        var out: Int64 = 0
        let answer = path.withCString { api?.pointee.integer(handle, $0, &out) }
        return Self.lookup(answer) { out }
    }

    /// The boolean at `path`.
    public func lookupBool(_ path: String) -> Lookup<Bool> {
        var out = false
        let answer = path.withCString { api?.pointee.boolean(handle, $0, &out) }
        return Self.lookup(answer) { out }
    }

    /// The element count of the array, or the member count of the object, at `path`.
    public func lookupCount(_ path: String) -> Lookup<Int> {
        var out = 0
        let answer = path.withCString { api?.pointee.count(handle, $0, &out) }
        return Self.lookup(answer) { out }.checkedCount
    }

    /// Every element of the array of numbers at `path`, read with the host's
    /// bulk look-up rather than one call per element: a voice message's
    /// waveform. One host call for up to 64 elements; a longer array is
    /// read again, whole, into the returned array.
    /// `.wrongType` when the value is not an array or any element is not a
    /// number; an empty array is `.found([])`.
    public func lookupNumbers(_ path: String) -> Lookup<[Double]> {
        var result = Lookup<[Double]>.missing
        readNumbers(path) { answer, numbers in result = Self.lookup(answer) { Array(numbers) } }
        return result
    }

    /// Calls `body` with every element of the array of numbers at `path`
    /// (nil when it is missing, not an array, or holds anything but
    /// numbers), read as `lookupNumbers(_:)` reads them but into temporary
    /// storage instead of an array. Not generic (`body` keeps what it
    /// learns), so that a plugin's call needs no generic metadata at run
    /// time.
    package func withNumbers(_ path: String, _ body: (UnsafeBufferPointer<Double>?) -> Void) {
        readNumbers(path) { answer, numbers in body(answer == LookupCode.found ? numbers : nil) }
    }

    /// The bulk look-up behind `lookupNumbers` and `withNumbers`: calls
    /// `body` with the host's answer (a found array whose length does not
    /// fit `Int` is `wrongType`) and, when found, the elements in temporary
    /// storage. Most arrays (a waveform) fit a small buffer: one call. The
    /// host reports the whole length, so a longer one is read again whole.
    private func readNumbers(_ path: String, _ body: (cellhost_lookup?, UnsafeBufferPointer<Double>) -> Void) {
        let none = UnsafeBufferPointer<Double>(start: nil, count: 0)
        guard let api, let numbers = api.pointee.numbers else { return body(nil, none) }
        path.withCString { cPath in
            withUnsafeTemporaryAllocation(of: Double.self, capacity: 64) { small in
                var length = 0
                let answer = numbers(handle, cPath, small.baseAddress, small.count, &length)
                guard answer == LookupCode.found else { return body(answer, none) }
                // size_t comes in as Int: a length beyond Int.max reads negative.
                guard length >= 0 else { return body(LookupCode.wrongType, none) }
                if length <= small.count { return body(answer, UnsafeBufferPointer(rebasing: small[..<length])) }
                withUnsafeTemporaryAllocation(of: Double.self, capacity: length) { all in
                    var written = 0
                    let again = numbers(handle, cPath, all.baseAddress, all.count, &written)
                    body(again, again == LookupCode.found
                         ? UnsafeBufferPointer(rebasing: all[..<min(max(written, 0), all.count)]) : none)
                }
            }
        }
    }

    /// The string at `path`, or `nil` when it is missing or not a string.
    public func string(_ path: String) -> String? { lookupString(path).value }

    /// The number at `path`, or `nil` when it is missing or not a number.
    public func number(_ path: String) -> Double? { lookupNumber(path).value }

    /// The integer at `path`, or `nil` when it is missing or not an integer.
    public func integer(_ path: String) -> Int64? { lookupInteger(path).value }

    /// The boolean at `path`, or `nil` when it is missing or not a boolean.
    public func bool(_ path: String) -> Bool? { lookupBool(path).value }

    /// The element or member count at `path`, or `nil` when it is missing or
    /// neither an array nor an object.
    public func count(_ path: String) -> Int? { lookupCount(path).value }

    /// Every element of the array of numbers at `path` (see
    /// `lookupNumbers(_:)`), or `nil` when it is missing, not an array, or
    /// holds anything but numbers.
    public func numbers(_ path: String) -> [Double]? { lookupNumbers(path).value }

    // MARK: Array elements

    /// `string("\(path).\(index)")`: element `index` of the array at
    /// `path` (or the member named by the digits), without building the
    /// path as a `String`. The same goes for the other `index:` forms.
    public func string(_ path: String, index: Int) -> String? {
        var out = cellhost_string()
        let answer = withElementPath(path, index) { api?.pointee.string(handle, $0, &out) }
        return Self.lookup(answer) { Self.string(out) }.value
    }

    /// `number("\(path).\(index)")`; see `string(_:index:)`.
    public func number(_ path: String, index: Int) -> Double? {
        var out = 0.0
        let answer = withElementPath(path, index) { api?.pointee.number(handle, $0, &out) }
        return Self.lookup(answer) { out }.value
    }

    /// `integer("\(path).\(index)")`; see `string(_:index:)`.
    public func integer(_ path: String, index: Int) -> Int64? {
        var out: Int64 = 0
        let answer = withElementPath(path, index) { api?.pointee.integer(handle, $0, &out) }
        return Self.lookup(answer) { out }.value
    }

    /// `bool("\(path).\(index)")`; see `string(_:index:)`.
    public func bool(_ path: String, index: Int) -> Bool? {
        var out = false
        let answer = withElementPath(path, index) { api?.pointee.boolean(handle, $0, &out) }
        return Self.lookup(answer) { out }.value
    }

    /// `count("\(path).\(index)")`; see `string(_:index:)`.
    public func count(_ path: String, index: Int) -> Int? {
        var out = 0
        let answer = withElementPath(path, index) { api?.pointee.count(handle, $0, &out) }
        return Self.lookup(answer) { out }.checkedCount.value
    }

    /// Calls `lookup` with the C string `"\(path).\(index)"`, built on the
    /// stack (the path, '.', up to 20 characters of a 64-bit integer, NUL).
    private func withElementPath(_ path: String, _ index: Int,
                                 _ lookup: (UnsafePointer<CChar>) -> cellhost_lookup?) -> cellhost_lookup? {
        let prefixLength = path.utf8.count + 1
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: prefixLength + DecimalText.maximumLength + 1) {
            buffer in
            guard let base = buffer.baseAddress else { return nil }
            var end = 0
            for byte in path.utf8 {
                buffer[end] = byte
                end += 1
            }
            buffer[end] = UInt8(ascii: ".")
            let digits = UnsafeMutableBufferPointer(rebasing: buffer[prefixLength...])
            digits[DecimalText.write(index, into: digits)] = 0
            return lookup(UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self))
        }
    }

    // MARK: Conversions

    static func string(_ s: cellhost_string) -> String {
        string(bytes(s))
    }

    static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        bytes.isEmpty ? "" : String(decoding: bytes, as: UTF8.self)
    }

    /// The bytes of a host string (none when its data is NULL).
    static func bytes(_ s: cellhost_string) -> UnsafeBufferPointer<UInt8> {
        guard let data = s.data, s.length > 0 else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: s.length)
    }

    private static func lookup<T>(_ answer: cellhost_lookup?, _ value: () -> T) -> Lookup<T> {
        switch answer {
        case LookupCode.found?: return .found(value())
        case LookupCode.wrongType?: return .wrongType
        default: return .missing
        }
    }

    private static func status(_ raw: cellhost_status) -> MessageStatus {
        switch Int(raw) {
        case CELLHOST_STATUS_SENDING: return .sending
        case CELLHOST_STATUS_SENT: return .sent
        case CELLHOST_STATUS_DELIVERED: return .delivered
        case CELLHOST_STATUS_READ: return .read
        case CELLHOST_STATUS_FAILED: return .failed
        default: return .none
        }
    }
}

/// `cellhost_lookup` values as the message functions return them.
enum LookupCode {
    static let found = cellhost_lookup(CELLHOST_FOUND)
    static let wrongType = cellhost_lookup(CELLHOST_WRONG_TYPE)
}

extension Lookup where Value == Int {
    /// A count the host gave as `size_t`: one beyond `Int.max` comes in
    /// negative, and is no usable count.
    var checkedCount: Lookup<Int> {
        if case .found(let count) = self, count < 0 { return .wrongType }
        return self
    }
}
