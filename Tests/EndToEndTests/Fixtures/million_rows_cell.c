/* MillionRowsCell renders "million" as 1 000 000 lines ("row\n" a million
 * times, 4 000 000 bytes), appended in one call so that it is quick to run. */
#include <cellhost/cellhost.h>

static const cellhost_builder_api *builder_api(const cellhost_host *host) {
    return (const cellhost_builder_api *)host->get_extension(host, CELLHOST_EXT_BUILDER);
}
#include <string.h>

#define ROWS 1000000

static char text[ROWS * 4];

static int32_t render(cellhost_object *self, cellhost_sel cmd, const cellhost_message *msg,
                      const cellhost_context *ctx, cellhost_builder *out) {
    (void)self; (void)cmd; (void)msg;
    if (text[0] == 0) {
        for (size_t i = 0; i < ROWS; i++) memcpy(text + 4 * i, "row\n", 4);
    }
    builder_api(ctx->host)->append(out, text, sizeof text, CELLHOST_STYLE_PLAIN);
    return CELLHOST_RENDERED;
}

static const cellhost_method methods[] = {
    CELLHOST_METHOD(CELLHOST_SEL_RENDER, CELLHOST_TYPES_RENDER, render),
};
static const char *const renders[] = { "million", NULL };
static const cellhost_class classes[] = {
    { .struct_size = sizeof(cellhost_class), .name = "MillionRowsCell", .message_classes = renders, .methods = methods, .method_count = 1 },
};
static const cellhost_message_class message_classes[] = {
    { .struct_size = sizeof(cellhost_message_class), .name = "million", .parent = NULL },
};
static const cellhost_plugin_descriptor descriptor = {
    .abi = CELLHOST_ABI_VERSION_INIT,
    .struct_size = sizeof(cellhost_plugin_descriptor),
    .id = "test.million",
    .version = "1.0.0",
    .classes = classes,
    .class_count = 1,
    .message_classes = message_classes,
    .message_class_count = 1,
};

CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void);
CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void) {
    return &descriptor;
}
