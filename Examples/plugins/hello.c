/* hello.c: a complete CellHost plugin in C, ABI 2.0.
 *
 * It adds the message class "hello" and renders it as
 *
 *     Hello, <hello.name>! (greeting <n>)
 *
 * where <hello.name> is read from the message (default "world") and <n>
 * counts the hello messages of the conversation so far. It shows the parts
 * of the contract every plugin meets (Sources/CellHostABI/include/cellhost/):
 * the descriptor, a class with one method, a new message class, the host's
 * extensions (message, builder, log), per-class instance variables, and the
 * plugin's own "cellhost.samples" extension for `cellhost check-plugin`.
 *
 * Build from the repository root, then try it:
 *
 *     cc -std=c99 -shared -fPIC -I Sources/CellHostABI/include Examples/plugins/hello.c -o /tmp/hello/libhello.so
 *     echo '{"type":"hello","hello":{"name":"Ann"}}' | cellhost render - --plugin-path /tmp/hello
 *
 * hello.cpp and hello.rs beside this file are the same plugin in C++ and Rust.
 */
#include <cellhost/cellhost.h>
#include <stdio.h>
#include <string.h>

/* The host's extension tables, asked for once in init (host.h). They stay
 * valid for the life of the process. */
static const cellhost_message_api *message_api;
static const cellhost_builder_api *builder_api;
static const cellhost_log_api *log_api;

/* The instance variables of HelloMessageCell: one zeroed block per instance,
 * and the host makes one instance per class per conversation. */
typedef struct hello_ivars {
    uint32_t greetings;
} hello_ivars;

/* Defined below; render needs its address to find its instance variables. */
static const cellhost_class hello_class;

/* renderMessage:context:into: gets self and _cmd first, like every IMP. */
static int32_t hello_render(cellhost_object *self, cellhost_sel _cmd,
                            const cellhost_message *msg, const cellhost_context *ctx,
                            cellhost_builder *out)
{
    hello_ivars *ivars = ctx->host->object_ivars(self, &hello_class);
    cellhost_string name;
    char count[40];
    int length;
    (void)_cmd;

    switch (message_api->string(msg, "hello.name", &name)) {
    case CELLHOST_FOUND:
        break;
    case CELLHOST_MISSING:
        name.data = "world";
        name.length = 5;
        break;
    default: /* CELLHOST_WRONG_TYPE: log why, then let the next candidate try. */
        log_api->log(ctx->host, CELLHOST_LOG_ERROR, "hello.name is not a string");
        return CELLHOST_ERROR;
    }
    if (ivars == NULL)
        return CELLHOST_ERROR;
    ivars->greetings += 1;

    length = snprintf(count, sizeof count, "! (greeting %lu)", (unsigned long)ivars->greetings);
    builder_api->append(out, "Hello, ", 7, CELLHOST_STYLE_PLAIN);
    builder_api->append(out, name.data, name.length, CELLHOST_STYLE_STRONG);
    builder_api->append(out, count, (size_t)length, CELLHOST_STYLE_MUTED);
    return CELLHOST_RENDERED;
}

static const cellhost_method hello_methods[] = {
    CELLHOST_METHOD(CELLHOST_SEL_RENDER, CELLHOST_TYPES_RENDER, hello_render),
};
static const char *const hello_renders[] = { "hello", NULL };

static const cellhost_class hello_class = {
    .struct_size = sizeof(cellhost_class),
    .name = "HelloMessageCell",
    .superclass = "MessageCell", /* the host's class: chrome, replies, reactions */
    .message_classes = hello_renders,
    .methods = hello_methods,
    .method_count = sizeof hello_methods / sizeof hello_methods[0],
    .instance_size = sizeof(hello_ivars),
};

/* "hello" is new to the host, so declare it, as a root message class. */
static const cellhost_message_class hello_tree[] = {
    { .struct_size = sizeof(cellhost_message_class), .name = "hello", .parent = NULL },
};

/* Messages `cellhost check-plugin` renders with this plugin (samples.h). */
static const char *const hello_sample_messages[] = {
    "{\"type\":\"hello\",\"text\":\"hi\",\"hello\":{\"name\":\"Ann\"}}",
};
static const cellhost_samples hello_samples = {
    sizeof hello_samples, 1, hello_sample_messages,
};

static const void *hello_get_extension(const char *id)
{
    return strcmp(id, CELLHOST_EXT_SAMPLES) == 0 ? &hello_samples : NULL;
}

static int32_t hello_init(const cellhost_host *host, const char **reason)
{
    message_api = host->get_extension(host, CELLHOST_EXT_MESSAGE);
    builder_api = host->get_extension(host, CELLHOST_EXT_BUILDER);
    log_api = host->get_extension(host, CELLHOST_EXT_LOG);
    if (message_api == NULL || builder_api == NULL || log_api == NULL) {
        *reason = "the host lacks the message, builder or log extension";
        return 1;
    }
    return 0;
}

static const cellhost_plugin_descriptor hello_descriptor = {
    .abi = CELLHOST_ABI_VERSION_INIT,
    .struct_size = sizeof(cellhost_plugin_descriptor),
    .id = "org.example.hello",
    .version = "2.0.0",
    .description = "Says hello to the name in a hello message",
    .author = "CellHost examples",
    .license = "MIT",
    .init = hello_init,
    .classes = &hello_class,
    .class_count = 1,
    .message_classes = hello_tree,
    .message_class_count = 1,
    .get_extension = hello_get_extension,
};

CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void)
{
    return &hello_descriptor;
}
