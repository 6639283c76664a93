/* A well-formed plugin: class HelloCell renders the new root message class
 * "hello", which the descriptor declares. Also the raw material the loader
 * tests truncate and patch into broken ELF files. */
#include <cellhost/cellhost.h>

static const cellhost_builder_api *builder_api(const cellhost_host *host) {
    return (const cellhost_builder_api *)host->get_extension(host, CELLHOST_EXT_BUILDER);
}
static const cellhost_message_api *message_api(const cellhost_host *host) {
    return (const cellhost_message_api *)host->get_extension(host, CELLHOST_EXT_MESSAGE);
}

static int32_t render(cellhost_object *self, cellhost_sel cmd, const cellhost_message *msg,
                      const cellhost_context *ctx, cellhost_builder *out) {
    cellhost_message_info info = { .struct_size = sizeof info };
    message_api(ctx->host)->info(msg, &info);
    builder_api(ctx->host)->append(out, "Hello, ", 7, CELLHOST_STYLE_ACCENT);
    builder_api(ctx->host)->append(out, info.text.data, info.text.length, CELLHOST_STYLE_PLAIN);
    return CELLHOST_RENDERED;
}

static const cellhost_method methods[] = {
    CELLHOST_METHOD(CELLHOST_SEL_RENDER, CELLHOST_TYPES_RENDER, render),
};
static const char *const renders[] = { "hello", NULL };
static const cellhost_class classes[] = {
    { .struct_size = sizeof(cellhost_class), .name = "HelloCell", .superclass = NULL, .message_classes = renders, .rank = 0,
      .methods = methods, .method_count = 1 },
};
static const cellhost_message_class message_classes[] = {
    { .struct_size = sizeof(cellhost_message_class), .name = "hello", .parent = NULL },
};
static const cellhost_plugin_descriptor descriptor = {
    .abi = CELLHOST_ABI_VERSION_INIT,
    .struct_size = sizeof(cellhost_plugin_descriptor),
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
