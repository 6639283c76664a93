// libFuzzer target `elf`: the bytes as a plugin file's content, through the
// ELF probe's checks (the in-memory form of `ELFProbe.problem(with:)`).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzELF(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    _ = ELFProbe.problem(bytes: UnsafeRawBufferPointer(start: size == 0 ? nil : data, count: size))
    return 0
}
