/// The files `cellhost new-plugin` writes: a C or Swift plugin that renders
/// one message class, with a sample message and a README of the three
/// commands (build, check, render).
struct PluginTemplate {
    enum Language: String { case c, swift }

    /// Paths relative to the new directory, and their contents.
    let files: [(path: String, contents: String)]

    /// Message classes the host declares; another TYPE is declared by the
    /// plugin, under "text" (so its messages fall back to the text cell).
    static let hostMessageClasses: Set<String> = ["text", "file", "image", "voice", "video", "sticker", "poll"]

    /// Where a new plugin's build finds the contract headers (and, for
    /// Swift, CellKit): a CellHost checkout, or an installation prefix
    /// (`PREFIX/include/cellhost`; CellKit is not installed).
    enum SDK: Equatable {
        case checkout(String)
        case installed(prefix: String)

        /// The directory to pass to `cc -I`.
        var includeDirectory: String {
            switch self {
            case let .checkout(root): return root + "/Sources/CellHostABI/include"
            case let .installed(prefix): return prefix + "/include"
            }
        }

        /// The plugin ABI reference.
        var abiDocument: String {
            switch self {
            case let .checkout(root): return root + "/docs/plugin-abi.md"
            case let .installed(prefix): return prefix + "/share/doc/cellhost/docs/plugin-abi.md"
            }
        }

        /// The package holding CellKit, if there is one.
        var cellKitPackage: String? {
            if case let .checkout(root) = self { return root }
            return nil
        }
    }

