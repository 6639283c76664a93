import CUTF8Proc
import Synchronization

/// The facts about a code point that measuring and sanitizing ask for on
/// every character of non-ASCII text, from utf8proc, in one byte.
///
/// utf8proc answers each question with a property-table walk and, for
/// grapheme breaks, a state machine. Most of the world's text (accented
/// Latin, Cyrillic, Greek, CJK, Arabic and Hebrew letters) is made of code
/// points that always start a cluster of their own, so one look-up here
/// replaces those calls; the rest (marks, joiners, emoji, Hangul jamo,
/// regional indicators) still goes through utf8proc.
///
/// The table is filled a page (256 code points) at a time on first use,
/// so start-up pays only for the scripts a run meets. Safe to use from
/// several threads: a page is published with a compare-and-exchange, and
/// a thread that loses the race frees its copy.
struct CodePointProperties {
    let bits: UInt8

    /// `utf8proc_charwidth`: the columns `wcwidth` gives it (0, 1 or 2).
    @inline(__always) var width: Int32 { Int32(bits & 0x3) }
    /// Grapheme break class "Other": a cluster boundary comes before it
    /// (unless the code point before is a prepend mark) and nothing attaches
    /// it to the code point before.
    @inline(__always) var startsCluster: Bool { bits & 0x4 != 0 }
    /// Grapheme break class "Prepend": it attaches to the code point after it.
    @inline(__always) var isPrepend: Bool { bits & 0x8 != 0 }
    /// An invisible format character the sanitizer shows as `<U+XXXX>`
    /// (`Sanitizer.isHiddenFormat`).
    @inline(__always) var isHiddenFormat: Bool { bits & 0x10 != 0 }

    /// The properties of `scalar` (a valid Unicode scalar value).
    @inline(__always)
    static func of(_ scalar: UInt32) -> CodePointProperties { table.of(scalar) }

    /// The table itself, for a loop over many code points: `pages` is a
    /// lazily initialized static, checked (`swift_once`) where it is read,
    /// so a loop reads it once instead of once per code point.
    static var table: Table { Table(pages: pages) }

    /// U+2500–U+259F (box drawing, block elements) and U+2800–U+28FF
    /// (braille), what previews, charts and waveforms are drawn with: one
    /// column wide, and each starts a cluster of its own (a test checks
    /// both against utf8proc), so they need no look-up.
    @inline(__always)
    static func isNarrowSymbol(_ scalar: UInt32) -> Bool {
        (scalar >= 0x2500 && scalar <= 0x259F) || (scalar >= 0x2800 && scalar <= 0x28FF)
    }

