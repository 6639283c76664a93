internal import CellHostABI

/// Severity of a log line.
public enum LogLevel: Int32, Sendable {
    /// Shown with `--verbose`.
    case debug = 0
    /// Shown with `--verbose`.
    case info = 1
    /// Shown on stderr, prefixed with the plugin id.
    case warning = 2
    /// Shown on stderr, prefixed with the plugin id.
    case error = 3
}

/// The host, as seen by one plugin: a thin wrapper over the plugin's C host
/// table (`cellhost_host`).
///
/// A plugin never writes to stdout or stderr (the host owns both, and stdout
/// may be a JSON stream); it logs through its host instead. Use a `Host` only
/// inside a call the host made into the plugin (`setUp`, or a renderer
/// method), on that thread.
public struct Host {
    /// The `const cellhost_host *` this wraps.
    let table: UnsafePointer<cellhost_host>

    init(_ table: UnsafePointer<cellhost_host>) { self.table = table }

    /// The host table as an untyped pointer, for code that talks to the C
    /// contract directly (`#include <cellhost/cellhost.h>`: cast it to
    /// `const cellhost_host *`). Valid until the plugin is unloaded.
    public var rawTable: UnsafeRawPointer { UnsafeRawPointer(table) }

    /// The ABI version the host implements, as (major, minor).
    public var abiVersion: (major: Int, minor: Int) {
        (Int(table.pointee.abi.major), Int(table.pointee.abi.minor))
    }

    /// Logs one line. The host copies and sanitizes it, and prefixes warnings
    /// and errors with the plugin id on stderr. Text after a NUL character is
    /// not shown.
    public func log(_ level: LogLevel, _ message: String) {
        guard let log = table.pointee.log else { return }
        let cLevel = cellhost_log_level(rawValue: UInt32(bitPattern: level.rawValue))
        message.withCString { log(table, cLevel, $0) }
    }
}
