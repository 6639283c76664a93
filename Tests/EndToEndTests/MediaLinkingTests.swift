import Foundation
import XCTest

/// Media libraries are linked by the plugins that use them, never by the
/// host: a `cellhost` that cannot load libchafa or libmagic still renders
/// every message (the plugin fails to load and the fallback takes over),
/// and the host's start-up and attack surface do not grow with them.
final class MediaLinkingTests: EndToEndTestCase {

    /// The sonames of media libraries, as `lib<name>` prefixes of the file
    /// names `ldd` prints (`libglib-2.0.so.0`, `libpng16.so.16`, …).
    static let mediaLibraries = ["chafa", "glib", "sndfile", "opusfile", "magic", "gdk_pixbuf",
                                 "png", "jpeg", "webp", "gif"]

    /// The file names of the libraries `ldd` lists for `file` (the first
    /// word of each line, without directories: `libc.so.6`,
    /// `ld-linux-x86-64.so.2`, `linux-vdso.so.1`).
    func linkedLibraries(_ file: URL) throws -> [String] {
        let result = try execute(URL(fileURLWithPath: "/usr/bin/env"), ["ldd", file.path],
                                 environment: ProcessInfo.processInfo.environment, stdin: nil,
                                 currentDirectory: tempRoot, timeout: 60, file: #filePath, line: #line)
        let text = String(decoding: result.stdout, as: UTF8.self)
        XCTAssertEqual(result.status, 0, "ldd \(file.path): \(result.stderr)\(text)")
        let names = text.split(separator: "\n").compactMap { line -> String? in
            guard let word = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).first else { return nil }
            return word.split(separator: "/").last.map(String.init)
        }
        // Not vacuous: every binary here links the C library.
        XCTAssertTrue(names.contains { $0.hasPrefix("libc.so") }, "no libc in the ldd output of \(file.path):\n\(text)")
        return names
    }

    /// The media libraries among `names`.
    func mediaLibraries(in names: [String]) -> [String] {
        names.filter { name in Self.mediaLibraries.contains { name.hasPrefix("lib" + $0) } }
    }

    func test_the_host_binary_links_no_media_library() throws {
        let names = try linkedLibraries(binary)
        XCTAssertEqual(mediaLibraries(in: names), [], "cellhost links media libraries: \(names)")
    }

    func test_the_file_cell_links_libmagic() throws {
        let plugin = binary.deletingLastPathComponent().appendingPathComponent("libFileCell.so")
        let names = try linkedLibraries(plugin)
        XCTAssertTrue(names.contains { $0.hasPrefix("libmagic.so") }, "libFileCell.so links \(names)")
    }
}