    /// The end of the run of narrow symbols (`isNarrowSymbol`, all three
    /// bytes long in UTF-8) that starts at `start`, within `end`: `start`
    /// when there is none. Each symbol is checked on its bytes, read as one
    /// big-endian number (lead byte, then two continuation bytes) in one of
    /// two ranges, with no decoding. Not inlined: a loop of its own, with
    /// its own registers (a waveform or a bar is dozens long).
    @inline(never)
    static func narrowSymbolRunEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, end: Int) -> Int {
        guard let base = bytes.baseAddress, start >= 0, end <= bytes.count else { return start }
        var index = start
        // Eight block elements (24 bytes: three words, each byte masked by
        // its place in the three-byte pattern E2 96 80–9F) at a time: a
        // poll's bar or a waveform is mostly these.
        while index &+ 24 <= end {
            let raw = UnsafeRawPointer(base + index)
            let first = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
            let second = UInt64(littleEndian: (raw + 8).loadUnaligned(as: UInt64.self))
            let third = UInt64(littleEndian: (raw + 16).loadUnaligned(as: UInt64.self))
            guard first & 0xFFFF_E0FF_FFE0_FFFF == 0x96E2_8096_E280_96E2,
                  second & 0xFFE0_FFFF_E0FF_FFE0 == 0xE280_96E2_8096_E280,
                  third & 0xE0FF_FFE0_FFFF_E0FF == 0x8096_E280_96E2_8096 else { break }
            index &+= 24
        }
        while index &+ 3 <= end {
            // Two block elements (U+2580–U+259F, E2 96 80–9F; waveforms
            // and bars) at once, checked with one mask.
            if index &+ 6 <= end, index &+ 8 <= bytes.count {
                let pair = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                if pair & 0xE0FF_FFE0_FFFF == 0x8096_E280_96E2 {
                    index &+= 6
                    continue
                }
            }
            // Four bytes at once where the buffer has a fourth (the last one is dropped).
            let sequence = index &+ 4 <= bytes.count
                ? UInt32(bigEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt32.self)) &>> 8
                : UInt32(base[index]) << 16 | UInt32(base[index &+ 1]) << 8 | UInt32(base[index &+ 2])
            // E2 94 80 – E2 96 9F is U+2500–U+259F, E2 A0 80 – E2 A3 BF is U+2800–U+28FF.
            guard sequence & 0xC0 == 0x80,
                  sequence &- 0xE2_9480 <= 0xE2_969F - 0xE2_9480 || sequence &- 0xE2_A080 <= 0xE2_A3BF - 0xE2_A080 else { break }
            index &+= 3
        }
        return index
    }

    /// The code points of two bytes in UTF-8 (U+0080–U+07FF) that are one
    /// column wide and start a cluster of their own (a unit in `wcwidth`
    /// mode): most accented Latin, Greek, Cyrillic, Hebrew and Arabic
    /// letters, not their marks. Word `lead & 0x1F`, bit `second & 0x3F`
    /// (the two leads of overlong forms, C0 and C1, have none). Made from
    /// the table once; allocated once and never freed (as a static).
    nonisolated(unsafe) static let narrowLetters: UnsafePointer<UInt64> = {
        let words = UnsafeMutablePointer<UInt64>.allocate(capacity: 32)
        let table = CodePointProperties.table
        for lead in 0..<32 {
            var word: UInt64 = 0
            for offset in 0..<64 where lead >= 2 {
                let properties = table.of(UInt32(lead << 6 | offset))
                if properties.width == 1, properties.startsCluster { word |= 1 << UInt64(offset) }
            }
            words[lead] = word
        }
        return UnsafePointer(words)
    }()

    /// The end of the run of `narrowLetters` from `start` (within `end`)
    /// that are each a cluster of one column, as `ClusterScanner` finds
    /// them after ASCII or after each other: all of them when ASCII or
    /// the end follows, else all but the last (which a mark or joiner
    /// after it may join). `start` when there is none; valid two-byte
    /// sequences only (a stray byte ends the run). For the wrapper, which
    /// collects such a run into a word at once instead of scanning it.
    ///
    /// Text that starts with a longer sequence (CJK, emoji: 8 240 of the
    /// wrapper's 18 273 calls for 10 000 `real` messages) is turned away on
    /// its lead byte, before the table is read (each read is a `swift_once`
    /// check and a call).
    @inline(__always)
    static func narrowLetterRunEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, end: Int) -> Int {
        guard start &+ 1 < end, bytes[start] & 0xE0 == 0xC0 else { return start }
        let letters = narrowLetters
        var index = start
        while index &+ 1 < end {
            let lead = bytes[index]
            let second = bytes[index &+ 1]
            guard lead & 0xE0 == 0xC0, second & 0xC0 == 0x80,
                  letters[Int(lead & 0x1F)] &>> UInt64(second & 0x3F) & 1 != 0 else { break }
            index &+= 2
        }
        if index > start, index < end, bytes[index] >= 0x80 { index &-= 2 }
        return index
    }

    /// A handle on the filled pages.
    struct Table {
        fileprivate let pages: UnsafeMutablePointer<Atomic<UInt>>

        /// The properties of `scalar` (a valid Unicode scalar value).
        @inline(__always)
        func of(_ scalar: UInt32) -> CodePointProperties {
            let page = Int(scalar >> 8)
            guard page < CodePointProperties.pageCount else { return CodePointProperties(bits: 0x1) }
            let address = pages[page].load(ordering: .acquiring)
            let table = address != 0 ? UnsafePointer<UInt8>(bitPattern: address).unsafelyUnwrapped : CodePointProperties.fill(page)
            return CodePointProperties(bits: table[Int(scalar & 0xFF)])
        }
    }

    fileprivate static let pageCount = 0x110000 >> 8

    /// One slot per page: the address of its 256 entries, 0 until filled.
    /// Allocated once and never freed (as a static).
    nonisolated(unsafe) private static let pages: UnsafeMutablePointer<Atomic<UInt>> = {
        let pages = UnsafeMutablePointer<Atomic<UInt>>.allocate(capacity: pageCount)
        for index in 0..<pageCount { (pages + index).initialize(to: Atomic<UInt>(0)) }
        return pages
    }()

    fileprivate static func fill(_ page: Int) -> UnsafePointer<UInt8> {
        let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        for offset in 0..<256 {
            let scalar = UInt32(page << 8 | offset)
            table[offset] = compute(scalar)
        }
        let address = UInt(bitPattern: table)
        let (exchanged, current) = pages[page].compareExchange(expected: 0, desired: address,
                                                               successOrdering: .acquiringAndReleasing,
                                                               failureOrdering: .acquiring)
        if exchanged { return UnsafePointer(table) }
        table.deallocate()
        return UnsafePointer<UInt8>(bitPattern: current).unsafelyUnwrapped
    }

    /// The entry of one code point, from its utf8proc property record (read
    /// once: `utf8proc_charwidth` and `utf8proc_category` each look it up
    /// again and return one of its fields).
    static func compute(_ scalar: UInt32) -> UInt8 {
        if scalar >= 0xD800 && scalar < 0xE000 { return 0x1 }
        let property = utf8proc_get_property(Int32(bitPattern: scalar)).pointee
        var bits = UInt8(clamping: min(property.charwidth, 2))
        let boundclass = Int32(property.boundclass)
        if boundclass == Int32(UTF8PROC_BOUNDCLASS_OTHER.rawValue) { bits |= 0x4 }
        if boundclass == Int32(UTF8PROC_BOUNDCLASS_PREPEND.rawValue) { bits |= 0x8 }
        if Sanitizer.computeHiddenFormat(scalar, category: utf8proc_category_t(UInt32(property.category))) { bits |= 0x10 }
        return bits
    }
}
