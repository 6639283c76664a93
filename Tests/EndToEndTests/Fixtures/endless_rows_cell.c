/* EndlessRowsCell renders "endless" by appending 100 000 lines
 * ("row 0" … "row 99999"), each ended with line_break. */
#include <cellhost/cellhost.h>

static const cellhost_builder_api *builder_api(const cellhost_host *host) {
    return (const cellhost_builder_api *)host->get_extension(host, CELLHOST_EXT_BUILDER);
}
#include <stdio.h>

static int32_t render(cellhost_object *self, cellhost_sel cmd, const cellhost_message *msg,
                      const cellhost_context *ctx, cellhost_builder *out) {
    char text[32];
    for (int i = 0; i < 100000; i++) {
        int length = snprintf(text, sizeof text, "row %d", i);
        builder_api(ctx->host)->append(out, text, (size_t)length, CELLHOST_STYLE_PLAIN);
        builder_api(ctx->host)->line_break(out);
    }
    return CELLHOST_RENDERED;
}

static const cellhost_method methods[] = {
    CELLHOST_METHOD(CELLHOST_SEL_RENDER, CELLHOST_TYPES_RENDER, render),
};
static const char *const renders[] = { "endless", NULL };
static const cellhost_class classes[] = {
    { .struct_size = sizeof(cellhost_class), .name = "EndlessRowsCell", .message_classes = renders, .methods = methods, .method_count = 1 },
};
static const cellhost_message_class message_classes[] = {
    { .struct_size = sizeof(cellhost_message_class), .name = "endless", .parent = NULL },
};
static const cellhost_plugin_descriptor descriptor = {
    .abi = CELLHOST_ABI_VERSION_INIT,
    .struct_size = sizeof(cellhost_plugin_descriptor),
    .id = "test.endless",
    .version = "1.0.0",
    .classes = classes,
    .class_count = 1,
    .message_classes = message_classes,
    .message_class_count = 1,
};

CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void) {
    return &descriptor;
}
