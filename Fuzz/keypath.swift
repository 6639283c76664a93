import CellHostABI
import Glibc

// libFuzzer target `keypath`: the bytes before the first newline are a key
// path as a plugin passes it (dots, digits, backslash escapes), the rest a
// message. Every look-up of the "cellhost.message" extension runs on it; none
// may trap, `count` and `numbers` must agree, `numbers` never writes past its
// capacity, and a string found is NUL-terminated at its length.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKeyPath(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    checkKeyPath(Array(UnsafeBufferPointer(start: size == 0 ? nil : data, count: size)))
    return 0
}

func checkKeyPath(_ bytes: [UInt8]) {
    guard let newline = bytes.firstIndex(of: 0x0A) else { return }
    let path = Array(bytes[..<newline]).map { $0 == 0 ? UInt8(ascii: ".") : $0 } + [0]
    let message = Message()
    guard (try? bytes[(newline + 1)...].withUnsafeBufferPointer({ try message.load($0, me: nil) })) != nil else { return }
    let api = HostExtensions.message.pointee
    path.withUnsafeBufferPointer { buffer in
        guard let base = buffer.baseAddress else { return }
        let cPath = UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self)
        var string = cellhost_string()
        if api.string(message.handle, cPath, &string) == cellhost_lookup(CELLHOST_FOUND) {
            guard let data = string.data else { fuzzFail("a found string has NULL data") }
            if data[string.length] != 0 { fuzzFail("a found string is not NUL-terminated at its length") }
        }
        var number = 0.0, integer: Int64 = 0, flag = false
        _ = api.number(message.handle, cPath, &number)
        _ = api.integer(message.handle, cPath, &integer)
        _ = api.boolean(message.handle, cPath, &flag)
        var count = 0
        let counted = api.count(message.handle, cPath, &count)
        let capacity = 4
        var values = [Double](repeating: .nan, count: capacity + 1)
        var total = -1
        let read = values.withUnsafeMutableBufferPointer {
            api.numbers(message.handle, cPath, $0.baseAddress, capacity, &total)
        }
        if !values[capacity].isNaN { fuzzFail("numbers wrote past its capacity") }
        if read == cellhost_lookup(CELLHOST_FOUND) {
            if counted != cellhost_lookup(CELLHOST_FOUND) || count != total {
                fuzzFail("numbers found \(total) elements, count says \(counted) / \(count)")
            }
        }
    }
}
