import CellHostABI
import Glibc

/// Chunked storage for NUL-terminated strings whose addresses must not move
/// while a plugin holds them.
final class StringArena {
    private var chunks: [UnsafeMutablePointer<UInt8>] = []
    private var chunkSizes: [Int] = []
    /// How many bytes of each chunk before the current one hold strings
    /// (the rest is uninitialized); the current one's count is `used`.
    private var chunkFilled: [Int] = []
    private var current = 0
    private var used = 0
    /// The current chunk and its size (nil and 0 before the first store),
    /// kept beside the arrays so that a store that fits touches none of them.
    private var currentBase: UnsafeMutablePointer<UInt8>?
    private var currentSize = 0
    private static let chunkSize = 1 << 14

    deinit { for chunk in chunks { chunk.deallocate() } }

    /// Empties the arena for the next message. Most messages' strings fit
    /// the first chunk and need no scratch buffer: then rewinding is all
    /// there is to do, and the arrays (heap blocks of their own, last
    /// touched by whichever thread used the message; reading one missed the
    /// cache often enough to take 1.4 % of the time profile) are not read.
    func reset() {
        current = 0
        used = 0
        guard spilled else { return }
        spilled = false
        // Keep the first chunk only, so one huge message does not pin memory.
        while chunks.count > 1 {
            chunks.removeLast().deallocate()
            chunkSizes.removeLast()
            chunkFilled.removeLast()
        }
        // Nor one huge string: a first chunk or scratch buffer over the
        // threshold is given back.
        if let size = chunkSizes.first, size > StringArena.chunkSize {
            chunks.removeLast().deallocate()
            chunkSizes.removeLast()
            chunkFilled.removeLast()
        }
        if !chunkFilled.isEmpty { chunkFilled[0] = 0 }
        currentBase = chunks.first
        currentSize = chunkSizes.first ?? 0
        if scratch.capacity > StringArena.keptScratch { scratch = [] }
        if decoded.capacity > StringArena.keptScratch { decoded = [] }
    }

    /// Set when a chunk was started or a scratch buffer used since the last
    /// `reset`, which has more to do than rewinding then. While it is clear,
    /// the first chunk is the current one and the only one holding strings.
    private var spilled = false

    /// Scratch buffers larger than this are released on `reset`.
    private static let keptScratch = 1 << 20

