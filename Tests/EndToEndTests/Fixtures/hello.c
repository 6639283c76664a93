/* A well-formed plugin: class HelloCell renders the new root message class
 * "hello", which the descriptor declares. Also the raw material the loader
 * tests truncate and patch into broken ELF files. */
#include <cellhost/cellhost.h>

static int32_t render(cellhost_object *self, cellhost_sel cmd, const cellhost_message *msg,
                      const cellhost_context *ctx, cellhost_builder *out) {
    cellhost_message_info info = { .struct_size = sizeof info };
    ctx->host->message_info(msg, &info);
    ctx->host->append(out, "Hello, ", 7, CELLHOST_STYLE_ACCENT);
    ctx->host->append(out, info.text.data, info.text.length, CELLHOST_STYLE_PLAIN);
    return CELLHOST_RENDERED;
}

static const cellhost_method methods[] = {
    { CELLHOST_SEL_RENDER, CELLHOST_TYPES_RENDER, (cellhost_imp)render },
};
static const char *const renders[] = { "hello", NULL };
static const cellhost_class classes[] = {
    { .name = "HelloCell", .superclass = NULL, .message_classes = renders, .rank = 0,
      .methods = methods, .method_count = 1 },
};
static const cellhost_message_class message_classes[] = {
    { .name = "hello", .parent = NULL },
};
static const cellhost_plugin_descriptor descriptor = {
    .abi = CELLHOST_ABI_VERSION_INIT,
    .id = "test.hello",
    .version = "1.0.0",
    .description = "Says hello",
    .author = "CellHost tests",
    .license = "MIT",
    .classes = classes,
    .class_count = 1,
    .message_classes = message_classes,
    .message_class_count = 1,
};

CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void) {
    return &descriptor;
}
