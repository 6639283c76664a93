internal import CellHostABI

/// Severity of a log line.
public enum LogLevel: Int32, Sendable {
    /// Shown with `--verbose`.
    case debug = 0
    /// Shown with `--verbose`.
    case info = 1
    /// Shown on stderr, prefixed with the plugin id.
    case warning = 2
    /// Shown on stderr, prefixed with the plugin id; the reason of a render
    /// that fails.
    case error = 3
}

/// The host, as seen by one plugin: the plugin's C host table
/// (`cellhost_host`) and the host extensions CellKit uses (message, builder
/// and log), each asked for once per host table and then kept.
///
/// A plugin never writes to stdout or stderr (the host owns both, and stdout
/// may be a JSON stream); it logs through its host instead. Use a `Host` only
/// inside a call the host made into the plugin (`setUp`, or a renderer
/// method), on that thread.
public struct Host {
    /// The `const cellhost_host *` this wraps.
    let table: UnsafePointer<cellhost_host>
    /// Where the extensions of `table` are kept (`Runtime.extensions(of:)`:
    /// fetched once, never freed). A pointer, so that a `Host`, which every
    /// call's context, message and builder carry, is two words to copy.
    private let extensionsAddress: UnsafePointer<HostExtensions>

    /// The extensions of `table`.
    var extensions: HostExtensions { extensionsAddress.pointee }

    /// `cache` is the calling thread's `ThreadCache.current`, passed by a
    /// caller that reads it once for a whole call.
    @inline(__always)
    init(_ table: UnsafePointer<cellhost_host>, cache: UnsafeMutablePointer<ThreadCache>? = ThreadCache.current) {
        self.table = table
        extensionsAddress = Runtime.extensions(of: table, cache: cache)
    }

    /// The host table as an untyped pointer, for code that talks to the C
    /// contract directly (`#include <cellhost/cellhost.h>`: cast it to
    /// `const cellhost_host *`). Valid until the plugin's `deinit` returns.
    public var rawTable: UnsafeRawPointer { UnsafeRawPointer(table) }

    /// The ABI version the host implements, as (major, minor).
    public var abiVersion: (major: Int, minor: Int) {
        (Int(table.pointee.abi.major), Int(table.pointee.abi.minor))
    }

    /// What the output can show, from the host's `cellhost.output`
    /// extension; `nil` from a host that does not offer it. The settings hold
    /// for the whole run.
    public var output: OutputInfo? {
        guard let info = extensions.output?.pointee.info else { return nil }
        var out = cellhost_output_info()
        out.struct_size = UInt32(MemoryLayout<cellhost_output_info>.size)
        info(table, &out)
        return OutputInfo(out)
    }

    /// Logs one line through the host's `cellhost.log` extension. The host
    /// copies and sanitizes it, and prefixes warnings and errors with the
    /// plugin id on stderr. Text after a NUL character is not shown. Does
    /// nothing when the host offers no log extension.
    public func log(_ level: LogLevel, _ message: String) {
        guard let log = extensions.log?.pointee.log else { return }
        message.withCString { log(table, cellhost_log_level(level.rawValue), $0) }
    }
}

/// What the output can show: its format, its colours, and the user's image
/// settings (`--images`, `--image-rows`). A cell that draws a picture sizes
/// and colours it with these; with no colours only the characters of a row
/// are shown, so the picture must be in the characters.
public struct OutputInfo: Sendable, Equatable {
    /// `html`: a page; the host shows pictures itself (`showsImages` is false).
    public enum Format: Sendable, Equatable { case ansi, plain, json, html }
    public enum Colors: Int, Sendable, Comparable {
        case none = 0, sixteen = 1, palette256 = 2, trueColor = 3
        public static func < (a: Colors, b: Colors) -> Bool { a.rawValue < b.rawValue }
    }
    public var format: Format
    public var colors: Colors
    /// False with `--images none`: draw no preview.
    public var showsImages: Bool
    /// The most rows a picture may take; at least 1.
    public var imageRows: Int

    public init(format: Format, colors: Colors, showsImages: Bool, imageRows: Int) {
        self.format = format
        self.colors = colors
        self.showsImages = showsImages
        self.imageRows = max(1, imageRows)
    }

    init(_ info: cellhost_output_info) {
        switch info.format {
        case cellhost_output_format(CELLHOST_FORMAT_ANSI): format = .ansi
        case cellhost_output_format(CELLHOST_FORMAT_JSON): format = .json
        case cellhost_output_format(CELLHOST_FORMAT_HTML): format = .html
        default: format = .plain
        }
        colors = Colors(rawValue: Int(info.colors)) ?? .none
        showsImages = info.images == cellhost_image_mode(CELLHOST_IMAGES_SYMBOLS)
        imageRows = max(1, Int(clamping: info.image_rows))
    }
}

/// The host extensions CellKit uses, for one host table. Each is `nil` when
/// the host does not offer it or offers a table smaller than the ABI 2.0
/// one: CellKit calls only ABI 2.0 functions, so it accepts a table only
/// when its `struct_size` covers all of them.
struct HostExtensions {
    var message: UnsafePointer<cellhost_message_api>?
    var builder: UnsafePointer<cellhost_builder_api>?
    var log: UnsafePointer<cellhost_log_api>?
    var output: UnsafePointer<cellhost_output_api>?
    /// True when the table itself is usable (`HostTable.isUsable`): CellKit
    /// calls `object_ivars` and `send_super` only then.
    var tableIsUsable = false

    /// Asks `table` for each extension (three host calls).
    init(fetchingFrom table: UnsafePointer<cellhost_host>) {
        guard HostTable.isUsable(table) else { return }
        tableIsUsable = true
        guard let get = table.pointee.get_extension else { return }
        message = Self.fetch(get(table, CELLHOST_EXT_MESSAGE), as: cellhost_message_api.self)
        builder = Self.fetch(get(table, CELLHOST_EXT_BUILDER), as: cellhost_builder_api.self)
        log = Self.fetch(get(table, CELLHOST_EXT_LOG), as: cellhost_log_api.self)
        output = Self.fetch(get(table, CELLHOST_EXT_OUTPUT), as: cellhost_output_api.self)
    }

    /// `raw` as a `T` table when its leading `struct_size` covers all of `T`.
    private static func fetch<T>(_ raw: UnsafeRawPointer?, as type: T.Type) -> UnsafePointer<T>? {
        guard let raw, Int(raw.load(as: UInt32.self)) >= MemoryLayout<T>.size else { return nil }
        return raw.assumingMemoryBound(to: T.self)
    }
}

/// Checks on a host table before CellKit calls through it.
enum HostTable {
    /// True when `table` is an ABI 2.x table (compatible with the headers
    /// CellKit was built against) whose `struct_size` covers every member.
    static func isUsable(_ table: UnsafePointer<cellhost_host>) -> Bool {
        let ours = cellhost_version(major: UInt32(CELLHOST_ABI_MAJOR), minor: UInt32(CELLHOST_ABI_MINOR))
        return cellhost_version_is_compatible(table.pointee.abi, ours)
            && Int(table.pointee.struct_size) >= MemoryLayout<cellhost_host>.size
    }
}
