/// C strings that live until the plugin is unloaded: the descriptor, class
/// names, selectors and encodings handed to the host must stay valid until
/// `deinit` returns, so they are allocated once and never freed.
enum PermanentCString {
    /// A NUL-terminated copy of `string` that is never freed. A NUL inside
    /// `string` ends the C string there.
    static func make(_ string: String) -> UnsafePointer<CChar> {
        let bytes = Array(string.utf8)
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
        for (index, byte) in bytes.enumerated() {
            buffer[index] = CChar(bitPattern: byte)
        }
        buffer[bytes.count] = 0
        return UnsafePointer(buffer)
    }

    /// `make(_:)`, or `nil` for `nil`.
    static func makeOptional(_ string: String?) -> UnsafePointer<CChar>? {
        string.map { make($0) }
    }

    /// A NULL-terminated array of permanent C strings.
    static func array(_ strings: [String]) -> UnsafePointer<UnsafePointer<CChar>?> {
        let buffer = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: strings.count + 1)
        for (index, string) in strings.enumerated() {
            (buffer + index).initialize(to: make(string))
        }
        (buffer + strings.count).initialize(to: nil)
        return UnsafePointer(buffer)
    }
}