    init(name: String, language: Language, messageType: String?, executable: String, sdk: SDK) throws {
        guard let first = name.unicodeScalars.first, ("a"..."z").contains(first),
              name.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }),
              name.count <= 64 else {
            throw UsageError(message: "new-plugin: NAME must start with a-z and hold only a-z, 0-9 and '-' (at most 64), not '\(name)'")
        }
        let type = messageType ?? name
        guard !type.isEmpty, type.utf8.count <= 64,
              type.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0 != "\"" && $0 != "\\" && $0 != "." }) else {
            throw UsageError(message: "new-plugin: --type must be 1 to 64 printable ASCII characters without spaces, quotes, "
                + "backslashes or dots, not '\(type)'")
        }
        let camel = name.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        let names = Names(plugin: name, camel: camel, className: camel + "MessageCell", type: type,
                          declares: !Self.hostMessageClasses.contains(type), executable: executable, sdk: sdk)
        let sample = Self.sample(names)
        switch language {
        case .c:
            files = [("\(name).c", Self.cSource(names)), ("sample.jsonl", sample), ("README.md", Self.cReadme(names))]
        case .swift:
            files = [("Package.swift", Self.swiftPackage(names)), ("Sources/\(camel)/\(camel).swift", Self.swiftSource(names)),
                     ("sample.jsonl", sample), ("README.md", Self.swiftReadme(names))]
        }
    }

    struct Names {
        var plugin: String
        var camel: String
        var className: String
        var type: String
        var declares: Bool
        var executable: String
        var sdk: SDK
    }

    /// Two messages of the type: one with the payload the cell reads, one without.
    static func sample(_ n: Names) -> String {
        """
        {"id":"1","type":"\(n.type)","sender":{"id":"ann","name":"Ann"},"time":"2026-12-01T09:00:00Z","text":"fallback text","\(n.type)":{"title":"Hello from \(n.plugin)"}}
        {"id":"2","type":"\(n.type)","sender":{"id":"bob","name":"Bob"},"time":"2026-12-01T09:01:00Z","text":"no payload: the next renderer shows this"}

        """
    }

    // MARK: C

    static func cSource(_ n: Names) -> String {
        let declaration = n.declares ? """
            static const cellhost_message_class tree[] = {
                /* "\(n.type)" is new: its messages fall back to the "text" cells. */
                { .struct_size = sizeof(cellhost_message_class), .name = "\(n.type)", .parent = "text" },
            };

            """ : ""
        let treeFields = n.declares ? """
                .message_classes = tree,
                .message_class_count = 1,

            """ : ""
        return """
        /* \(n.className): renders "\(n.type)" messages, showing the payload's title and
         * counting the messages it rendered in the conversation (an instance variable).
         *
         * Build:  cc -std=c11 -Wall -shared -fPIC -I \(n.sdk.includeDirectory) \(n.plugin).c -o lib\(n.plugin).so
         * The contract is in <cellhost/cellhost.h> and \(n.sdk.abiDocument). */
        #include <cellhost/cellhost.h>
        #include <stdio.h>
        #include <string.h>

        /* The host's extensions, asked for once in init and kept for the process. */
        static const cellhost_message_api *message_api;
        static const cellhost_builder_api *builder_api;

        /* This class's instance variables: one block per instance, zeroed. */
        typedef struct ivars {
            int64_t rendered;
        } ivars;

        static const cellhost_class classes[1];

        static int32_t render(cellhost_object *self, cellhost_sel cmd, const cellhost_message *msg,
                              const cellhost_context *ctx, cellhost_builder *out) {
            (void)cmd;
            cellhost_string title;
            if (message_api->string(msg, "\(n.type).title", &title) != CELLHOST_FOUND) {
                return CELLHOST_DECLINED; /* no payload: the next candidate renders it */
            }
            ivars *state = ctx->host->object_ivars(self, &classes[0]);
            if (state != NULL) state->rendered += 1;
            builder_api->append(out, title.data, title.length, CELLHOST_STYLE_STRONG);
            char note[64];
            int length = snprintf(note, sizeof note, "  #%lld", state != NULL ? (long long)state->rendered : 0LL);
            builder_api->append(out, note, (size_t)length, CELLHOST_STYLE_MUTED);
            return CELLHOST_RENDERED;
        }

        static int32_t init(const cellhost_host *host, const char **reason) {
            message_api = host->get_extension(host, CELLHOST_EXT_MESSAGE);
            builder_api = host->get_extension(host, CELLHOST_EXT_BUILDER);
            if (message_api == NULL || builder_api == NULL) {
                *reason = "the host lacks the message or builder extension";
                return 1;
            }
            return 0;
        }

        static void deinit(const cellhost_host *host) {
            (void)host;
            message_api = NULL;
            builder_api = NULL;
        }

        /* Sample messages for `cellhost check-plugin` (samples.h). */
        static const char *const sample_messages[] = {
            "{\\"type\\":\\"\(n.type)\\",\\"text\\":\\"t\\",\\"\(n.type)\\":{\\"title\\":\\"A title\\"}}",
            "{\\"type\\":\\"\(n.type)\\",\\"text\\":\\"no payload\\"}",
        };
        static const cellhost_samples samples = { sizeof samples, 2, sample_messages };

        static const void *get_extension(const char *id) {
            return strcmp(id, CELLHOST_EXT_SAMPLES) == 0 ? &samples : NULL;
        }

        static const cellhost_method methods[] = {
            CELLHOST_METHOD(CELLHOST_SEL_RENDER, CELLHOST_TYPES_RENDER, render),
        };
        static const char *const renders[] = { "\(n.type)", NULL };
        static const cellhost_class classes[] = {
            {
                .struct_size = sizeof(cellhost_class),
                .name = "\(n.className)",
                .superclass = "MessageCell",
                .message_classes = renders,
                .methods = methods,
                .method_count = 1,
                .instance_size = sizeof(ivars),
            },
        };
        \(declaration)
        static const cellhost_plugin_descriptor descriptor = {
            .abi = CELLHOST_ABI_VERSION_INIT,
            .struct_size = sizeof(cellhost_plugin_descriptor),
            .id = "org.example.\(n.plugin)",
            .version = "0.1.0",
            .description = "Renders \(n.type) messages",
            .license = "MIT",
            .init = init,
            .deinit = deinit,
            .classes = classes,
            .class_count = 1,
        \(treeFields)    .get_extension = get_extension,
        };

        CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void) {
            return &descriptor;
        }

        """
    }

    static func cReadme(_ n: Names) -> String {
        """
        # \(n.plugin): a CellHost plugin in C

        `\(n.className)` renders `\(n.type)` messages. Edit `\(n.plugin).c`; the contract is
        `<cellhost/cellhost.h>` (in `\(n.sdk.includeDirectory)`) and
        `\(n.sdk.abiDocument)`.

        Build, check, render the sample (run here; the paths are those of the
        `cellhost` that made this directory):

        ```sh
        cc -std=c11 -Wall -shared -fPIC -I \(n.sdk.includeDirectory) \(n.plugin).c -o lib\(n.plugin).so
        \(n.executable) check-plugin ./lib\(n.plugin).so
        \(n.executable) render --plugin-path . --format plain sample.jsonl
        ```

        To use it everywhere, copy `lib\(n.plugin).so` to `~/.local/share/cellhost/plugins/`.

        """
    }

    // MARK: Swift

    static func swiftPackage(_ n: Names) -> String {
        """
        // swift-tools-version:6.0
        // \(n.camel): a CellHost plugin written with CellKit, built as a shared library.
        import PackageDescription

        let package = Package(
            name: "\(n.camel)",
            products: [.library(name: "\(n.camel)", type: .dynamic, targets: ["\(n.camel)"])],
            dependencies: [.package(name: "CellHost", path: "\(n.sdk.cellKitPackage ?? "")")],
            targets: [.target(name: "\(n.camel)", dependencies: [.product(name: "CellKit", package: "CellHost")])]
        )

        """
    }

    static func swiftSource(_ n: Names) -> String {
        let declared = n.declares ? """

                /// "\(n.type)" is new: its messages fall back to the "text" cells.
                public static let declaredMessageClasses: [(name: String, parent: String?)] = [("\(n.type)", "text")]
            """ : ""
        return """
        import CellKit

        /// Renders "\(n.type)" messages: the payload's title, and how many messages
        /// of the conversation this cell rendered (per-conversation state).
        public struct \(n.className): MessageCellRenderer {
            public static let plugin = PluginInfo(id: "org.example.\(n.plugin)", version: "0.1.0",
                                                  description: "Renders \(n.type) messages", license: "MIT")
            public static let className = "\(n.className)"
            public static let messageClasses = ["\(n.type)"]\(declared)
            /// Messages `cellhost check-plugin` renders besides its own corpus.
            public static let samples = [
                #"{"type":"\(n.type)","text":"t","\(n.type)":{"title":"A title"}}"#,
                #"{"type":"\(n.type)","text":"no payload"}"#,
            ]

            private var rendered = 0

            public init() {}

            public mutating func render(_ message: Message, into cell: inout CellBuilder,
                                        context: RenderContext) -> RenderOutcome {
                guard let title = message.string("\(n.type).title") else {
                    return .declined // no payload: the next candidate renders it
                }
                rendered += 1
                cell.append(title, style: .strong)
                cell.append("  #\\(rendered)", style: .muted)
                return .rendered
            }
        }

        @c(cellhost_plugin_entry)
        public func cellhostPluginEntry() -> UnsafeRawPointer? { CellKit.export(\(n.className).self) }

        """
    }

    static func swiftReadme(_ n: Names) -> String {
        """
        # \(n.plugin): a CellHost plugin in Swift

        `\(n.className)` renders `\(n.type)` messages. Edit
        `Sources/\(n.camel)/\(n.camel).swift`; CellKit is documented in CellHost's
        `docs/cellkit.md`, and comes from the CellHost checkout at `\(n.sdk.cellKitPackage ?? "")`.

        Build, check, render the sample (run here; the paths are those of the
        `cellhost` that made this directory):

        ```sh
        swift build -c release
        \(n.executable) check-plugin .build/release/lib\(n.camel).so
        \(n.executable) render --plugin-path .build/release --format plain sample.jsonl
        ```

        To use it everywhere, copy `.build/release/lib\(n.camel).so` to
        `~/.local/share/cellhost/plugins/`.

        """
    }
}