    /// Copies `bytes` plus a NUL and returns the copy. Private: every
    /// string here is sanitized, which `holdsSanitized` relies on. Inlined
    /// into `storeIfSafe`, and short strings (names, ids) are copied
    /// without a call to memcpy (`OutputBuffer.copy`).
    @inline(__always)
    private func store(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafePointer<CChar> {
        let needed = bytes.count + 1
        if used + needed > currentSize { startChunk(for: needed) }
        let target = currentBase.unsafelyUnwrapped + used
        if let base = bytes.baseAddress { OutputBuffer.copy(UnsafeRawPointer(base), to: target, count: bytes.count) }
        target[bytes.count] = 0
        used += needed
        return UnsafeRawPointer(target).assumingMemoryBound(to: CChar.self)
    }

    /// Makes a chunk with room for `needed` bytes the current one: the next
    /// one kept, when it is large enough, else a new one.
    private func startChunk(for needed: Int) {
        spilled = true
        if !chunks.isEmpty { chunkFilled[current] = used }
        if current + 1 < chunks.count, needed <= chunkSizes[current + 1] {
            current += 1
        } else {
            let size = max(StringArena.chunkSize, needed)
            chunks.append(.allocate(capacity: size))
            chunkSizes.append(size)
            chunkFilled.append(0)
            current = chunks.count - 1
        }
        used = 0
        currentBase = chunks[current]
        currentSize = chunkSizes[current]
    }

    /// The bytes of chunk `index` that hold strings.
    private func filled(_ index: Int) -> Int { index == current ? used : chunkFilled[index] }

    /// True when `span` lies inside one string stored here since the last
    /// `reset` and starts and ends at character boundaries: it is then a
    /// run of sanitized characters, and sanitizing it again would copy it
    /// unchanged (newlines aside: strings keep them, and the builder splits
    /// text into lines before it asks). This is how the builder skips re-checking the message
    /// text a plugin hands back as spans (TextCell's whole output). A span
    /// anywhere else, across a string's NUL, or cutting a character gets
    /// `false` and is sanitized as usual.
    ///
    /// Inlined into the canvas's `append` (a call per span a plugin hands
    /// back): the current chunk is looked at first, from this object's own
    /// fields; most messages use no other, and the arrays are then not read.
    @inline(__always)
    func holdsSanitized(_ span: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let start = span.baseAddress, !span.isEmpty else { return false }
        if let base = currentBase, Self.span(span, liesIn: base, filled: used) { return Self.isCleanSlice(span, start) }
        return current > 0 && earlierChunksHoldSanitized(span, start)
    }

    /// `holdsSanitized` for the chunks before the current one.
    @inline(never)
    private func earlierChunksHoldSanitized(_ span: UnsafeBufferPointer<UInt8>, _ start: UnsafePointer<UInt8>) -> Bool {
        for index in 0..<current where Self.span(span, liesIn: chunks[index], filled: chunkFilled[index]) {
            return Self.isCleanSlice(span, start)
        }
        return false
    }

    /// True when `span` starts within the `filled` bytes from `chunk` and
    /// ends before the last of them (a NUL, which `isCleanSlice` reads).
    @inline(__always)
    private static func span(_ span: UnsafeBufferPointer<UInt8>, liesIn chunk: UnsafeMutablePointer<UInt8>,
                             filled: Int) -> Bool {
        let address = UInt(bitPattern: span.baseAddress), chunk = UInt(bitPattern: chunk), stored = UInt(filled)
        return address >= chunk && address - chunk < stored && stored - (address - chunk) > UInt(span.count)
    }

    /// For a non-empty span inside one stored string: true when it starts
    /// and ends at character boundaries and holds no control byte.
    @inline(__always)
    private static func isCleanSlice(_ span: UnsafeBufferPointer<UInt8>, _ start: UnsafePointer<UInt8>) -> Bool {
        // The byte after the span exists (at worst the string's NUL);
        // neither it nor the first byte may continue a character.
        guard start[0] & 0xC0 != 0x80, start[span.count] & 0xC0 != 0x80 else { return false }
        // The strings are read-only to plugins; one that writes into them
        // anyway (a tokenizer putting tabs or NULs in place) must not get
        // control bytes past the sanitizer, so those are looked for, eight
        // bytes at a time (what stays unchecked is non-ASCII that a plugin
        // would have to write on purpose, and in-process code can write
        // to the terminal anyway).
        return !hasControlByte(span)
    }

    /// True when `bytes` holds a C0 control (NUL included) or DEL.
    ///
    /// Sixteen bytes a turn as `SIMD16` (SSE2 compares on x86-64, half the
    /// instructions of two 64-bit words), then the last sixteen bytes
    /// overlapping those already looked at (for a span of at least sixteen),
    /// or its first and last eight (eight to fifteen bytes), rather than a
    /// loop per byte. Inlined into the builder's `append` (through
    /// `holdsSanitized`), a call for every span of the message's strings
    /// a plugin hands back (16 399 for 10 000 `real` messages): the
    /// callback then costs 5.38 M instructions for them instead of 5.64 M.
    @inline(__always)
    static func hasControlByte(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        let count = bytes.count
        @inline(__always) func controls(_ bytes: SIMD16<UInt8>) -> SIMDMask<SIMD16<Int8>> {
            (bytes .< SIMD16<UInt8>(repeating: 0x20)) .| (bytes .== SIMD16<UInt8>(repeating: 0x7F))
        }
        @inline(__always) func vector(_ at: Int) -> SIMD16<UInt8> {
            UnsafeRawPointer(base + at).loadUnaligned(as: SIMD16<UInt8>.self)
        }
        @inline(__always) func word(_ at: Int) -> UInt64 {
            UnsafeRawPointer(base + at).loadUnaligned(as: UInt64.self)
        }
        var flagged = SIMDMask<SIMD16<Int8>>(repeating: false)
        if count >= 16 {
            var index = 0
            while index &+ 16 <= count {
                flagged .|= controls(vector(index))
                index &+= 16
            }
            if index < count { flagged .|= controls(vector(count &- 16)) }
        } else if count >= 8 {
            flagged = controls(unsafeBitCast(SIMD2<UInt64>(word(0), word(count &- 8)), to: SIMD16<UInt8>.self))
        } else {
            for index in 0..<count where bytes[index] < 0x20 || bytes[index] == 0x7F { return true }
            return false
        }
        return flagged.anyLane
    }

    /// Stores `bytes` sanitized (escape sequences removed whole, controls
    /// made visible, newlines kept), as every string handed to a plugin is:
    /// a plugin that splits text into spans cannot split an escape sequence.
    ///
    /// At most `stringLimit` bytes are handed over (cut at a character
    /// boundary): a cell cannot show more than the per-message byte cap, and
    /// a 15 MiB string must not cost a plugin (and the host) a multiple of it.
    ///
    /// Inlined (a plugin reads a string or two a message through it): its
    /// callers call `storeIfSafe`, and only the rare string that needs
    /// sanitizing goes on to `storeSanitizing`.
    @inline(__always)
    func storeSanitized(_ bytes: UnsafeBufferPointer<UInt8>) -> cellhost_string {
        let bytes = StringArena.prefix(bytes, stringLimit)
        if let stored = storeIfSafe(bytes) { return stored }
        return storeSanitizing(bytes)
    }

    /// `storeSanitized` for `bytes` (at most `stringLimit` of them) that
    /// sanitizing changes.
    @inline(never)
    private func storeSanitizing(_ bytes: UnsafeBufferPointer<UInt8>) -> cellhost_string {
        spilled = true
        scratch.removeAll(keepingCapacity: true)
        Sanitizer.sanitize(bytes, into: &scratch, keepingNewlines: true)
        let stored = scratch.withUnsafeBufferPointer { store(StringArena.prefix($0, stringLimit)) }
        return cellhost_string(data: stored, length: min(scratch.count, StringArena.prefix(scratch, stringLimit)))
    }

    /// Stores `bytes` as they are when sanitizing would leave them so: at
    /// most `stringLimit` of them, valid UTF-8 of characters that need no
    /// replacing. Nil, storing nothing, otherwise.
    func storeIfSafe(_ bytes: UnsafeBufferPointer<UInt8>) -> cellhost_string? {
        guard bytes.count <= stringLimit, Sanitizer.isSafe(bytes, keepingNewlines: true, table: table) else { return nil }
        return cellhost_string(data: store(bytes), length: bytes.count)
    }

    /// The longest prefix of `bytes` of at most `limit` bytes ending at a
    /// character boundary.
    static func prefix(_ bytes: UnsafeBufferPointer<UInt8>, _ limit: Int) -> UnsafeBufferPointer<UInt8> {
        guard bytes.count > limit else { return bytes }
        var end = max(0, limit)
        while end > 0, bytes[end] & 0xC0 == 0x80 { end -= 1 }
        return UnsafeBufferPointer(rebasing: bytes[..<end])
    }

    /// The length of that prefix for an array.
    private static func prefix(_ bytes: [UInt8], _ limit: Int) -> Int {
        bytes.withUnsafeBufferPointer { prefix($0, limit).count }
    }

    /// The most bytes of one string handed to a plugin (the session sets its
    /// per-message byte cap here).
    var stringLimit = OutputLimits.standard.bytes

    /// Stores the string at `node` of `document`, decoded and sanitized;
    /// escape-free strings are taken straight from the document's bytes.
    /// Inlined into the host's `string` accessor, as `storeSanitized` is.
    @inline(__always)
    func storeSanitized(_ document: JSONDocument, _ node: Int) -> cellhost_string {
        if let range = document.rawString(node) {
            return document.bytes.withUnsafeBufferPointer { storeSanitized(UnsafeBufferPointer(rebasing: $0[range])) }
        }
        return storeDecoded(document, node)
    }

    /// `storeSanitized` for a string with escapes, decoded first.
    @inline(never)
    private func storeDecoded(_ document: JSONDocument, _ node: Int) -> cellhost_string {
        spilled = true
        decoded.removeAll(keepingCapacity: true)
        document.appendString(node, to: &decoded)
        let copy = decoded
        return copy.withUnsafeBufferPointer { storeSanitized($0) }
    }

    private var scratch: [UInt8] = []
    private var decoded: [UInt8] = []
    /// Where `storeIfSafe` looks up non-ASCII characters, read once here:
    /// each read of `CodePointProperties.table` is a `swift_once` check.
    private let table = CodePointProperties.table
}
