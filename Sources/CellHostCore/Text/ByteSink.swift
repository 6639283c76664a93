/// Somewhere text is appended to, a byte or a buffer at a time: a
/// `[UInt8]`, or a canvas's bytes (`UnsafeList<UInt8>`), which the
/// sanitizer and the UTF-8 writers serve alike. Those are generic over it,
/// so each use is specialized to direct appends of its own type.
public protocol ByteSink {
    mutating func append(_ byte: UInt8)
    mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>)
}

extension Array: ByteSink where Element == UInt8 {}

extension UnsafeList: ByteSink where Element == UInt8 {}
