// hello.cpp: the plugin of hello.c in C++17, against the same C headers.
//
// It adds the message class "hello" and renders it as
//
//     Hello, <hello.name>! (greeting <n>)
//
// C++ notes: the headers are plain C with `extern "C"` guards, so include them
// as they are. Everything the host calls is a free function; nothing may
// throw across the boundary, so the render method catches everything and
// reports a failure as CELLHOST_ERROR. Only the entry symbol is exported.
//
// Build from the repository root, then try it:
//
//     g++ -std=c++17 -shared -fPIC -I Sources/CellHostABI/include Examples/plugins/hello.cpp -o /tmp/hello/libhello.so
//     echo '{"type":"hello","hello":{"name":"Ann"}}' | cellhost render - --plugin-path /tmp/hello
#include <cellhost/cellhost.h>

#include <cstring>
#include <string>

namespace {

// The host's extension tables, asked for once in init; valid for the life of the process.
const cellhost_message_api *message_api = nullptr;
const cellhost_builder_api *builder_api = nullptr;
const cellhost_log_api *log_api = nullptr;

// The instance variables of HelloMessageCell: one zeroed block per instance,
// and the host makes one instance per class per conversation.
struct HelloIvars {
    std::uint32_t greetings;
};

extern const cellhost_class hello_class; // defined below; render needs its address

void append(cellhost_builder *out, const std::string &text, cellhost_style_bits style) {
    builder_api->append(out, text.data(), text.size(), style);
}

int32_t render(cellhost_object *self, cellhost_sel, const cellhost_message *msg,
               const cellhost_context *ctx, cellhost_builder *out) noexcept {
    try {
        auto *ivars = static_cast<HelloIvars *>(ctx->host->object_ivars(self, &hello_class));
        cellhost_string found{};
        std::string name = "world";
        switch (message_api->string(msg, "hello.name", &found)) {
        case CELLHOST_FOUND:
            name.assign(found.data, found.length);
            break;
        case CELLHOST_MISSING:
            break;
        default: // CELLHOST_WRONG_TYPE: log why, then let the next candidate try.
            log_api->log(ctx->host, CELLHOST_LOG_ERROR, "hello.name is not a string");
            return CELLHOST_ERROR;
        }
        if (ivars == nullptr)
            return CELLHOST_ERROR;
        ivars->greetings += 1;

        append(out, "Hello, ", CELLHOST_STYLE_PLAIN);
        append(out, name, CELLHOST_STYLE_STRONG);
        append(out, "! (greeting " + std::to_string(ivars->greetings) + ")", CELLHOST_STYLE_MUTED);
        return CELLHOST_RENDERED;
    } catch (...) { // std::bad_alloc, say: never let it unwind into the host
        return CELLHOST_ERROR;
    }
}

const cellhost_method methods[] = {
    CELLHOST_METHOD(CELLHOST_SEL_RENDER, CELLHOST_TYPES_RENDER, render),
};
const char *const renders[] = {"hello", nullptr};

// Aggregate initialisation in field order (designated initialisers are C++20).
const cellhost_class hello_class = {
    sizeof(cellhost_class),
    0,                       // flags
    "HelloMessageCell",      // name
    "MessageCell",           // superclass: the host's, for chrome, replies, reactions
    renders,                 // message_classes
    0,                       // rank
    sizeof methods / sizeof methods[0],
    methods,
    sizeof(HelloIvars),      // instance_size
};

// "hello" is new to the host, so declare it, as a root message class.
const cellhost_message_class tree[] = {
    {sizeof(cellhost_message_class), "hello", nullptr},
};

// Messages `cellhost check-plugin` renders with this plugin (samples.h).
const char *const sample_messages[] = {
    R"({"type":"hello","text":"hi","hello":{"name":"Ann"}})",
};
const cellhost_samples samples = {sizeof(cellhost_samples), 1, sample_messages};

const void *get_extension(const char *id) noexcept {
    return std::strcmp(id, CELLHOST_EXT_SAMPLES) == 0 ? &samples : nullptr;
}

int32_t init(const cellhost_host *host, const char **reason) noexcept {
    message_api = static_cast<const cellhost_message_api *>(host->get_extension(host, CELLHOST_EXT_MESSAGE));
    builder_api = static_cast<const cellhost_builder_api *>(host->get_extension(host, CELLHOST_EXT_BUILDER));
    log_api = static_cast<const cellhost_log_api *>(host->get_extension(host, CELLHOST_EXT_LOG));
    if (message_api == nullptr || builder_api == nullptr || log_api == nullptr) {
        *reason = "the host lacks the message, builder or log extension";
        return 1;
    }
    return 0;
}

const cellhost_plugin_descriptor descriptor = {
    CELLHOST_ABI_VERSION_INIT,
    sizeof(cellhost_plugin_descriptor),
    0,                                            // flags
    "org.example.hello",                          // id
    "2.0.0",                                      // version
    "Says hello to the name in a hello message",  // description
    "CellHost examples",                          // author
    "MIT",                                        // license
    init,
    nullptr,                                      // deinit
    &hello_class, 1,                              // classes, class_count
    1, tree,                                      // message_class_count, message_classes
    get_extension,
};

} // namespace

extern "C" CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void) {
    return &descriptor;
}
