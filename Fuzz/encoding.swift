// libFuzzer target `encoding`: the bytes as a method type encoding, as a
// plugin's method description gives it. What parses must build a libffi call
// interface, and its canonical form must parse again to the same types.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEncoding(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: size == 0 ? nil : data, count: size), as: UTF8.self)
    checkEncoding(text)
    return 0
}

func checkEncoding(_ text: String) {
    guard let encoding = try? MethodTypeEncoding(parsing: text) else { return }
    guard let again = try? MethodTypeEncoding(parsing: encoding.canonical) else {
        fuzzFail("canonical form \(encoding.canonical.debugDescription) of \(text.debugDescription) does not parse")
    }
    guard again == encoding else {
        fuzzFail("canonical form of \(text.debugDescription) parses differently: \(again) vs \(encoding)")
    }
    guard MethodTypeEncoding.canonicalForm(of: text) == encoding.canonical else { fuzzFail("canonicalForm differs") }
    do {
        let interface = try CallInterface(encoding: encoding)
        guard interface.returnStorageSize >= interface.returnSize else { fuzzFail("return storage too small") }
    } catch {
        // libffi may refuse a signature; that is a load-time rejection, not a crash.
    }
}
