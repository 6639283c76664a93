/* hello.c: a complete CellHost plugin in C. It renders the message class
 * "hello" as "Hello, <sender name>". Build from the checkout with:
 *     cc -shared -fPIC -I Sources/CellHostABI/include hello.c -o libhello.so */
#include <cellhost/cellhost.h>
#include <string.h>

/* renderMessage:context:into: gets self and _cmd first, like every IMP. */
static int32_t hello_render(cellhost_object *self, cellhost_sel _cmd,
                            const cellhost_message *msg, const cellhost_context *ctx,
                            cellhost_builder *out)
{
    const cellhost_host *host = ctx->host; /* this plugin's host table */
    cellhost_message_info info;
    (void)self;
    (void)_cmd;

    memset(&info, 0, sizeof info);
    info.struct_size = (uint32_t)sizeof info; /* required before message_info */
    host->message_info(msg, &info);

    host->append(out, "Hello, ", 7, CELLHOST_STYLE_PLAIN);
    host->append(out, info.sender_name.data, info.sender_name.length, CELLHOST_STYLE_STRONG);
    return CELLHOST_RENDERED;
}

static const cellhost_method hello_methods[] = {
    { CELLHOST_SEL_RENDER, CELLHOST_TYPES_RENDER, (cellhost_imp)hello_render },
};
static const char *const hello_message_classes[] = { "hello", NULL };

static const cellhost_class hello_classes[] = {{
    .name = "HelloMessageCell", .superclass = "MessageCell",
    .message_classes = hello_message_classes, .rank = 0,
    .methods = hello_methods, .method_count = 1,
}};

/* "hello" is new to the host, so declare it as a root message class. */
static const cellhost_message_class hello_tree[] = {{ .name = "hello", .parent = NULL }};

static const cellhost_plugin_descriptor hello_descriptor = {
    .abi = CELLHOST_ABI_VERSION_INIT, .id = "org.example.hello", .version = "1.0.0",
    .description = "Says hello to the sender", .license = "MIT",
    .classes = hello_classes, .class_count = 1,
    .message_classes = hello_tree, .message_class_count = 1,
};

CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void);
CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void)
{
    return &hello_descriptor;
}
