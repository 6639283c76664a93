import Foundation
import XCTest

/// Real plugin libraries for the unit tests: C plugins built with `cc`
/// against the public header, each with one class for one message class,
/// in a directory of their own (removed by `remove()`).
struct TestPlugins {
    /// One class of a plugin, and what it does.
    struct Cell {
        var name: String
        var messageClass: String
        var superclass = "MessageCell"
        var rank: Int32 = 0
        /// What it renders; nil: it declines every message.
        var text: String? = "rendered"
    }

    let directory: String

    init() throws {
        let temporary = NSTemporaryDirectory().hasSuffix("/") ? NSTemporaryDirectory() : NSTemporaryDirectory() + "/"
        var template = Array((temporary + "cellhost-plugins-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw NSError(domain: "TestPlugins", code: Int(errno)) }
        directory = String(cString: made)
    }

    /// Removes the directory and everything built in it.
    func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A directory beside this one, for a second search-path entry.
    func sibling(_ name: String) throws -> TestPlugins {
        let sibling = TestPlugins(existing: directory + "/" + name)
        try FileManager.default.createDirectory(atPath: sibling.directory, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o700])
        return sibling
    }

    private init(existing directory: String) { self.directory = directory }

    /// Builds `<file>.so`: plugin `id` with `cell`, declaring `declares`
    /// (a message class and its parent) when given.
    @discardableResult
    func build(_ file: String, id: String, cell: Cell, declares: (name: String, parent: String)? = nil) throws -> String {
        let output = directory + "/" + file + ".so"
        let source = directory + "/" + file + ".c"
        try Self.source.write(toFile: source, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: source) }
        var defines = ["PLUGIN_ID": id, "CLASS_NAME": cell.name, "SUPERCLASS": cell.superclass,
                       "MESSAGE_CLASS": cell.messageClass]
        if let text = cell.text { defines["TEXT"] = text }
        if let declares {
            defines["DECLARED"] = declares.name
            defines["DECLARED_PARENT"] = declares.parent
        }
        var arguments = ["cc", "-std=c99", "-Wall", "-Werror", "-shared", "-fPIC", "-I", Self.includeDirectory,
                         "-DRANK=\(cell.rank)"]
        arguments += defines.sorted { $0.key < $1.key }.map { "-D\($0.key)=\"\($0.value)\"" }
        arguments += [source, "-o", output]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw NSError(domain: "TestPlugins", code: Int(process.terminationStatus),
                          userInfo: [NSLocalizedDescriptionKey: "cc failed for \(file)"])
        }
        return output
    }

    static var includeDirectory: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/CellHostABI/include").path
    }

    /// One class (`CLASS_NAME : SUPERCLASS`, for `MESSAGE_CLASS` at `RANK`)
    /// that appends `TEXT`, or declines when `TEXT` is not defined.
    static let source = #"""
        #include <cellhost/cellhost.h>

        static int32_t render(cellhost_object *self, cellhost_sel cmd, const cellhost_message *msg,
                              const cellhost_context *ctx, cellhost_builder *out) {
            (void)self; (void)cmd; (void)msg;
        #ifdef TEXT
            const cellhost_builder_api *builder =
                (const cellhost_builder_api *)ctx->host->get_extension(ctx->host, CELLHOST_EXT_BUILDER);
            static const char text[] = TEXT;
            builder->append(out, text, sizeof text - 1, CELLHOST_STYLE_PLAIN);
            return CELLHOST_RENDERED;
        #else
            (void)ctx; (void)out;
            return CELLHOST_DECLINED;
        #endif
        }

        static const cellhost_method methods[] = {
            CELLHOST_METHOD(CELLHOST_SEL_RENDER, CELLHOST_TYPES_RENDER, render),
        };
        static const char *const renders[] = { MESSAGE_CLASS, NULL };
        static const cellhost_class classes[] = {
            { .struct_size = sizeof(cellhost_class), .name = CLASS_NAME, .superclass = SUPERCLASS,
              .message_classes = renders, .rank = RANK, .methods = methods, .method_count = 1 },
        };
        #ifdef DECLARED
        static const cellhost_message_class declared[] = {
            { .struct_size = sizeof(cellhost_message_class), .name = DECLARED, .parent = DECLARED_PARENT },
        };
        #endif
        static const cellhost_plugin_descriptor descriptor = {
            .abi = CELLHOST_ABI_VERSION_INIT,
            .struct_size = sizeof(cellhost_plugin_descriptor),
            .id = PLUGIN_ID,
            .version = "1.0.0",
            .classes = classes,
            .class_count = 1,
        #ifdef DECLARED
            .message_classes = declared,
            .message_class_count = 1,
        #endif
        };

        CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void) { return &descriptor; }
        """#
}
